// librdkafka's 'murmur2' partitioner: every record by the murmur2 of its key,
// a missing key hashed as empty bytes, so keyless records all go to one
// partition. Fully deterministic: the same records always land in the same
// places, whichever client (librdkafka or wafka) sends them.
import { murmur2, murmur2Bytes } from './murmur2.js'
import type { PartitionFn, Partitioner } from './types.js'

/** murmur2 of no bytes (0x106e08d9), where librdkafka puts null keys. */
const NULL_KEY_HASH = murmur2Bytes(new Uint8Array(0), 0)

export class Murmur2Partitioner implements Partitioner {
  readonly partition: PartitionFn = (_topic, key, partitionCount, _availablePartitions, message) => {
    const fixed = message?.partition
    if (fixed != null) return fixed
    return ((key == null ? NULL_KEY_HASH : murmur2(key)) & 0x7fffffff) % partitionCount
  }

  onBatchFull(): void {}
}
