// The share partition's rules that the end-to-end tests (share-groups,
// on real Kafka and the embedded broker) do not reach: acknowledgements are
// applied all or none and only by the member holding the records, a renewed
// lock keeps the records, the in-flight window stops at
// share.partition.max.record.locks, control batches are never acquired,
// and the window kept on disk comes back with its acquired records available.
import type { Buffer } from 'node:buffer'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { encodeRecordBatch } from '../../src/codec/batch-encoder.js'
import { loadCodecs } from '../../src/codec/compression.js'
import { PartitionLog } from '../../src/broker/partition-log.js'
import { readBatchHeader } from '../../src/broker/record-batch.js'
import { ACK_ACCEPT, ACK_RELEASE, ACK_RENEW, SharePartition, type SharePartitionLimits } from '../../src/broker/share/share-partition.js'

beforeAll(() => loadCodecs())
afterEach(() => void vi.useRealTimers())

function logOf(...counts: number[]): PartitionLog {
  const log = new PartitionLog()
  for (const n of counts) {
    const b: Buffer = encodeRecordBatch(
      Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
      {},
    )
    log.append(b, readBatchHeader(b), 0)
  }
  log.highWatermark = log.logEndOffset
  return log
}

const limits = (over: Partial<SharePartitionLimits> = {}): SharePartitionLimits => ({
  lockDurationMs: 1000,
  deliveryCountLimit: 5,
  maxRecordLocks: 2000,
  readCommitted: false,
  ...over,
})

describe('SharePartition', () => {
  it('acknowledgements: all or none, only by the member holding the records; bad types are INVALID_REQUEST', () => {
    const log = logOf(10)
    const sp = new SharePartition(0, limits(), () => {})
    expect(sp.acquire('a', log, 5, false, 1 << 20).acquired).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }])
    expect(sp.acquire('b', log, 5, false, 1 << 20).acquired).toEqual([{ firstOffset: 5, lastOffset: 9, deliveryCount: 1 }])
    // One batch of b's records in a's request: nothing of it applied.
    expect(
      sp.acknowledge('a', [
        { firstOffset: 0, lastOffset: 4, acknowledgeTypes: [ACK_ACCEPT] },
        { firstOffset: 5, lastOffset: 5, acknowledgeTypes: [ACK_ACCEPT] },
      ]),
    ).toBe('INVALID_RECORD_STATE')
    expect(sp.startOffset).toBe(0)
    expect(sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [ACK_ACCEPT, ACK_ACCEPT] }])).toBe('INVALID_REQUEST')
    expect(sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [9] }])).toBe('INVALID_REQUEST')
    expect(sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [ACK_ACCEPT] }])).toBeNull()
    expect(sp.startOffset).toBe(5)
    // Accepted records are no one's to acknowledge again.
    expect(sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [ACK_RELEASE] }])).toBe('INVALID_RECORD_STATE')
  })

  it('acknowledgements whose state could not be kept are answered KAFKA_STORAGE_ERROR (the member is told, nothing lost)', () => {
    const log = logOf(4)
    let writes = true
    const sp = new SharePartition(
      0,
      limits(),
      () => {},
      () => writes,
    )
    sp.acquire('a', log, 4, false, 1 << 20)
    writes = false
    expect(sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [ACK_ACCEPT] }])).toBe('KAFKA_STORAGE_ERROR')
    writes = true
    expect(sp.acknowledge('a', [{ firstOffset: 2, lastOffset: 3, acknowledgeTypes: [ACK_ACCEPT] }])).toBeNull()
    expect(sp.startOffset).toBe(4)
  })

  it('a renewed lock keeps the records past the first lock; an expired one releases them (once more delivered)', () => {
    vi.useFakeTimers()
    const log = logOf(4)
    let woken = 0
    const sp = new SharePartition(0, limits(), () => void woken++)
    sp.acquire('a', log, 4, false, 1 << 20)
    vi.advanceTimersByTime(600)
    expect(sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [ACK_RENEW] }])).toBeNull()
    vi.advanceTimersByTime(600)
    // 2 and 3 expired and went back; 0 and 1 are still a's.
    expect(woken).toBe(1)
    expect(sp.acquire('b', log, 10, false, 1 << 20).acquired).toEqual([{ firstOffset: 2, lastOffset: 3, deliveryCount: 2 }])
    expect(sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [ACK_ACCEPT] }])).toBeNull()
    expect(sp.acknowledge('a', [{ firstOffset: 2, lastOffset: 2, acknowledgeTypes: [ACK_ACCEPT] }])).toBe('INVALID_RECORD_STATE')
    sp.close()
  })

  it('the in-flight window stops at share.partition.max.record.locks (whole batches), and moves on when records are done', () => {
    const log = logOf(3, 3, 3)
    const sp = new SharePartition(0, limits({ maxRecordLocks: 4 }), () => {})
    // The first batch, then the second (3 < 4 in flight), then no more.
    expect(sp.acquire('a', log, 100, true, 1 << 20).acquired).toEqual([{ firstOffset: 0, lastOffset: 5, deliveryCount: 1 }])
    expect(sp.acquire('a', log, 100, true, 1 << 20).acquired).toEqual([])
    expect(sp.acknowledge('a', [{ firstOffset: 0, lastOffset: 5, acknowledgeTypes: [ACK_ACCEPT] }])).toBeNull()
    expect(sp.acquire('a', log, 100, true, 1 << 20).acquired).toEqual([{ firstOffset: 6, lastOffset: 8, deliveryCount: 1 }])
    sp.close()
  })

  it('control batches (transaction markers) are never acquired', () => {
    const log = new PartitionLog()
    const txn = encodeRecordBatch([{ key: 'a', value: 'in txn' }], {
      producerId: 5,
      producerEpoch: 0,
      baseSequence: 0,
      transactional: true,
    })
    log.append(txn, readBatchHeader(txn), 0)
    log.writeMarker(5n, 0, true, 0)
    const after = encodeRecordBatch([{ key: 'b', value: 'after' }], {})
    log.append(after, readBatchHeader(after), 0)
    log.highWatermark = log.logEndOffset
    const sp = new SharePartition(0, limits(), () => {})
    expect(sp.acquire('a', log, 100, true, 1 << 20).acquired).toEqual([
      { firstOffset: 0, lastOffset: 0, deliveryCount: 1 },
      { firstOffset: 2, lastOffset: 2, deliveryCount: 1 },
    ])
    sp.close()
  })

  it('the kept window restores: done records stay done, released ones come back with their delivery counts, acquired ones as never delivered', () => {
    const log = logOf(6)
    const sp = new SharePartition(0, limits(), () => {})
    sp.acquire('a', log, 6, false, 1 << 20)
    sp.acknowledge('a', [{ firstOffset: 1, lastOffset: 2, acknowledgeTypes: [ACK_ACCEPT] }])
    sp.acknowledge('a', [{ firstOffset: 3, lastOffset: 3, acknowledgeTypes: [ACK_RELEASE] }])
    const kept = sp.window()
    sp.close()
    const again = new SharePartition(0, limits(), () => {})
    again.restore(kept)
    // 0, 4 and 5 were still held: their acquisition is not kept (Kafka's persisted state), 3 was released once.
    expect(again.acquire('b', log, 10, false, 1 << 20).acquired).toEqual([
      { firstOffset: 0, lastOffset: 0, deliveryCount: 1 },
      { firstOffset: 3, lastOffset: 3, deliveryCount: 2 },
      { firstOffset: 4, lastOffset: 5, deliveryCount: 1 },
    ])
    again.close()
  })
})
