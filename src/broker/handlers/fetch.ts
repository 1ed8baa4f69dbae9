import type { Buffer } from 'node:buffer'
import type { Input } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { Fetch, type FetchRequest, type FetchResponse, type FetchResponsePartitionData } from '../../protocol/messages/Fetch.js'
import type { VirtualBroker } from '../broker.js'
import type { EmbeddedCluster } from '../cluster.js'
import { FetchPartitions, sessionKey, type FetchSession, type SessionPartition } from '../fetch-sessions.js'
import type { SessionWatch } from '../fetch-session-watch.js'
import { defineHandler, type RequestContext } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed, allowedNames } from '../auth/authorizer.js'
import type { ClientConnection } from '../listener.js'
import type { PartitionLog } from '../partition-log.js'
import { StorageError } from '../storage/disk-io.js'
import { CorruptBatchError } from '../storage/segment.js'
import { preferredReadReplica } from '../replica-selector.js'
import { INT32_MAX } from '../../int32.js'

type PartitionData = Input<FetchResponsePartitionData>

const READ_COMMITTED = 1
/** KIP-227: epoch 0 asks for a new session, -1 (final) for none. */
const INITIAL_EPOCH = 0
const FINAL_EPOCH = -1

/**
 * The record set of an answer without records (an error, a diverging epoch, a preferred read replica): empty, never
 * null, as Kafka's log reads answer; librdkafka refuses a whole response holding a null one ("invalid MessageSetSize -1").
 */
const NO_RECORDS: Buffer[] = []

function failed(partitionIndex: number, errorCode: number): PartitionData {
  return {
    partitionIndex,
    errorCode,
    highWatermark: -1n,
    lastStableOffset: -1n,
    logStartOffset: -1n,
    abortedTransactions: null,
    records: NO_RECORDS,
  }
}

/** A placeholder, replaced before an answer is used. */
const NO_ANSWER = failed(-1, ErrorCodes.UNKNOWN_SERVER_ERROR)

/** One partition's answer, as last read in this request. */
interface Answer {
  data: PartitionData
  bytes: number
  /** A follower's fetch: the bytes read for a partition under this leader's replication throttle. */
  throttledBytes: number
  /** The leader to name (v16 nodeEndpoints) when the answer is NOT_LEADER_OR_FOLLOWER-like, else -1. */
  leader: number
  /** Whether it must be read again without news: it has records, an error, a redirect, or its read was cut or throttled. */
  again: boolean
}

/** One pass over the partitions `toRead` (in session order): what can be answered now. */
interface Pass {
  bytes: number
  errors: boolean
  /** A partition answered with a preferred read replica: the response goes at once (as Kafka's). */
  redirected: boolean
  throttledBytes: number
  leaders: Set<number>
}

/**
 * Reads `toRead`, the partitions that changed since their last read (or
 * every one, the first time), into `answers`. The others' answers stand:
 * they read nothing (no records, no error) and their logs have not changed
 * since, so a full pass would give the same answer; as they add no bytes,
 * the ones read here get the same room (maxBytes) they would in a full pass.
 */
