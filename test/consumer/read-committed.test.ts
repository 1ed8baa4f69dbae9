import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { decodeRecordSet, encodeRecordBatch, type RecordBatch } from '../../src/codec/index.js'
import { committedBatches, dataBatches, type AbortedRange } from '../../src/consumer/read-committed.js'

const ABORT = 0
const COMMIT = 1

/** A data batch of `count` records at `baseOffset`; pid -1 = a plain producer. */
function data(baseOffset: number, count: number, producerId = -1, transactional = producerId >= 0): Buffer {
  const records = Array.from({ length: count }, (_, i) => ({ value: `v${baseOffset + i}`, timestamp: 1_700_000_000_000 + i }))
  return encodeRecordBatch(records, {
    baseOffset,
    producerId,
    producerEpoch: producerId >= 0 ? 0 : -1,
    baseSequence: producerId >= 0 ? 0 : -1,
    transactional,
  })
}

/** A transaction marker: one control record, key int16 version 0 + int16 type, value int16 version + int32 coordinator epoch. */
function marker(baseOffset: number, producerId: number, type: number): Buffer {
  const key = Buffer.from([0, 0, 0, type])
  const value = Buffer.from([0, 0, 0, 0, 0, 5])
  return encodeRecordBatch([{ key, value, timestamp: 1_700_000_000_000 }], {
    baseOffset,
    producerId,
    producerEpoch: 0,
    baseSequence: -1,
    transactional: true,
    control: true,
  })
}

function decode(...parts: Buffer[]): RecordBatch[] {
  const all = Buffer.concat(parts)
  const { batches, bytesRead } = decodeRecordSet(all)
  expect(bytesRead).toBe(all.length)
  return batches
}

const bases = (batches: RecordBatch[]) => batches.map((b) => Number(b.baseOffset))
const aborted = (...list: Array<[number, number]>): AbortedRange[] =>
  list.map(([pid, first]) => ({ producerId: BigInt(pid), firstOffset: BigInt(first) }))

describe('test batches', () => {
  it('decode as transactional data and control markers', () => {
    const [d, c, plain] = decode(data(0, 2, 1), marker(2, 1, ABORT), data(3, 1))
    expect([d.isTransactional, d.isControl, d.producerId]).toEqual([true, false, 1n])
    expect([c.isTransactional, c.isControl, c.controlType, c.producerId]).toEqual([true, true, 'ABORT', 1n])
    expect([plain.isTransactional, plain.isControl, plain.producerId]).toEqual([false, false, -1n])
    expect(decode(marker(0, 2, COMMIT))[0].controlType).toBe('COMMIT')
  })
})

