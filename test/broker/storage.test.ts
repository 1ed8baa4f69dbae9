// The embedded broker's disk storage (dataDir): Kafka's layout (a directory
// per partition, segments named by base offset holding the batches as
// received, sparse offset and time indexes), segment roll, retention, and
// a restart on the same directory keeping topics, records and offsets.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { lastAtOrBelow, readIndexFile } from '../../src/broker/storage/indexes.js'
import { decodeRecordSet, encodeRecordBatch } from '../../src/codec/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { Fetch, ListOffsets, Metadata, OffsetCommit, OffsetFetch, Produce } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { until } from './support.js'

const dirs: string[] = []
const open: RawClient[] = []
let cluster: RunningCluster | undefined

afterEach(async () => {
  for (const c of open.splice(0)) c.close()
  await cluster?.stop()
  cluster = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

export function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'wafka-storage-'))
  dirs.push(d)
  return d
}

async function start(options: StartClusterOptions): Promise<RunningCluster> {
  cluster = await startCluster(options)
  return cluster
}

async function restart(options: StartClusterOptions): Promise<RunningCluster> {
  for (const c of open.splice(0)) c.close()
  await cluster?.stop()
  return start(options)
}

async function client(): Promise<RawClient> {
  const b = cluster!.brokers[0]
  const c = await RawClient.open(`${b.host}:${b.port}`)
  open.push(c)
  return c
}

/** A batch of `count` records of `size`-byte values, tagged `tag-i`. */
function batch(tag: string, count: number, size = 100, timestamp?: number): Buffer {
  return encodeRecordBatch(
    Array.from({ length: count }, (_, i) => ({ key: `${tag}-${i}`, value: `${tag}-${i}:`.padEnd(size, 'x'), timestamp })),
    {},
  )
}

async function produce(c: RawClient, topic: string, records: Buffer): Promise<{ errorCode: number; baseOffset: bigint }> {
  const r = await c.request(Produce, 9, { acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] })
  return r.responses[0].partitionResponses[0]
}

/** Every record of partition 0 from `from`, fetched batch run by batch run: [offset, key]. */
async function readAll(c: RawClient, topic: string, from = 0n): Promise<{ offset: number; key: string; timestamp: number }[]> {
  const md = await c.request(Metadata, 12, { topics: [{ name: topic }] })
  const topicId = md.topics[0].topicId
  const out: { offset: number; key: string; timestamp: number }[] = []
  let offset = from
  for (;;) {
    const r = await c.request(Fetch, 13, {
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      topics: [{ topicId, partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: 256 * 1024 }] }],
    })
    const p = r.responses[0].partitions[0]
    expect(p.errorCode).toBe(0)
    if (!p.records || p.records.length === 0) return out
    for (const b of decodeRecordSet(p.records).batches)
      for (const rec of b.records) {
        if (rec.offset < offset) continue
        out.push({ offset: Number(rec.offset), key: rec.key!.toString(), timestamp: rec.timestamp })
        offset = rec.offset + 1n
      }
  }
}

async function listOffset(
  c: RawClient,
  topic: string,
  timestamp: bigint,
): Promise<{ offset: bigint; timestamp: bigint; errorCode: number }> {
  const r = await c.request(ListOffsets, 7, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }],
  })
  return r.topics[0].partitions[0]
}

/** The batches of a segment file: [baseOffset, lastOffset, position, bytes]. */
function batchesOf(file: string): { base: number; last: number; position: number; bytes: Buffer }[] {
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

describe('disk storage with dataDir', () => {
  it('smoke', async () => {
    const dataDir = tempDir()
    await start({ dataDir, topics: [{ name: 's', partitions: 1, configs: { 'segment.bytes': '1048576' } }] })
    const c = await client()
    for (let i = 0; i < 100; i++) expect((await produce(c, 's', batch(`b${i}`, 10, 1200))).errorCode).toBe(0)
    const got = await readAll(c, 's')
    expect(got.length).toBe(1000)
    const partDir = join(dataDir, 'broker-0', 's-0')
    console.log(readdirSync(partDir))
    await restart({ dataDir })
    const c2 = await client()
    const got2 = await readAll(c2, 's')
    expect(got2).toEqual(got)
  })
})
