import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { decodeRecordSet, encodeRecordBatch, type EncodeOptions, type RecordBatch, type RecordInput } from '../../src/codec/index.js'
import { Batch } from '../../src/consumer/batch.js'
import { Message, messagesFrom } from '../../src/consumer/message.js'

const T0 = 1_700_000_000_000

function batchOf(baseOffset: bigint | number, count: number, options: EncodeOptions = {}): Buffer {
  const records: RecordInput[] = Array.from({ length: count }, (_, i) => ({ key: `k${i}`, value: `v${i}`, timestamp: T0 + i }))
  return encodeRecordBatch(records, { baseOffset, ...options })
}

const decode = (...parts: Buffer[]): RecordBatch[] => decodeRecordSet(Buffer.concat(parts)).batches
const offsets = (ms: Message[]) => ms.map((m) => m.offset)

describe('Message', () => {
  it('gives offset and timestamp as strings', () => {
    const [m0, m1] = messagesFrom(decode(batchOf(41, 2)), 0n)
    expect(m0.offset).toBe('41')
    expect(m1.offset).toBe('42')
    expect(m0.timestamp).toBe(String(T0))
    expect(m1.timestamp).toBe(String(T0 + 1))
  })

  it('keeps offsets beyond 2^53 exact', () => {
    const base = 2n ** 60n + 3n
    const ms = messagesFrom(decode(batchOf(base, 2)), 0n)
    expect(offsets(ms)).toEqual([String(base), String(base + 1n)])
  })

  it('takes the batch time for LogAppendTime', () => {
    const [m] = messagesFrom(decode(batchOf(0, 1, { logAppendTime: T0 + 999 })), 0n)
    expect(m.timestamp).toBe(String(T0 + 999))
  })

  it('reads key, value, null and headers, repeated header keys as arrays', () => {
    const bytes = encodeRecordBatch([
      { key: 'k', value: 'hello', timestamp: T0, headers: { a: 'x', b: ['1', '2'] } },
      { key: null, value: null, timestamp: T0, headers: [['n', null]] as const },
    ])
    const [m0, m1] = messagesFrom(decode(bytes), 0n)
    expect(m0.key!.toString()).toBe('k')
    expect(m0.value!.toString()).toBe('hello')
    expect(m0.headers).toEqual({ a: Buffer.from('x'), b: [Buffer.from('1'), Buffer.from('2')] })
    expect(m1.key).toBeNull()
    expect(m1.value).toBeNull()
    expect(m1.headers).toEqual({ n: null })
  })

  it('serializes to { offset, timestamp, key, value, headers }', () => {
    const [m] = messagesFrom(decode(batchOf(7, 1)), 0n)
    const json = m.toJSON() as Record<string, unknown>
    expect(Object.keys(json).sort()).toEqual(['headers', 'key', 'offset', 'timestamp', 'value'])
    expect(json).toMatchObject({ offset: '7', timestamp: String(T0), headers: {} })
    expect((json.key as Buffer).toString()).toBe('k0')
    expect((json.value as Buffer).toString()).toBe('v0')
    expect(JSON.parse(JSON.stringify(m)).offset).toBe('7')
  })

  it('exposes the batch attributes', () => {
    const [m] = messagesFrom(decode(batchOf(0, 1, { producerId: 1, producerEpoch: 0, baseSequence: 0, transactional: true })), 0n)
    expect(m.attributes & 16).toBe(16)
  })
})

describe('messagesFrom', () => {
  it('returns every message of every batch when all are at or after `from`', () => {
    expect(offsets(messagesFrom(decode(batchOf(10, 3), batchOf(13, 2)), 10n))).toEqual(['10', '11', '12', '13', '14'])
  })

  it('skips the records before `from` in a batch that starts earlier', () => {
    expect(offsets(messagesFrom(decode(batchOf(10, 5), batchOf(15, 2)), 12n))).toEqual(['12', '13', '14', '15', '16'])
  })

  it('skips whole batches before `from`', () => {
    expect(offsets(messagesFrom(decode(batchOf(0, 4), batchOf(4, 4), batchOf(8, 2)), 8n))).toEqual(['8', '9'])
  })

  it('returns nothing when `from` is past the data', () => {
    expect(messagesFrom(decode(batchOf(0, 3)), 3n)).toEqual([])
    expect(messagesFrom([], 0n)).toEqual([])
  })

  it('keeps each message’s own key and value after skipping', () => {
    const ms = messagesFrom(decode(batchOf(10, 5)), 13n)
    expect(ms.map((m) => m.value!.toString())).toEqual(['v3', 'v4'])
    expect(ms.map((m) => m.key!.toString())).toEqual(['k3', 'k4'])
  })
})

describe('Batch', () => {
  const messages = (base: number, count: number) => messagesFrom(decode(batchOf(base, count)), 0n)

  it('reports first and last offsets and the lag behind the high watermark', () => {
    const b = new Batch('t', 3, '20', messages(10, 5))
    expect(b.topic).toBe('t')
    expect(b.partition).toBe(3)
    expect(b.isEmpty()).toBe(false)
    expect(b.firstOffset()).toBe('10')
    expect(b.lastOffset()).toBe('14')
    expect(b.offsetLag()).toBe('5')
    expect(b.offsetLagLow()).toBe('9')
  })

  it('has no lag when it ends at the high watermark', () => {
    const b = new Batch('t', 0, '15', messages(10, 5))
    expect(b.offsetLag()).toBe('0')
    expect(b.offsetLagLow()).toBe('4')
  })

  it('never reports a negative lag against a stale high watermark', () => {
    const b = new Batch('t', 0, '12', messages(10, 5))
    expect(b.offsetLag()).toBe('0')
    expect(b.offsetLagLow()).toBe('1')
    expect(new Batch('t', 0, '5', messages(10, 5)).offsetLagLow()).toBe('0')
  })

  it('reads an empty batch as positioned at the high watermark', () => {
    const b = new Batch('t', 0, '20', [])
    expect(b.isEmpty()).toBe(true)
    expect(b.firstOffset()).toBeNull()
    expect(b.lastOffset()).toBe('19')
    expect(b.offsetLag()).toBe('0')
    expect(b.offsetLagLow()).toBe('0')
  })

  it('computes lag exactly beyond 2^53', () => {
    const base = 2n ** 60n
    const ms = messagesFrom(decode(batchOf(base, 2)), 0n)
    const b = new Batch('t', 0, String(base + 10n), ms)
    expect(b.lastOffset()).toBe(String(base + 1n))
    expect(b.offsetLag()).toBe('8')
    expect(b.offsetLagLow()).toBe('9')
  })
})