describe('committedBatches', () => {
  // 0-1 pid 1 (aborted), 2-3 pid 2 (committed), 4 plain, 5-6 pid 1 (same aborted txn),
  // 7 pid 2 COMMIT, 8 pid 1 ABORT, 9-10 pid 1 (a new txn), 11 pid 1 COMMIT.
  const interleaved = () =>
    decode(
      data(0, 2, 1),
      data(2, 2, 2),
      data(4, 1),
      data(5, 2, 1),
      marker(7, 2, COMMIT),
      marker(8, 1, ABORT),
      data(9, 2, 1),
      marker(11, 1, COMMIT),
    )

  it('drops an aborted producer among committed and plain batches, markers included', () => {
    expect(bases(committedBatches(interleaved(), aborted([1, 0])))).toEqual([2, 4, 9])
  })

  it('keeps the aborted producer’s batches after its ABORT marker', () => {
    const kept = committedBatches(interleaved(), aborted([1, 0]))
    expect(kept.filter((b) => b.producerId === 1n).map((b) => b.baseOffset)).toEqual([9n])
  })

  it('never returns control batches', () => {
    const batches = interleaved()
    for (const list of [null, [], aborted([1, 0]), aborted([1, 0], [2, 2])]) {
      expect(committedBatches(batches, list).some((b) => b.isControl)).toBe(false)
    }
  })

  it('keeps every data batch without aborted transactions (null or empty list)', () => {
    const batches = interleaved()
    expect(bases(committedBatches(batches, null))).toEqual([0, 2, 4, 5, 9])
    expect(bases(committedBatches(batches, []))).toEqual([0, 2, 4, 5, 9])
  })

  it('keeps a batch that ends before the aborted transaction’s first offset', () => {
    // pid 1: 0-1 committed at 2, then 3-4 aborted at 5.
    const batches = decode(data(0, 2, 1), marker(2, 1, COMMIT), data(3, 2, 1), marker(5, 1, ABORT), data(6, 1))
    expect(bases(committedBatches(batches, aborted([1, 3])))).toEqual([0, 6])
  })

  it('drops a transaction that was open before the fetched range began', () => {
    const batches = decode(data(50, 2, 1), data(52, 1), marker(53, 1, ABORT), data(54, 1, 1))
    expect(bases(committedBatches(batches, aborted([1, 10])))).toEqual([52, 54])
  })

  it('handles several aborted transactions of one producer in one fetch', () => {
    // pid 1: txn A 0-1 aborted at 2, txn B 3-4 committed at 5, txn C 6-7 aborted at 8, then 9.
    const batches = decode(
      data(0, 2, 1),
      marker(2, 1, ABORT),
      data(3, 2, 1),
      marker(5, 1, COMMIT),
      data(6, 2, 1),
      marker(8, 1, ABORT),
      data(9, 1, 1),
    )
    expect(bases(committedBatches(batches, aborted([1, 0], [1, 6])))).toEqual([3, 9])
  })

  it('sorts the aborted list itself, without reordering the caller’s', () => {
    // pid 3 aborted at 0-1 (marker 4), pid 1 aborted at 2-3 (marker 5).
    const batches = decode(data(0, 2, 3), data(2, 2, 1), marker(4, 3, ABORT), marker(5, 1, ABORT), data(6, 1, 3), data(7, 1, 1))
    const list = aborted([1, 2], [3, 0])
    expect(bases(committedBatches(batches, list))).toEqual([6, 7])
    expect(list.map((a) => a.producerId)).toEqual([1n, 3n])
  })

  it('does not let another producer’s ABORT marker end a transaction', () => {
    // pid 1 and pid 2 both aborted; pid 2's marker comes first.
    const batches = decode(data(0, 1, 1), data(1, 1, 2), marker(2, 2, ABORT), data(3, 1, 1), marker(4, 1, ABORT), data(5, 1, 2))
    expect(bases(committedBatches(batches, aborted([1, 0], [2, 1])))).toEqual([5])
  })

  it('does not let a COMMIT marker end an aborted range', () => {
    // Cannot happen on a real log; the ABORT marker alone closes the range, as in Java.
    const batches = decode(data(0, 1, 1), marker(1, 1, COMMIT), data(2, 1, 1), marker(3, 1, ABORT), data(4, 1, 1))
    expect(bases(committedBatches(batches, aborted([1, 0])))).toEqual([4])
  })

  it('keeps a non-transactional batch carrying an aborted producer id', () => {
    // Only transactional batches can be aborted (an idempotent producer has a pid too).
    const batches = decode(data(0, 1, 1, true), data(1, 1, 1, false), marker(2, 1, ABORT))
    expect(bases(committedBatches(batches, aborted([1, 0])))).toEqual([1])
  })
})

describe('dataBatches', () => {
  it('drops control batches only, in order', () => {
    const batches = decode(data(0, 2, 1), marker(2, 1, ABORT), data(3, 1), marker(4, 2, COMMIT), data(5, 1, 2))
    expect(bases(dataBatches(batches))).toEqual([0, 3, 5])
  })

  it('returns the batches unchanged when none is a control batch', () => {
    const batches = decode(data(0, 2, 1), data(2, 1))
    expect(dataBatches(batches)).toEqual(batches)
  })
})
