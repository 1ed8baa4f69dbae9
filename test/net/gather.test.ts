import { describe, expect, it } from 'vitest'
import { encodeRequestFrame, encodeRequestParts } from '../../src/net/wire.js'
import { Produce } from '../../src/protocol/messages/index.js'
import { Reader } from '../../src/protocol/reader.js'
import { decodeRequestHeader } from '../../src/protocol/header.js'

const batch = (n: number, fill: number) => Buffer.alloc(n, fill)

/** A Produce request of many partitions: large batches, a small one, and enough partitions that the Writer grows between them. */
function request(partitions: number) {
  return {
    transactionalId: null,
    acks: -1,
    timeoutMs: 30000,
    topicData: [
      {
        name: 'orders-with-a-long-topic-name-'.repeat(4),
        partitionData: Array.from({ length: partitions }, (_, i) => ({ index: i, records: batch(i % 3 === 0 ? 100 : 5000 + i, i) })),
      },
    ],
  }
}

describe('request frames as blocks for a gathering write', () => {
  it.each([3, 9])('join to the bytes of the one-buffer frame, the batches referenced, not copied (Produce v%i)', (version) => {
    for (const partitions of [1, 2, 40, 300]) {
      const body = request(partitions)
      const parts = encodeRequestParts(Produce, version, 11, 'client', body)
      const whole = encodeRequestFrame(Produce, version, 11, 'client', body)
      expect(Buffer.concat(parts).equals(whole)).toBe(true)
      expect(whole.readInt32BE(0)).toBe(whole.length - 4)
      // Every batch of 1 KiB or more is one of the blocks itself.
      const big = body.topicData[0].partitionData.filter((p) => p.records.length >= 1024).map((p) => p.records)
      for (const b of big) expect(parts).toContain(b)
      const r = new Reader(whole.subarray(4))
      expect(decodeRequestHeader(r)).toMatchObject({ correlationId: 11, clientId: 'client' })
      const decoded = Produce.decodeRequest(r, version)
      expect(
        decoded.topicData[0].partitionData.map((p: any) => Buffer.from(p.records).equals(body.topicData[0].partitionData[p.index].records)),
      ).toEqual(body.topicData[0].partitionData.map(() => true))
    }
  })
})
