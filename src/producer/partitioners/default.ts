// The Java client's default partitioning (Kafka 3.3+, KIP-794): a fixed
// partition wins; a key goes where murmur2 says; keyless records stick to one
// partition until its batch is full, then move to another, chosen at random
// among those with a leader. Sticking fills batches instead of spreading one
// record per partition per request, which is what made keyless throughput
// poor before KIP-480.
// Differences from Java, on purpose: the switch happens when the producer
// says the batch is full (Java counts batch.size bytes produced, which comes
// to the same), and the next partition is never the one just left when there
// is another (Java 3.3's uniform pick may repeat it; 2.4's did not). Java's
// adaptive weighting by queue length (partitioner.adaptive.partitioning) is
// not done.
import { murmur2 } from './murmur2.js'
import type { PartitionFn, Partitioner, PartitionerOptions } from './types.js'

interface Sticky {
  /** Where keyless records go; -1: choose at the next one. */
  current: number
  /** The partition just left, avoided at the next choice when there is another. */
  previous: number
  /** The available list `current` was checked against. */
  checked: readonly number[] | null
}

export class DefaultPartitioner implements Partitioner {
  private readonly topics = new Map<string, Sticky>()
  private readonly random: () => number
  private readonly ignoreKeys: boolean

  constructor(options: PartitionerOptions = {}) {
    this.random = options.random ?? Math.random
    this.ignoreKeys = options.ignoreKeys ?? false
  }

  readonly partition: PartitionFn = (topic, key, partitionCount, availablePartitions, message) => {
    const fixed = message?.partition
    if (fixed != null) return fixed
    // An empty key is a key (Java hashes empty bytes); only null/undefined is none.
    if (key != null && !this.ignoreKeys) return (murmur2(key) & 0x7fffffff) % partitionCount
    return this.sticky(topic, partitionCount, availablePartitions)
  }

  onBatchFull(topic: string, partition: number): void {
    const s = this.topics.get(topic)
    if (s !== undefined && s.current === partition) {
      s.previous = partition
      s.current = -1
    }
  }

  private sticky(topic: string, count: number, available: readonly number[]): number {
    let s = this.topics.get(topic)
    if (s === undefined) {
      s = { current: -1, previous: -1, checked: null }
      this.topics.set(topic, s)
    }
    if (s.checked !== available) {
      s.checked = available
      // New metadata: leave a partition that lost its leader (or no longer
      // exists) now rather than after a batch that cannot be sent.
      if (s.current >= count || (s.current >= 0 && available.length > 0 && !available.includes(s.current))) s.current = -1
    }
    if (s.current < 0) s.current = this.choose(count, available, s.previous)
    return s.current
  }

  /** A uniformly random available partition (any, when none is), other than `previous` when possible. */
  private choose(count: number, available: readonly number[], previous: number): number {
    const some = available.length > 0
    const n = some ? available.length : count
    const skip = previous < 0 || n < 2 ? -1 : some ? available.indexOf(previous) : previous < count ? previous : -1
    const i = Math.floor(this.random() * (skip < 0 ? n : n - 1))
    const at = skip >= 0 && i >= skip ? i + 1 : i
    return some ? available[at] : at
  }
}
