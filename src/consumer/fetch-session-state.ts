import { INT32_MAX } from '../int32.js'
/** What a Fetch asks of one partition. */
export interface PartitionFetch {
  topic: string
  partition: number
  fetchOffset: bigint
  currentLeaderEpoch: number
  lastFetchedEpoch: number
  maxBytes: number
}

export interface SessionRequest {
  sessionId: number
  sessionEpoch: number
  /** Partitions to send: all of them in a full fetch, only new or changed ones in an incremental one. */
  partitions: PartitionFetch[]
  /** Partitions the broker should drop from the session (incremental fetches only). */
  forgotten: Array<{ topic: string; partition: number }>
  full: boolean
}

const INITIAL_EPOCH = 0
const key = (p: { topic: string; partition: number }) => `${p.topic}\u0000${p.partition}`

/**
 * The client side of an incremental fetch session (KIP-227) with one broker.
 * The first fetch is full and asks for a session (id 0, epoch 0); if the
 * broker opens one, later fetches name only the partitions whose fetch
 * parameters changed, plus those to forget, and the broker remembers the
 * rest. A broker that answers session id 0 keeps getting full fetches.
 * Any error resets it to a full fetch that asks for a new session.
 */
export class FetchSessionState {
  private id = 0
  private epoch = INITIAL_EPOCH
  /** The session's partitions as the broker knows them after the last successful fetch. */
  private known = new Map<string, PartitionFetch>()
  /** The set the in-flight request leaves the session with. */
  private pending: Map<string, PartitionFetch> | undefined

  constructor(private readonly supported: boolean) {}

  get sessionId(): number {
    return this.id
  }

  /** The next request for `wanted` (the partitions to fetch now). */
  build(wanted: PartitionFetch[]): SessionRequest {
    const next = new Map(wanted.map((p) => [key(p), p]))
    this.pending = next
    if (!this.supported) return { sessionId: 0, sessionEpoch: -1, partitions: wanted, forgotten: [], full: true }
    if (this.id === 0) return { sessionId: 0, sessionEpoch: INITIAL_EPOCH, partitions: wanted, forgotten: [], full: true }
    const partitions: PartitionFetch[] = []
    for (const [k, p] of next) {
      const before = this.known.get(k)
      if (
        !before ||
        before.fetchOffset !== p.fetchOffset ||
        before.maxBytes !== p.maxBytes ||
        before.currentLeaderEpoch !== p.currentLeaderEpoch ||
        before.lastFetchedEpoch !== p.lastFetchedEpoch
      ) {
        partitions.push(p)
      }
    }
    const forgotten: Array<{ topic: string; partition: number }> = []
    for (const [k, p] of this.known) if (!next.has(k)) forgotten.push({ topic: p.topic, partition: p.partition })
    return { sessionId: this.id, sessionEpoch: this.epoch, partitions, forgotten, full: false }
  }

  /** The broker answered without a top-level error, with this session id. */
  succeeded(responseSessionId: number): void {
    this.known = this.pending ?? new Map()
    this.pending = undefined
    if (!this.supported) return
    if (this.id === 0) {
      // The broker opened a session (or declined with 0: keep asking with full fetches, as Java does).
      this.id = responseSessionId
      this.epoch = responseSessionId === 0 ? INITIAL_EPOCH : 1
    } else if (responseSessionId === 0) {
      // The broker closed the session: start over with a full fetch (as Java's FetchSessionHandler).
      this.epoch = INITIAL_EPOCH
      this.id = 0
    } else {
      this.epoch = this.epoch === INT32_MAX ? 1 : this.epoch + 1
    }
  }

  /** The fetch failed (session errors, a lost connection, anything): start over with a full fetch. */
  reset(): void {
    this.id = 0
    this.epoch = INITIAL_EPOCH
    this.known = new Map()
    this.pending = undefined
  }
}
