import { Buffer } from 'node:buffer'
import { ConfigError } from '../errors.js'
import { codecError, ERR_CODEC } from './status.js'
import { batchBuffer } from './batch-slabs.js'
import { codecId, externalCodecs } from './compression.js'
import {
  B_RECORDS,
  E_ATTRIBUTES,
  E_BASE_OFFSET,
  E_BASE_SEQUENCE,
  E_BASE_TIMESTAMP,
  E_COUNT,
  E_LAST_OFFSET_DELTA,
  E_LEADER_EPOCH,
  E_MAX_TIMESTAMP,
  E_OFFSET_DELTAS,
  E_OUT,
  E_OUT_CAP,
  E_PRODUCER_EPOCH,
  E_PRODUCER_ID,
  E_RECORDS,
  E_RECORDS_LEN,
  E_SCRATCH,
  E_SCRATCH_CAP,
  E_SIZE,
  H_SIZE,
  R_SIZE,
} from './layout.js'
import type { Bytes, EncodeOptions, RecordInput } from './types.js'
import { headerEntries, timestampOf } from './record-input.js'
import type { RecordStage } from './record-stage.js'
import { copyBytes, writeUtf8 } from './byte-copy.js'
import { arena, memBuffer, memF64, memI32, memU8, memView, wasm } from './wasm.js'

/** Upper bound of the UTF-8 bytes of a key/value/header value. */
function boundOf(v: Bytes): number {
  if (v === null || v === undefined) return 0
  return typeof v === 'string' ? v.length * 3 : v.length
}

function toMillis(ts: RecordInput['timestamp'], now: number): number {
  if (ts === undefined || ts === null) return now
  const ms = timestampOf(ts)
  if (!Number.isSafeInteger(ms)) throw new ConfigError(`record timestamp ${String(ts)} is not a whole number of milliseconds`)
  return ms
}

/** Copies a key/value into wasm memory; returns its length, -1 for null. */
function writeBytes(u8: Uint8Array, mem: Buffer, pos: number, v: Bytes): number {
  if (v === null || v === undefined) return -1
  if (typeof v === 'string') return writeUtf8(mem, pos, v)
  copyBytes(u8, pos, v)
  return v.length
}

/**
 * Encodes records as one RecordBatch v2 (magic 2). Offsets and timestamps
 * are stored as deltas from the first record, as the Java client does.
 */
export function encodeRecordBatch(records: readonly RecordInput[], options: EncodeOptions = {}): Buffer {
  const count = records.length
  const deltas = options.offsetDeltas
  if (deltas !== undefined && deltas.length !== count)
    throw new ConfigError(`offsetDeltas has ${deltas.length} entries for ${count} records`)
  const lastOffsetDelta = options.lastOffsetDelta ?? (deltas && count ? deltas[count - 1] : Math.max(0, count - 1))
  const codec = codecId(options.compression)
  const now = options.defaultTimestamp ?? Date.now()

  // Pass 1: sizes, so every region is allocated once.
  let dataBound = 0
  let headerCount = 0
  // Made on the first record with headers: most batches have none, and need no array a record.
  let headerLists: Array<Array<readonly [string, Bytes]> | undefined> | undefined
  for (let i = 0; i < count; i++) {
    const r = records[i]
    dataBound += boundOf(r.key) + boundOf(r.value)
    const hs = r.headers === undefined || r.headers === null ? undefined : headerEntries(r.headers)
    if (hs) {
      if (headerLists === undefined) headerLists = new Array(count)
      headerLists[i] = hs
      headerCount += hs.length
      for (const [k, v] of hs) {
        if (typeof k !== 'string') throw new ConfigError('a header key must be a string')
        dataBound += k.length * 3 + boundOf(v)
      }
    }
  }
  // Record framing: at most 21 bytes besides key, value and headers, 10 a header.
  const sectionBound = dataBound + count * 21 + headerCount * 10

  arena.reset()
  const params = arena.alloc(E_SIZE)
  const staged = arena.alloc(count * R_SIZE)
  const headers = arena.alloc(headerCount * H_SIZE)
  const data = arena.alloc(dataBound)
  const scratch = codec === 0 ? 0 : arena.alloc(sectionBound)
  const outCap = B_RECORDS + (codec === 0 ? sectionBound : compressedBound(codec, sectionBound))
  const out = arena.alloc(outCap)
  const deltaTable = deltas === undefined ? 0 : arena.alloc(count * 4)

  // Pass 2: bytes and descriptors.
  const u8 = memU8()
  const i32 = memI32()
  const f64 = memF64()
  const mem = memBuffer()
  let p = data
  let h = headers
  if (deltaTable) for (let i = 0; i < count; i++) i32[(deltaTable >> 2) + i] = deltas![i]
  const horizon = options.deleteHorizonMs
  let firstTs = horizon ?? 0
  let maxTs = -1
  for (let i = 0; i < count; i++) {
    const r = records[i]
    const ts = toMillis(r.timestamp, now)
    if (i === 0 && horizon === undefined) firstTs = ts
    if (ts > maxTs) maxTs = ts
    const d = staged + i * R_SIZE
    f64[d >> 3] = ts - firstTs
    const q = d >> 2
    i32[q + 2] = p
    const kl = writeBytes(u8, mem, p, r.key)
    i32[q + 3] = kl
    if (kl > 0) p += kl
    i32[q + 4] = p
    const vl = writeBytes(u8, mem, p, r.value)
    i32[q + 5] = vl
    if (vl > 0) p += vl
    const hs = headerLists === undefined ? undefined : headerLists[i]
    i32[q + 6] = h
    i32[q + 7] = hs ? hs.length : 0
    if (hs) {
      for (const [k, v] of hs) {
        const e = h >> 2
        i32[e] = p
        const hkl = writeUtf8(mem, p, k)
        i32[e + 1] = hkl
        p += hkl
        i32[e + 2] = p
        const hvl = writeBytes(u8, mem, p, v)
        i32[e + 3] = hvl
        if (hvl > 0) p += hvl
        h += H_SIZE
      }
    }
  }

  const layout = { params, staged, out, outCap, scratch, sectionBound, lastOffsetDelta, deltaTable }
  return seal(codec, count, firstTs, maxTs, layout, options)
}

