import type { TopicImage } from '../controller.js'
import { topicConfig } from '../topic-configs.js'
import { SampledRate } from './sampled-rate.js'

/** A throttled rate's default: none (Kafka's QUOTA_BYTES_PER_SECOND_DEFAULT, Long.MAX_VALUE). */
const UNLIMITED = 9223372036854775807

export type ReplicationSide = 'leader' | 'follower'

/**
 * One side of a broker's replication throttle (Kafka's
 * ReplicationQuotaManager): the bytes it replicates for throttled
 * partitions, measured as Kafka's SimpleRate over
 * replication.quota.window.num windows of replication.quota.window.size.seconds,
 * against `leader.replication.throttled.rate` or
 * `follower.replication.throttled.rate` (dynamic broker configs). Which
 * partitions are throttled is the topic's `leader.replication.throttled.replicas`
 * or `follower.replication.throttled.replicas`: `*`, or partition:broker
 * pairs naming this broker. Only replicas out of the ISR are held back, as
 * Kafka's (a throttle must not push a replica out of the ISR).
 */
export class ReplicationQuota {
  private readonly rate: SampledRate

  constructor(
    private readonly side: ReplicationSide,
    private readonly brokerId: number,
    windows: { samples: number; windowMs: number },
    /** The `<side>.replication.throttled.rate` in force on this broker (read at each use: it is dynamic). */
    private readonly limit: () => number,
  ) {
    this.rate = new SampledRate(windows.samples, windows.windowMs, true)
  }

  /** Whether the topic's throttled replicas list names this broker for `partition`. */
  isThrottled(t: TopicImage, partition: number): boolean {
    const list = topicConfig(t, `${this.side}.replication.throttled.replicas`).trim()
    if (list === '') return false
    if (list === '*') return true
    for (const pair of list.split(',')) {
      const [p, b] = pair.split(':')
      if (Number(p) === partition && Number(b) === this.brokerId) return true
    }
    return false
  }

  /** Whether the bytes replicated lately are over the rate (Kafka checks before it reads or asks for more). */
  exceeded(now = Date.now()): boolean {
    const limit = this.limit()
    return limit < UNLIMITED && this.rate.measure(now) > limit
  }

  /** A throttled partition's bytes replicated. */
  record(bytes: number, now = Date.now()): void {
    if (bytes > 0) this.rate.record(bytes, now)
  }

  /** Whether a replica out of the ISR of a throttled partition is held back now. */
  holdsBack(t: TopicImage, partition: number, inSync: boolean): boolean {
    return !inSync && this.isThrottled(t, partition) && this.exceeded()
  }
}
