import { Buffer } from 'node:buffer'
import bytes from '../../dist/wafka.wasm'
import {
  B_RECORDS,
  D_BASE_OFFSET,
  D_BASE_TIMESTAMP,
  D_COUNT,
  D_HEADERS,
  D_HEADERS_CAP,
  D_IN,
  D_IN_LEN,
  D_INDEX,
  D_INDEX_CAP,
  D_MAX_DECOMPRESSED,
  D_NEED_HEADERS,
  D_NEED_INDEX,
  D_NEED_SCRATCH,
  D_ORIGIN,
  D_POS,
  D_PRODUCER_EPOCH,
  D_PRODUCER_ID,
  D_BASE_SEQUENCE,
  D_ATTRIBUTES,
  D_SCRATCH,
  D_SCRATCH_CAP,
  D_SIZE,
  D_VERIFY_CRC,
  DECODED_BATCH,
  DECODED_END,
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
  E_SCRATCH,
  E_SCRATCH_CAP,
  E_SIZE,
  H_SIZE,
  ORIGIN_INPUT,
  R_SIZE,
  X_KEY_LEN,
  X_KEY_OFF,
  X_OFFSET_DELTA,
  X_SIZE,
  X_TS_DELTA,
  X_VALUE_LEN,
  X_VALUE_OFF,
} from '../../src/codec/layout.js'
import type { WasmExports } from '../../src/codec/wasm-exports.js'
import type { CompressionName } from '../../src/index.js'
import type { DecodedBatch, PeerCodec, PeerEncodeOptions, PeerRecordInput } from './types.js'

/**
 * "Bare wasm": wafka's wasm core driven directly, with no API around it, the
 * ceiling for what wafka's TypeScript layer costs. A separate instance of the
 * same module (dist/wafka.wasm), its regions laid out once; per batch, encode
 * copies each record's key and value bytes straight into wasm memory, writes
 * the record descriptors, makes one encodeBatch call and copies the batch
 * out; decode copies the batch in, makes one decodeBatch call (CRC checked,
 * as wafka's default) and hands out each key and value as a view over wasm
 * memory (valid until the next call: the cheapest way to give a consumer the
 * bytes). Buffers in only, no headers, and only the codecs inside the module
 * (none, snappy, LZ4): no option checks, no timestamps other than numbers,
 * no growth while timing (the regions are sized for the benchmark's batches).
 */

const CODEC: Partial<Record<CompressionName, number>> = { none: 0, snappy: 2, lz4: 3 }
const PAGE = 65536
/** Region sizes: enough for the benchmark's 1,000 records of up to 1 KiB (and room to spare). */
const IO_BYTES = 8 << 20
const RECORDS = 16 * 1024

const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
  env: {
    abort(): never {
      throw new Error('bare wasm: the wasm core aborted')
    },
  },
})
const w = instance.exports as unknown as WasmExports

// Regions 4 KiB-staggered, as wafka's arena does (memory.copy is slow on some CPUs when the
// destination sits just past the source modulo 4 KiB).
let top = w.heapBase()
let region = 0
function alloc(size: number): number {
  const at = ((top + 4095) & ~4095) + ((region++ * 1088) & 4095)
  top = at + size
  return at
}
const params = alloc(E_SIZE)
const staged = alloc(RECORDS * R_SIZE)
const data = alloc(IO_BYTES)
const scratch = alloc(2 * IO_BYTES)
const out = alloc(2 * IO_BYTES)
const ctx = alloc(D_SIZE)
const input = alloc(IO_BYTES)
const index = alloc(RECORDS * X_SIZE)
const headers = alloc(1024 * H_SIZE)
const decodeScratch = alloc(2 * IO_BYTES)
if (top > w.memory.buffer.byteLength) w.memory.grow(Math.ceil((top - w.memory.buffer.byteLength) / PAGE))
// The memory never grows after this: the views stay valid.
const u8 = new Uint8Array(w.memory.buffer)
const i32 = new Int32Array(w.memory.buffer)
const f64 = new Float64Array(w.memory.buffer)
const view = new DataView(w.memory.buffer)

function encode(records: readonly PeerRecordInput[], options: PeerEncodeOptions): Buffer {
  const codec = CODEC[options.compression]
  if (codec === undefined) throw new Error(`bare wasm has no ${options.compression}`)
  const count = records.length
  const firstTs = records[0].timestamp as number
  let maxTs = firstTs
  let p = data
  for (let i = 0; i < count; i++) {
    const r = records[i]
    const key = r.key as Uint8Array
    const value = r.value as Uint8Array
    const ts = r.timestamp as number
    if (ts > maxTs) maxTs = ts
    const d = staged + i * R_SIZE
    f64[d >> 3] = ts - firstTs
    const q = d >> 2
    u8.set(key, p)
    i32[q + 2] = p
    i32[q + 3] = key.length
    p += key.length
    u8.set(value, p)
    i32[q + 4] = p
    i32[q + 5] = value.length
    p += value.length
    i32[q + 6] = 0
    i32[q + 7] = 0
  }
  const sectionBound = p - data + count * 21
  view.setBigInt64(params + E_BASE_OFFSET, 0n, true)
  view.setBigInt64(params + E_BASE_TIMESTAMP, BigInt(firstTs), true)
  view.setBigInt64(params + E_MAX_TIMESTAMP, BigInt(maxTs), true)
  view.setBigInt64(params + E_PRODUCER_ID, -1n, true)
  view.setInt32(params + E_LEADER_EPOCH, -1, true)
  view.setInt32(params + E_PRODUCER_EPOCH, -1, true)
  view.setInt32(params + E_BASE_SEQUENCE, -1, true)
  view.setInt32(params + E_ATTRIBUTES, codec, true)
  view.setInt32(params + E_RECORDS, staged, true)
  view.setInt32(params + E_COUNT, count, true)
  view.setInt32(params + E_LAST_OFFSET_DELTA, count - 1, true)
  view.setInt32(params + E_OFFSET_DELTAS, 0, true)
  view.setInt32(params + E_OUT, out, true)
  view.setInt32(params + E_OUT_CAP, 2 * IO_BYTES, true)
  view.setInt32(params + E_SCRATCH, scratch, true)
  view.setInt32(params + E_SCRATCH_CAP, codec === 0 ? 0 : sectionBound, true)
  const size = w.encodeBatch(params)
  if (size < 0) throw new Error(`bare wasm: encodeBatch returned ${size}`)
  const batch = Buffer.allocUnsafe(size)
  batch.set(u8.subarray(out, out + size))
  return batch
}

