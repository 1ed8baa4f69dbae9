// The embedded broker's disk storage (dataDir): Kafka's layout (a directory
// per partition, segments named by base offset holding the batches as
// received, sparse offset and time indexes), segment roll, retention, and
// a restart on the same directory keeping topics, records and offsets.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { DiskLog } from '../../src/broker/storage/disk-log.js'
import { lastAtOrBelow, readIndexFile } from '../../src/broker/storage/indexes.js'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { ConfigError } from '../../src/errors.js'
import { Kafka } from '../../src/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { DeleteRecords, Fetch, Metadata, OffsetCommit, OffsetFetch } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { groupCoordinator, until } from './support.js'
import { batch, batchesOf, listOffset, produce, readAll, storageFixture } from './storage-support.js'

const fx = storageFixture('wafka-storage-')
const { tempDir, start, client } = fx
/** A restart is a start: `start` stops what runs first. */
const restart = start

async function commit(c: RawClient, group: string, topic: string, offset: bigint): Promise<number> {
  expect(await groupCoordinator(c, group)).toBe(0)
  const r = await c.request(OffsetCommit, 8, {
    groupId: group,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    topics: [
      { name: topic, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: 'm' }] },
    ],
  })
  return r.topics[0].partitions[0].errorCode
}

async function committed(c: RawClient, group: string, topic: string): Promise<bigint> {
  const r = await c.request(OffsetFetch, 7, { groupId: group, topics: [{ name: topic, partitionIndexes: [0] }], requireStable: false })
  return r.topics[0].partitions[0].committedOffset
}

const segmentFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()

