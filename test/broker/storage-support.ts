// Helpers for the disk storage tests: the per-file fixture (temporary data
// dirs, the running cluster, its clients), batches, produce,
// fetch-everything, ListOffsets, segment file parsing.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect } from 'vitest'
import { startCluster, type RunningCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { decodeRecordSet, encodeRecordBatch } from '../../src/codec/index.js'
import { Fetch, ListOffsets, Metadata, Produce } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'

/** What a storage test leaves to clean up: clients to close, clusters to stop. */
type Closable = { close(): unknown } | { stop(): Promise<unknown> } | { disconnect(): Promise<unknown> }

export interface StorageFixture {
  /** The cluster `start` started (or a test assigned), stopped by `stop` and after each test. */
  cluster: RunningCluster | undefined
  /** A new empty directory, removed after the test. */
  tempDir(): string
  /** Stops what runs, starts a cluster on `options` and connects to its broker 0. */
  start(options: StartClusterOptions): Promise<RawClient>
  /** A connection to broker `broker` of the running cluster. */
  client(broker?: number): Promise<RawClient>
  /** Closes (or stops) `c` at the next `stop`, or after the test. */
  keep<T extends Closable>(c: T): T
  /** Closes (or stops) what was kept, the last first, then stops the cluster. */
  stop(): Promise<void>
}

/** One test file's disk fixture: registers the afterEach that stops everything and removes the directories. */
export function storageFixture(prefix: string): StorageFixture {
  const dirs: string[] = []
  const kept: Closable[] = []
  const fx: StorageFixture = {
    cluster: undefined,
    tempDir() {
      const d = mkdtempSync(join(tmpdir(), prefix))
      dirs.push(d)
      return d
    },
    async start(options) {
      await fx.stop()
      fx.cluster = await startCluster(options)
      return fx.client()
    },
    async client(broker = 0) {
      const b = fx.cluster!.brokers[broker]
      return fx.keep(await RawClient.open(`${b.host}:${b.port}`))
    },
    keep(c) {
      kept.push(c)
      return c
    },
    async stop() {
      // The last kept first: a client before the cluster it talks to.
      for (const c of kept.splice(0).reverse()) await ('close' in c ? c.close() : 'stop' in c ? c.stop() : c.disconnect().catch(() => {}))
      await fx.cluster?.stop()
      fx.cluster = undefined
    },
  }
  afterEach(async () => {
    await fx.stop()
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  return fx
}

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

/** Every file under `dir` with its size: what a start must leave as it was. */
export function listing(dir: string): Record<string, number> {
  const out: Record<string, number> = {}
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const s = statSync(join(dir, name))
    if (s.isFile()) out[name] = s.size
  }
  return out
}
