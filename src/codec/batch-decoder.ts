import { Buffer } from 'node:buffer'
import { CorruptRecordError } from '../errors.js'
import { ATTR_COMPRESSION } from './batch-header.js'
import { externalCodecs, codecName } from './compression.js'
import {
  D_ATTRIBUTES,
  D_BASE_OFFSET,
  D_BASE_SEQUENCE,
  D_BASE_TIMESTAMP,
  D_BATCH_START,
  D_BODY_LEN,
  D_BODY_START,
  D_COUNT,
  D_DATA_LEN,
  D_DATA_START,
  D_EXTERNAL,
  D_EXTERNAL_LEN,
  D_HEADERS,
  D_HEADERS_CAP,
  D_HEADERS_USED,
  D_IN,
  D_IN_LEN,
  D_INDEX,
  D_INDEX_CAP,
  D_LAST_OFFSET_DELTA,
  D_LEADER_EPOCH,
  D_MAGIC,
  D_MAX_DECOMPRESSED,
  D_MAX_TIMESTAMP,
  D_NEED_HEADERS,
  D_NEED_INDEX,
  D_NEED_SCRATCH,
  D_ORIGIN,
  D_POS,
  D_PRODUCER_EPOCH,
  D_PRODUCER_ID,
  D_SCRATCH,
  D_SCRATCH_CAP,
  D_SIZE,
  D_VERIFY_CRC,
  DECODED_BATCH,
  DECODED_END,
  DECODED_EXTERNAL,
  DECODED_NEED_SPACE,
  H_SIZE,
  ORIGIN_EXTERNAL,
  ORIGIN_INPUT,
  X_SIZE,
} from './layout.js'
import { RecordBatch } from './record.js'
import { codecError } from './status.js'
import type { DecodeOptions } from './types.js'
import { arena, memF64, memI32, memU8, memView, stage, wasm } from './wasm.js'

export interface RecordSet {
  batches: RecordBatch[]
  /** Bytes of whole entries read; the rest (if any) is a batch cut short by the fetch size. */
  bytesRead: number
}

const DEFAULT_MAX_DECOMPRESSED = 64 * 1024 * 1024

/** Region sizes grow by doubling on demand and are remembered for the next call. */
const caps = { index: 1024, headers: 1024, scratch: 256 * 1024 }

function toBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
}

/**
 * Decodes a record set (a Fetch partition's records: v2 batches and legacy
 * messages back to back, possibly ending in a partial batch). Uncompressed
 * keys and values are views into `data`; decompressed ones into one Buffer
 * per batch.
 */
export function decodeRecordSet(data: Uint8Array, options: DecodeOptions = {}): RecordSet {
  const source = toBuffer(data)
  const limit = options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED
  arena.reset()
  const ctx = arena.alloc(D_SIZE)
  const input = stage(source)
  const fixedTop = arena.top
  let external: Uint8Array | null = null

  // (Re)places the growable regions after the input; the input never moves.
  const layOut = (): void => {
    arena.top = fixedTop
    const index = arena.alloc(caps.index * X_SIZE)
    const headers = arena.alloc(caps.headers * H_SIZE)
    const scratch = arena.alloc(caps.scratch)
    const at = external ? arena.alloc(external.length) : 0
    // Only now, after every alloc (growth replaces the views).
    const v = memView()
    v.setInt32(ctx + D_INDEX, index, true)
    v.setInt32(ctx + D_INDEX_CAP, caps.index, true)
    v.setInt32(ctx + D_HEADERS, headers, true)
    v.setInt32(ctx + D_HEADERS_CAP, caps.headers, true)
    v.setInt32(ctx + D_SCRATCH, scratch, true)
    v.setInt32(ctx + D_SCRATCH_CAP, caps.scratch, true)
    if (external) {
      memU8().set(external, at)
      v.setInt32(ctx + D_EXTERNAL, at, true)
      v.setInt32(ctx + D_EXTERNAL_LEN, external.length, true)
    }
  }
  const grow = (): void => {
    const i32 = memI32()
    const c = ctx >> 2
    while (caps.index < i32[c + (D_NEED_INDEX >> 2)]) caps.index *= 2
    while (caps.headers < i32[c + (D_NEED_HEADERS >> 2)]) caps.headers *= 2
    caps.scratch = Math.max(caps.scratch, i32[c + (D_NEED_SCRATCH >> 2)])
    layOut()
  }

  const v0 = memView()
  v0.setInt32(ctx + D_IN, input, true)
  v0.setInt32(ctx + D_IN_LEN, source.length, true)
  v0.setInt32(ctx + D_POS, 0, true)
  v0.setInt32(ctx + D_VERIFY_CRC, options.verifyCrc === false ? 0 : 1, true)
  v0.setInt32(ctx + D_MAX_DECOMPRESSED, Math.min(limit, 0x7fff_0000), true)
  v0.setInt32(ctx + D_NEED_INDEX, 0, true)
  v0.setInt32(ctx + D_NEED_HEADERS, 0, true)
  v0.setInt32(ctx + D_NEED_SCRATCH, 0, true)
  layOut()

  const batches: RecordBatch[] = []
  for (;;) {
    let status = wasm.decodeBatch(ctx)
    while (status === DECODED_NEED_SPACE) {
      grow()
      status = wasm.decodeBatch(ctx)
    }
    if (status === DECODED_END) break
    if (status === DECODED_EXTERNAL) {
      external = decompressOutside(source, ctx, limit)
      layOut()
      status = wasm.decodeExternal(ctx)
      while (status === DECODED_NEED_SPACE) {
        grow()
        status = wasm.decodeExternal(ctx)
      }
    }
    if (status !== DECODED_BATCH) throw batchError(status, ctx)
    batches.push(readBatch(ctx, source, external))
    external = null
  }
  return { batches, bytesRead: memView().getInt32(ctx + D_POS, true) }
}

