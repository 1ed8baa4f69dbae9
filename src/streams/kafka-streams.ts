// Java's KafkaStreams: runs a topology. Tasks are input partitions: the
// consumer (group `applicationId`: classic protocol with Java's
// StreamsPartitionAssignor, streams-partition-assignor.ts, or under
// groupProtocol 'streams' a KIP-1071 streams group whose broker assigns the
// tasks, streams-membership.ts, and creates the internal topics) hands each partition's
// records to the task `<subtopology>_<partition>`, which is made, and its
// stores restored from their changelogs, on its first batch. at_least_once:
// a batch's output (sinks, repartition topics, changelogs) is acknowledged
// before its offsets count as processed, and only processed offsets are
// committed (every commitIntervalMs, on a rebalance and on close).
// exactly_once_v2 (Java's EOS v2, KIP-447): one transactional producer
// (StreamsProducer); each commit interval's output and consumed offsets go in
// one transaction, committed every commitIntervalMs, when partitions are
// revoked and on close; a processing error aborts it (and the tasks, whose
// stores saw it, are dropped and restored from read_committed changelogs); a
// fenced producer or a generation gone means the tasks moved: close and rejoin.
import { randomUUID } from 'node:crypto'
import type { Admin } from '../admin/admin.js'
import type { Consumer } from '../consumer/consumer.js'
import type { EachBatchPayload } from '../consumer/delivery-runner.js'
import { ConsumerEvents } from '../consumer/events.js'
import { Kafka } from '../kafka.js'
import type { Logger } from '../logger.js'
import { LATEST as LATEST_OFFSET_SPEC } from '../admin/offsets.js'
import type { Producer } from '../producer/producer.js'
import { checkOptions, numberOption } from '../config/option.js'
import { KAFKA_OPTIONS } from '../cluster/options.js'
import { prepareInternalTopics } from './internal-topics.js'
import { CLOSE_OPTIONS, resolveStreamsConfig, type CloseOptions, type ResolvedStreamsConfig, type StreamsConfig } from './options.js'
import { RecordCollector } from './record-collector.js'
import { ThreadCache } from './record-cache.js'
import { isTaskMigrated, StreamsProducer, type ConsumedOffsets } from './streams-producer.js'
import { StateDirectory } from './state-directory.js'
import { GlobalStores } from './global-stores.js'
import { isFromDefault, type Serde } from './serdes.js'
import { ApplicationShutdownError, IllegalStateError, StreamsError, StreamsNotStartedError } from './streams-error.js'
import {
  defaultStreamPartitioner,
  endpointPartitions,
  StreamsMetadataState,
  type KeyQueryMetadata,
  type KeySerializer,
  type StreamPartitioner,
  type StreamsMetadata,
} from './streams-metadata.js'
import { AssignorError } from './assignment-info.js'
import { StreamsPartitionAssignor } from './streams-partition-assignor.js'
import { deserializationHandler } from './deserialization-handler.js'
import {
  InvalidStateStoreError,
  keyValueView,
  sessionView,
  windowView,
  type QueryableStoreType,
  type ReadOnlyKeyValueStore,
  type ReadOnlyWindowStore,
  type ReadOnlySessionStore,
} from './interactive-queries.js'
import type { InMemoryKeyValueStore } from './key-value-store.js'
import type { InMemoryWindowStore } from './window-store.js'
import type { InMemorySessionStore } from './session-store.js'
import { StreamTask, type TaskEnvironment } from './stream-task.js'
import { decodePartitionTime } from './partition-time.js'
import { StreamsRebalanceData, taskName } from './streams-rebalance-data.js'
import { StreamsMembership } from './streams-membership.js'
import { StandbyTasks } from './standby-tasks.js'
import { ClassicAssignment } from './classic-assignment.js'
import { TaskOffsets } from './task-offsets.js'
import type { Subtopology, Topology } from './topology.js'

/** What the uncaught-error handler answers (Java's StreamThreadExceptionResponse). */
export type StreamThreadExceptionResponse = 'REPLACE_THREAD' | 'SHUTDOWN_CLIENT' | 'SHUTDOWN_APPLICATION'

export type UncaughtExceptionHandler = (error: Error) => StreamThreadExceptionResponse

/** The first wait before a replaced stream thread starts again; doubled for each failure in a row, up to the cap. */
const REPLACE_BACKOFF_MS = 500
/** at_least_once: batches whose output may wait for its acknowledgement while the next are processed (bounds what is held). */
const MAX_UNACKED_BATCHES = 32
const REPLACE_BACKOFF_MAX_MS = 30_000
/** Classic group: how long SHUTDOWN_APPLICATION waits for the group to answer before this instance stops alone. */
const SHUTDOWN_REQUEST_MS = 30_000

/** How often wall-clock punctuations are looked at: Java's poll.ms default. */
const WALL_CLOCK_CHECK_MS = 100

/** Java's KafkaStreams.State. */
export type StreamsState = 'CREATED' | 'REBALANCING' | 'RUNNING' | 'PENDING_SHUTDOWN' | 'NOT_RUNNING' | 'PENDING_ERROR' | 'ERROR'

/** Java's StoreQueryParameters, the part that is not the name and type. */
export interface StoreQueryParameters {
  /** Also read the standby (and warm-up) tasks' copies, which may lag the active ones. Default false. */
  enableStaleStores?: boolean
}

export type StateListener = (newState: StreamsState, oldState: StreamsState) => void

