// Helpers for the disk storage tests: batches, produce, fetch-everything, ListOffsets, segment file parsing.
import { readFileSync } from 'node:fs'
import { expect } from 'vitest'
import { decodeRecordSet, encodeRecordBatch } from '../../src/codec/index.js'
import { Fetch, ListOffsets, Metadata, Produce } from '../../src/protocol/messages/index.js'
import type { RawClient } from './raw-client.js'

export interface Stored {
  offset: number
  key: string
  value: string | null
  timestamp: number
}

/** A batch of `count` records of `size`-byte values, tagged `tag-i`. */
export function batch(tag: string, count: number, size = 100, timestamp?: number): Buffer {
  return encodeRecordBatch(
    Array.from({ length: count }, (_, i) => ({ key: `${tag}-${i}`, value: `${tag}-${i}:`.padEnd(size, 'x'), timestamp })),
    {},
  )
}

export async function produce(
  c: RawClient,
  topic: string,
  records: Buffer,
  partition = 0,
): Promise<{ errorCode: number; baseOffset: bigint }> {
  const r = await c.request(Produce, 9, {
    acks: -1,
    timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
  })
  return r.responses[0].partitionResponses[0]
}

/** Every record of a partition from `from`, fetched run by run: offset, key, value, timestamp. */
export async function readAll(c: RawClient, topic: string, from = 0n, partition = 0): Promise<Stored[]> {
  const md = await c.request(Metadata, 12, { topics: [{ name: topic }] })
  const topicId = md.topics[0].topicId
  const out: Stored[] = []
  let offset = from
  for (;;) {
    const r = await c.request(Fetch, 13, {
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      topics: [{ topicId, partitions: [{ partition, fetchOffset: offset, partitionMaxBytes: 256 * 1024 }] }],
    })
    const p = r.responses[0].partitions[0]
    expect(p.errorCode).toBe(0)
    if (!p.records || p.records.length === 0) return out
    for (const b of decodeRecordSet(p.records).batches)
      for (const rec of b.records) {
        if (rec.offset < offset) continue
        offset = rec.offset + 1n
        // Transaction markers are not records a consumer sees.
        if (b.isControl) continue
        out.push({
          offset: Number(rec.offset),
          key: rec.key?.toString() ?? '',
          value: rec.value?.toString() ?? null,
          timestamp: rec.timestamp,
        })
      }
  }
}

export async function listOffset(
  c: RawClient,
  topic: string,
  timestamp: bigint,
  partition = 0,
): Promise<{ offset: bigint; timestamp: bigint; errorCode: number }> {
  const r = await c.request(ListOffsets, 7, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp }] }],
  })
  return r.topics[0].partitions[0]
}

/** The batches of a segment file: [baseOffset, lastOffset, position, bytes]. */
export function batchesOf(file: string): { base: number; last: number; position: number; bytes: Buffer }[] {
  const b = readFileSync(file)
  const out = []
  for (let at = 0; at + 12 <= b.length;) {
    const size = 12 + b.readInt32BE(at + 8)
    out.push({
      base: Number(b.readBigInt64BE(at)),
      last: Number(b.readBigInt64BE(at)) + b.readInt32BE(at + 23),
      position: at,
      bytes: b.subarray(at, at + size),
    })
    at += size
  }
  return out
}
