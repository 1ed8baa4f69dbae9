import { CorruptRecordError } from '../errors.js'

// Mirrors assembly/status.ts.
export const OK = 0
export const ERR_TRUNCATED = -1
export const ERR_CHECKSUM = -2
export const ERR_VARINT = -3
export const ERR_MAGIC = -4
export const ERR_LENGTH = -5
export const ERR_RECORD = -6
export const ERR_OUTPUT_FULL = -7
export const ERR_COMPRESSED = -8
export const ERR_UNSUPPORTED = -9
export const ERR_CODEC = -10

const reasons: Record<number, [reason: string, text: string]> = {
  [ERR_TRUNCATED]: ['truncated', 'the data ends before a length or field it announces'],
  [ERR_CHECKSUM]: ['checksum', 'a checksum does not match the data'],
  [ERR_VARINT]: ['varint', 'a varint is longer than its type allows'],
  [ERR_MAGIC]: ['magic', 'an unknown magic byte'],
  [ERR_LENGTH]: ['length', 'a length or count is out of range'],
  [ERR_RECORD]: ['record', 'record framing does not add up'],
  [ERR_OUTPUT_FULL]: ['too-large', 'the decompressed data exceeds the configured limit'],
  [ERR_COMPRESSED]: ['compressed', 'the compressed data is malformed'],
  [ERR_UNSUPPORTED]: ['unsupported', 'a compression format feature that Kafka does not use'],
  [ERR_CODEC]: ['codec', 'an unknown compression codec'],
}

/** The typed error for a negative wasm status, naming what was being decoded. */
export function codecError(status: number, context: string): CorruptRecordError {
  const [reason, text] = reasons[status] ?? ['unknown', `unexpected status ${status}`]
  return new CorruptRecordError(reason, `${context}: ${text}`)
}