function batchError(status: number, ctx: number): CorruptRecordError {
  const v = memView()
  const at = v.getInt32(ctx + D_BATCH_START, true)
  return codecError(status, `record batch at byte ${at} of the record set (offset ${v.getBigInt64(ctx + D_BASE_OFFSET, true)})`)
}

function decompressOutside(source: Buffer, ctx: number, limit: number): Buffer {
  const v = memView()
  const codec = v.getInt32(ctx + D_ATTRIBUTES, true) & ATTR_COMPRESSION
  const start = v.getInt32(ctx + D_BODY_START, true)
  const body = source.subarray(start, start + v.getInt32(ctx + D_BODY_LEN, true))
  const ext = externalCodecs[codec]
  if (!ext) throw new CorruptRecordError('codec', `no decoder for ${codecName(codec)} data in a record batch`)
  return toBuffer(ext.decompress(body, limit))
}

function readBatch(ctx: number, source: Buffer, external: Uint8Array | null): RecordBatch {
  const v = memView()
  const count = v.getInt32(ctx + D_COUNT, true)
  const origin = v.getInt32(ctx + D_ORIGIN, true)
  let data: Buffer
  if (origin === ORIGIN_INPUT) data = source
  else if (origin === ORIGIN_EXTERNAL) data = toBuffer(external!)
  else {
    // Decompressed in wasm: copy the records section out once; index offsets are relative to it.
    const scratch = v.getInt32(ctx + D_SCRATCH, true)
    const start = v.getInt32(ctx + D_DATA_START, true)
    data = Buffer.from(memU8().subarray(scratch, scratch + start + v.getInt32(ctx + D_DATA_LEN, true)))
  }
  const indexAt = v.getInt32(ctx + D_INDEX, true)
  const index = memF64().slice(indexAt >> 3, (indexAt + count * X_SIZE) >> 3)
  const headersAt = v.getInt32(ctx + D_HEADERS, true)
  const headersUsed = v.getInt32(ctx + D_HEADERS_USED, true)
  const headerIndex = headersUsed === 0 ? EMPTY : memI32().slice(headersAt >> 2, (headersAt + headersUsed * H_SIZE) >> 2)
  return new RecordBatch(
    v.getBigInt64(ctx + D_BASE_OFFSET, true),
    v.getInt32(ctx + D_LAST_OFFSET_DELTA, true),
    v.getInt32(ctx + D_LEADER_EPOCH, true),
    v.getInt32(ctx + D_MAGIC, true),
    v.getInt32(ctx + D_ATTRIBUTES, true),
    v.getFloat64(ctx + D_BASE_TIMESTAMP, true),
    v.getFloat64(ctx + D_MAX_TIMESTAMP, true),
    v.getBigInt64(ctx + D_PRODUCER_ID, true),
    v.getInt32(ctx + D_PRODUCER_EPOCH, true),
    v.getInt32(ctx + D_BASE_SEQUENCE, true),
    data,
    index,
    headerIndex,
    count,
  )
}

const EMPTY = new Int32Array(0)
