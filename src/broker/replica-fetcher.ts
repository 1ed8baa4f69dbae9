import { Buffer } from 'node:buffer'
import { BatchWalker, batchBaseOffsetNumber } from '../codec/batch-header.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { Fetch } from '../protocol/messages/Fetch.js'
import { OffsetForLeaderEpoch } from '../protocol/messages/OffsetForLeaderEpoch.js'
import type { Replica, VirtualBroker } from './broker.js'
import type { EmbeddedCluster } from './cluster.js'
import type { PartitionImage, TopicImage } from './controller.js'
import { PeerLink } from './peer-link.js'
import { ProducerState } from './producer-state.js'
import { replicaKey } from './replica-key.js'
import { readBatchHeader } from './record-batch.js'
import { storedCopy } from './stored-copy.js'
import type { LogWatcher } from './partition-log.js'

/** The Fetch version followers send: the newest with ReplicaState (v15+) that has no fields we do not fill. */
const FETCH_VERSION = 17
const EPOCH_VERSION = 4
const BACKOFF_MIN_MS = 50
const BACKOFF_MAX_MS = 1000
/** replica.fetch.max.bytes and replica.fetch.response.max.bytes, Kafka's defaults. */
const PARTITION_MAX_BYTES = 1024 * 1024
const RESPONSE_MAX_BYTES = 10 * 1024 * 1024

interface Followed {
  t: TopicImage
  p: PartitionImage
  replica: Replica
}

/** What the leader's fetch session holds for a partition: an incremental fetch names it again only when one changes. */
interface SessionEntry {
  fetchOffset: number
  logStartOffset: number
  leaderEpoch: number
  lastFetchedEpoch: number
}

const INT32_MAX = 0x7fffffff

/** A followed partition's log, watched: any change to it (an append, a truncation, a new log start) may move its fetch position. */
class Watched implements LogWatcher {
  constructor(
    readonly f: Followed,
    private readonly moved: Set<Watched>,
  ) {}

  logChanged(): void {
    this.moved.add(this)
  }

  logGone(): void {
    this.moved.add(this)
  }
}

/**
 * One follower broker's fetching from one leader broker, as Kafka's
 * ReplicaFetcherThread: for the partitions it follows there, first (at
 * each new leader epoch) OffsetForLeaderEpoch to truncate its log to where
 * it agrees with the leader's, then Fetch requests with its replica id
 * from its log end, appending the leader's batches as they are and taking
 * the leader's high watermark. Every wait is bounded; stop() ends it.
 */
class FetchLoop {
  private link: PeerLink | null = null
  private sleeping: (() => void) | null = null
  private backoffMs = BACKOFF_MIN_MS
  /** Partition key -> the leader epoch its log was last truncated for. */
  private readonly truncatedFor = new Map<string, number>()
  /**
   * The incremental fetch session (KIP-227) this loop holds with its leader,
   * as Kafka's followers do: after the first fetch a request names only the
   * partitions whose fetch position moved, and the answer only those with
   * news, instead of every followed partition both ways at every append.
   * Id 0: none (the next fetch is full and opens one); it is over the link it was opened on.
   */
  private session = { id: 0, epoch: 0, link: null as PeerLink | null, entries: new Map<string, SessionEntry>() }
  /**
   * The partitions followed from this leader, as of the controller's image
   * version they were found at (a walk of every partition of the cluster,
   * done again only when the metadata moves), each with its log watched.
   */
  private followed: { imageVersion: number; watched: Watched[]; list: Followed[] } = { imageVersion: -1, watched: [], list: [] }
  /** The followed partitions whose logs changed since the last fetch compared their positions. */
  private readonly moved = new Set<Watched>()
  /** Whether a followed partition may need OffsetForLeaderEpoch (new ones, new epochs, or out of range): truncate() looks. */
  private truncationDue = true
  /** The partitions ready to fetch (truncated for their epoch, not held back), rebuilt when `readyDue`. */
  private ready = new Map<string, Followed>()
  private readyDue = true
  /** Whether a followed partition is throttled and out of the ISR: held back or not by the rate at each fetch. */
  private throttledOutOfSync = false
  stopped = false
  readonly done: Promise<void>

