// KafkaJS's two partitioners, for applications moving from KafkaJS that must
// keep records where it put them:
//   'kafkajs-default'  its DefaultPartitioner (once JavaCompatiblePartitioner):
//                      Java's murmur2 for keys;
//   'kafkajs-legacy'   its LegacyPartitioner (the default before 2.0), whose
//                      murmur2 variant puts keys elsewhere than Java's.
// Keyless records go round-robin over the partitions with a leader from a
// random start per topic (not sticky), as KafkaJS does: one counter per topic,
// incremented for every keyless record.
import { kafkajsLegacyMurmur2 } from './kafkajs-murmur2.js'
import { murmur2 } from './murmur2.js'
import type { PartitionFn, Partitioner, PartitionerOptions } from './types.js'

export type KafkaJSFlavour = 'default' | 'legacy'

export class KafkaJSPartitioner implements Partitioner {
  private readonly counters = new Map<string, { value: number }>()
  private readonly hash: (key: string | Uint8Array) => number
  private readonly random: () => number

  constructor(flavour: KafkaJSFlavour, options: Pick<PartitionerOptions, 'random'> = {}) {
    this.hash = flavour === 'legacy' ? kafkajsLegacyMurmur2 : murmur2
    this.random = options.random ?? Math.random
  }

  readonly partition: PartitionFn = (topic, key, partitionCount, availablePartitions, message) => {
    // KafkaJS draws a topic's start (an unsigned 32-bit int) at its first record, whatever the record.
    let counter = this.counters.get(topic)
    if (counter === undefined) {
      counter = { value: Math.floor(this.random() * 2 ** 32) }
      this.counters.set(topic, counter)
    }
    const fixed = message?.partition
    if (fixed != null) return fixed
    // KafkaJS hashes a non-Buffer key as String(key); a Uint8Array is hashed here as its bytes.
    if (key != null) return (this.hash(key) & 0x7fffffff) % partitionCount
    // KafkaJS's counter grows without bound but only its low 31 bits are used: wrapping at 2^32 keeps them.
    counter.value = (counter.value + 1) >>> 0
    const i = counter.value & 0x7fffffff
    return availablePartitions.length > 0 ? availablePartitions[i % availablePartitions.length] : i % partitionCount
  }

  onBatchFull(): void {}
}