// Java's KafkaStreams.State.validTransition: the states each may move to.
const NEXT: Record<StreamsState, readonly StreamsState[]> = {
  CREATED: ['REBALANCING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  REBALANCING: ['RUNNING', 'REBALANCING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  RUNNING: ['REBALANCING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  PENDING_SHUTDOWN: ['NOT_RUNNING'],
  NOT_RUNNING: [],
  PENDING_ERROR: ['ERROR'],
  ERROR: [],
}

export class KafkaStreams {
  private current: StreamsState = 'CREATED'
  private readonly config: ResolvedStreamsConfig
  private readonly kafka: Kafka
  private readonly log: Logger
  private readonly listeners = new Set<StateListener>()
  private readonly tasks = new Map<string, StreamTask>()
  /** The sub-topology reading each topic, by the name the cluster knows it. */
  private readonly readers = new Map<string, Subtopology>()
  private readonly env: TaskEnvironment
  private consumer: Consumer | undefined
  private producer: Producer | undefined
  private admin: Admin | undefined
  private stopping: Promise<void> | undefined
  private failed = false
  private uncaughtHandler: UncaughtExceptionHandler | undefined
  /** Checks the tasks' wall-clock punctuations (Java checks them in each poll loop, poll.ms 100 apart). */
  private wallClock: ReturnType<typeof setInterval> | undefined
  /** A stream thread is being replaced: its consumer leaves, a new one joins. */
  private replacing = false
  /** Replacements since the last batch processed whole: the backoff's exponent. */
  private replacements = 0
  /** at_least_once: the batches sent and not yet acknowledged, each marking its offsets processed once it is (in order). */
  private acks: Promise<void> = Promise.resolve()
  private unackedBatches = 0
  /** at_least_once: the first send that failed since this stream thread started; nothing is marked processed after it. */
  private ackFailure: unknown = undefined
  /** exactly_once_v2: the transactional producer, and what the open transaction consumed. */
  private eos: StreamsProducer | undefined
  private readonly consumed: ConsumedOffsets = new Map()
  /** exactly_once_v2: the offsets this stream thread's transactions committed. */
  private readonly committedAt = new Map<string, bigint>()
  private id: string = randomUUID()
  /** `<stateDir>/<applicationId>`, locked from start() to close(), when the topology has persistent stores. */
  private stateDirectory: StateDirectory | undefined
  /** Checkpoints (at_least_once, when enough changed: Java does at each commit) or compacts the tasks' persistent stores. */
  private checkpointTimer: ReturnType<typeof setInterval> | undefined
  /** Processing, commits and rebalances take turns (exactly_once_v2: they share one transaction). */
  private turn: Promise<void> = Promise.resolve()
  private commitTimer: ReturnType<typeof setInterval> | undefined
  /**
   * at_least_once with the record cache: per source partition, the last offset processed (and how to
   * mark it) whose cached changes are not flushed yet; marked once a flush's output is acknowledged.
   */
  private readonly unflushed = new Map<
    string,
    { last: bigint; metadata: string | null; resolveOffset: (offset: string, metadata?: string | null) => void }
  >()
  /** The global tables' stores, made at start(). */
  private globals: GlobalStores | undefined
  /** groupProtocol 'streams': the topology as the streams group sees it, and the stream thread's membership. */
  private rebalanceData: StreamsRebalanceData | undefined
  private membership: StreamsMembership | undefined
  /** The standby and warm-up tasks (standby-tasks.ts), as the streams group or the classic group's leader assigns them. */
  private standbys: StandbyTasks | undefined
  /** groupProtocol 'streams': the task offsets the heartbeat reports. */
  private readonly taskOffsets = new TaskOffsets()
  /** Where the group's instances run their tasks (queryMetadataForKey). */
  private readonly metadataState: StreamsMetadataState
  /** groupProtocol 'classic': what each AssignmentInfo says besides the partitions (standby tasks, the hosts' partitions). */
  private readonly classic: ClassicAssignment | undefined
  /** Tasks whose stores are being opened and restored (not yet in `tasks`): the cleaner leaves their directories. */
  private readonly starting = new Map<string, Promise<StreamTask>>()
  private stateDirCleaner: ReturnType<typeof setInterval> | undefined
  /** Classic group: SHUTDOWN_APPLICATION asked for (the error, and the timer stopping this instance if no answer comes). */
  private shutdownRequest: { error: unknown; timer: ReturnType<typeof setTimeout> } | undefined

  constructor(
    private readonly topology: Topology,
    options: StreamsConfig,
  ) {
    this.config = resolveStreamsConfig(options)
    this.kafka = new Kafka(this.config.client)
    this.log = this.kafka.logger().namespace('Streams')
    const { applicationId, defaultKeySerde, defaultValueSerde } = this.config
    this.env = {
      applicationId,
      topicName: (t) => (topology.internalTopics.has(t) ? `${applicationId}-${t}` : t),
      changelogTopic: (store) => `${applicationId}-${store}-changelog`,
      serde: (kind: 'key' | 'value', given: Serde<any> | undefined, where: string) => {
        // A serde built on the default one (a windowed key around the default key serde) gets it now.
        const derived = given !== undefined && isFromDefault(given) ? given : undefined
        const serde = given === undefined || derived ? (kind === 'key' ? defaultKeySerde : defaultValueSerde) : given
        if (!serde)
          throw new StreamsError(
            `${where} has no ${kind} serde: give one in the topology or set default${kind === 'key' ? 'Key' : 'Value'}Serde`,
          )
        return derived ? derived.fromDefault(serde) : serde
      },
      collector: undefined as unknown as RecordCollector,
      log: this.log,
      deserializationFailed: deserializationHandler(this.config.deserializationExceptionHandler, this.log),
      globalStore: (name: string) => {
        const store = this.globals?.get(name)
        if (!store) throw new StreamsError(`no global store ${name}: global stores are made at start()`)
        return store
      },
      stateDirectory: undefined,
      persistent: (def) => def.persistent ?? this.config.defaultDslStore === 'rocksDB',
      exactlyOnce: this.config.processingGuarantee === 'exactly_once_v2',
      // One stream thread: its cache has the whole bound (Java divides it among the threads).
      cache: this.config.statestoreCacheMaxBytes > 0 ? new ThreadCache(this.config.statestoreCacheMaxBytes) : undefined,
    }
    for (const sub of topology.subtopologies()) for (const t of sub.sourceTopics) this.readers.set(this.env.topicName(t), sub)
    const state = (this.metadataState = new StreamsMetadataState(topology, this.env.topicName, this.config.userEndpoint))
    if (this.config.groupProtocol === 'streams') {
      const data = (this.rebalanceData = new StreamsRebalanceData(topology, this.env))
      data.partitionsByHostChanged = (entries) => state.onChange(endpointPartitions(entries))
    } else
      this.classic = new ClassicAssignment(
        state,
        (standby, active) => this.standbys?.update(standby, active, this.admin!) ?? Promise.resolve(),
        (id) => this.standbys?.ids().includes(id) ?? false,
        this.log,
      )
  }

  /** Java's process id: part of the transactional id; kept in the state directory from start() when the topology has persistent stores, else random per instance. */
  get processId(): string {
    return this.id
  }

  get state(): StreamsState {
    return this.current
  }

  /** Java's setStateListener: called on every state change (replaces the previous listener). */
  setStateListener(listener: StateListener): void {
    this.listeners.clear()
    this.listeners.add(listener)
  }

  /**
   * Java's setUncaughtExceptionHandler: what a processing error does. Without
   * one, as with 'SHUTDOWN_CLIENT', the application stops in ERROR;
   * 'REPLACE_THREAD' starts the stream thread again (its consumer leaves and
   * a new one joins, so processing resumes from the last commit, after a
   * backoff that doubles while failures come in a row). Set before start().
   */
  setUncaughtExceptionHandler(handler: UncaughtExceptionHandler): void {
    if (this.current !== 'CREATED') throw new StreamsError(`setUncaughtExceptionHandler() in state ${this.current}: set it before start()`)
    if (typeof handler !== 'function') throw new TypeError('setUncaughtExceptionHandler takes a function')
    this.uncaughtHandler = handler
  }

  /**
   * Java's store(StoreQueryParameters): a read-only view of the store `name`
   * over this instance's tasks. Refused (InvalidStateStoreError) for a store
   * the topology does not have, of another type, or while not RUNNING.
   * `enableStaleStores` (Java's StoreQueryParameters.enableStaleStores): the
   * standby and warm-up tasks' copies too, readable while REBALANCING as well.
   */
  store<K, V>(name: string, type: 'keyValue', params?: StoreQueryParameters): ReadOnlyKeyValueStore<K, V>
  store<K, V>(name: string, type: 'window', params?: StoreQueryParameters): ReadOnlyWindowStore<K, V>
  store<K, V>(name: string, type: 'session', params?: StoreQueryParameters): ReadOnlySessionStore<K, V>
  store<K, V>(
    name: string,
    type: QueryableStoreType,
    params: StoreQueryParameters = {},
  ): ReadOnlyKeyValueStore<K, V> | ReadOnlyWindowStore<K, V> | ReadOnlySessionStore<K, V> {
    const stale = params.enableStaleStores === true
    // A global table's store: one store holding every partition, queried as a key-value store (as Java allows).
    if (this.topology.globalStores.has(name)) {
      if (type !== 'keyValue') throw new InvalidStateStoreError(`store ${name} is a keyValue store, not a ${type} store`)
      return keyValueView<K, V>(() => {
        if (this.current !== 'RUNNING')
          throw new InvalidStateStoreError(`store ${name} cannot be read in state ${this.current} (wait for RUNNING)`)
        return [this.globals!.get(name) as InMemoryKeyValueStore<K, V>]
      })
    }
    const def = this.topology.stores.get(name)
    if (!def) throw new InvalidStateStoreError(`no store ${name} in the topology`)
    if (def.suppressBuffer) throw new InvalidStateStoreError(`store ${name} is a suppression buffer, which is not queryable`)
    const actual: QueryableStoreType = def.window ? 'window' : def.session ? 'session' : 'keyValue'
    if (actual !== type) throw new InvalidStateStoreError(`store ${name} is a ${actual} store, not a ${type} store`)
    const locals = <S>(): S[] => {
      if (this.current !== 'RUNNING' && !(stale && this.current === 'REBALANCING'))
        throw new InvalidStateStoreError(
          `store ${name} cannot be read in state ${this.current}: its tasks may be moving (wait for RUNNING)`,
        )
      const active = [...this.tasks.values()].map((t) => t.stores.get(name)).filter((s) => s !== undefined)
      return [...active, ...(stale ? (this.standbys?.stores(name) ?? []) : [])] as S[]
    }
    if (type === 'window') return windowView<K, V>(() => locals<InMemoryWindowStore<K, V>>())
    if (type === 'session') return sessionView<K, V>(() => locals<InMemorySessionStore<K, V>>())
    return keyValueView<K, V>(() => locals<InMemoryKeyValueStore<K, V>>())
  }

  /**
   * Java's queryMetadataForKey: the instance (its applicationServer) whose
   * active task holds `key` in store `storeName`, those with a standby copy,
   * and the partition. The key's partition comes from `keySerializer` (a
   * Serde will do: murmur2 of its bytes, as the default partitioner placed
   * it) or from `partitioner`. NOT_AVAILABLE (activeHost 'unavailable':-1)
   * until the group has told where the tasks run; null for a store the
   * topology does not have. The group tells every member where the others'
   * tasks are (the broker under 'streams', the leader's AssignmentInfo under
   * 'classic'); RUNNING or REBALANCING.
   */
  queryMetadataForKey<K>(storeName: string, key: K, keySerializer: KeySerializer<K> | StreamPartitioner<K>): KeyQueryMetadata | null {
    const state = this.metadataReady()
    if (typeof storeName !== 'string') throw new TypeError("queryMetadataForKey's storeName can't be null")
    if (key === null || key === undefined) throw new TypeError("queryMetadataForKey's key can't be null")
    const partitioner =
      typeof keySerializer === 'function'
        ? keySerializer
        : typeof keySerializer?.serialize === 'function'
          ? defaultStreamPartitioner(keySerializer)
          : undefined
    if (!partitioner) throw new TypeError('queryMetadataForKey takes a key serializer (a Serde) or a partitioner function')
    return state.keyQueryMetadataForKey(storeName, key, partitioner)
  }

  /** Java's metadataForAllStreamsClients: every instance with an applicationServer that runs tasks. */
  metadataForAllStreamsClients(): StreamsMetadata[] {
    return this.metadataReady().allMetadata()
  }

  /** Java's streamsMetadataForStore: the instances whose tasks hold store `storeName` (active or standby; all for a global store). */
  streamsMetadataForStore(storeName: string): StreamsMetadata[] {
    return this.metadataReady().allMetadataForStore(storeName)
  }

  /** Java's validateIsRunningOrRebalancing. */
  private metadataReady(): StreamsMetadataState {
    if (this.current === 'CREATED')
      throw new StreamsNotStartedError('KafkaStreams has not been started, you can retry after calling start()')
    if (this.current !== 'RUNNING' && this.current !== 'REBALANCING')
      throw new IllegalStateError(`KafkaStreams is not running. State is ${this.current}.`)
    return this.metadataState
  }

  /**
   * Java's cleanUp(): deletes this application's task directories under
   * stateDir (its stores' files and checkpoints), so the next start restores
   * every store from its changelog; the process id file stays, as Java's.
   * Only before start() or after close (else IllegalStateError); refused
   * while another instance holds the directory.
   */
  cleanUp(): void {
    if (this.current !== 'CREATED' && this.current !== 'NOT_RUNNING' && this.current !== 'ERROR')
      throw new IllegalStateError('Cannot clean up while running.')
    if (!this.hasPersistentStores()) return
    ;(this.stateDirectory ?? new StateDirectory(this.config.stateDir, this.config.applicationId, this.log)).clean()
  }

  /** As Java's StateDirectory: only a topology with persistent stores has (and locks) a directory. */
  private hasPersistentStores(): boolean {
    return [...this.topology.stores.values()].some((d) => !d.suppressBuffer && this.env.persistent(d))
  }

  /** Listens to state changes; returns a function that stops listening. */
  on(event: 'stateChange', listener: StateListener): () => void {
    if (event !== 'stateChange') throw new TypeError(`KafkaStreams has no event ${String(event)} (only 'stateChange')`)
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Creates the internal topics, joins the group and starts processing; resolves once the consumer runs. */
  async start(): Promise<void> {
    if (this.current !== 'CREATED') throw new StreamsError(`start() on a KafkaStreams in state ${this.current}: only a new one starts`)
    // Every serde the topology needs is resolved now, so a missing one fails here, not on the first record.
    this.globals = new GlobalStores(this.topology, this.env.serde, this.log)
    for (const sub of this.topology.subtopologies()) new StreamTask(this.topology, sub, 0, this.env)
    this.transition('REBALANCING')
    try {
      if (this.hasPersistentStores()) {
        const dir = new StateDirectory(this.config.stateDir, this.config.applicationId, this.log)
        this.id = dir.open()
        this.env.stateDirectory = this.stateDirectory = dir
        if (this.rebalanceData) this.taskOffsets.load(dir)
        // Java's state directory cleaner: every stateCleanupDelayMs, while RUNNING, task directories no task here owns.
        const delay = this.config.stateCleanupDelayMs
        this.stateDirCleaner = setInterval(() => {
          if (this.current === 'RUNNING')
            dir.cleanRemovedTasks(
              delay,
              (id) => this.tasks.has(id) || this.starting.has(id) || (this.standbys?.ids().includes(id) ?? false),
            )
        }, delay)
        this.stateDirCleaner.unref?.()
      }
      this.standbys = new StandbyTasks(this.kafka, this.topology, this.env, this.log, (id, sum) => this.taskOffsets.closed(id, sum))
      this.admin = this.kafka.admin()
      await this.admin.connect()
      // Under the streams protocol the group coordinator creates the internal topics (and checks the source topics), as Java leaves it to.
      if (!this.rebalanceData) await prepareInternalTopics(this.admin, this.topology, this.env, this.log)
      // The global stores are read whole before anything is processed (Java's GlobalStreamThread bootstrap).
      await this.globals.start(this.kafka, this.admin, this.restoreTimeoutMs, this.exactlyOnce, (err) => this.uncaught(err))
      if (this.exactlyOnce) {
        await this.startTransactions()
        this.commitTimer = setInterval(
          () => void this.serialized(() => this.commitIfDue()).catch(this.log.caught('a timed commit failed', 'warn')),
          this.config.commitIntervalMs,
        )
      } else {
        this.producer = this.kafka.producer({ partitioner: RecordCollector.partitioner() })
        await this.producer.connect()
        this.env.collector = new RecordCollector(this.producer)
        // Java's commit: the caches flushed, their output acknowledged, then the offsets (the consumer's next auto-commit).
        if (this.env.cache) this.commitTimer = setInterval(() => this.flushCaches(), this.config.commitIntervalMs)
      }
      // at_least_once: a checkpoint once enough changed (it compacts first); exactly_once_v2 checkpoints on close only, so compacts alone.
      if (this.stateDirectory)
        this.checkpointTimer = setInterval(() => {
          for (const task of this.tasks.values()) this.exactlyOnce ? task.state.compact() : task.state.checkpoint(this.acked)
          this.standbys?.checkpoint(this.exactlyOnce)
        }, this.config.commitIntervalMs)
      await this.runConsumer()
      this.wallClock = setInterval(() => void this.punctuateIdle(), WALL_CLOCK_CHECK_MS)
      this.wallClock.unref?.()
    } catch (err) {
      this.fail(err)
      throw err
    }
  }

  /** How long a restore (or the global stores' bootstrap) may go without progress. */
  private get restoreTimeoutMs(): number {
    return numberOption(KAFKA_OPTIONS, 'defaultApiTimeoutMs', this.config.client.defaultApiTimeoutMs)
  }

  private get exactlyOnce(): boolean {
    return this.config.processingGuarantee === 'exactly_once_v2'
  }

  /** A new transactional producer (Java's thread index is 1: this is one stream thread); its connect runs initTransactions. */
  private async startTransactions(): Promise<void> {
    await this.eos?.close().catch(this.log.caught('closing the transactional producer failed', 'warn'))
    this.eos = await StreamsProducer.start(this.kafka, `${this.config.applicationId}-${this.processId}-1`)
    this.env.collector = new RecordCollector(this.eos)
  }

  /** Runs `work` after every earlier one has finished. */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work)
    this.turn = run.then(
      () => {},
      () => {},
    )
    return run
  }

  /**
   * exactly_once_v2: commits the open transaction once it is commitIntervalMs
   * old, or a transaction of offsets alone when the consumer has since moved
   * past transaction markers only.
   */
  private async commitIfDue(): Promise<void> {
    const eos = this.eos
    if (!eos || this.failed || this.replacing || !this.consumer) return
    if (eos.open && eos.age() < this.config.commitIntervalMs) return
    if (!eos.open && !this.positionsToCommit()) return
    await this.commitTransaction()
  }

  /**
   * Past what the transaction consumed, the consumer's position may have
   * skipped transaction markers (and aborted records): committed too, as
   * Java commits the position (KAFKA-6607), so a topic written in
   * transactions (a repartition topic) shows no lag. True if any moved.
   */
  private positionsToCommit(): boolean {
    let moved = false
    for (const p of this.consumer?.statistics().partitions ?? []) {
      if (p.position === null) continue
      const key = `${p.topic}\0${p.partition}`
      const position = BigInt(p.position)
      const had = this.consumed.get(key)?.offset ?? this.committedAt.get(key)
      if (had === undefined || position <= had) continue
      this.consumed.set(key, {
        topic: p.topic,
        partition: p.partition,
        offset: position,
        metadata: this.commitMetadata(p.topic, p.partition),
      })
      moved = true
    }
    return moved
  }

  /** exactly_once_v2: the held output, then the consumed offsets (with `consumer`'s group metadata), go in the transaction, which commits. */
  private async commitTransaction(consumer = this.consumer): Promise<void> {
    const eos = this.eos
    if (!eos || !consumer) return
    this.positionsToCommit()
    if (!eos.open && this.consumed.size === 0) return
    try {
      await eos.begin()
      // The caches' changes go into the transaction first (Java's prepareCommit flushes them).
      this.flushCachesInto()
      await this.env.collector.flush()
      await eos.commit(this.config.applicationId, this.consumed, consumer.groupMetadata())
      for (const [key, o] of this.consumed) this.committedAt.set(key, o.offset)
      this.consumed.clear()
    } catch (err) {
      await this.abortTransaction()
      if (isTaskMigrated(err)) void this.replaceThread(err, true)
      else this.uncaught(err)
    }
  }

  /** exactly_once_v2: nothing of the open transaction becomes visible; the tasks, whose stores saw it, go. */
  private async abortTransaction(): Promise<void> {
    this.consumed.clear()
    this.committedAt.clear()
    for (const id of [...this.tasks.keys()]) this.closeTask(id, false)
    await this.eos?.abort().catch(this.log.caught('aborting the transaction failed (the coordinator aborts it after its timeout)', 'warn'))
  }

  /** Java's StreamsPartitionAssignor for the classic group: tasks assigned by the leader, Java instances included. */
  private classicAssignor(): StreamsPartitionAssignor {
    return new StreamsPartitionAssignor({
      processId: this.processId,
      userEndpoint: this.config.userEndpoint ? `${this.config.userEndpoint.host}:${this.config.userEndpoint.port}` : undefined,
      clientTags: this.config.clientTags,
      subtopologies: this.topology.subtopologies().map((sub) => ({
        id: sub.id,
        sourceTopics: sub.sourceTopics.map((t) => this.env.topicName(t)),
        stateful: sub.stores.length > 0,
        changelogTopics: sub.stores.map((store) => this.env.changelogTopic(store)),
      })),
      // The standby tasks' offsets as they stand, over what their last checkpoints say.
      localOffsetSums: () => new Map([...(this.stateDirectory?.taskOffsetSums() ?? []), ...(this.standbys?.offsetSums() ?? [])]),
      numStandbyReplicas: this.config.numStandbyReplicas,
      rackAwareAssignmentTags: this.config.rackAwareAssignmentTags,
      acceptableRecoveryLag: this.config.acceptableRecoveryLag,
      maxWarmupReplicas: this.config.maxWarmupReplicas,
      probingRebalanceIntervalMs: this.config.probingRebalanceIntervalMs,
      changelogEndOffsets: (partitions) => this.changelogEndOffsets(partitions),
      log: this.log,
      onAssigned: (info) => this.classic?.assigned(info),
      errorCode: () => (this.shutdownRequest ? AssignorError.SHUTDOWN_REQUESTED : AssignorError.NONE),
      onError: (code) =>
        this.fail(
          code !== AssignorError.SHUTDOWN_REQUESTED
            ? new StreamsError(`the group leader's task assignment failed with AssignorError ${code}`)
            : (this.shutdownRequest?.error ??
                new ApplicationShutdownError(
                  `an instance of application ${this.config.applicationId} asked every instance to shut down (SHUTDOWN_APPLICATION)`,
                )),
        ),
    })
  }

  /** As the classic leader: the changelogs' end offsets, read_uncommitted (Java's ClientUtils.fetchEndOffsets). */
  private async changelogEndOffsets(partitions: Array<{ topic: string; partition: number }>): Promise<Map<string, Map<number, bigint>>> {
    const admin = this.admin
    if (!admin) throw new StreamsError('the admin client is not connected')
    const byTopic = new Map<string, number[]>()
    for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition])
    const ends = await Promise.all([...byTopic].map(([topic, ids]) => admin.listOffsets(topic, ids, LATEST_OFFSET_SPEC)))
    return new Map([...byTopic.keys()].map((topic, i) => [topic, ends[i]]))
  }

  /** The stream thread: a consumer of the source topics handing each batch to its task. */
  private async runConsumer(): Promise<void> {
    const consumer = (this.consumer = this.kafka.consumer({
      groupId: this.config.applicationId,
      groupProtocol: 'classic',
      // Under groupProtocol 'streams' the broker assigns and this is unused.
      partitionAssigners: [this.classicAssignor()],
      autoOffsetReset: 'earliest',
      ...(this.config.sessionTimeoutMs !== undefined && { sessionTimeoutMs: this.config.sessionTimeoutMs }),
      ...(this.config.heartbeatIntervalMs !== undefined && { heartbeatIntervalMs: this.config.heartbeatIntervalMs }),
      // Internal topics (repartition) are written in transactions: only committed ones are processed.
      isolationLevel: this.exactlyOnce ? 'read_committed' : 'read_uncommitted',
      // Java's main consumer never creates topics (the internal ones are made by the application or the group coordinator).
      allowAutoTopicCreation: false,
    }))
    const data = this.rebalanceData
    if (data)
      consumer.useMembership(
        (coordinator, config, hooks) =>
          (this.membership = new StreamsMembership(
            coordinator,
            config,
            hooks,
            data,
            { processId: this.processId, userEndpoint: this.config.userEndpoint, clientTags: this.config.clientTags },
            {
              standbys: (tasks, active) => this.standbys!.update(tasks.map(taskName), new Set(active.map(taskName)), this.admin!),
              taskOffsets: () => this.taskOffsets.sums(this.tasks.keys(), this.standbys),
              taskEndOffsets: () => this.standbys?.endOffsetSums() ?? new Map(),
            },
          )),
      )
    // Java's handleRevocation under EOS v2: one transaction holds every task, so it commits (all of them)
    // before the partitions go; lost partitions (or a failure) abort it.
    if (this.exactlyOnce)
      consumer.beforeRevoke(async (_partitions, lost) => {
        await this.started()
        await this.serialized(() => (lost || this.failed || this.replacing ? this.abortTransaction() : this.commitTransaction(consumer)))
      })
    // at_least_once: the caches flushed, and what was sent acknowledged (and marked processed), before the revoked partitions' commit.
    else
      consumer.beforeRevoke(async () => {
        await this.started()
        this.flushCaches()
        await this.acks
      })
    this.ackFailure = undefined
    consumer.on(ConsumerEvents.REBALANCING, () => this.current === 'RUNNING' && this.transition('REBALANCING'))
    // Classic: the rebalance has revoked what it revokes once it assigns (or joins with nothing new), so the
    // standby tasks follow the assignment then, before the new tasks start (one may take over a standby's stores).
    consumer.on(ConsumerEvents.GROUP_JOIN, () => {
      this.classic?.rebalanced()
      if (this.current === 'REBALANCING') this.transition('RUNNING')
    })
    consumer.on(ConsumerEvents.PARTITIONS_ASSIGNED, ({ payload }) => {
      this.classic?.rebalanced()
      this.startTasks(payload.partitions)
    })
    consumer.on(ConsumerEvents.PARTITIONS_REVOKED, ({ payload }) => this.dropTasks(payload.partitions, !payload.lost))
    consumer.on(ConsumerEvents.CRASH, ({ payload }) => {
      // Another instance's SHUTDOWN_APPLICATION: this one stops too, whatever the handler would say (as Java's shutdownErrorHook).
      if (payload.error instanceof ApplicationShutdownError) this.fail(payload.error)
      else if (!payload.restart) this.uncaught(payload.error)
    })
    await consumer.connect()
    await consumer.subscribe({ topics: [...this.readers.keys()] })
    await consumer.run({
      autoCommit: !this.exactlyOnce,
      autoCommitInterval: this.config.commitIntervalMs,
      // exactly_once_v2: a batch handled whole moves the position past the markers it ended with, committed with the next transaction.
      eachBatchAutoResolve: this.exactlyOnce,
      eachBatch: async (payload) => {
        if (this.failed || this.replacing || this.shutdownRequest) return
        if (this.exactlyOnce) return this.serialized(() => this.processTransactional(payload))
        const { batch, resolveOffset, isStale } = payload
        try {
          const done = await this.processBatch(batch, isStale)
          // With the cache, the offsets wait for the flush that sends what they led to.
          if (this.env.cache && this.tasks.get(`${this.readers.get(batch.topic)!.id}_${batch.partition}`)?.caches) {
            if (done.last !== undefined)
              this.unflushed.set(`${batch.topic}\0${batch.partition}`, {
                last: done.last,
                metadata: this.commitMetadata(batch.topic, batch.partition),
                resolveOffset,
              })
            // What the batch sent (uncached output, evicted changes) still goes now.
            this.markWhenAcknowledged(undefined, [])
          } else this.markWhenAcknowledged(done.last, [{ last: done.last, metadata: null, resolveOffset }], batch)
          if (done.failure !== undefined) {
            // What was processed before a failure is still sent and committed: nothing past it.
            this.flushCaches()
            await this.acks
            return this.uncaught(done.failure)
          }
          this.replacements = 0
          if (this.unackedBatches >= MAX_UNACKED_BATCHES) await this.acks
        } catch (err) {
          this.uncaught(err)
        }
      },
    })
  }

  /**
   * at_least_once: the batch's output is sent now, and its offsets marked
   * processed once the brokers acknowledge it, in batch order, while the
   * next batches are processed (Java's stream thread waits for its output
   * only when it commits): a commit never runs ahead of its output. A send
   * that fails stops the stream thread, and nothing is marked after it.
   */
  private markWhenAcknowledged(
    last: bigint | undefined,
    marks: Array<{ last: bigint | undefined; metadata: string | null; resolveOffset: EachBatchPayload['resolveOffset'] }>,
    batch?: EachBatchPayload['batch'],
  ): void {
    // A batch's own mark takes its partition time now; a flush's marks took theirs with their batch.
    if (batch && last !== undefined) marks[0].metadata = this.commitMetadata(batch.topic, batch.partition)
    const acked = this.env.collector.flush()
    // Awaited in order below; a failure is handled there.
    acked.catch(() => {})
    this.unackedBatches++
    this.acks = this.acks.then(async () => {
      try {
        await acked
        if (this.ackFailure === undefined) for (const m of marks) if (m.last !== undefined) m.resolveOffset(String(m.last), m.metadata)
      } catch (err) {
        if (this.ackFailure !== undefined) return
        this.ackFailure = err
        this.uncaught(err)
      } finally {
        this.unackedBatches--
      }
    })
  }

  /**
   * at_least_once: every task's record caches flushed (Java's commit), their output sent, and the
   * offsets processed before it marked once it is acknowledged. A flush that fails (a processor
   * downstream threw) stops the stream thread as a processing failure does.
   */
  private flushCaches(): void {
    if (!this.env.cache || this.failed || this.exactlyOnce) return
    try {
      this.flushCachesInto()
    } catch (err) {
      return this.uncaught(err)
    }
    if (this.unflushed.size === 0) return
    const marks = [...this.unflushed.values()]
    this.unflushed.clear()
    this.markWhenAcknowledged(undefined, marks)
  }

  /** Each task's cached changes forwarded and logged, then what its stores log at a commit; a failure names its task. */
  private flushCachesInto(): void {
    if (!this.env.cache) return
    for (const task of this.tasks.values())
      try {
        task.flushCache()
        task.commitStores()
      } catch (err) {
        throw new StreamsError(`task ${task.id} failed to flush its record cache: ${(err as Error).message}`, { cause: err })
      }
  }

  /**
   * A batch's records through its task, in order, until one fails, the
   * batch goes stale or processing stops: the last offset processed and the
   * failure, named with its task, partition and offset.
   */
  private async processBatch(
    batch: EachBatchPayload['batch'],
    isStale: () => boolean,
  ): Promise<{ last: bigint | undefined; failure: StreamsError | undefined }> {
    const task = await this.task(this.readers.get(batch.topic)!, batch.partition)
    let last: bigint | undefined
    try {
      for (const m of batch.messages) {
        if (isStale() || this.failed || this.replacing) break
        try {
          task.process(batch.topic, m)
        } catch (err) {
          const why = `task ${task.id} failed to process ${batch.topic}-${batch.partition} at offset ${m.offset}: ${(err as Error).message}`
          return { last, failure: new StreamsError(why, { cause: err }) }
        }
        last = m.offsetBigInt
      }
      return { last, failure: undefined }
    } finally {
      // Whatever is committed past (the processed offsets) has its buffered state logged with it.
      task.commitStores()
    }
  }

  /**
   * exactly_once_v2: a batch processed inside the open transaction. On a
   * failure what was processed before it is sent into the transaction and
   * the transaction aborted: none of it is visible, its offsets not committed.
   */
  private async processTransactional({ batch, resolveOffset, isStale }: EachBatchPayload): Promise<void> {
    if (this.failed || this.replacing) return
    let failure: unknown
    try {
      await this.eos!.begin()
      const { last, failure: failed } = await this.processBatch(batch, isStale)
      failure = failed
      await this.env.collector.flush()
      if (failure === undefined) {
        if (last !== undefined) {
          this.consumed.set(`${batch.topic}\0${batch.partition}`, {
            topic: batch.topic,
            partition: batch.partition,
            offset: last + 1n,
            metadata: this.commitMetadata(batch.topic, batch.partition),
          })
          resolveOffset(String(last))
        }
        this.replacements = 0
        await this.commitIfDue()
        return
      }
    } catch (err) {
      failure ??= err
    }
    await this.abortTransaction()
    if (isTaskMigrated(failure)) void this.replaceThread(failure, true)
    else this.uncaught(failure)
  }

  /**
   * Stops processing, commits what was processed and leaves the group.
   * `leaveGroup: false` (Java's default for a classic group, from its
   * rolling-bounce days) sends no leave request: the group keeps this
   * instance's tasks until its session times out.
   */
  async close(options: CloseOptions = {}): Promise<void> {
    const { leaveGroup = true } = checkOptions('close()', options, CLOSE_OPTIONS)
    if (this.current === 'NOT_RUNNING' || this.current === 'ERROR') return
    if (this.current === 'PENDING_ERROR' || this.current === 'PENDING_SHUTDOWN') return this.stopping
    this.transition('PENDING_SHUTDOWN')
    await this.shutdown(leaveGroup)
    this.transition('NOT_RUNNING')
  }

  /**
   * Java creates a task when its partitions are assigned, not at its first
   * record: its stores are restored and its punctuations run (wall-clock
   * ones, and by a stream time the commit carried) with no input yet.
   */
  private startTasks(partitions: Array<{ topic: string; partitions: number[] }>): void {
    for (const { topic, partitions: list } of partitions) {
      const sub = this.readers.get(topic)
      if (sub) for (const p of list) this.task(sub, p).catch((err) => this.uncaught(err))
    }
  }

  /** Every task being started, settled: a revoke waits for them, so that it closes what they opened. */
  private started(): Promise<unknown> {
    return Promise.allSettled(this.starting.values())
  }

  /** The task of `sub` on `partition`: running, being started (one start however many ask), or started now. */
  private task(sub: Subtopology, partition: number): Promise<StreamTask> {
    const id = `${sub.id}_${partition}`
    const known = this.tasks.get(id)
    if (known) return Promise.resolve(known)
    let starting = this.starting.get(id)
    if (!starting) {
      starting = this.startTask(sub, partition, id).finally(() => this.starting.delete(id))
      this.starting.set(id, starting)
    }
    return starting
  }

  private async startTask(sub: Subtopology, partition: number, id: string): Promise<StreamTask> {
    // A standby of this task here hands its stores over: only the tail it had not read is restored.
    await this.classic?.ready(id)
    const recycled = this.standbys?.take(id)
    const task = new StreamTask(this.topology, sub, partition, this.env, recycled)
    try {
      await this.restorePartitionTimes(task)
      if (recycled) await task.state.catchUp(this.kafka, this.admin!, this.restoreTimeoutMs)
      else await task.state.initialize(this.kafka, this.admin!, this.restoreTimeoutMs)
    } catch (err) {
      task.state.close(false, this.acked)
      throw err
    }
    this.tasks.set(id, task)
    this.log.info('task running', { task: id, applicationId: this.config.applicationId })
    return task
  }

  /** What a commit of a source partition's offset carries: its task's partition time (Java's TopicPartitionMetadata); null without a task. */
  private commitMetadata(topic: string, partition: number): string | null {
    const sub = this.readers.get(topic)
    return (sub && this.tasks.get(`${sub.id}_${partition}`)?.commitMetadata(topic)) ?? null
  }

  /**
   * A new task's stream time from its source partitions' committed
   * metadata, as Java's initializeTaskTime: it goes on from where the last
   * owner (this instance before a restart, another one, or Java's) was.
   */
  private async restorePartitionTimes(task: StreamTask): Promise<void> {
    const groupId = this.config.applicationId
    const committed = await this.admin!.fetchOffsets({ groupId, topics: task.sourceTopics })
    for (const { topic, partitions } of committed) {
      const p = partitions.find((x) => x.partition === task.partition)
      const unreadable = (why: string) => this.log.warn('a committed partition time was not read', { task: task.id, topic, why })
      if (p && p.offset !== '-1') task.restorePartitionTime(topic, decodePartitionTime(p.metadata, unreadable))
    }
  }

  /** The last offset acknowledged of a changelog partition, for checkpoints. */
  private readonly acked = (topic: string, partition: number) => this.env.collector?.ackedOffset(topic, partition)

  /**
   * A task that goes: its processors' close(), with an error logged, not
   * thrown (the others close too), then its stores' files. `clean`: what it
   * processed was committed (under exactly_once_v2 only then is its checkpoint written).
   */
  private closeTask(id: string, clean: boolean): void {
    const task = this.tasks.get(id)
    if (!task) return
    this.tasks.delete(id)
    // Offsets whose cached output was not flushed (a dirty close drops it) are never marked.
    for (const topic of task.sourceTopics) this.unflushed.delete(`${topic}\0${task.partition}`)
    try {
      task.close()
    } catch (err) {
      this.log.error('a processor failed to close', { task: id, error: (err as Error).message })
    }
    try {
      task.state.close(clean, this.acked)
    } catch (err) {
      this.log.error("closing a task's stores failed", { task: id, error: (err as Error).message })
    }
    // exactly_once_v2 closing dirty leaves no checkpoint: the next start restores the task whole, so it holds nothing to report.
    if (!this.stateDirectory) return
    if (!clean && this.exactlyOnce) this.taskOffsets.dropped(id)
    else this.taskOffsets.closed(id, task.state.offsetSum(true))
  }

  /** Punctuations due without a record (wall-clock ones, and a restarted task's by stream time), in every task; their output is flushed as a batch's is (under exactly_once_v2, into the transaction, between batches and commits). */
  private punctuateIdle(): Promise<void> {
    return this.exactlyOnce ? this.serialized(() => this.punctuateIdleNow()) : this.punctuateIdleNow()
  }

  private async punctuateIdleNow(): Promise<void> {
    if (this.failed || this.replacing || this.stopping || this.current !== 'RUNNING') return
    let ran = false
    try {
      for (const task of this.tasks.values()) ran = task.punctuateDue(Date.now()) || ran
      for (const task of this.tasks.values()) task.commitStores()
      if (ran) await this.env.collector.flush()
    } catch (err) {
      this.uncaught(new StreamsError(`a punctuation failed: ${(err as Error).message}`, { cause: err }))
    }
  }

  private dropTasks(partitions: Array<{ topic: string; partitions: number[] }>, clean: boolean): void {
    for (const { topic, partitions: list } of partitions) {
      const sub = this.readers.get(topic)
      if (sub) for (const p of list) this.closeTask(`${sub.id}_${p}`, clean)
    }
  }

  /** A processing error: the handler decides between a new stream thread and stopping. */
  private uncaught(error: unknown): void {
    if (this.failed || this.replacing || this.stopping || this.shutdownRequest) return
    let response: StreamThreadExceptionResponse = 'SHUTDOWN_CLIENT'
    if (this.uncaughtHandler) {
      try {
        response = this.uncaughtHandler(error as Error)
      } catch (err) {
        this.log.error('the uncaught-error handler threw: shutting down', { error: (err as Error).message })
      }
    }
    if (response === 'REPLACE_THREAD') return void this.replaceThread(error)
    if (response === 'SHUTDOWN_APPLICATION' && this.membership) {
      this.log.error('stream processing failed: asking every instance of the application to shut down (SHUTDOWN_APPLICATION)', {
        applicationId: this.config.applicationId,
        error: (error as Error)?.message,
      })
      // The request goes with the next heartbeat; then this instance stops.
      return void this.membership.requestShutdown().then(() => this.fail(error))
    }
    if (response === 'SHUTDOWN_APPLICATION' && this.consumer) {
      this.log.error('stream processing failed: asking every instance of the application to shut down (SHUTDOWN_APPLICATION)', {
        applicationId: this.config.applicationId,
        error: (error as Error)?.message,
      })
      // Classic group (Java's sendShutdownRequest): the request rides this member's next subscription; the
      // leader answers every member SHUTDOWN_REQUESTED, which stops this one too (or the timer does).
      const timer = setTimeout(() => this.fail(error), SHUTDOWN_REQUEST_MS)
      timer.unref?.()
      this.shutdownRequest = { error, timer }
      return void this.consumer.enforceRebalance('SHUTDOWN_APPLICATION')
    }
    if (response === 'SHUTDOWN_APPLICATION')
      this.log.error('SHUTDOWN_APPLICATION before the stream thread joined its group: shutting down this client only', {
        applicationId: this.config.applicationId,
      })
    else if (response !== 'SHUTDOWN_CLIENT')
      this.log.error(`the uncaught-error handler answered ${JSON.stringify(response)}: shutting down`, {
        applicationId: this.config.applicationId,
      })
    this.fail(error)
  }

  /**
   * REPLACE_THREAD: the consumer leaves (committing what was processed; under
   * exactly_once_v2 the transaction was aborted), its tasks go, and a new
   * consumer joins. `migrated` (Java's TaskMigratedException): the producer
   * was fenced or the group moved on, so the tasks are closed and the
   * instance rejoins at once, with a new producer, without the handler.
   */
  private async replaceThread(error: unknown, migrated = false): Promise<void> {
    if (this.replacing || this.failed || this.stopping) return
    this.replacing = true
    const waitMs = migrated ? 0 : Math.min(REPLACE_BACKOFF_MAX_MS, REPLACE_BACKOFF_MS * 2 ** this.replacements++)
    if (migrated)
      this.log.warn('this instance lost its tasks (its producer was fenced or the group moved on): closing them and rejoining', {
        applicationId: this.config.applicationId,
        error: (error as Error)?.message,
      })
    else
      this.log.error('stream thread failed: replacing it', {
        applicationId: this.config.applicationId,
        error: (error as Error)?.message,
        retryInMs: waitMs,
      })
    if (this.current === 'RUNNING') this.transition('REBALANCING')
    const old = this.consumer
    this.consumer = undefined
    await old?.disconnect().catch(this.log.caught('leaving the group for a new stream thread failed', 'warn'))
    for (const id of [...this.tasks.keys()]) this.closeTask(id, false)
    if (this.eos)
      try {
        await this.serialized(() => this.abortTransaction())
        await this.startTransactions()
      } catch (err) {
        this.replacing = false
        return this.fail(err)
      }
    await new Promise((r) => setTimeout(r, waitMs))
    this.replacing = false
    if (this.stopping || this.failed) return
    await this.runConsumer().catch((err) => this.fail(err))
  }

  /** Processing cannot go on (Java's SHUTDOWN_CLIENT): nothing more is processed or committed past it. */
  private fail(error: unknown): void {
    if (this.failed) return
    this.failed = true
    clearTimeout(this.shutdownRequest?.timer)
    this.log.error('stream processing failed: shutting down', {
      applicationId: this.config.applicationId,
      error: (error as Error)?.message,
    })
    if (NEXT[this.current].includes('PENDING_ERROR')) this.transition('PENDING_ERROR')
    // As Java's closeToError: no leave request. Under SHUTDOWN_APPLICATION the other instances may still be
    // syncing the assignment that tells them to stop: a leave now would start a rebalance that loses it.
    void this.shutdown(false).then(() => this.current === 'PENDING_ERROR' && this.transition('ERROR'))
  }

  private shutdown(leaveGroup: boolean): Promise<void> {
    this.stopping ??= (async () => {
      const log = (what: string) => this.log.caught(`${what} failed while closing`, 'warn')
      clearInterval(this.commitTimer)
      clearInterval(this.stateDirCleaner)
      this.classic?.close()
      await this.consumer?.disconnect({ leaveGroup }).catch(log('leaving the group'))
      await this.globals?.stop().catch(log("stopping the global stores' consumer"))
      await this.producer?.disconnect().catch(log('closing the producer'))
      if (this.eos) await this.serialized(() => this.abortTransaction()).catch(log('aborting the transaction'))
      await this.eos?.close().catch(log('closing the transactional producer'))
      await this.admin?.disconnect().catch(log('closing the admin client'))
      clearInterval(this.wallClock)
      clearInterval(this.checkpointTimer)
      for (const id of [...this.tasks.keys()]) this.closeTask(id, !this.failed)
      await this.standbys?.close().catch(log('closing the standby tasks'))
      this.stateDirectory?.close()
    })()
    return this.stopping
  }

  private transition(next: StreamsState): void {
    const old = this.current
    if (!NEXT[old].includes(next)) throw new StreamsError(`KafkaStreams cannot go from ${old} to ${next}`)
    this.current = next
    this.log.info(`State transition from ${old} to ${next}`, { applicationId: this.config.applicationId })
    for (const l of this.listeners) l(next, old)
  }
}