  constructor(
    private readonly fetcher: ReplicaFetcher,
    readonly leaderId: number,
  ) {
    this.done = this.run()
  }

  wake(): void {
    this.sleeping?.()
  }

  stop(): void {
    this.stopped = true
    this.link?.close()
    this.unwatch()
    this.wake()
  }

  /** The partitions followed from this leader now (none while paused): found again only when the metadata moved. */
  private following(): Followed[] {
    const { cluster, broker } = this.fetcher
    if (this.fetcher.paused) {
      if (this.followed.watched.length) this.unwatch()
      return []
    }
    const version = cluster.controller.imageVersion
    if (this.followed.imageVersion !== version) {
      this.unwatch()
      const watched = this.fetcher.followedFrom(this.leaderId).map((f) => new Watched(f, this.moved))
      for (const w of watched) {
        w.f.replica.log.watch(w)
        this.moved.add(w)
      }
      this.followed = { imageVersion: version, watched, list: watched.map((w) => w.f) }
      this.truncationDue = this.readyDue = true
      const throttle = broker.replicationQuotas.follower
      this.throttledOutOfSync = watched.some((w) => !w.f.p.isr.includes(broker.id) && throttle.isThrottled(w.f.t, w.f.p.partition))
    }
    return this.followed.list
  }

  /** The ready partitions among the moved ones. */
  private movedReady(ready: Map<string, Followed>): Followed[] {
    const out: Followed[] = []
    for (const w of this.moved) if (ready.get(key(w.f)) === w.f) out.push(w.f)
    return out
  }

