// A task: one sub-topology on one partition (Java's task id
// `<subtopology>_<partition>`), with its own processor instances and stores.
// It processes the records of its source topics' partition one at a time, in
// the order handed to it.
import type { Logger } from '../logger.js'
import type { RecordView } from '../codec/record.js'
import { InMemoryKeyValueStore } from './key-value-store.js'
import { InMemoryWindowStore } from './window-store.js'
import { InMemorySessionStore } from './session-store.js'
import { TimeOrderedKeyValueBuffer } from './suppress-buffer.js'
import type { NodeRuntime } from './nodes.js'
import type { RecordCollector } from './record-collector.js'
import type { ProcessorStateManager } from './state-manager.js'
import { createTaskStores, type TaskStore, type TaskStores } from './task-stores.js'
import type { StateDirectory } from './state-directory.js'
import type { StoreDef } from './nodes.js'
import type { Serde } from './serdes.js'
import { isWindowedSerde } from './windowed-serdes.js'
import type { DeserializationFailure, DeserializationResponse } from './deserialization-handler.js'
import { PunctuationQueue } from './punctuation-queue.js'
import type { CachingStore, ThreadCache } from './record-cache.js'
import { encodePartitionTime, type PartitionTime } from './partition-time.js'
import type { Punctuator } from './processor.js'
import type { RecordContext, StreamRecord, Subtopology, Topology } from './topology.js'

/** What a task needs of the application around it. */
export interface TaskEnvironment {
  applicationId: string
  /** A topology's topic name as the cluster knows it (internal topics carry the application id). */
  topicName(topic: string): string
  changelogTopic(store: string): string
  /** The serde given, else the application's default; throws naming `where` when neither is set. */
  serde(kind: 'key' | 'value', given: Serde<any> | undefined, where: string): Serde<any>
  collector: RecordCollector
  log: Logger
  /** A record a source serde could not read: skip it ('continue') or stop ('fail'). */
  deserializationFailed(failure: DeserializationFailure): DeserializationResponse
  /** The global tables' stores (global-stores.ts), once made at start(). */
  globalStore(name: string): InMemoryKeyValueStore<unknown, unknown>
  /** Where persistent stores live; none: every store is in memory. */
  stateDirectory: StateDirectory | undefined
  /** Whether a store keeps its state in a file (Java: a persistent store), else in memory only. */
  persistent(def: StoreDef): boolean
  exactlyOnce: boolean
  /** The stream thread's record cache; none when statestoreCacheMaxBytes is 0. */
  cache: ThreadCache | undefined
}

type Process = (record: StreamRecord) => void
interface Child {
  name: string
  process: Process
}

export class StreamTask {
  readonly id: string
  readonly stores: Map<string, TaskStore>
  private readonly sources = new Map<string, (m: RecordView) => void>()
  private current: RecordContext = { topic: '', partition: -1, offset: -1n, timestamp: 0 }
  /** The largest timestamp of a record this task has taken (Java's partition group stream time); -1 before any. */
  private streamTime = -1
  /** Per source topic, the largest timestamp taken from it (Java's partition time), with the processor metadata read with it. */
  private readonly partitionTimes = new Map<string, PartitionTime>()
  private readonly streamTimePunctuations = new PunctuationQueue()
  private readonly wallClockPunctuations = new PunctuationQueue()
  private punctuating = false
  private readonly closers: Array<() => void> = []
  /** The stores behind the record cache, in the topology's order (flushed in it, as Java's state manager does). */
  private readonly cached: CachingStore[] = []
  /** The stores' files, checkpoint and restore (Java's ProcessorStateManager). */
  readonly state: ProcessorStateManager