describe('disk storage with dataDir', () => {
  it('lays partitions out as Kafka does: <topic>-<partition> per broker, 20-digit segments holding the batches as sent, sparse indexes found by binary search', async () => {
    const dataDir = tempDir()
    await start({ dataDir, topics: [{ name: 'lay', partitions: 1, configs: { 'segment.bytes': '1048576' } }] })
    const c = await client()
    const sent: Buffer[] = []
    const t0 = Date.now() - 60_000
    for (let i = 0; i < 1500; i++) {
      const b = batch(`b${i}`, 1 + (i % 3), 350, t0 + i * 10)
      sent.push(b)
      expect((await produce(c, 'lay', Buffer.from(b))).errorCode).toBe(0)
    }
    const partDir = join(dataDir, 'broker-0', 'lay-0')
    const names = readdirSync(partDir).sort()
    // Beside the segments: a producer snapshot at each roll, and the epoch cache's checkpoint (Kafka's names).
    const others = ['partition.metadata', 'leader-epoch-checkpoint']
    expect(names.filter((n) => !others.includes(n)).every((n) => /^\d{20}\.(log|index|timeindex|snapshot)$/.test(n))).toBe(true)
    const logs = segmentFiles(partDir)
    expect(logs.length).toBeGreaterThanOrEqual(2)
    expect(logs[0]).toBe('00000000000000000000.log')
    let next = 0
    let i = 0
    for (const log of logs) {
      const base = Number(log.slice(0, 20))
      // A segment's name is its first offset, which follows the previous segment's last.
      expect(base).toBe(next)
      const file = join(partDir, log)
      expect(readFileSync(file).length).toBeLessThanOrEqual(1048576)
      const batches = batchesOf(file)
      for (const b of batches) {
        // As received: only the base offset (bytes 0-7) and leader epoch (12-15) written in; the CRC untouched.
        expect(b.base).toBe(next)
        expect(b.bytes.subarray(16).equals(sent[i].subarray(16))).toBe(true)
        expect(b.bytes.subarray(8, 12).equals(sent[i].subarray(8, 12))).toBe(true)
        next = b.last + 1
        i++
      }
      const index = readIndexFile(file.replace(/\.log$/, '.index'), 'offset')
      if (log !== logs.at(-1)) expect(index.length).toBeGreaterThan(10)
      let previous = -Infinity
      for (const [rel, position] of index) {
        // Each entry: a batch's last offset (relative) and where that batch starts; one per index.interval.bytes.
        const at = batches.find((b) => b.position === position)!
        expect(at.last - base).toBe(rel)
        expect(position - previous).toBeGreaterThan(4096)
        previous = position
      }
      const offsets = index.map(([rel]) => rel)
      for (let rel = 0; rel < next - base; rel++) {
        let linear = -1
        for (let k = 0; k < offsets.length; k++) if (offsets[k] <= rel) linear = k
        expect(lastAtOrBelow(offsets, offsets.length, rel)).toBe(linear)
      }
      const times = readIndexFile(file.replace(/\.log$/, '.timeindex'), 'time')
      if (log !== logs.at(-1)) expect(times.length).toBeGreaterThan(10)
      for (let k = 1; k < times.length; k++) expect(times[k][0]).toBeGreaterThan(times[k - 1][0])
      for (const [ts, rel] of times) {
        const holder = batches.find((b) => b.last - base === rel)!
        expect(Number(holder.bytes.readBigInt64BE(35))).toBe(ts)
      }
    }
    expect(i).toBe(sent.length)
  })

  it('a restart on the same dataDir keeps topics, records, committed offsets; fetches and ListOffsets by time read the segments', async () => {
    const dataDir = tempDir()
    await start({ dataDir, topics: [{ name: 'keep', partitions: 1, configs: { 'segment.bytes': '1048576', 'retention.ms': '-1' } }] })
    let c = await client()
    const t0 = Date.now() - 120_000
    for (let i = 0; i < 600; i++) expect((await produce(c, 'keep', batch(`k${i}`, 4, 500, t0 + i * 100))).errorCode).toBe(0)
    // Rolled by size: a few segments, the reads below cross them.
    expect(segmentFiles(join(dataDir, 'broker-0', 'keep-0')).length).toBe(2)
    expect(await commit(c, 'g1', 'keep', 1234n)).toBe(0)
    const before = await readAll(c, 'keep')
    expect(before.length).toBe(2400)
    const topicId = (await c.request(Metadata, 12, { topics: [{ name: 'keep' }] })).topics[0].topicId
    const probes = [t0 - 5, t0, t0 + 50, t0 + 100, t0 + 12_345, t0 + 30_000, t0 + 59_900, t0 + 59_901]
    const answers = []
    for (const ts of probes) answers.push(await listOffset(c, 'keep', BigInt(ts)))
    const maxTs = await listOffset(c, 'keep', -3n)

    await restart({ dataDir })
    c = await client()
    const md = await c.request(Metadata, 12, { topics: [{ name: 'keep' }] })
    expect(md.topics[0]).toMatchObject({ errorCode: 0, topicId })
    expect(await committed(c, 'g1', 'keep')).toBe(1234n)
    // Read back from the group's partition of __consumer_offsets (abs("g1".hashCode()) % 50 = 42), no group log of its own beside it.
    expect(segmentFiles(join(dataDir, 'broker-0', '__consumer_offsets-42')).length).toBe(1)
    expect(existsSync(join(dataDir, '__consumer_offsets'))).toBe(false)
    // Nothing of the log is in memory now: every fetch is a read of a segment.
    expect(await readAll(c, 'keep')).toEqual(before)
    expect(await readAll(c, 'keep', 1999n)).toEqual(before.slice(1999))
    expect(await listOffset(c, 'keep', -1n)).toMatchObject({ offset: 2400n })
    expect(await listOffset(c, 'keep', -2n)).toMatchObject({ offset: 0n })
    for (let k = 0; k < probes.length; k++) {
      const got = await listOffset(c, 'keep', BigInt(probes[k]))
      expect([probes[k], got.offset, got.timestamp]).toEqual([probes[k], answers[k].offset, answers[k].timestamp])
      // And what a linear scan of the records says.
      const first = before.find((r) => r.timestamp >= probes[k])
      expect(got.offset).toBe(BigInt(first?.offset ?? -1))
    }
    expect(await listOffset(c, 'keep', -3n)).toMatchObject({ offset: maxTs.offset, timestamp: BigInt(t0 + 599 * 100) })
    // The log goes on where it ended.
    expect(await produce(c, 'keep', batch('after', 2))).toMatchObject({ errorCode: 0, baseOffset: 2400n })
  })

  it('batches older than the memory window are read back from the segments, byte for byte', async () => {
    const dataDir = tempDir()
    await start({ dataDir, topics: [{ name: 'win', partitions: 1, configs: { 'segment.bytes': '2097152' } }] })
    const c = await client()
    // 6 MiB: more than the 4 MiB a partition keeps in memory beside its files.
    for (let i = 0; i < 96; i++) expect((await produce(c, 'win', batch(`w${i}`, 16, 4096))).errorCode).toBe(0)
    const got = await readAll(c, 'win')
    expect(got.length).toBe(96 * 16)
    expect(got.map((r) => r.offset)).toEqual(got.map((_, i) => i))
    expect(got[0]).toMatchObject({ key: 'w0-0', value: 'w0-0:'.padEnd(4096, 'x') })
    expect(got.at(-1)).toMatchObject({ key: 'w95-15' })
  })

  it('transactional offset commits across a restart: read back from __consumer_offsets, the committed one applied at its marker, the aborted one never', async () => {
    const dataDir = tempDir()
    await start({ dataDir, topics: [{ name: 'tx', partitions: 1 }] })
    const kafka = new Kafka({ clientId: 'tx', brokers: fx.cluster!.bootstrapServers.split(','), logLevel: 0 })
    const p = kafka.producer({ transactionalId: 'storage-tx' })
    await p.connect()
    for (const [offset, commit] of [
      [7, true],
      [9, false],
    ] as const) {
      const t = await p.transaction()
      await t.send({ topic: 'tx', messages: [{ value: 'x', partition: 0 }] })
      await t.sendOffsets({ consumerGroupId: 'txg', topics: [{ topic: 'tx', partitions: [{ partition: 0, offset: String(offset) }] }] })
      if (commit) await t.commit()
      else await t.abort()
    }
    await p.disconnect()
    expect(await committed(await client(), 'txg', 'tx')).toBe(7n)
    await restart({ dataDir })
    const c = await client()
    expect(await groupCoordinator(c, 'txg')).toBe(0)
    expect(await committed(c, 'txg', 'tx')).toBe(7n)
  })

  it('three brokers, replication factor 3: a restart on the same dataDir keeps every replica and the ISR comes back', async () => {
    const dataDir = tempDir()
    const options = { dataDir, brokers: 3, replicaLagTimeMaxMs: 2000 }
    await start({ ...options, topics: [{ name: 'rf3', partitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }] })
    let c = await client()
    const leaderOf = async () => (await c.request(Metadata, 12, { topics: [{ name: 'rf3' }] })).topics[0].partitions[0]
    const leaderClient = async () => client((await leaderOf()).leaderId)
    let lc = await leaderClient()
    for (let i = 0; i < 50; i++) expect((await produce(lc, 'rf3', batch(`r${i}`, 3, 100))).errorCode).toBe(0)
    const before = await readAll(lc, 'rf3')
    for (let b = 0; b < 3; b++) expect(batchesOf(join(dataDir, `broker-${b}`, 'rf3-0', '00000000000000000000.log')).length).toBe(50)
    await restart(options)
    c = await client()
    await until(
      async () => (await leaderOf()).isrNodes.length === 3,
      10_000,
      () => 'the ISR to hold all three replicas again',
    )
    lc = await leaderClient()
    expect(await readAll(lc, 'rf3')).toEqual(before)
    expect((await produce(lc, 'rf3', batch('after', 1))).baseOffset).toBe(150n)
  })

  it('a restart with fewer brokers than the data directory registers is refused, naming the count; files untouched, the directory free', async () => {
    const dataDir = tempDir()
    const leaderOf = async (topic: string, partition: number): Promise<RawClient> => {
      const md = await (await client()).request(Metadata, 12, { topics: [{ name: topic }] })
      return client(md.topics[0].partitions.find((x) => x.partitionIndex === partition)!.leaderId)
    }
    await start({ dataDir, brokers: 3, topics: [{ name: 'three', partitions: 3, replicationFactor: 1 }] })
    for (let p = 0; p < 3; p++) expect((await produce(await leaderOf('three', p), 'three', batch(`r${p}`, 2), p)).errorCode).toBe(0)
    await fx.stop()
    const sizes = () =>
      [0, 1, 2].map((b) =>
        readdirSync(join(dataDir, `broker-${b}`))
          .sort()
          .join(),
      )
    const before = sizes()
    const refused = await startCluster({ dataDir }).catch((e) => e)
    expect(refused).toBeInstanceOf(ConfigError)
    expect(refused.message).toMatch(
      /holds the data of 3 brokers .*leave broker\(s\) 1, 2 and their replicas out; start with brokers: 3 \(wafka broker --brokers 3\)/,
    )
    expect(sizes()).toEqual(before)
    // Refused before anything was served: the lock is free and the next start, with 3, reads every partition.
    await start({ dataDir, brokers: 3 })
    for (let p = 0; p < 3; p++) expect(await readAll(await leaderOf('three', p), 'three', 0n, p)).toHaveLength(2)
  })

  it('a partition reassigned by moveLeader takes its directory to its new broker, and keeps it across a restart', async () => {
    const dataDir = tempDir()
    const options = { dataDir, brokers: 2 }
    await start({ ...options, topics: [{ name: 'mv', partitions: 1, replicationFactor: 1 }] })
    const c = await client()
    const from = (await c.request(Metadata, 12, { topics: [{ name: 'mv' }] })).topics[0].partitions[0].leaderId
    const to = 1 - from
    const on = (broker: number) => client(broker)
    for (let i = 0; i < 5; i++) expect((await produce(await on(from), 'mv', batch(`a${i}`, 2))).errorCode).toBe(0)
    fx.cluster!.moveLeader('mv', 0, to)
    expect(existsSync(join(dataDir, `broker-${from}`, 'mv-0'))).toBe(false)
    expect(batchesOf(join(dataDir, `broker-${to}`, 'mv-0', '00000000000000000000.log')).length).toBe(5)
    expect(await produce(await on(to), 'mv', batch('b', 2))).toMatchObject({ errorCode: 0, baseOffset: 10n })
    const before = await readAll(await on(to), 'mv')
    expect(before.length).toBe(12)
    await restart(options)
    expect(await readAll(await on(to), 'mv')).toEqual(before)
  })

  it("rolls by segment.ms: a batch newer than the active segment's first by more starts a new one", async () => {
    const dataDir = tempDir()
    await start({ dataDir, topics: [{ name: 'age', partitions: 1, configs: { 'segment.ms': '60000' } }] })
    const c = await client()
    const old = Date.now() - 3_600_000
    // Old records replayed with their timestamps share a segment, as in Kafka (time waited is measured in record time)...
    for (let i = 0; i < 3; i++) await produce(c, 'age', batch(`o${i}`, 2, 10, old + i * 1000))
    // ...a batch two minutes later in record time rolls...
    await produce(c, 'age', batch('later', 2, 10, old + 120_000))
    // ...and so does one from now; the new ones share the last.
    for (let i = 0; i < 3; i++) await produce(c, 'age', batch(`n${i}`, 2, 10))
    expect(segmentFiles(join(dataDir, 'broker-0', 'age-0'))).toEqual([
      '00000000000000000000.log',
      '00000000000000000006.log',
      '00000000000000000008.log',
    ])
  })

  it('retention.bytes deletes whole old segments on disk; ListOffsets earliest moves to the first kept one', async () => {
    const dataDir = tempDir()
    await start({
      dataDir,
      retentionCheckIntervalMs: 50,
      topics: [{ name: 'rb', partitions: 1, configs: { 'segment.bytes': '1048576', 'retention.bytes': '1048576' } }],
    })
    const c = await client()
    for (let i = 0; i < 400; i++) expect((await produce(c, 'rb', batch(`r${i}`, 8, 1000))).errorCode).toBe(0)
    const partDir = join(dataDir, 'broker-0', 'rb-0')
    const size = () => segmentFiles(partDir).reduce((n, f) => n + readFileSync(join(partDir, f)).length, 0)
    // What is kept: at most retention.bytes plus the segment it falls inside.
    await until(
      () => size() < 2 * 1048576,
      5000,
      () => `segments ${segmentFiles(partDir)}`,
    )
    const logs = segmentFiles(partDir)
    const earliest = (await listOffset(c, 'rb', -2n)).offset
    expect(earliest).toBeGreaterThan(0n)
    expect(logs[0]).toBe(`${String(earliest).padStart(20, '0')}.log`)
    expect(size()).toBeGreaterThanOrEqual(1048576)
    expect(existsSync(join(partDir, '00000000000000000000.index'))).toBe(false)
    const rest = await readAll(c, 'rb', earliest)
    expect(rest[0].offset).toBe(Number(earliest))
    expect(rest.at(-1)!.offset).toBe(3199)
    const r = await c.request(Fetch, 13, {
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      topics: [
        {
          topicId: (await c.request(Metadata, 12, { topics: [{ name: 'rb' }] })).topics[0].topicId,
          partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }],
        },
      ],
    })
    expect(r.responses[0].partitions[0].errorCode).toBe(ErrorCodes.OFFSET_OUT_OF_RANGE)
  })

  it('retention.ms deletes the segments whose newest record is older, on disk and after a restart', async () => {
    const dataDir = tempDir()
    const options = { dataDir, retentionCheckIntervalMs: 50 }
    await start({ ...options, topics: [{ name: 'rt', partitions: 1, configs: { 'segment.ms': '60000', 'retention.ms': '600000' } }] })
    const c = await client()
    const old = Date.now() - 3_600_000
    for (let i = 0; i < 4; i++) await produce(c, 'rt', batch(`o${i}`, 5, 10, old))
    await produce(c, 'rt', batch('new', 5, 10))
    await until(
      async () => (await listOffset(c, 'rt', -2n)).offset === 20n,
      5000,
      () => `segments ${segmentFiles(join(dataDir, 'broker-0', 'rt-0'))}`,
    )
    expect(segmentFiles(join(dataDir, 'broker-0', 'rt-0'))).toEqual(['00000000000000000020.log'])
    await restart(options)
    const c2 = await client()
    expect(await listOffset(c2, 'rt', -2n)).toMatchObject({ offset: 20n })
    expect((await readAll(c2, 'rt', 20n)).map((r) => r.key)).toEqual(['new-0', 'new-1', 'new-2', 'new-3', 'new-4'])
  })

  it('DeleteRecords inside a segment: the log start is checkpointed and survives a restart; the segments below it go', async () => {
    const dataDir = tempDir()
    const options = { dataDir }
    await start({ ...options, topics: [{ name: 'dr', partitions: 1, configs: { 'segment.ms': '60000' } }] })
    const c = await client()
    const old = Date.now() - 10 * 3_600_000
    // Three segments of three batches each (an hour apart in record time), offsets 0-5, 6-11, 12-17.
    for (let i = 0; i < 9; i++) await produce(c, 'dr', batch(`d${i}`, 2, 10, old + Math.floor(i / 3) * 3_600_000))
    const dir = join(dataDir, 'broker-0', 'dr-0')
    expect(segmentFiles(dir)).toEqual(['00000000000000000000.log', '00000000000000000006.log', '00000000000000000012.log'])
    const r = await c.request(DeleteRecords, 2, {
      topics: [{ name: 'dr', partitions: [{ partitionIndex: 0, offset: 9n }] }],
      timeoutMs: 5000,
    })
    expect(r.topics[0].partitions[0]).toMatchObject({ errorCode: 0, lowWatermark: 9n })
    expect(segmentFiles(dir)).toEqual(['00000000000000000006.log', '00000000000000000012.log'])
    await restart(options)
    const c2 = await client()
    expect(await listOffset(c2, 'dr', -2n)).toMatchObject({ offset: 9n })
    expect((await readAll(c2, 'dr', 9n)).map((x) => x.offset)).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17])
  })

  it("the log cleaner's seam on disk: batches below an offset are read whole and swapped for their replacements, indexes rebuilt, kept across a reopen", () => {
    const dir = join(tempDir(), 'clean-0')
    const config = () => ({ segmentBytes: 1048576, segmentMs: 604800000, indexIntervalBytes: 4096 })
    const log = DiskLog.open(dir, 'AAAAAAAAAAAAAAAAAAAAAQ', config, { clean: true, recoveryPoint: 0 })
    const sent: Buffer[] = []
    for (let i = 0; i < 40; i++) {
      const b = encodeRecordBatch([{ key: `k${i % 4}`, value: `v${i}`.padEnd(300, '.') }], { baseOffset: i })
      sent.push(b)
      if (i === 20) log.roll(20)
      log.append(b, i, i, Number(b.readBigInt64BE(35)))
    }
    const below = log.batchesBelow(30)
    expect(below.map((b) => Buffer.from(b))).toEqual(sent.slice(0, 30))
    // Keep every third batch below 30, as a cleaner might.
    log.replaceBelow(
      30,
      below.filter((_, i) => i % 3 === 0),
    )
    const offsets = () => {
      const out: number[] = []
      log.forEachBatch((b, base) => void out.push(base))
      return out
    }
    const kept = [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, ...Array.from({ length: 10 }, (_, i) => 30 + i)]
    expect(offsets()).toEqual(kept)
    expect(log.logEndOffset).toBe(40)
    expect(log.read(4, 1 << 20, 40)!.readBigInt64BE(0)).toBe(6n)
    log.close()
    const reopened = DiskLog.open(dir, 'AAAAAAAAAAAAAAAAAAAAAQ', config, { clean: false, recoveryPoint: 0 })
    const again: number[] = []
    reopened.forEachBatch((_, base) => void again.push(base))
    expect(again).toEqual(kept)
    expect(readdirSync(dir).filter((f) => f.endsWith('.log'))).toEqual(['00000000000000000000.log', '00000000000000000020.log'])
    reopened.close()
  })

  it('a compacted log rolls its segment at max.compaction.lag.ms when that is shorter than segment.ms (so its records get cleanable)', async () => {
    const dataDir = tempDir()
    const configs = { 'cleanup.policy': 'compact', 'max.compaction.lag.ms': '60000' }
    await start({ dataDir, topics: [{ name: 'lagroll', partitions: 1, configs }] })
    const c = await client()
    const old = Date.now() - 3_600_000
    // Two minutes apart in record time: past max.compaction.lag.ms, well within segment.ms (7 days).
    for (let i = 0; i < 3; i++)
      expect((await produce(c, 'lagroll', encodeRecordBatch([{ key: 'k', value: `v${i}`, timestamp: old + i * 120_000 }]))).errorCode).toBe(
        0,
      )
    const dir = join(dataDir, 'broker-0', 'lagroll-0')
    expect(segmentFiles(dir)).toEqual(['00000000000000000000.log', '00000000000000000001.log', '00000000000000000002.log'])
    fx.cluster!.compact('lagroll', 0)
    expect((await readAll(c, 'lagroll')).map((r) => `${r.offset}:${r.value}`)).toEqual(['1:v1', '2:v2'])
  })

  it('cleanup.policy=compact on disk: the log cleaner rewrites the segments below the active one; a restart reads the compacted log', async () => {
    const dataDir = tempDir()
    const options = { dataDir }
    await start({ ...options, topics: [{ name: 'cmp', partitions: 1, configs: { 'cleanup.policy': 'compact', 'segment.ms': '60000' } }] })
    const c = await client()
    const old = Date.now() - 10 * 3_600_000
    // Three segments (an hour apart in record time) of keys k0..k3 written over and over; the last is the active one.
    let n = 0
    for (let seg = 0; seg < 3; seg++)
      for (let i = 0; i < 4; i++) {
        const records = [0, 1, 2, 3].map((k) => ({ key: `k${k}`, value: `v${n++}`, timestamp: old + seg * 3_600_000 }))
        expect((await produce(c, 'cmp', encodeRecordBatch(records, {}))).errorCode).toBe(0)
      }
    const dir = join(dataDir, 'broker-0', 'cmp-0')
    expect(segmentFiles(dir)).toEqual(['00000000000000000000.log', '00000000000000000016.log', '00000000000000000032.log'])
    fx.cluster!.compact('cmp', 0)
    const after = await readAll(c, 'cmp')
    // Below the active segment (offset 32) only the newest value of each key is left; the active segment is whole.
    expect(after.filter((r) => r.offset < 32).map((r) => `${r.key}=${r.value}`)).toEqual(['k0=v28', 'k1=v29', 'k2=v30', 'k3=v31'])
    expect(after.filter((r) => r.offset >= 32).length).toBe(16)
    expect(readFileSync(join(dir, '00000000000000000000.log')).length).toBeLessThan(200)
    await restart(options)
    const c2 = await client()
    expect(await readAll(c2, 'cmp')).toEqual(after)
  })

  it('retention applies only where cleanup.policy names delete (delete, compact,delete), not to compact alone nor to an empty policy', async () => {
    const policies = { del: 'delete', both: 'compact,delete', compact: 'compact', none: '' }
    await start({
      retentionCheckIntervalMs: 50,
      topics: Object.entries(policies).map(([name, policy]) => ({
        name,
        partitions: 1,
        configs: { 'retention.ms': '600000', 'cleanup.policy': policy },
      })),
    })
    const c = await client()
    for (const name of Object.keys(policies)) {
      await produce(c, name, batch('old', 5, 10, Date.now() - 3_600_000))
      await produce(c, name, batch('new', 5, 10))
    }
    await until(
      async () => (await listOffset(c, 'del', -2n)).offset === 5n && (await listOffset(c, 'both', -2n)).offset === 5n,
      5000,
      () => 'the log start of the deleting topics to move to 5',
    )
    await new Promise((r) => setTimeout(r, 200))
    expect((await listOffset(c, 'compact', -2n)).offset).toBe(0n)
    expect((await listOffset(c, 'none', -2n)).offset).toBe(0n)
  })

  it('in memory (no dataDir) retention.ms drops whole old batches and moves the log start', async () => {
    await start({ retentionCheckIntervalMs: 50, topics: [{ name: 'mem', partitions: 1, configs: { 'retention.ms': '600000' } }] })
    const c = await client()
    for (let i = 0; i < 3; i++) await produce(c, 'mem', batch(`o${i}`, 5, 10, Date.now() - 3_600_000))
    await produce(c, 'mem', batch('new', 5, 10))
    await until(
      async () => (await listOffset(c, 'mem', -2n)).offset === 15n,
      5000,
      () => 'the log start to move to 15',
    )
    expect((await readAll(c, 'mem', 15n)).length).toBe(5)
  })
})