  private unwatch(): void {
    for (const w of this.followed.watched) w.f.replica.log.unwatch(w)
    this.followed = { imageVersion: -1, watched: [], list: [] }
    this.moved.clear()
    // Nor kept ready: a deleted topic's replicas (and their records) would stay reachable from here.
    this.ready = new Map()
    this.readyDue = true
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(finish, ms)
      const self = this
      function finish() {
        clearTimeout(timer)
        if (self.sleeping === finish) self.sleeping = null
        resolve()
      }
      this.sleeping = finish
    })
  }

  private async run(): Promise<void> {
    const { broker, cluster } = this.fetcher
    while (!this.stopped) {
      const followed = this.following()
      if (followed.length === 0) {
        // Nothing to fetch here: idle until the metadata changes (a poke) or a while passes.
        this.link?.close()
        this.link = null
        await this.sleep(BACKOFF_MAX_MS)
        continue
      }
      try {
        const link = await this.connect()
        if (!link) continue
        await this.truncate(link, followed)
        if (this.stopped || this.fetcher.paused) continue
        const fetched = await this.fetch(link, followed)
        this.backoffMs = BACKOFF_MIN_MS
        if (!fetched) await this.sleep(BACKOFF_MIN_MS)
      } catch (err) {
        if (this.stopped) break
        cluster.problem(broker.id, `replica fetching from broker ${this.leaderId}: ${(err as Error).message}`)
        this.link?.close()
        this.link = null
        await this.sleep(this.backoffMs)
        this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS)
      }
    }
    this.link?.close()
    this.link = null
  }

  private async connect(): Promise<PeerLink | null> {
    if (this.link && !this.link.isClosed) return this.link
    const b = this.fetcher.cluster.brokers.get(this.leaderId)
    if (!b) {
      await this.sleep(BACKOFF_MAX_MS)
      return null
    }
    const clientId = `broker-${this.fetcher.broker.id}-fetcher`
    this.link = PeerLink.over(b.connectInternal(clientId), clientId)
    if (this.stopped) this.link.close()
    return this.link
  }

  /** OffsetForLeaderEpoch for the partitions whose leader epoch is new to this loop; truncates to the answers. */
  private async truncate(link: PeerLink, followed: Followed[]): Promise<void> {
    if (!this.truncationDue) return
    // Partitions no longer followed from this leader (moved, or their topic deleted) are forgotten here.
    if (this.truncatedFor.size > followed.length) {
      const now = new Set(followed.map(key))
      for (const k of this.truncatedFor.keys()) if (!now.has(k)) this.truncatedFor.delete(k)
    }
    const stale = followed.filter((f) => this.truncatedFor.get(key(f)) !== f.p.leaderEpoch)
    if (!stale.length) return void (this.truncationDue = false)
    this.readyDue = true
    const ask = stale.filter((f) => f.replica.log.latestEpoch >= 0)
    for (const f of stale) if (f.replica.log.latestEpoch < 0) this.truncatedFor.set(key(f), f.p.leaderEpoch)
    if (!ask.length) return void (this.truncationDue = false)
    const byTopic = new Map<string, Followed[]>()
    for (const f of ask) byTopic.set(f.t.name, [...(byTopic.get(f.t.name) ?? []), f])
    const res = await link.request(
      OffsetForLeaderEpoch,
      EPOCH_VERSION,
      {
        replicaId: this.fetcher.broker.id,
        topics: [...byTopic].map(([topic, fs]) => ({
          topic,
          partitions: fs.map((f) => ({
            partition: f.p.partition,
            currentLeaderEpoch: f.p.leaderEpoch,
            leaderEpoch: f.replica.log.latestEpoch,
          })),
        })),
      },
      5000,
    )
    for (const rt of res.topics) {
      for (const rp of rt.partitions) {
        const f = byTopic.get(rt.topic)?.find((x) => x.p.partition === rp.partition)
        if (!f || rp.errorCode !== ErrorCodes.NONE) continue
        truncateToLeader(f.replica, rp.leaderEpoch, Number(rp.endOffset))
        this.truncatedFor.set(key(f), f.p.leaderEpoch)
      }
    }
    // Those the leader did not answer for are asked again at the next fetch.
    this.truncationDue = ask.some((f) => this.truncatedFor.get(key(f)) !== f.p.leaderEpoch)
  }

  /** One Fetch from the followed partitions' log ends; false when nothing could be fetched (every partition failed). */
  private async fetch(link: PeerLink, followed: Followed[]): Promise<boolean> {
    const { broker, cluster } = this.fetcher
    const throttle = broker.replicationQuotas.follower
    // Which partitions are ready changes with the metadata and truncations, or at each fetch for a throttled one out of the ISR.
    const rebuilt = this.readyDue || this.throttledOutOfSync
    if (rebuilt) {
      this.readyDue = false
      const ready = new Map<string, Followed>()
      for (const f of followed) {
        const k = key(f)
        // follower.replication.throttled.rate: a throttled replica out of the ISR is not asked for while over it (Kafka's shouldFollowerThrottle).
        if (this.truncatedFor.get(k) === f.p.leaderEpoch && !throttle.holdsBack(f.t, f.p.partition, f.p.isr.includes(broker.id)))
          ready.set(k, f)
      }
      this.ready = ready
    }
    const ready = this.ready
    if (!ready.size) return false
    const session = this.session
    if (session.link !== link) Object.assign(session, { id: 0, epoch: 0, link, entries: new Map() })
    const incremental = session.id !== 0
    // Full: every ready partition. Incremental: those whose position moved (or new), and the ones no longer fetched.
    // Only the partitions whose logs changed since the last fetch can have moved (all of them when `ready` was rebuilt).
    const candidates = !incremental || rebuilt ? ready.values() : this.movedReady(ready)
    this.moved.clear()
    const asked: Followed[] = []
    const positions = new Map<string, SessionEntry>()
    for (const f of candidates) {
      const k = key(f)
      const log = f.replica.log
      const was = session.entries.get(k)
      const lastFetchedEpoch = log.latestEpoch
      if (
        incremental &&
        was &&
        was.fetchOffset === log.logEndOffset &&
        was.logStartOffset === log.logStartOffset &&
        was.leaderEpoch === f.p.leaderEpoch &&
        was.lastFetchedEpoch === lastFetchedEpoch
      )
        continue
      asked.push(f)
      positions.set(k, {
        fetchOffset: log.logEndOffset,
        logStartOffset: log.logStartOffset,
        leaderEpoch: f.p.leaderEpoch,
        lastFetchedEpoch,
      })
    }
    const forgotten = new Map<string, number[]>()
    if (incremental && rebuilt)
      for (const k of session.entries.keys()) {
        if (ready.has(k)) continue
        const slash = k.lastIndexOf('/')
        const topicId = k.slice(0, slash)
        forgotten.set(topicId, [...(forgotten.get(topicId) ?? []), Number(k.slice(slash + 1))])
      }
    const byTopic = new Map<string, Followed[]>()
    for (const f of asked) byTopic.set(f.t.id, [...(byTopic.get(f.t.id) ?? []), f])
    const waitMs = this.fetcher.waitMs
    const res = await link.request(
      Fetch,
      FETCH_VERSION,
      {
        replicaState: { replicaId: broker.id, replicaEpoch: -1n },
        maxWaitMs: waitMs,
        minBytes: 1,
        maxBytes: RESPONSE_MAX_BYTES,
        isolationLevel: 0,
        sessionId: session.id,
        sessionEpoch: session.epoch,
        topics: [...byTopic].map(([topicId, fs]) => ({
          topic: '',
          topicId,
          partitions: fs.map((f) => {
            const at = positions.get(key(f))!
            return {
              partition: f.p.partition,
              currentLeaderEpoch: at.leaderEpoch,
              fetchOffset: BigInt(at.fetchOffset),
              lastFetchedEpoch: at.lastFetchedEpoch,
              logStartOffset: BigInt(at.logStartOffset),
              partitionMaxBytes: PARTITION_MAX_BYTES,
            }
          }),
        })),
        forgottenTopicsData: [...forgotten].map(([topicId, partitions]) => ({ topic: '', topicId, partitions })),
        rackId: '',
      },
      waitMs + 10_000,
    )
    if (res.errorCode !== ErrorCodes.NONE) {
      // The session is gone (evicted, or the epochs disagree): the next fetch is full and opens another.
      session.id = 0
      session.epoch = 0
      session.entries.clear()
      return false
    }
    // The leader's session now holds these positions; the next request carries the next epoch.
    if (incremental) {
      if (rebuilt) for (const k of [...session.entries.keys()]) if (!ready.has(k)) session.entries.delete(k)
      session.epoch = session.epoch === INT32_MAX ? 1 : session.epoch + 1
    } else {
      session.entries.clear()
      session.id = res.sessionId
      session.epoch = 1
    }
    for (const f of asked) session.entries.set(key(f), positions.get(key(f))!)
    // Paused (or stopped) while the fetch was out: a paused follower takes nothing, not even what its last long poll brings.
    if (this.fetcher.paused || this.stopped) return true
    // An incremental answer without partitions: none had news by the end of the long poll (not a failure).
    let ok = res.responses.length === 0
    for (const rt of res.responses) {
      for (const rp of rt.partitions) {
        const f = ready.get(`${rt.topicId}/${rp.partitionIndex}`)
        // The partition may have moved on while the fetch was out (a new leader, a deleted topic).
        if (!f || broker.replicas.get(key(f)) !== f.replica) continue
        const current = cluster.controller.topicsById.get(f.t.id)?.partitions[f.p.partition]
        if (!current || current.leader !== this.leaderId || current.leaderEpoch !== f.p.leaderEpoch) continue
        if (rp.errorCode === ErrorCodes.OFFSET_OUT_OF_RANGE) {
          const log = f.replica.log
          // Behind the leader's log start (records deleted): start over there. Past its end: truncate again.
          if (log.logEndOffset < Number(rp.logStartOffset)) log.resetTo(Number(rp.logStartOffset))
          else {
            this.truncatedFor.delete(key(f))
            this.truncationDue = this.readyDue = true
          }
          continue
        }
        if (rp.errorCode !== ErrorCodes.NONE) continue
        ok = true
        if (rp.divergingEpoch.epoch >= 0 && rp.divergingEpoch.endOffset >= 0n) {
          // The leader saw this log diverge from its own: truncate to where it says, then fetch on.
          truncateToLeader(f.replica, rp.divergingEpoch.epoch, Number(rp.divergingEpoch.endOffset))
          continue
        }
        appendFetched(f.replica, rp.records)
        if (rp.records?.length && throttle.isThrottled(f.t, f.p.partition)) throttle.record(rp.records.length)
        const log = f.replica.log
        const leaderStart = Number(rp.logStartOffset)
        if (leaderStart > log.logStartOffset) log.deleteBefore(Math.min(leaderStart, log.logEndOffset))
        log.followHighWatermark(Number(rp.highWatermark))
      }
    }
    return ok
  }
}

