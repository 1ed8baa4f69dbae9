import { describeError, type Logger } from '../logger.js'

/** When a consumer stops trying to reach an unreachable cluster: after this long and this many failed fetches in a row. */
export interface GiveUp {
  afterMs: number
  failures: number
}

/**
 * Fetches from a broker failing in a row, with no answer in between: that
 * broker is lost (an outage, when it is every broker). Java's consumer
 * keeps trying through one, and so does this one by default, saying so at
 * WARN as it begins and at INFO as the broker answers again. With a GiveUp
 * (the KafkaJS drop-in's retry budget) it gives up instead once the budget
 * is spent.
 */
export class OutageWatch {
  /** Per node: when its failures in a row began, and how many. */
  private readonly lost = new Map<number, { since: number; failures: number }>()
  private limit: GiveUp | null = null

  constructor(
    private readonly log: Logger,
    private readonly groupId: string | null,
    /** The budget is spent: the consumer gives up (called once per outage). */
    private readonly gaveUp: (error: Error, failures: number, ms: number) => void,
  ) {}

  /** Gives up after `limit` (null: never, Java's way). */
  giveUpAfter(limit: GiveUp | null): void {
    this.limit = limit
  }

  /** A fetch from `nodeId` failed without an answer (connection refused or lost, timed out). */
  failed(error: Error, nodeId: number): void {
    const now = Date.now()
    let run = this.lost.get(nodeId)
    if (!run) {
      this.lost.set(nodeId, (run = { since: now, failures: 0 }))
      this.log.warn('Fetching failed: no answer from the broker; the consumer keeps trying', {
        groupId: this.groupId,
        nodeId,
        ...describeError(error),
      })
    }
    run.failures++
    const limit = this.limit
    if (limit !== null && run.failures > limit.failures && now - run.since >= limit.afterMs) {
      this.lost.clear() // counted afresh after a restart
      this.gaveUp(error, run.failures, now - run.since)
    }
  }

  /** `nodeId` answered a fetch: its outage, if any, is over. */
  answered(nodeId: number): void {
    const run = this.lost.get(nodeId)
    if (!run) return
    this.lost.delete(nodeId)
    this.log.info('Fetching again: the broker answered', {
      groupId: this.groupId,
      nodeId,
      failures: run.failures,
      outageMs: Date.now() - run.since,
    })
  }
}
