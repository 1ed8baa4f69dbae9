import { Buffer } from 'node:buffer'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { crc32c } from '../../codec/crc.js'
import { writeFileDurably } from './disk-io.js'
import { segmentName } from './segment.js'

/**
 * One producer's line in a producer-state snapshot, Kafka's fields: its
 * epoch, the last batch it wrote (last sequence, last offset, and the
 * offset delta: last minus first of that batch), that batch's max
 * timestamp, the coordinator epoch of its last marker, and the first
 * offset of its open transaction (-1: none).
 */
export interface ProducerSnapshotEntry {
  producerId: bigint
  epoch: number
  lastSequence: number
  lastOffset: number
  offsetDelta: number
  timestamp: number
  coordinatorEpoch: number
  currentTxnFirstOffset: number
}

/** A snapshot file that does not pass its checks (length, version, CRC-32C). */
export class CorruptSnapshot extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`${path}: ${why}`)
    this.name = 'CorruptSnapshot'
  }
}

// Kafka's ProducerStateManager snapshot, version 1: version int16, crc uint32
// (CRC-32C of everything after it), then the entries as an int32-counted array.
const VERSION = 1
const CRC_AT = 2
const ENTRIES_AT = 6
const ENTRY_BYTES = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8

/** A partition's snapshot file for offset `offset`: `<20 digits>.snapshot`, as Kafka names them. */
export function snapshotPath(dir: string, offset: number): string {
  return join(dir, `${segmentName(offset)}.snapshot`)
}

/** The offsets of the snapshot files in `dir`, ascending. */
export function snapshotOffsets(dir: string): number[] {
  return readdirSync(dir)
    .filter((f) => /^\d{20}\.snapshot$/.test(f))
    .map((f) => Number(f.slice(0, 20)))
    .sort((a, b) => a - b)
}

export function encodeSnapshot(entries: readonly ProducerSnapshotEntry[]): Buffer {
  const b = Buffer.allocUnsafe(ENTRIES_AT + 4 + entries.length * ENTRY_BYTES)
  b.writeInt16BE(VERSION, 0)
  b.writeInt32BE(entries.length, ENTRIES_AT)
  let at = ENTRIES_AT + 4
  for (const e of entries) {
    b.writeBigInt64BE(e.producerId, at)
    b.writeInt16BE(e.epoch, at + 8)
    b.writeInt32BE(e.lastSequence, at + 10)
    b.writeBigInt64BE(BigInt(e.lastOffset), at + 14)
    b.writeInt32BE(e.offsetDelta, at + 22)
    b.writeBigInt64BE(BigInt(e.timestamp), at + 26)
    b.writeInt32BE(e.coordinatorEpoch, at + 34)
    b.writeBigInt64BE(BigInt(e.currentTxnFirstOffset), at + 38)
    at += ENTRY_BYTES
  }
  b.writeUInt32BE(crc32c(b.subarray(ENTRIES_AT)), CRC_AT)
  return b
}

/** The entries of a snapshot file's bytes; throws CorruptSnapshot when they do not pass the checks. */
export function decodeSnapshot(b: Buffer, path: string): ProducerSnapshotEntry[] {
  if (b.length < ENTRIES_AT + 4) throw new CorruptSnapshot(path, `${b.length} bytes, shorter than the header`)
  const version = b.readInt16BE(0)
  if (version !== VERSION) throw new CorruptSnapshot(path, `version ${version}, not ${VERSION}`)
  if (crc32c(b.subarray(ENTRIES_AT)) !== b.readUInt32BE(CRC_AT)) throw new CorruptSnapshot(path, 'CRC-32C does not match')
  const count = b.readInt32BE(ENTRIES_AT)
  if (count < 0 || b.length !== ENTRIES_AT + 4 + count * ENTRY_BYTES)
    throw new CorruptSnapshot(path, `${count} entries do not fill its ${b.length} bytes`)
  const out: ProducerSnapshotEntry[] = []
  for (let i = 0, at = ENTRIES_AT + 4; i < count; i++, at += ENTRY_BYTES)
    out.push({
      producerId: b.readBigInt64BE(at),
      epoch: b.readInt16BE(at + 8),
      lastSequence: b.readInt32BE(at + 10),
      lastOffset: Number(b.readBigInt64BE(at + 14)),
      offsetDelta: b.readInt32BE(at + 22),
      timestamp: Number(b.readBigInt64BE(at + 26)),
      coordinatorEpoch: b.readInt32BE(at + 34),
      currentTxnFirstOffset: Number(b.readBigInt64BE(at + 38)),
    })
  return out
}

/** Reads snapshot file `path`; throws CorruptSnapshot when it is unreadable or does not pass the checks. */
export function readSnapshot(path: string): ProducerSnapshotEntry[] {
  let b: Buffer
  try {
    b = readFileSync(path)
  } catch (err) {
    throw new CorruptSnapshot(path, `unreadable: ${(err as Error).message}`)
  }
  return decodeSnapshot(b, path)
}

/**
 * Writes the snapshot for `offset` in `dir` (written whole to a .tmp file,
 * flushed, renamed: a crash leaves no half snapshot under the real name).
 * A failure throws StorageError.
 */
export function writeSnapshot(dir: string, offset: number, entries: readonly ProducerSnapshotEntry[]): void {
  writeFileDurably(snapshotPath(dir, offset), encodeSnapshot(entries))
}

/** Deletes the snapshots in `dir` whose offset `drop` picks (derived state: below the log start, past a truncation). */
export function deleteSnapshots(dir: string, drop: (offset: number) => boolean): void {
  for (const offset of snapshotOffsets(dir)) if (drop(offset)) rmSync(snapshotPath(dir, offset), { force: true })
}

/**
 * Kafka's removeStraySnapshots, at a log's opening: the snapshots at no
 * segment's base go (a clean stop's, at the log end, once a later one is
 * taken), except the newest when it is past the last segment's base (the
 * last clean stop's, which the opening reads). So a partition keeps one
 * snapshot per segment (taken at its roll, deleted with it by retention or
 * a truncation) and at most one more, however many restarts it goes through.
 */
export function removeStraySnapshots(dir: string, segmentBases: readonly number[]): void {
  const bases = new Set(segmentBases)
  const strays = snapshotOffsets(dir).filter((o) => !bases.has(o))
  const newest = strays.at(-1)
  const lastBase = Math.max(...segmentBases)
  for (const offset of strays) if (offset !== newest || offset < lastBase) rmSync(snapshotPath(dir, offset), { force: true })
}