function key(f: Followed): string {
  return replicaKey(f.t, f.p.partition)
}

// Walks are synchronous: one walker serves them all.
const walker = new BatchWalker()

/** Appends the batches of a fetched record set, as they are, and replays their producer state. */
function appendFetched(replica: Replica, records: Buffer | null): void {
  if (!records) return
  const walk = walker.start(records)
  while (walk.next()) {
    // A copy of its own: the response frame is the socket's.
    const batch = storedCopy(records.subarray(walk.at, walk.end))
    if (!replica.log.appendReplicated(batch)) continue
    const header = readBatchHeader(batch)
    if (header.control) replica.producers.endTransaction(header.producerId, header.producerEpoch, header.maxTimestamp)
    else replica.producers.update(header, batchBaseOffsetNumber(batch))
  }
}

/**
 * Kafka's follower truncation on a new leader epoch: the leader says where
 * `leaderEpoch` (the largest it has at or below ours) ends in its log; the
 * follower keeps what both agree on and drops the rest.
 */
function truncateToLeader(replica: Replica, leaderEpoch: number, leaderEndOffset: number): void {
  const log = replica.log
  let to: number
  if (leaderEndOffset < 0) to = log.highWatermark
  else {
    const mine = log.endOffsetFor(leaderEpoch, Number.MAX_SAFE_INTEGER)
    to =
      mine.leaderEpoch === leaderEpoch ? Math.min(leaderEndOffset, mine.endOffset) : Math.min(leaderEndOffset, Math.max(mine.endOffset, 0))
  }
  if (to >= log.logEndOffset) return
  log.truncateTo(to)
  // Producer state as of the kept batches.
  const producers = new ProducerState()
  log.forEachBatch((bytes, baseOffset) => {
    const header = readBatchHeader(bytes)
    if (header.control) producers.endTransaction(header.producerId, header.producerEpoch, header.maxTimestamp)
    else producers.update(header, baseOffset)
  })
  replica.producers = producers
}