/**
 * Encodes the records of a stage (copied there as they were appended) as one
 * RecordBatch v2: the same bytes encodeRecordBatch makes of those records.
 */
export function encodeStagedRecords(stage: RecordStage, options: EncodeOptions = {}): Buffer {
  // The stage holds a producer's records: consecutive offsets from the first record's timestamp.
  if (options.offsetDeltas !== undefined || options.deleteHorizonMs !== undefined)
    throw new ConfigError('offsetDeltas and deleteHorizonMs are for encodeRecordBatch (rewritten batches), not staged records')
  const count = stage.count
  const headerCount = stage.headerCount
  const codec = codecId(options.compression)
  const now = options.defaultTimestamp ?? Date.now()
  const sectionBound = stage.used + count * 21 + headerCount * 10

  arena.reset()
  const params = arena.alloc(E_SIZE)
  const staged = arena.alloc(count * R_SIZE)
  const headers = arena.alloc(headerCount * H_SIZE)
  const data = arena.alloc(stage.used)
  const scratch = codec === 0 ? 0 : arena.alloc(sectionBound)
  const outCap = B_RECORDS + (codec === 0 ? sectionBound : compressedBound(codec, sectionBound))
  const out = arena.alloc(outCap)

  const u8 = memU8()
  const i32 = memI32()
  const f64 = memF64()
  // One copy of every key, value and header into wasm memory.
  u8.set(stage.data.subarray(0, stage.used), data)
  const rec = stage.records
  const times = stage.timestamps
  let firstTs = 0
  let maxTs = -1
  for (let i = 0; i < count; i++) {
    const t = times[i]
    const ts = t === t ? t : now
    if (i === 0) firstTs = ts
    if (ts > maxTs) maxTs = ts
    const d = staged + i * R_SIZE
    f64[d >> 3] = ts - firstTs
    const q = d >> 2
    const r = i * 6
    i32[q + 2] = data + rec[r]
    i32[q + 3] = rec[r + 1]
    i32[q + 4] = data + rec[r + 2]
    i32[q + 5] = rec[r + 3]
    i32[q + 6] = headers + rec[r + 4] * H_SIZE
    i32[q + 7] = rec[r + 5]
  }
  const hs = stage.headers
  for (let j = 0; j < headerCount; j++) {
    const e = (headers + j * H_SIZE) >> 2
    const h = j * 4
    i32[e] = data + hs[h]
    i32[e + 1] = hs[h + 1]
    i32[e + 2] = data + hs[h + 2]
    i32[e + 3] = hs[h + 3]
  }
  const layout = { params, staged, out, outCap, scratch, sectionBound, lastOffsetDelta: Math.max(0, count - 1), deltaTable: 0 }
  return seal(codec, count, firstTs, maxTs, layout, options)
}

