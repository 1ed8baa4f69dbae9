import type { Buffer } from 'node:buffer'
import type { LeaderConnections } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { ConnectionError, CorruptRecordError, KafkaError, WafkaError, kafkaError } from '../errors.js'
import { INT32_MAX } from '../int32.js'
import { ZERO_UUID, type Input } from '../protocol/api.js'
import {
  Fetch,
  OffsetForLeaderEpoch,
  type FetchRequest,
  type FetchResponse,
  type FetchResponsePartitionData,
} from '../protocol/messages/index.js'
import type { ResolvedConsumerConfig } from './config.js'
import { FetchSessionState, type PartitionFetch } from './fetch-session-state.js'
import { holdsZstd, recordSetEnd, truncatedClaim } from './record-set-end.js'
import { loadZstd, zstdReady } from '../codec/compression.js'
import type { OwnedPartitions, PartitionState } from './partition-state.js'
import { ReadyQueue, type Delivery } from './ready-queue.js'
import { FETCH_SESSION_LOST, STALE_METADATA } from '../error-policy.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { describeError } from '../logger.js'
import { EARLIEST, LATEST, listOffsets } from './offset-reset.js'
import type { FetchRequestFetchPartition } from '../protocol/messages/index.js'

export type { Delivery } from './ready-queue.js'

/** What a partition's part of a Fetch request asked for. */
interface Asked {
  version: number
  maxBytes: number
}

/**
 * Keeps one Fetch in flight per broker for the assigned partitions it leads.
 * A partition's position moves on when its response arrives (found from the
 * entry headers), so the next fetch goes out while user code works; at most
 * MAX_QUEUED responses per partition wait, in the ReadyQueue that hands
 * them to user code (decoded in wasm as they are taken).
 */
export class Fetcher {
  /** Fetched records waiting for user code: no new fetch goes out while their bytes exceed maxBytes. */
  private readonly ready: ReadyQueue
  private readonly inFlight = new Set<number>()
  /** Nodes with a catch-up fetch in flight (see fetchFrom's atOnce). */
  private readonly atOnceInFlight = new Set<number>()
  /** What each node's fetch in flight asked for, by partition: the version each was at as it left. */
  private readonly asking = new Map<number, Map<PartitionState, Asked>>()
  private readonly sessions = new Map<number, FetchSessionState>()
  private readonly brokerRetryAt = new Map<number, number>()
  private timer: ReturnType<typeof setTimeout> | undefined
  private running = false

  constructor(
    private readonly cluster: LeaderConnections,
    private readonly config: ResolvedConsumerConfig,
    private readonly assignment: OwnedPartitions,
    /** Where a partition goes when its offset is out of range: the topic's reset policy. */
    private readonly resetPolicy: (topic: string) => 'earliest' | 'latest' | 'none',
    private readonly onError: (err: Error) => void = () => {},
    /** Instrumentation: 'consumer.fetch_start' and 'consumer.fetch' per Fetch request, as KafkaJS emits them. */
    private readonly instrument: (event: string, payload: object) => void = () => {},
    /** Whether brokers answer fetches: failures in a row are an outage (see outage.ts). */
    private readonly reach: { failed(error: Error, nodeId: number): void; answered(nodeId: number): void } = { failed() {}, answered() {} },
  ) {
    this.ready = new ReadyQueue(config, assignment)
  }

  start(): void {
    this.running = true
    this.pump()
  }

  stop(): void {
    this.running = false
    clearTimeout(this.timer)
    this.ready.clear()
    this.wakeAll()
  }