function readOnce(
  toRead: readonly SessionPartition[],
  answers: Map<SessionPartition, Answer>,
  watch: SessionWatch,
  req: FetchRequest,
  cluster: EmbeddedCluster,
  broker: VirtualBroker,
  version: number,
  replicaId: number,
  /** The topics the principal may READ (a follower: all, or none without CLUSTER_ACTION). */
  readable: (name: string) => boolean,
): Pass {
  const byId = version >= 13
  const pass: Pass = { bytes: 0, errors: false, redirected: false, throttledBytes: 0, leaders: new Set() }
  const throttle = broker.replicationQuotas.leader
  // KIP-392: a consumer's v11+ fetch may go to a follower (whatever the replica selector, as Kafka's),
  // which serves what it has up to its high watermark.
  const fromFollower = replicaId < 0 && version >= 11
  let room = req.maxBytes
  for (const want of toRead) {
    const answer: Answer = { data: NO_ANSWER, bytes: 0, throttledBytes: 0, leader: -1, again: true }
    let log: PartitionLog | null = null
    answer.data = ((): PartitionData => {
      const t = byId ? cluster.controller.topicsById.get(want.topicId) : cluster.controller.topics.get(want.topic)
      // A name is refused before it is known to exist; an id not known is not a topic to authorize.
      if ((t || !byId) && !readable(t?.name ?? want.topic)) return failed(want.partition, ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
      if (!t) return failed(want.partition, byId ? ErrorCodes.UNKNOWN_TOPIC_ID : ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)
      let led = cluster.leaderReplica(broker, t, want.partition)
      if (led === ErrorCodes.NOT_LEADER_OR_FOLLOWER && fromFollower) {
        const followed = cluster.followerReplica(broker, t, want.partition)
        if (typeof followed !== 'number') led = followed
      }
      const leading = typeof led !== 'number' && led.p.leader === broker.id
      const p = t.partitions[want.partition]
      // v12+ tell the client where the leader is.
      const currentLeader = version >= 12 ? { leaderId: p?.leader ?? -1, leaderEpoch: p?.leaderEpoch ?? -1 } : undefined
      if (typeof led === 'number') {
        if (p && p.leader >= 0) answer.leader = p.leader
        return { ...failed(want.partition, led), currentLeader }
      }
      if (want.currentLeaderEpoch >= 0 && want.currentLeaderEpoch !== p.leaderEpoch) {
        return {
          ...failed(
            want.partition,
            want.currentLeaderEpoch < p.leaderEpoch ? ErrorCodes.FENCED_LEADER_EPOCH : ErrorCodes.UNKNOWN_LEADER_EPOCH,
          ),
          currentLeader,
        }
      }
      if (replicaId >= 0 && !p.replicas.includes(replicaId))
        return { ...failed(want.partition, ErrorCodes.NOT_LEADER_OR_FOLLOWER), currentLeader }
      log = led.replica.log
      const offset = Number(want.fetchOffset)
      const committedOnly = req.isolationLevel === READ_COMMITTED && replicaId < 0
      const lso = log.lastStableOffset
      // A follower reads the whole log; a consumer up to the high watermark (or the LSO).
      const upTo = replicaId >= 0 ? log.logEndOffset : committedOnly ? lso : log.highWatermark
      // One object of one shape, filled in place: a spread per partition and pass (`{ ...common }`) took a fifth of the
      // broker's CPU under franz-go's ETL load (bench/results/broker-load.md).
      const data: PartitionData = {
        partitionIndex: want.partition,
        errorCode: ErrorCodes.NONE,
        highWatermark: BigInt(log.highWatermark),
        lastStableOffset: BigInt(lso),
        logStartOffset: BigInt(log.logStartOffset),
        abortedTransactions: committedOnly
          ? log.abortedBetween(offset, upTo).map((a) => ({ producerId: a.producerId, firstOffset: BigInt(a.firstOffset) }))
          : null,
        records: NO_RECORDS,
      }
      if (leading && fromFollower) {
        const preferred = preferredReadReplica(cluster, broker.id, p, led.replica, req.rackId, offset)
        if (preferred >= 0) {
          pass.redirected = true
          data.preferredReadReplica = preferred
          data.currentLeader = currentLeader
          return data
        }
      }
      // v12+: a fetcher whose last fetched epoch ends earlier here (or is unknown past an older one) has diverged,
      // and is told where to truncate to instead of being sent records (KIP-595's divergingEpoch, as Kafka's readRecords).
      if (version >= 12 && want.lastFetchedEpoch >= 0) {
        const end = log.endOffsetFor(want.lastFetchedEpoch, p.leaderEpoch)
        if (end.leaderEpoch >= 0 && (end.leaderEpoch < want.lastFetchedEpoch || end.endOffset < offset)) {
          data.divergingEpoch = { epoch: end.leaderEpoch, endOffset: BigInt(end.endOffset) }
          data.currentLeader = currentLeader
          return data
        }
      }
      // Kafka's failed log read: no offsets (-1), no aborted transactions, an empty record set.
      if (offset < log.logStartOffset || offset > log.logEndOffset) return failed(want.partition, ErrorCodes.OFFSET_OUT_OF_RANGE)
      // leader.replication.throttled.rate: a throttled replica out of the ISR gets nothing while the leader is over it (Kafka's shouldLeaderThrottle).
      const throttled = replicaId >= 0 && throttle.isThrottled(t, want.partition)
      if (throttled && !p.isr.includes(replicaId) && throttle.exceeded()) return data
      // KIP-74: the first batch goes out whole even past the limits, so a consumer always progresses.
      const limit = Math.min(want.partitionMaxBytes, room)
      if (limit > 0 || pass.bytes === 0) {
        let read: { chunks: Buffer[]; bytes: number }
        try {
          read = log.read(offset, Math.max(limit, 1), upTo)
        } catch (err) {
          if (!(err instanceof StorageError)) throw err
          // Never served, said (a corrupt batch once at ERROR, the client's retries at DEBUG): the client retries, an operator acts.
          const repeated = err instanceof CorruptBatchError && err.repeated
          cluster.problem(broker.id, `fetch from ${t.name}-${want.partition}: ${err.message}`, repeated ? 'debug' : 'error')
          return failed(want.partition, ErrorCodes.KAFKA_STORAGE_ERROR)
        }
        if (pass.bytes === 0 || read.bytes <= limit) {
          data.records = read.chunks
          answer.bytes = read.bytes
          pass.bytes += read.bytes
          room -= read.bytes
          if (throttled) pass.throttledBytes += answer.throttledBytes = read.bytes
          // Nothing there to read, nothing held back by a throttle: the same answer until its log changes.
          answer.again = read.chunks.length > 0 || throttled
        }
      }
      return data
    })()
    if (answer.data.errorCode) pass.errors = true
    if (answer.leader >= 0) pass.leaders.add(answer.leader)
    watch.watch(want, log)
    if (answer.again) watch.dirty.add(want)
    answers.set(want, answer)
  }
  return pass
}

/** Records a follower's fetch offsets at the leader (its log end), which may grow the ISR and move the high watermark. */
function followerFetch(
  wanted: Iterable<SessionPartition>,
  cluster: EmbeddedCluster,
  broker: VirtualBroker,
  byId: boolean,
  replicaId: number,
) {
  for (const want of wanted) {
    const t = byId ? cluster.controller.topicsById.get(want.topicId) : cluster.controller.topics.get(want.topic)
    if (!t) continue
    const led = cluster.leaderReplica(broker, t, want.partition)
    if (typeof led === 'number' || !led.p.replicas.includes(replicaId)) continue
    if (want.currentLeaderEpoch >= 0 && want.currentLeaderEpoch !== led.p.leaderEpoch) continue
    broker.followerFetched(t, led.p, led.replica, replicaId, Number(want.fetchOffset))
  }
}

/**
 * Waits until a partition of the fetch has news for it (an append for a
 * follower, a high watermark move for a consumer: its watch tells), `ms`
 * pass, the client goes away or the broker stops.
 */
function waitForData(broker: VirtualBroker, connection: ClientConnection, watch: SessionWatch, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      stopWaking()
      closed()
      broker.waits.delete(finish)
      resolve()
    }
    const timer = setTimeout(finish, ms)
    const stopWaking = watch.onWake(finish)
    broker.waits.add(finish)
    const closed = connection.onClose(finish)
  })
}