/** Where a batch's parts sit in wasm memory, and its offset layout (deltaTable 0: consecutive offsets). */
interface BatchLayout {
  params: number
  staged: number
  out: number
  outCap: number
  scratch: number
  sectionBound: number
  lastOffsetDelta: number
  deltaTable: number
}

/** Fills in the batch header's fields, runs the core's encoder over the staged records, and copies the batch out. */
function seal(codec: number, count: number, firstTs: number, maxTs: number, layout: BatchLayout, options: EncodeOptions): Buffer {
  const { params, staged, out, outCap, scratch, sectionBound, lastOffsetDelta, deltaTable } = layout
  const horizon = options.deleteHorizonMs
  let attributes = codec
  if (options.logAppendTime !== undefined) attributes |= 8
  if (options.transactional) attributes |= 16
  if (options.control) attributes |= 32
  // KIP-534: the base timestamp holds the delete horizon; record timestamps stay base + delta.
  if (horizon !== undefined) attributes |= 64
  const view = memView()
  view.setBigInt64(params + E_BASE_OFFSET, BigInt(options.baseOffset ?? 0), true)
  view.setBigInt64(params + E_BASE_TIMESTAMP, BigInt(count === 0 && horizon === undefined ? -1 : firstTs), true)
  view.setBigInt64(params + E_MAX_TIMESTAMP, BigInt(options.logAppendTime ?? (count === 0 ? -1 : maxTs)), true)
  view.setBigInt64(params + E_PRODUCER_ID, BigInt(options.producerId ?? -1), true)
  view.setInt32(params + E_LEADER_EPOCH, options.partitionLeaderEpoch ?? -1, true)
  view.setInt32(params + E_PRODUCER_EPOCH, options.producerEpoch ?? -1, true)
  view.setInt32(params + E_BASE_SEQUENCE, options.baseSequence ?? -1, true)
  view.setInt32(params + E_ATTRIBUTES, attributes, true)
  view.setInt32(params + E_RECORDS, staged, true)
  view.setInt32(params + E_COUNT, count, true)
  view.setInt32(params + E_LAST_OFFSET_DELTA, lastOffsetDelta, true)
  view.setInt32(params + E_OFFSET_DELTAS, deltaTable, true)
  view.setInt32(params + E_OUT, out, true)
  view.setInt32(params + E_OUT_CAP, outCap, true)
  view.setInt32(params + E_SCRATCH, scratch, true)
  view.setInt32(params + E_SCRATCH_CAP, codec === 0 ? 0 : sectionBound, true)

  let size = wasm.encodeBatch(params)
  if (size === ERR_CODEC) size = compressOutside(codec, params, scratch, options.compressionLevel)
  if (size < 0) throw codecError(size, 'encoding a record batch')
  return copyOut(memView().getInt32(params + E_OUT, true), size)
}

/** The encoded batch, copied out of wasm memory. */
function copyOut(at: number, size: number): Buffer {
  const out = batchBuffer(size)
  out.set(memU8().subarray(at, at + size))
  return out
}

/** Worst case of the compressed records section (headers of the formats included). */
function compressedBound(codec: number, len: number): number {
  const bound = wasm.compressBound(codec, len)
  return bound >= 0 ? bound : len + (len >> 3) + 1024
}

function compressOutside(codec: number, params: number, scratch: number, level?: number): number {
  const ext = externalCodecs[codec]
  if (!ext) return ERR_CODEC
  const len = memView().getInt32(params + E_RECORDS_LEN, true)
  const compressed = ext.compress(memU8().subarray(scratch, scratch + len), level)
  // The output region was sized by a bound the codec may exceed on incompressible data.
  const cap = memView().getInt32(params + E_OUT_CAP, true) - B_RECORDS
  if (compressed.length > cap) memView().setInt32(params + E_OUT, arena.alloc(B_RECORDS + compressed.length), true)
  memU8().set(compressed, memView().getInt32(params + E_OUT, true) + B_RECORDS)
  return wasm.sealBatch(params, compressed.length)
}
