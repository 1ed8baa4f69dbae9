import { describeError, type Logger } from '../logger.js'

/** When a consumer stops trying to reach an unreachable cluster: after this long and this many failed fetches in a row. */
export interface GiveUp {
  afterMs: number
  failures: number
}

/**
 * Fetches failing in a row, with no broker answering in between: an outage
 * of the brokers that lead this consumer's partitions (or of the whole
 * cluster). Java's consumer keeps trying through one, and so does this one
 * by default, saying so at WARN as it begins and at INFO as it ends. With
 * a GiveUp (the KafkaJS drop-in's retry budget) it gives up instead once
 * the budget is spent.
 */
export class OutageWatch {
  private since = 0
  private failures = 0
  private limit: GiveUp | null = null

  constructor(
    private readonly log: Logger,
    private readonly groupId: string | null,
    /** The budget is spent: the consumer gives up (called once an outage). */
    private readonly gaveUp: (error: Error, failures: number, ms: number) => void,
  ) {}

  /** Gives up after `limit` (null: never, Java's way). */
  giveUpAfter(limit: GiveUp | null): void {
    this.limit = limit
  }

  /** A fetch failed without an answer (connection refused or lost, timed out). */
  failed(error: Error, nodeId: number): void {
    const now = Date.now()
    if (this.failures++ === 0) {
      this.since = now
      this.log.warn('Fetching failed: no answer from the broker; the consumer keeps trying', {
        groupId: this.groupId,
        nodeId,
        ...describeError(error),
      })
    }
    const limit = this.limit
    if (limit !== null && this.failures > limit.failures && now - this.since >= limit.afterMs) {
      const failures = this.failures
      this.failures = 0 // counted afresh after a restart
      this.gaveUp(error, failures, now - this.since)
    }
  }

  /** A broker answered a fetch: whatever outage there was is over. */
  answered(): void {
    if (this.failures === 0) return
    this.log.info('Fetching again: a broker answered', {
      groupId: this.groupId,
      failures: this.failures,
      outageMs: Date.now() - this.since,
    })
    this.failures = 0
  }
}