  /** Fetches whatever became fetchable: call after assignment, seek, resume or take. */
  pump(): void {
    if (!this.running) return
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.ready.bytes >= this.config.maxBytes) return // take() pumps again
    const now = Date.now()
    const byNode = new Map<number, PartitionState[]>()
    let atOnce: Map<number, PartitionState[]> | undefined
    let wakeAt = Infinity
    let missingLeader = false
    const resets: PartitionState[] = []
    for (const s of this.assignment.values()) {
      if (s.resetTo !== null) {
        if (s.retryAt <= now) resets.push(s)
        else wakeAt = Math.min(wakeAt, s.retryAt)
        continue
      }
      if (!s.fetchable) {
        if (s.retryAt > now && !s.paused) wakeAt = Math.min(wakeAt, s.retryAt)
        continue
      }
      const info = this.cluster.metadata.partition(s.topic, s.partition)
      const leader = info?.leader ?? -1
      if (info && info.leaderEpoch > s.validatedEpoch) {
        // A new leader epoch: check the position still exists there before fetching on (KIP-320).
        if (s.lastFetchedEpoch >= 0 && s.validatedEpoch >= 0 && leader >= 0) {
          void this.validate(s, leader, info.leaderEpoch)
          continue
        }
        s.validated(info.leaderEpoch)
      }
      if (leader < 0) {
        missingLeader = true
        s.backoff(this.config.retryBackoffMs)
        wakeAt = Math.min(wakeAt, s.retryAt)
        continue
      }
      // The leader, or the replica it named for this consumer's rack (KIP-392).
      const node = s.fetchNode(leader, now)
      const brokerAt = this.brokerRetryAt.get(node) ?? 0
      if (brokerAt > now) {
        wakeAt = Math.min(wakeAt, brokerAt)
        continue
      }
      if (this.inFlight.has(node)) {
        // Moved (a seek, a handler's retry) while its fetch is out: fetch it now rather than after that long poll.
        const out = this.asking.get(node)?.get(s)
        if (out !== undefined && out.version !== s.version && !this.atOnceInFlight.has(node)) {
          atOnce ??= new Map()
          const list = atOnce.get(node)
          if (list) list.push(s)
          else atOnce.set(node, [s])
        }
        continue
      }
      const list = byNode.get(node)
      if (list) list.push(s)
      else byNode.set(node, [s])
    }
    if (missingLeader)
      this.cluster
        .refreshMetadata()
        .catch(this.cluster.log('Fetcher').caught('metadata refresh for partitions without a leader failed; the next pump tries again'))
    this.reset(resets)
    for (const [node, parts] of byNode) void this.fetchFrom(node, parts)
    if (atOnce) for (const [node, parts] of atOnce) void this.fetchFrom(node, parts, true)
    if (wakeAt !== Infinity) {
      this.timer = setTimeout(() => this.pump(), Math.min(INT32_MAX, Math.max(1, wakeAt - now)))
      this.timer.unref?.()
    }
  }

  /** True when fetched data (or an error) is waiting. */
  get hasReady(): boolean {
    return this.ready.hasReady
  }

  /** Resolves when data or an error is ready, or on wakeAll(). */
  waitForData(): Promise<void> {
    return this.running ? this.ready.wait() : Promise.resolve()
  }

  /** Wakes whoever waits for data (to stop, rebalance, or look again). */
  wakeAll(): void {
    this.ready.wakeAll()
  }

  /** The next partition's records, decoded (see ReadyQueue.take); each record set taken makes room for the next fetch. */
  take(): Delivery | undefined {
    return this.ready.take(() => this.pump())
  }

  /**
   * One Fetch to `node` for `parts`. `atOnce`: while the node's fetch is
   * out (a long poll answered one request at a time per connection), a
   * fetch for partitions that moved since it left, which must not wait for
   * it (KafkaJS fetches again only once a batch is handled, so a seek or a
   * retry there acts at once): sessionless (the session's fetch is out),
   * no wait (maxWaitMs 0), on the broker's second connection (the group
   * lane, whose requests are short; its answer cannot queue behind the long
   * poll).
   */
  private async fetchFrom(node: number, parts: PartitionState[], atOnce = false): Promise<void> {
    const inFlight = atOnce ? this.atOnceInFlight : this.inFlight
    inFlight.add(node)
    /** Each partition's version and partitionMaxBytes as the request left. */
    const asked = new Map<PartitionState, Asked>()
    for (const p of parts) {
      p.startFetch()
      asked.set(p, { version: p.version, maxBytes: this.partitionMaxBytes(p) })
    }
    if (!atOnce) this.asking.set(node, asked)
    let session: FetchSessionState | undefined
    try {
      let version: number
      let names: Map<string, string>
      let res: FetchResponse
      let broker: string
      const started = Date.now()
      if (atOnce) {
        const answer = await this.cluster.request(
          Fetch,
          (v) => {
            const built = this.buildRequest(new FetchSessionState(false), parts, v)
            names = built.names
            return { ...built.body, maxWaitMs: 0 }
          },
          Routes.node(node),
          { lane: 'group', retryMs: 0, timeoutMs: this.config.requestTimeoutMs },
        )
        ;({ version, res, broker } = answer)
      } else {
        const conn = await this.cluster.connection(node)
        // Halted while the connection was awaited (a corrupt batch found as it was handed over): not asked for again.
        const halted = parts.filter((p) => p.halted)
        for (const p of halted) p.endFetch(asked.get(p)!.version)
        if (halted.length > 0) parts = parts.filter((p) => !p.halted)
        if (parts.length === 0) return
        version = conn.versionFor(Fetch)
        broker = conn.name
        session = this.sessions.get(node)
        if (!session) this.sessions.set(node, (session = new FetchSessionState(version >= 7)))
        const built = this.buildRequest(session, parts, version)
        names = built.names
        this.instrument('consumer.fetch_start', { nodeId: node })
        res = await conn.request(Fetch, built.body, { version, timeoutMs: this.config.requestTimeoutMs + this.config.maxWaitTimeInMs })
      }
      this.reach.answered(node)
      if (res.errorCode !== 0) {
        session?.reset()
        if (!FETCH_SESSION_LOST.has(res.errorCode)) this.backOffBroker(node)
        return
      }
      session?.succeeded(res.sessionId)
      if (!atOnce)
        this.instrument('consumer.fetch', {
          nodeId: node,
          numberOfBatches: res.responses.reduce((n, t) => n + t.partitions.length, 0),
          duration: Date.now() - started,
        })
      // zstd's wasm build (16 MiB of memory on Node < 22.15) loads with the first zstd batch, not at connect; decoding is synchronous.
      if (!zstdReady() && res.responses.some((t) => t.partitions.some((p) => p.records !== null && holdsZstd(p.records)))) await loadZstd()
      let refresh = false
      for (const t of res.responses) {
        const topic = version >= 13 ? (names!.get(t.topicId) ?? this.topicName(t.topicId)) : t.topic
        if (topic === undefined) continue
        for (const p of t.partitions) if (this.handlePartition(topic, p, asked, broker, node) === 'stale metadata') refresh = true
      }
      if (refresh) {
        session?.reset()
        this.cluster.log('Fetcher').debug('partition errors say metadata is stale: refreshing', { broker })
        await this.cluster
          .refreshMetadata()
          .catch(this.cluster.log('Fetcher').caught('metadata refresh after fetch errors failed; the partitions retry after backoff'))
      }
    } catch (err) {
      session?.reset()
      this.backOffBroker(node)
      // A preferred read replica that cannot be reached: its partitions go back to their leaders.
      for (const p of parts) if (p.readReplica === node) p.forgetReadReplica()
      if (err instanceof ConnectionError || (err instanceof WafkaError && err.retriable)) {
        this.cluster
          .log('Fetcher')
          .debug('fetch failed: backing off the broker, refreshing metadata', { nodeId: node, ...describeError(err) })
        if (this.running) this.reach.failed(err as Error, node)
        this.cluster.refreshMetadata().catch(this.cluster.log('Fetcher').caught('metadata refresh after a failed fetch failed'))
      } else {
        this.onError(err as Error)
      }
    } finally {
      for (const p of parts) p.endFetch(asked.get(p)!.version)
      inFlight.delete(node)
      if (!atOnce) this.asking.delete(node)
      this.pump()
    }
  }

  /**
   * The Fetch request for these partitions (full or incremental, as the
   * session says), and the topic names by id for reading the response. The
   * generated encoder drops the fields a version lacks; topics go by name
   * and by id, the version picks one.
   */
  private buildRequest(session: FetchSessionState, parts: PartitionState[], version: number) {
    const request = session.build(parts.map((p) => this.partitionFetch(p)))
    const names = new Map<string, string>()
    const topicRef = (topic: string) => {
      const topicId = this.cluster.metadata.topics.get(topic)?.topicId ?? ZERO_UUID
      if (version >= 13) names.set(topicId, topic)
      return { topic, topicId }
    }
    const topics = groupBy(
      request.partitions,
      (p) => p.topic,
      (p) => p,
    )
    const forgotten = groupBy(
      request.forgotten,
      (f) => f.topic,
      (f) => f.partition,
    )
    const body: Input<FetchRequest> = {
      maxWaitMs: this.config.maxWaitTimeInMs,
      minBytes: this.config.minBytes,
      maxBytes: this.config.maxBytes,
      isolationLevel: this.config.isolationLevel,
      sessionId: request.sessionId,
      sessionEpoch: request.sessionEpoch,
      topics: [...topics].map(([topic, ps]) => ({
        ...topicRef(topic),
        partitions: ps.map((p) => ({
          partition: p.partition,
          currentLeaderEpoch: p.currentLeaderEpoch,
          fetchOffset: p.fetchOffset,
          // Not ignorable: before v12 the position is checked by OffsetForLeaderEpoch instead (validate()).
          ...(version >= 12 ? ({ lastFetchedEpoch: p.lastFetchedEpoch } satisfies Partial<FetchRequestFetchPartition>) : {}),
          partitionMaxBytes: p.maxBytes,
        })),
      })),
      // Sessionless (before v7) a request forgets nothing.
      forgottenTopicsData: [...forgotten].map(([topic, partitions]) => ({ ...topicRef(topic), partitions })),
      rackId: this.config.rackId ?? '',
    }
    return { body, names }
  }

  /**
   * One partition's part of a Fetch response: its records queued for user
   * code (the position moves past them), or its error handled. Data for a
   * partition sought, reset or revoked since the request left is dropped.
   */
  private handlePartition(
    topic: string,
    p: FetchResponsePartitionData,
    asked: Map<PartitionState, Asked>,
    broker: string,
    node: number,
  ): 'stale metadata' | undefined {
    const state = this.assignment.get(topic, p.partitionIndex)
    if (!state || state.fetchPosition === null) return
    const ask = asked.get(state)
    if (ask === undefined || ask.version !== state.version) return
    if (p.errorCode !== 0 && state.readReplica === node) {
      // A follower's error (behind the leader, out of the ISR, moved) is not the partition's: back to the leader, as Java.
      state.forgetReadReplica()
      state.backoff(this.config.retryBackoffMs)
      return
    }
    if (p.preferredReadReplica >= 0 && p.preferredReadReplica !== node) {
      // KIP-392: the leader names a replica in this consumer's rack; fetch there until metadata.max.age.ms.
      state.preferReplica(p.preferredReadReplica, Date.now() + this.config.metadataMaxAgeMs)
      return
    }
    state.sawHighWatermark(p.highWatermark)
    if (p.errorCode === ErrorCodes.OFFSET_OUT_OF_RANGE) this.outOfRange(state)
    else if (STALE_METADATA.has(p.errorCode)) {
      // Fresh metadata (a new leader, a new epoch) lets the fetch go on.
      state.backoff(this.config.retryBackoffMs)
      return 'stale metadata'
    } else if (p.errorCode !== 0) {
      state.halt()
      this.ready.push({
        error: kafkaError(p.errorCode, { api: 'Fetch', broker, detail: `${topic}-${p.partitionIndex} at offset ${state.fetchPosition}` }),
      })
    } else if (p.divergingEpoch.epoch >= 0 && p.divergingEpoch.endOffset >= 0n && p.divergingEpoch.endOffset < state.fetchPosition) {
      // The log was truncated below our position (KIP-320, v12+): go back to where it diverged.
      state.seek(p.divergingEpoch.endOffset)
    } else if (p.records && p.records.length > 0) {
      const fetchOffset = state.fetchPosition
      const end = recordSetEnd(p.records, fetchOffset)
      if (end.nextOffset <= fetchOffset) {
        this.noProgress(state, p.records, ask.maxBytes, broker)
        return
      }
      state.fetched(end.nextOffset, end.lastEpoch)
      this.ready.push({
        state,
        version: state.version,
        fetchOffset,
        nextOffset: end.nextOffset,
        records: p.records,
        aborted: p.abortedTransactions,
        highWatermark: p.highWatermark,
      })
    }
    return
  }

  /**
   * Asks the new leader where the epoch of the last fetched batch ended
   * (OffsetForLeaderEpoch). A position past that end was truncated away
   * (an unclean election): consumption goes back to the end offset, as Java
   * does with a reset policy. Fetch v12+ brokers report this themselves
   * (divergingEpoch), so they are not asked; neither are brokers without v2+.
   */
  private async validate(s: PartitionState, leader: number, leaderEpoch: number): Promise<void> {
    s.startValidating()
    const version = s.version
    try {
      const conn = await this.cluster.connection(leader)
      if (conn.versionFor(Fetch) >= 12 || !conn.supports(OffsetForLeaderEpoch, 2)) {
        s.validated(leaderEpoch)
        return
      }
      const res = await this.cluster.send(leader, OffsetForLeaderEpoch, () => ({
        replicaId: -1,
        topics: [
          { topic: s.topic, partitions: [{ partition: s.partition, currentLeaderEpoch: leaderEpoch, leaderEpoch: s.lastFetchedEpoch }] },
        ],
      }))
      const answer = res.topics[0]?.partitions[0]
      if (!answer || s.version !== version) return
      if (answer.errorCode !== 0) {
        s.backoff(this.config.retryBackoffMs)
        this.cluster.log('Fetcher').debug('OffsetForLeaderEpoch failed: retrying after fresh metadata', {
          topic: s.topic,
          partition: s.partition,
          errorCode: answer.errorCode,
        })
        await this.cluster.refreshMetadata().catch(this.cluster.log('Fetcher').caught('metadata refresh after OffsetForLeaderEpoch failed'))
        return
      }
      s.validated(leaderEpoch)
      if (answer.endOffset >= 0n && s.fetchPosition !== null && answer.endOffset < s.fetchPosition) s.seek(answer.endOffset)
    } catch (err) {
      this.cluster
        .log('Fetcher')
        .debug('leader epoch validation failed: retrying after backoff', { topic: s.topic, partition: s.partition, ...describeError(err) })
      s.backoff(this.config.retryBackoffMs)
    } finally {
      s.endValidating()
      this.pump()
    }
  }

  private partitionFetch(p: PartitionState): PartitionFetch {
    return {
      topic: p.topic,
      partition: p.partition,
      fetchOffset: p.fetchPosition!,
      currentLeaderEpoch: this.cluster.metadata.partition(p.topic, p.partition)?.leaderEpoch ?? -1,
      lastFetchedEpoch: p.lastFetchedEpoch,
      maxBytes: this.partitionMaxBytes(p),
    }
  }

  private partitionMaxBytes(p: PartitionState): number {
    return Math.max(p.fetchBytes, this.config.maxBytesPerPartition)
  }

  /**
   * A partition's records that do not move its position. A batch cut short
   * with no whole one before it: a broker that cuts at partitionMaxBytes
   * (before KIP-74) is asked again for the whole batch, up to the configured
   * maximum; past that, or when the broker cut it short though asked for
   * enough, the partition halts with a typed error (never a re-fetch of the
   * same bytes in a loop). Whole batches that all end before the position
   * are a broker fault too.
   */
  private noProgress(state: PartitionState, records: Buffer, asked: number, broker: string): void {
    const where = `${state.topic}-${state.partition} at offset ${state.fetchPosition}`
    const claimed = truncatedClaim(records)
    const ceiling = Math.max(this.config.maxBytes, this.config.maxBytesPerPartition)
    if (claimed !== undefined && claimed > asked && claimed <= ceiling) {
      state.askFor(claimed)
      return
    }
    state.halt()
    if (claimed !== undefined && claimed > ceiling) {
      this.ready.push({
        error: kafkaError(ErrorCodes.MESSAGE_TOO_LARGE, {
          api: 'Fetch',
          broker,
          detail: `${where}: a record batch claims ${claimed} bytes, more than maxBytes (${ceiling}); raise maxBytes to read it`,
        }),
      })
    } else if (claimed !== undefined) {
      this.ready.push({
        error: new CorruptRecordError(
          'truncated',
          `${where}: ${broker} sent ${records.length} bytes of a record batch of ${claimed} bytes, though ${asked} were asked for`,
        ),
      })
    } else {
      this.ready.push({
        error: new CorruptRecordError(
          'offsets',
          `${where}: ${broker} sent ${records.length} bytes of records that end before the offset asked for`,
        ),
      })
    }
  }

  private topicName(topicId: string): string | undefined {
    for (const t of this.cluster.metadata.topics.values()) if (t.topicId === topicId) return t.name
    return undefined
  }

  private backOffBroker(leader: number): void {
    this.brokerRetryAt.set(leader, Date.now() + this.config.retryBackoffMs)
  }

  private outOfRange(state: PartitionState): void {
    const policy = this.resetPolicy(state.topic)
    if (policy === 'none') {
      state.halt()
      this.ready.push({
        error: kafkaError(ErrorCodes.OFFSET_OUT_OF_RANGE, {
          api: 'Fetch',
          detail: `${state.topic}-${state.partition} at offset ${state.fetchPosition}, and autoOffsetReset is 'none'`,
        }),
      })
      return
    }
    this.cluster.log('Fetcher').error('Offset out of range, resetting to default offset', {
      groupId: this.config.groupId,
      topic: state.topic,
      partition: state.partition,
      offset: String(state.fetchPosition),
      reset: policy,
    })
    state.reset(policy)
  }

  /**
   * Moves partitions waiting for a reset to the earliest or latest offset
   * (the last stable offset under read_committed), by ListOffsets.
   */
  reset(states: PartitionState[]): void {
    const pending = states.filter((s) => s.resetTo !== null && !s.fetching)
    if (pending.length === 0) return
    for (const s of pending) s.startFetch()
    const byTopicAndTime = groupBy(
      pending,
      (s) => `${s.resetTo}\u0000${s.topic}`,
      (s) => s,
    )
    for (const group of byTopicAndTime.values()) {
      const { topic, resetTo } = group[0]
      const versions = group.map((s) => s.version)
      listOffsets(
        this.cluster,
        topic,
        group.map((s) => s.partition),
        resetTo === 'earliest' ? EARLIEST : LATEST,
        this.config.isolationLevel,
      )
        .then(
          (offsets) => {
            group.forEach((s, i) => {
              const offset = offsets.get(s.partition)
              if (s.version === versions[i] && offset !== undefined && offset >= 0n && s.resetTo !== null) s.seek(offset)
            })
          },
          (err) => {
            for (const s of group) s.backoff(this.config.retryBackoffMs)
            if (!(err instanceof KafkaError || err instanceof ConnectionError) || !(err as WafkaError).retriable)
              this.ready.push({ error: err })
          },
        )
        .finally(() => {
          group.forEach((s, i) => s.endFetch(versions[i]))
          this.pump()
        })
    }
  }
}

function groupBy<T, V>(items: Iterable<T>, key: (item: T) => string, value: (item: T) => V): Map<string, V[]> {
  const out = new Map<string, V[]>()
  for (const item of items) {
    const k = key(item)
    const list = out.get(k)
    if (list) list.push(value(item))
    else out.set(k, [value(item)])
  }
  return out
}