/** The request's partitions added to `into` (new ones, or moved: read at the next pass). */
function addRequested(req: FetchRequest, byId: boolean, into: FetchPartitions): void {
  for (const t of req.topics)
    for (const p of t.partitions) into.set(sessionKey(t.topic, t.topicId, p.partition, byId), t.topic, t.topicId, p.partition, p)
}

/**
 * What this request fetches, under KIP-227: a full fetch (its own
 * partitions; epoch 0 opens a session for them), or an incremental one (the
 * session's partitions updated with the request's, less the forgotten).
 * A sessionless fetch's partitions are its own, let go when it is answered.
 */
function resolveSession(
  req: FetchRequest,
  broker: VirtualBroker,
  byId: boolean,
): { session: FetchSession | null; incremental: boolean; fetch: FetchPartitions } | number {
  const sessions = broker.fetchSessions
  if (req.sessionEpoch === INITIAL_EPOCH || req.sessionEpoch === FINAL_EPOCH) {
    if (req.sessionId !== 0) sessions.remove(req.sessionId)
    if (req.sessionEpoch === FINAL_EPOCH) return { session: null, incremental: false, fetch: sessionless(req, byId) }
    const session = sessions.create()
    addRequested(req, byId, session)
    return { session, incremental: false, fetch: session }
  }
  const session = sessions.get(req.sessionId)
  if (!session) return ErrorCodes.FETCH_SESSION_ID_NOT_FOUND
  if (session.epoch !== req.sessionEpoch) return ErrorCodes.INVALID_FETCH_SESSION_EPOCH
  for (const f of req.forgottenTopicsData) for (const p of f.partitions) session.forget(sessionKey(f.topic, f.topicId, p, byId))
  addRequested(req, byId, session)
  return { session, incremental: true, fetch: session }
}