/**
 * A broker's follower side: one FetchLoop per broker it follows partitions
 * from, started as the metadata names leaders, all ended by stop().
 * Pausing stops the fetching (the broker keeps serving clients), so its
 * replicas fall behind and leave the ISR.
 */
export class ReplicaFetcher {
  private readonly loops = new Map<number, FetchLoop>()
  paused = false

  constructor(
    readonly broker: VirtualBroker,
    readonly cluster: EmbeddedCluster,
  ) {}

  /** replica.fetch.wait.max.ms, kept below replica.lag.time.max.ms as Kafka requires. */
  get waitMs(): number {
    const { replicaFetchWaitMaxMs, replicaLagTimeMaxMs } = this.cluster.options
    return Math.max(1, Math.min(replicaFetchWaitMaxMs, Math.floor(replicaLagTimeMaxMs / 3)))
  }

  /** The partitions this broker follows from `leaderId`, with its replica of each. */
  followedFrom(leaderId: number): Followed[] {
    const out: Followed[] = []
    const self = this.broker.id
    for (const t of this.cluster.controller.topics.values()) {
      for (const p of t.partitions) {
        if (p && p.leader === leaderId && p.leader !== self && p.replicas.includes(self))
          // The cached key first: this runs before every fetch of every loop (replica() makes its key anew).
          out.push({ t, p, replica: this.broker.replicas.get(replicaKey(t, p.partition)) ?? this.broker.replica(t.id, p.partition) })
      }
    }
    return out
  }

  /** The metadata changed: a loop for every leader followed, and each one looks again. */
  poke(): void {
    if (!this.broker.running) return
    const self = this.broker.id
    for (const t of this.cluster.controller.topics.values()) {
      for (const p of t.partitions) {
        if (p && p.leader >= 0 && p.leader !== self && p.replicas.includes(self) && !this.loops.has(p.leader))
          this.loops.set(p.leader, new FetchLoop(this, p.leader))
      }
    }
    for (const loop of this.loops.values()) loop.wake()
  }

  async stop(): Promise<void> {
    const loops = [...this.loops.values()]
    this.loops.clear()
    for (const l of loops) l.stop()
    await Promise.all(loops.map((l) => l.done))
  }
}