  constructor(
    topology: Topology,
    readonly subtopology: Subtopology,
    readonly partition: number,
    env: TaskEnvironment,
    recycled?: TaskStores,
  ) {
    this.id = `${subtopology.id}_${partition}`
    // A standby's stores when it becomes active here (recycled), else new ones.
    const own = recycled ?? createTaskStores(topology, subtopology, partition, env)
    this.stores = own.stores
    this.state = own.state
    if (env.cache)
      for (const name of subtopology.stores) {
        const store = this.stores.get(name)
        const def = topology.stores.get(name)!
        if (!def.caching || def.window?.retainDuplicates) continue
        if (!(store instanceof InMemoryKeyValueStore || store instanceof InMemoryWindowStore || store instanceof InMemorySessionStore))
          continue
        // Java's window and session cache keys lead with the store key's segment id (SegmentedCacheFunction): 8 bytes more.
        const keyOverhead = store instanceof InMemoryKeyValueStore ? 0 : 8
        store.enableCaching(env.cache.named(`${this.id}-${name}`, store.flushed, keyOverhead), () => this.current)
        this.cached.push(store)
      }
    const children = new Map<string, Child[]>()
    const processes = new Map<string, Process>()
    // Parents come before their children in the topology, so a node's list is filled after it is made.
    const forwardTo = (name: string) => {
      let list = children.get(name)
      if (!list) children.set(name, (list = []))
      return list
    }
    for (const node of subtopology.nodes) {
      if (node.kind === 'source') {
        const keySerde = env.serde('key', node.keySerde, `source ${node.name}`)
        const valueSerde = env.serde('value', node.valueSerde, `source ${node.name}`)
        const next = forwardTo(node.name)
        for (const t of node.topics) {
          const topic = env.topicName(t)
          this.sources.set(topic, (m) => {
            let record: StreamRecord
            try {
              record = { key: keySerde.deserialize(topic, m.key), value: valueSerde.deserialize(topic, m.value), timestamp: m.timestampMs }
            } catch (err) {
              const failure = { taskId: this.id, topic, partition: this.partition, offset: String(m.offsetBigInt), error: err as Error }
              if (env.deserializationFailed(failure) === 'continue') return
              throw err
            }
            for (const c of next) c.process(record)
          })
        }
        continue
      }
      if (node.kind === 'sink') {
        const keySerde = env.serde('key', node.keySerde, `sink ${node.name}`)
        const valueSerde = env.serde('value', node.valueSerde, `sink ${node.name}`)
        const fixed = typeof node.topic === 'string' ? env.topicName(node.topic) : null
        const extractor = typeof node.topic === 'function' ? node.topic : null
        // A windowed key goes to its inner key's partition, as Java's sink partitions it (WindowedStreamPartitioner).
        const windowed = isWindowedSerde(keySerde) ? keySerde : null
        processes.set(node.name, (r) => {
          const topic = fixed ?? extractor!(r.key, r.value, this.current)
          const placement =
            node.partitioner?.(r.key, r.value) ?? (windowed && r.key != null ? { by: windowed.serializeBaseKey(topic, r.key) } : undefined)
          env.collector.send(topic, keySerde.serialize(topic, r.key), valueSerde.serialize(topic, r.value), r.timestamp, placement)
        })
      } else {
        const next = forwardTo(node.name)
        const runtime: NodeRuntime = {
          forward: (r, to) => {
            for (const c of next) if (to === undefined || c.name === to) c.process(r)
          },
          store: <K, V>(name: string) => {
            const s = this.stores.get(name)
            if (!(s instanceof InMemoryKeyValueStore) || !node.stores.includes(name))
              throw new Error(`processor ${node.name} is not connected to a key-value store named ${name}`)
            return s as unknown as InMemoryKeyValueStore<K, V>
          },
          forwardOnFlush: (name, sendOldValues) => {
            const s = this.stores.get(name)
            if (!(s instanceof InMemoryKeyValueStore) || !node.stores.includes(name))
              throw new Error(`processor ${node.name} is not connected to a key-value store named ${name}`)
            return s.setFlushListener((key, value, oldValue, timestamp, context) => {
              const record: StreamRecord = { key, value, timestamp }
              if (sendOldValues) (record as StreamRecord & { oldValue: unknown }).oldValue = oldValue
              this.inContext(context, () => {
                for (const c of next) c.process(record)
              })
            })
          },
          inContext: (context, fn) => this.inContext(context, fn),
          windowStore: <K, V>(name: string) => {
            const s = this.stores.get(name)
            if (!(s instanceof InMemoryWindowStore) || !node.stores.includes(name))
              throw new Error(`processor ${node.name} is not connected to a window store named ${name}`)
            return s as unknown as InMemoryWindowStore<K, V>
          },
          sessionStore: <K, V>(name: string) => {
            const s = this.stores.get(name)
            if (!(s instanceof InMemorySessionStore) || !node.stores.includes(name))
              throw new Error(`processor ${node.name} is not connected to a session store named ${name}`)
            return s as unknown as InMemorySessionStore<K, V>
          },
          suppressionBuffer: <K, V>(name: string) => {
            const s = this.stores.get(name)
            if (!(s instanceof TimeOrderedKeyValueBuffer) || !node.stores.includes(name))
              throw new Error(`processor ${node.name} is not connected to a suppression buffer named ${name}`)
            return s as unknown as TimeOrderedKeyValueBuffer<K, V>
          },
          globalStore: <K, V>(name: string) => env.globalStore(name) as InMemoryKeyValueStore<K, V>,
          context: () => this.current,
          punctuating: () => this.punctuating,
          taskId: this.id,
          applicationId: env.applicationId,
          streamTime: () => this.streamTime,
          schedule: (intervalMs, type, punctuator) => {
            if (!Number.isFinite(intervalMs) || intervalMs < 1)
              throw new RangeError(`a punctuation interval must be at least 1 ms, not ${intervalMs}`)
            // As Java's StreamTask.schedule: stream time aligned to 0 (punctuates as soon as there is data), the clock to now.
            return type === 'STREAM_TIME'
              ? this.streamTimePunctuations.add(0, intervalMs, punctuator)
              : this.wallClockPunctuations.add(Date.now() + intervalMs, intervalMs, punctuator)
          },
          onClose: (fn) => void this.closers.push(fn),
          log: env.log,
        }
        processes.set(node.name, node.make(runtime))
      }
      for (const p of node.parents) forwardTo(p).push({ name: node.name, process: processes.get(node.name)! })
    }
  }