function sessionless(req: FetchRequest, byId: boolean): FetchPartitions {
  const fetch = new FetchPartitions()
  addRequested(req, byId, fetch)
  return fetch
}

/** Whether an incremental response must carry this partition: data, an error, or offsets that moved since last told. */
function hasNews(want: SessionPartition, data: PartitionData): boolean {
  const records = data.records as Buffer[] | null
  if (data.errorCode || (records && records.length > 0) || !want.sent) return true
  return (
    want.sent.highWatermark !== data.highWatermark ||
    want.sent.lastStableOffset !== data.lastStableOffset ||
    want.sent.logStartOffset !== data.logStartOffset
  )
}

/** Which topics the fetch may read: READ on each for a consumer, CLUSTER_ACTION for a follower (as Kafka's). */
function readableTopics(
  ctx: RequestContext,
  replicaId: number,
  wanted: Iterable<SessionPartition>,
  byId: boolean,
): (name: string) => boolean {
  if (!ctx.cluster.authorizer.enabled) return () => true
  if (replicaId >= 0) {
    const ok = allowed(ctx, AclOperationTypes.CLUSTER_ACTION)
    return () => ok
  }
  const names: string[] = []
  for (const w of wanted) names.push(byId ? (ctx.cluster.controller.topicsById.get(w.topicId)?.name ?? '') : w.topic)
  const readable = allowedNames(ctx, AclOperationTypes.READ, AclResourceTypes.TOPIC, names)
  return (name) => readable.has(name)
}

/**
 * Reads the fetch's partitions until it can be answered: at first every one
 * that changed since the session last read it (all of them for a new
 * session, a sessionless fetch, or after the metadata moved), then, at each
 * wake of the long poll, only those whose logs changed meanwhile.
 */
