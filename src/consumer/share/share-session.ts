import type { TopicPartition } from '../partition-state.js'

/** The epoch that opens a share session, and the one that closes it. */
export const OPEN_EPOCH = 0
export const CLOSE_EPOCH = -1

/**
 * A member's share session with one broker (KIP-932): which partitions the
 * broker already fetches for it, and the epoch the next request carries (0
 * opens a session, then each answered request moves it on; -1 closes it).
 * Like a fetch session (KIP-227) a request names only the partitions added
 * since the last one, and those to forget. Requests to one broker go one at
 * a time (`exclusive`): two in flight would carry the same epoch.
 */
export class ShareSession {
  /** The partitions the broker holds in the session, by key. */
  private readonly partitions = new Map<string, { topicId: string; partition: number }>()
  private epoch = OPEN_EPOCH
  private queue: Promise<unknown> = Promise.resolve()

  constructor(readonly nodeId: number) {}

  get nextEpoch(): number {
    return this.epoch
  }

  /** True before the first answered request, or after the broker lost the session: acknowledgements cannot go yet (it refuses them at epoch 0). */
  get opening(): boolean {
    return this.epoch === OPEN_EPOCH
  }

  get isEmpty(): boolean {
    return this.partitions.size === 0
  }

  /** Runs `fn` after every earlier request of this session has been answered. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    // The chain only orders; each caller sees its own outcome.
    this.queue = run.catch(() => {})
    return run
  }

  /**
   * The partitions to fetch now, as the request names them: at epoch 0
   * every one, later only those new to the session; `forgotten`, those the
   * session holds that are wanted no more.
   */
  plan(wanted: Array<TopicPartition & { topicId: string }>): {
    added: Array<{ topicId: string; partition: number }>
    forgotten: Array<{ topicId: string; partition: number }>
  } {
    const next = new Map(wanted.map((p) => [`${p.topicId}:${p.partition}`, { topicId: p.topicId, partition: p.partition }]))
    if (this.opening) {
      this.partitions.clear()
      for (const [k, v] of next) this.partitions.set(k, v)
      return { added: [...next.values()], forgotten: [] }
    }
    const added: Array<{ topicId: string; partition: number }> = []
    const forgotten: Array<{ topicId: string; partition: number }> = []
    for (const [k, v] of this.partitions) {
      if (!next.has(k)) {
        forgotten.push(v)
        this.partitions.delete(k)
      }
    }
    for (const [k, v] of next) {
      if (!this.partitions.has(k)) {
        added.push(v)
        this.partitions.set(k, v)
      }
    }
    return { added, forgotten }
  }

  /** The broker answered (the request as a whole): the next request carries the next epoch. */
  answered(): void {
    // Kafka's epochs wrap from int32 max to 1 (0 would open a new session).
    this.epoch = this.epoch === 0x7fffffff ? 1 : this.epoch + 1
  }

  /** The session is gone (the broker lost it, or a request to it failed on the way): the next request opens a new one. */
  reset(): void {
    this.epoch = OPEN_EPOCH
    this.partitions.clear()
  }
}