  /** A commit's first step: the record caches' changes forwarded and logged (Java's flushCache), then what commitStores() writes. */
  flushCache(): void {
    for (const store of this.cached) store.flushCache()
  }

  /** Whether any of its stores is behind the record cache. */
  get caches(): boolean {
    return this.cached.length > 0
  }

  /** Whether a cache holds changes not yet flushed. */
  get cacheDirty(): boolean {
    return this.cached.some((s) => s.cacheDirty)
  }

  /** What a commit writes of the stores that log at commit (a suppression buffer's changed keys), into the collector. */
  commitStores(): void {
    for (const store of this.stores.values()) if (store instanceof TimeOrderedKeyValueBuffer) store.commit()
  }

  /** Runs one input record through the sub-topology. */
  process(topic: string, message: RecordView): void {
    const source = this.sources.get(topic)
    if (!source) throw new Error(`task ${this.id} reads no topic ${topic}`)
    this.current = { topic, partition: this.partition, offset: message.offsetBigInt, timestamp: message.timestampMs }
    this.streamTime = Math.max(this.streamTime, message.timestampMs)
    const time = this.partitionTimes.get(topic)
    if (!time) this.partitionTimes.set(topic, { partitionTime: message.timestampMs, processorMetadata: Buffer.alloc(0) })
    else if (message.timestampMs > time.partitionTime) time.partitionTime = message.timestampMs
    source(message)
    if (this.streamTime >= 0) this.streamTimePunctuations.punctuate(this.streamTime, this.punctuate)
  }

  /** The source topics' names as the cluster knows them (the task reads partition `partition` of each). */
  get sourceTopics(): string[] {
    return [...this.sources.keys()]
  }

  /** A committed offset's partition time (Java's initializeTaskTime): the task's stream time starts at least there. */
  restorePartitionTime(topic: string, time: PartitionTime): void {
    if (time.partitionTime < 0) return
    this.partitionTimes.set(topic, { ...time })
    this.streamTime = Math.max(this.streamTime, time.partitionTime)
  }

  /** The metadata a commit of `topic`'s offset carries: its partition time, as Java writes it. */
  commitMetadata(topic: string): string {
    const time = this.partitionTimes.get(topic)
    return encodePartitionTime(time?.partitionTime ?? -1, time?.processorMetadata)
  }

  /**
   * The punctuations due with no record to process, as Java's TaskExecutor.punctuate runs them every loop: by
   * stream time (known before any record when a committed offset carried its partition time, so a restarted task
   * punctuates at once) and by the clock at `now`. Returns whether any ran (their output then wants flushing).
   */
  punctuateDue(now: number): boolean {
    const byStreamTime = this.streamTime >= 0 && this.streamTimePunctuations.punctuate(this.streamTime, this.punctuate)
    return this.wallClockPunctuations.punctuate(now, this.punctuate) || byStreamTime
  }

  /** The processors' close(), and no punctuation after it. */
  close(): void {
    this.streamTimePunctuations.clear()
    this.wallClockPunctuations.clear()
    for (const store of this.cached.splice(0)) store.closeCache()
    for (const fn of this.closers.splice(0)) fn()
  }

  /** Runs `fn` as if `context`'s record were in hand: a cache flush forwards each change in the context of the record that made it. */
  private inContext(context: RecordContext, fn: () => void): void {
    const before = this.current
    this.current = context
    try {
      fn()
    } finally {
      this.current = before
    }
  }

  private readonly punctuate = (punctuator: Punctuator, timestamp: number): void => {
    const before = this.current
    this.current = { topic: '', partition: this.partition, offset: -1n, timestamp }
    this.punctuating = true
    try {
      punctuator(timestamp)
    } finally {
      this.punctuating = false
      this.current = before
    }
  }
}
