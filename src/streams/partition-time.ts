// A task's partition time in its committed offsets' metadata, as Java Kafka
// Streams writes it (TopicPartitionMetadata): base64 of a version byte (2),
// the partition time (int64, big-endian: the largest timestamp the task took
// from that partition) and the processor metadata (an int32 count, then per
// entry an int32 length, the UTF-8 key and an int64 value; empty when there is
// none). So a restarted task, ours or Java's, starts from the stream time the
// last owner reached. wafka writes no processor metadata of its own: what a
// Java owner wrote is carried through unchanged.

const VERSION = 2

export interface PartitionTime {
  /** -1 when unknown. */
  partitionTime: number
  /** The processor metadata's bytes, as read (empty for none). */
  processorMetadata: Buffer
}

const NONE: PartitionTime = { partitionTime: -1, processorMetadata: Buffer.alloc(0) }

export function encodePartitionTime(partitionTime: number, processorMetadata: Buffer = NONE.processorMetadata): string {
  const out = Buffer.alloc(9 + processorMetadata.length)
  out.writeUInt8(VERSION, 0)
  out.writeBigInt64BE(BigInt(partitionTime), 1)
  processorMetadata.copy(out, 9)
  return out.toString('base64')
}

/**
 * What a committed offset's metadata says, as Java's decode reads it:
 * none or empty is unknown; version 1 holds the time alone; another version
 * or bytes that do not parse are unknown too, and `unreadable` says why
 * (Java logs a WARN and goes on).
 */
export function decodePartitionTime(metadata: string | null | undefined, unreadable: (why: string) => void): PartitionTime {
  if (!metadata) return NONE
  const bytes = Buffer.from(metadata, 'base64')
  if (bytes.length < 9) {
    unreadable(`offset metadata of ${bytes.length} bytes holds no partition time`)
    return NONE
  }
  const version = bytes.readUInt8(0)
  if (version !== 1 && version !== VERSION) {
    unreadable(`unsupported offset metadata version ${version} (at most ${VERSION})`)
    return NONE
  }
  return {
    partitionTime: Number(bytes.readBigInt64BE(1)),
    processorMetadata: version === VERSION ? Buffer.from(bytes.subarray(9)) : NONE.processorMetadata,
  }
}
