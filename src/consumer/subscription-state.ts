import type { ConsumerCluster } from '../cluster/client.js'
import { ConfigError } from '../errors.js'
import type { OffsetReset } from './config.js'
import { partitionKey, type OwnedPartitions } from './partition-state.js'

export interface SubscribeOptions {
  topics?: Array<string | RegExp>
  topic?: string | RegExp
  /** Where to start when the group has no committed offset: true 'earliest', false 'latest' (default: autoOffsetReset). */
  fromBeginning?: boolean
}

interface Subscription {
  matches(topic: string): boolean
  name: string | null
  reset: OffsetReset
}

/**
 * What the consumer wants, apart from what it owns: the subscribed topics
 * (names and patterns, each with its reset policy), the paused partitions,
 * and seeks waiting for a partition to be assigned (KafkaJS's
 * subscriptionState). Pausing applies to owned partitions now and to ones
 * assigned later.
 */
export class SubscriptionState {
  private readonly subscriptions: Subscription[] = []
  private resolved: string[] = []
  private readonly pausedTopics = new Map<string, Set<number> | 'all'>()
  private readonly pendingSeeks = new Map<string, bigint>()

  constructor(
    private readonly assignment: OwnedPartitions,
    private readonly autoOffsetReset: OffsetReset,
  ) {}

  /** The subscribed topics that exist, sorted (as of the last resolveTopics()). */
  get topics(): string[] {
    return this.resolved
  }

  get empty(): boolean {
    return this.subscriptions.length === 0
  }

  /** Some subscription is a pattern: new topics may match it. */
  get hasPattern(): boolean {
    return this.subscriptions.some((s) => s.name === null)
  }

  add(options: SubscribeOptions): void {
    const list = options.topics ?? (options.topic !== undefined ? [options.topic] : [])
    if (list.length === 0) throw new ConfigError('subscribe() needs topics: [...]')
    const reset = options.fromBeginning === undefined ? this.autoOffsetReset : options.fromBeginning ? 'earliest' : 'latest'
    for (const t of list) {
      if (typeof t === 'string' && t !== '') this.subscriptions.push({ matches: (x) => x === t, name: t, reset })
      else if (t instanceof RegExp) this.subscriptions.push({ matches: (x) => t.test(x), name: null, reset })
      else throw new ConfigError(`a topic is a non-empty string or a RegExp, not ${JSON.stringify(t)}`)
    }
  }

  /** Where a partition of `topic` starts without a committed offset: its subscription's policy, else autoOffsetReset. */
  resetPolicy(topic: string): OffsetReset {
    for (const s of this.subscriptions) if (s.matches(topic)) return s.reset
    return this.autoOffsetReset
  }

  /** Finds the topics the subscription names or matches, and watches them; true when the set changed. */
  async resolveTopics(cluster: ConsumerCluster, allowAutoTopicCreation: boolean): Promise<boolean> {
    const names = new Set(this.subscriptions.flatMap((s) => (s.name !== null ? [s.name] : [])))
    if (this.hasPattern) {
      await cluster.refreshMetadata('all')
      for (const t of cluster.metadata.topics.values()) {
        if (!t.isInternal && t.errorCode === 0 && this.subscriptions.some((s) => s.name === null && s.matches(t.name))) names.add(t.name)
      }
    }
    const topics = [...names].sort()
    const changed = topics.join('\u0000') !== this.resolved.join('\u0000')
    this.resolved = topics
    cluster.use(topics)
    await cluster
      .refreshMetadata(topics, { allowAutoTopicCreation })
      .catch(cluster.log('Consumer').caught('metadata refresh for subscribed topics failed; the next refresh tries again'))
    return changed
  }

  pause(list: Array<{ topic: string; partitions?: number[] }>): void {
    for (const { topic, partitions } of list) {
      if (partitions === undefined) this.pausedTopics.set(topic, 'all')
      else {
        const prev = this.pausedTopics.get(topic)
        if (prev !== 'all') this.pausedTopics.set(topic, new Set([...(prev ?? []), ...partitions]))
      }
      for (const s of this.assignment.values())
        if (s.topic === topic && (partitions === undefined || partitions.includes(s.partition))) s.setPaused(true)
    }
  }

  resume(list: Array<{ topic: string; partitions?: number[] }>): void {
    for (const { topic, partitions } of list) {
      const prev = this.pausedTopics.get(topic)
      if (partitions === undefined || prev === 'all') this.pausedTopics.delete(topic)
      else if (prev) for (const p of partitions) prev.delete(p)
      for (const s of this.assignment.values())
        if (s.topic === topic && (partitions === undefined || partitions.includes(s.partition)))
          s.setPaused(this.isPaused(topic, s.partition))
    }
  }

  isPaused(topic: string, partition: number): boolean {
    const p = this.pausedTopics.get(topic)
    return p === 'all' || (p !== undefined && p.has(partition))
  }

  /** A seek of a partition not owned yet: applied when it is assigned. */
  seekLater(topic: string, partition: number, offset: bigint): void {
    this.pendingSeeks.set(partitionKey(topic, partition), offset)
  }

  /** The seek waiting for this partition, if any (taken: it applies once). */
  takeSeek(key: string): bigint | undefined {
    const sought = this.pendingSeeks.get(key)
    if (sought !== undefined) this.pendingSeeks.delete(key)
    return sought
  }
}