async function answer(
  req: FetchRequest,
  ctx: RequestContext,
  session: FetchSession | null,
  incremental: boolean,
  fetch: FetchPartitions,
): Promise<Input<FetchResponse>> {
  const { cluster, broker, version } = ctx
  const byId = version >= 13
  const wanted = fetch.partitions
  const watch = fetch.watch
  if (session) session.lastUsed = Date.now()
  // The next incremental request carries the next epoch (a new session starts at 1).
  if (session && incremental) session.epoch = session.epoch === INT32_MAX ? 1 : session.epoch + 1
  // A follower's fetch (v15+ say who in ReplicaState): its log end is the fetch offset.
  const replicaId = version >= 15 ? req.replicaState.replicaId : req.replicaId
  if (replicaId >= 0) followerFetch(wanted.values(), cluster, broker, byId, replicaId)
  watch.follower = replicaId >= 0
  const started = performance.now()
  // The broker's time on the fetch: until it first waits (a long poll's wait is not work), as the pipeline counts.
  let workMs: number | null = null
  const deadline = Date.now() + req.maxWaitMs
  // No more than consumer_byte_rate lets through (as Kafka's fetch limits itself), nor a long poll for more.
  const quotaBytes = replicaId < 0 ? Math.floor(broker.quotas.maxFetchBytes(ctx)) : Infinity
  if (quotaBytes < req.maxBytes) req = { ...req, maxBytes: quotaBytes, minBytes: Math.min(req.minBytes, quotaBytes) }
  const readable = readableTopics(ctx, replicaId, wanted.values(), byId)
  // What an answer depends on besides its log: the request's shape, and (read per request) the authorizer's answers.
  const shape = `${version}/${replicaId}/${req.isolationLevel}/${req.rackId}`
  if (shape !== watch.shape || cluster.authorizer.enabled) {
    watch.shape = shape
    watch.markAll(wanted.values())
  }
  const answers = new Map<SessionPartition, Answer>()
  for (;;) {
    // The metadata moved (leaders, epochs, replicas, topics, configs): every partition is read again.
    if (watch.imageVersion !== cluster.controller.imageVersion) {
      watch.imageVersion = cluster.controller.imageVersion
      watch.markAll(wanted.values())
    }
    const toRead = watch.take() as SessionPartition[]
    fetchPassReads.partitions += toRead.length
    fetchPassReads.passes++
    const pass = readOnce(toRead, answers, watch, req, cluster, broker, version, replicaId, readable)
    const left = deadline - Date.now()
    const done =
      pass.bytes >= req.minBytes ||
      pass.errors ||
      pass.redirected ||
      left <= 0 ||
      !broker.running ||
      watch.watching === 0 ||
      ctx.connection.isClosed
    if (!done) {
      workMs ??= performance.now() - started
      await waitForData(broker, ctx.connection, watch, left)
      continue
    }
    // What a follower is sent of throttled partitions counts against leader.replication.throttled.rate.
    if (replicaId >= 0) broker.replicationQuotas.leader.record(pass.throttledBytes)
    // Over consumer_byte_rate or request_percentage: answered empty, the read not counted (as Kafka's throttled fetch); the session
    // as it was, and every partition read again next time (what this one read was not sent).
    const throttleTimeMs = replicaId < 0 ? broker.quotas.fetched(ctx, pass.bytes, workMs ?? performance.now() - started) : 0
    if (throttleTimeMs > 0) {
      watch.markAll(wanted.values())
      return { throttleTimeMs, errorCode: ErrorCodes.NONE, sessionId: session?.id ?? 0, responses: [] }
    }
    // In session order: every partition for a full fetch (each was read: all are new), those with news for an incremental one.
    const answered: [SessionPartition, Answer][] = []
    if (incremental) {
      for (const entry of answers) if (hasNews(entry[0], entry[1].data)) answered.push(entry)
      if (answered.length > 1) answered.sort((a, b) => a[0].order - b[0].order)
    } else for (const want of wanted.values()) answered.push([want, answers.get(want)!])
    if (session) {
      for (const [want, { data }] of answers) {
        want.sent = {
          highWatermark: data.highWatermark as bigint,
          lastStableOffset: data.lastStableOffset as bigint,
          logStartOffset: data.logStartOffset as bigint,
        }
      }
    }
    // Partitions grouped by topic, in the order asked.
    const responses: { topic: string; topicId: string; partitions: PartitionData[] }[] = []
    for (const [want, { data }] of answered) {
      const last = responses.at(-1)
      if (last && (byId ? last.topicId === want.topicId : last.topic === want.topic)) last.partitions.push(data)
      else responses.push({ topic: byId ? '' : want.topic, topicId: want.topicId, partitions: [data] })
    }
    const nodeEndpoints = [...pass.leaders].flatMap((id) => {
      const b = cluster.controller.brokers.get(id)
      return b ? [{ nodeId: b.id, host: b.host, port: b.port, rack: b.rack }] : []
    })
    return { errorCode: ErrorCodes.NONE, sessionId: session?.id ?? 0, responses, ...(version >= 16 ? { nodeEndpoints } : {}) }
  }
}

/**
 * Partitions read by the Fetch handler's passes (each pass: the first of a
 * request, and one per wake of its long poll), all brokers of the process
 * together: a count for tests and load runs of the per-partition work a
 * fetch does (only what changed is read again).
 */
export const fetchPassReads = { passes: 0, partitions: 0 }

/**
 * Fetch: stored batch bytes as they are, up to the high watermark (or the
 * last stable offset for read_committed, with the aborted transactions in
 * what it reads) for consumers, up to the log end for followers (replica
 * id set), whose fetch offsets the leader tracks; within maxBytes and each
 * partition's limit; a long poll
 * (maxWaitMs) until minBytes are there, woken by an append; incremental
 * fetch sessions (KIP-227).
 */
export const fetchHandler = defineHandler<FetchRequest, FetchResponse>({
  spec: Fetch,
  minVersion: 4,
  maxVersion: Fetch.maxVersion,
  async handle(req, ctx: RequestContext) {
    const { cluster, broker, version } = ctx
    const byId = version >= 13
    // Sessions came with v7; an older request is always full and sessionless.
    const resolved = version >= 7 ? resolveSession(req, broker, byId) : { session: null, incremental: false, fetch: sessionless(req, byId) }
    if (typeof resolved === 'number') return { errorCode: resolved, sessionId: 0, responses: [] }
    const { session, incremental, fetch } = resolved
    try {
      return await answer(req, ctx, session, incremental, fetch)
    } finally {
      if (!session) fetch.release()
    }
  },
  errorResponse: (req, code, { version }) => ({
    errorCode: version >= 7 ? code : 0,
    sessionId: 0,
    responses: req.topics.map((t) => ({
      topic: version >= 13 ? '' : t.topic,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => failed(p.partition, code)),
    })),
  }),
})