/** Copies the batch in and decodes it (CRC checked); the index then describes its records. */
function decodeInto(batch: Uint8Array): number {
  u8.set(batch, input)
  const c = ctx >> 2
  i32[c + (D_IN >> 2)] = input
  i32[c + (D_IN_LEN >> 2)] = batch.length
  i32[c + (D_POS >> 2)] = 0
  i32[c + (D_VERIFY_CRC >> 2)] = 1
  i32[c + (D_MAX_DECOMPRESSED >> 2)] = 2 * IO_BYTES
  i32[c + (D_INDEX >> 2)] = index
  i32[c + (D_INDEX_CAP >> 2)] = RECORDS
  i32[c + (D_HEADERS >> 2)] = headers
  i32[c + (D_HEADERS_CAP >> 2)] = 1024
  i32[c + (D_SCRATCH >> 2)] = decodeScratch
  i32[c + (D_SCRATCH_CAP >> 2)] = 2 * IO_BYTES
  i32[c + (D_NEED_INDEX >> 2)] = 0
  i32[c + (D_NEED_HEADERS >> 2)] = 0
  i32[c + (D_NEED_SCRATCH >> 2)] = 0
  const status = w.decodeBatch(ctx)
  if (status !== DECODED_BATCH) throw new Error(`bare wasm: decodeBatch returned ${status}`)
  return i32[c + (D_COUNT >> 2)]
}

/** Where the index's key/value offsets count from: the input, or the scratch the records were decompressed into. */
function dataBase(): number {
  return i32[(ctx + D_ORIGIN) >> 2] === ORIGIN_INPUT ? input : decodeScratch
}

function decodeAndTouch(batch: Buffer): number {
  const count = decodeInto(batch)
  const base = dataBase()
  let bytes = 0
  for (let i = 0; i < count; i++) {
    const x = (index + i * X_SIZE) >> 2
    const kl = i32[x + (X_KEY_LEN >> 2)]
    const vl = i32[x + (X_VALUE_LEN >> 2)]
    const key = kl < 0 ? null : u8.subarray(base + i32[x + (X_KEY_OFF >> 2)], base + i32[x + (X_KEY_OFF >> 2)] + kl)
    const value = vl < 0 ? null : u8.subarray(base + i32[x + (X_VALUE_OFF >> 2)], base + i32[x + (X_VALUE_OFF >> 2)] + vl)
    bytes += (key?.length ?? 0) + (value?.length ?? 0)
  }
  if (w.decodeBatch(ctx) !== DECODED_END) throw new Error('bare wasm: expected one batch')
  return bytes
}

function decode(batch: Buffer): DecodedBatch {
  const count = decodeInto(batch)
  const base = dataBase()
  const baseOffset = view.getBigInt64(ctx + D_BASE_OFFSET, true)
  const baseTimestamp = view.getFloat64(ctx + D_BASE_TIMESTAMP, true)
  const copy = (off: number, len: number) => (len < 0 ? null : Buffer.from(u8.slice(base + off, base + off + len)))
  const records = []
  for (let i = 0; i < count; i++) {
    const x = index + i * X_SIZE
    records.push({
      offset: baseOffset + BigInt(view.getInt32(x + X_OFFSET_DELTA, true)),
      timestamp: baseTimestamp + view.getFloat64(x + X_TS_DELTA, true),
      key: copy(view.getInt32(x + X_KEY_OFF, true), view.getInt32(x + X_KEY_LEN, true)),
      value: copy(view.getInt32(x + X_VALUE_OFF, true), view.getInt32(x + X_VALUE_LEN, true)),
      headers: [],
    })
  }
  return {
    baseOffset,
    producerId: view.getBigInt64(ctx + D_PRODUCER_ID, true),
    producerEpoch: view.getInt32(ctx + D_PRODUCER_EPOCH, true),
    baseSequence: view.getInt32(ctx + D_BASE_SEQUENCE, true),
    transactional: (view.getInt32(ctx + D_ATTRIBUTES, true) & 0x10) !== 0,
    compression: view.getInt32(ctx + D_ATTRIBUTES, true) & 7,
    records,
  }
}

export const bareWasm: PeerCodec = {
  name: 'bare wasm',
  codecs: ['none', 'snappy', 'lz4'],
  encodes: { emptyBatch: false, nullHeaderValues: false, baseOffset: false },
  headerOrder: 'wire',
  load: async () => {},
  encode,
  decode,
  decodeAndTouch,
  crc32c: (d) => {
    u8.set(d, input)
    return w.crc32c(0, input, d.length) >>> 0
  },
}
