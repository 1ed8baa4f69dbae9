// The flush policy of the embedded broker's dataDir, as Kafka's: no forced
// fsync by default (the OS writes back); flush.messages (topic) or
// log.flush.interval.messages (broker) fsync once that many messages are
// unflushed; flush.ms at the log.flush.scheduler.interval.ms checks; a
// segment roll flushes the segment it ends and the directory (in the
// background, as Kafka); a clean stop flushes everything. fsyncs are observed at the storage layer's seam
// (diskIo), each named by the file it flushed.
import { mkdtempSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { diskIo } from '../../src/broker/storage/disk-io.js'
import { topicConfigProblem } from '../../src/broker/topic-configs.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { OffsetCommit, OffsetFetch } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { groupCoordinator, until } from './support.js'
import { batch, batchesOf, produce, readAll } from './storage-support.js'

const realFsync = diskIo.fsync
const realFsyncAsync = diskIo.fsyncAsync
const dirs: string[] = []
const open: RawClient[] = []
let cluster: RunningCluster | undefined
/** The files fsynced, in order (paths relative to the dataDir). */
let fsynced: string[] = []
let dataDir = ''

afterEach(async () => {
  for (const c of open.splice(0)) c.close()
  await cluster?.stop()
  cluster = undefined
  diskIo.fsync = realFsync
  diskIo.fsyncAsync = realFsyncAsync
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** Starts a cluster on a new dataDir, every fsync recorded in `fsynced`; a client of broker 0. */
async function start(options: StartClusterOptions): Promise<RawClient> {
  dataDir = resolve(mkdtempSync(join(tmpdir(), 'wafka-flush-')))
  dirs.push(dataDir)
  fsynced = []
  const record = (fd: number) => {
    const path = readlinkSync(`/proc/self/fd/${fd}`)
    fsynced.push(path.startsWith(dataDir) ? path.slice(dataDir.length + 1) : path)
  }
  diskIo.fsync = (fd) => {
    record(fd)
    realFsync(fd)
  }
  diskIo.fsyncAsync = (fd) => {
    record(fd)
    return realFsyncAsync(fd)
  }
  cluster = await startCluster({ dataDir, ...options })
  const b = cluster.brokers[0]
  const c = await RawClient.open(`${b.host}:${b.port}`)
  open.push(c)
  return c
}

/** What `step` fsyncs. */
async function fsyncsOf(step: () => Promise<unknown>): Promise<string[]> {
  const from = fsynced.length
  await step()
  return fsynced.slice(from)
}

const seg = (topic: string, base = 0, ext = 'log') => join('broker-0', `${topic}-0`, `${String(base).padStart(20, '0')}.${ext}`)
const ok = async (p: Promise<{ errorCode: number }>) => expect((await p).errorCode).toBe(0)

describe('the flush policy', () => {
  it('by default nothing is fsynced as records are appended (the OS writes back, as Kafka)', async () => {
    const c = await start({ topics: [{ name: 'lazy', partitions: 1 }] })
    await ok(produce(c, 'lazy', batch('x', 1)))
    expect(await fsyncsOf(() => ok(produce(c, 'lazy', batch('a', 3))))).toEqual([])
  })

  it('flush.messages=1: each append is fsynced before it is acknowledged (the segment and its indexes)', async () => {
    const c = await start({ topics: [{ name: 'sync', partitions: 1, configs: { 'flush.messages': '1' } }] })
    await ok(produce(c, 'sync', batch('first', 1)))
    for (let i = 0; i < 3; i++)
      expect(await fsyncsOf(() => ok(produce(c, 'sync', batch(`b${i}`, 2))))).toEqual([
        seg('sync'),
        seg('sync', 0, 'index'),
        seg('sync', 0, 'timeindex'),
      ])
  })

  it('flush.messages=5 counts messages, not batches: a flush once five are unflushed; log.flush.interval.messages is the default of topics that set none', async () => {
    const c = await start({
      logFlushIntervalMessages: 5,
      topics: [
        { name: 'every5', partitions: 1 },
        { name: 'own', partitions: 1, configs: { 'flush.messages': '1000' } },
      ],
    })
    await ok(produce(c, 'every5', batch('warm', 1)))
    await ok(produce(c, 'own', batch('warm', 1)))
    const flushedAt: boolean[] = []
    for (let i = 0; i < 6; i++) flushedAt.push((await fsyncsOf(() => ok(produce(c, 'every5', batch(`m${i}`, 2))))).includes(seg('every5')))
    // 1 unflushed + 2 = 3, + 2 = 5: flush; then 2, 4, 6: flush; 2.
    expect(flushedAt).toEqual([false, true, false, false, true, false])
    for (let i = 0; i < 4; i++) expect(await fsyncsOf(() => ok(produce(c, 'own', batch(`o${i}`, 2))))).toEqual([])
  })

  it('a segment roll fsyncs the segment it ends (log and indexes) and the directory holding the new one, in the background', async () => {
    const t0 = Date.now()
    const c = await start({ topics: [{ name: 'rolls', partitions: 1, configs: { 'segment.ms': '1000' } }] })
    await ok(produce(c, 'rolls', batch('a', 2, 100, t0)))
    expect(await fsyncsOf(() => ok(produce(c, 'rolls', batch('b', 2, 100, t0 + 500))))).toEqual([])
    // More than segment.ms newer than the segment's first batch: a new segment at offset 4.
    const from = fsynced.length
    await ok(produce(c, 'rolls', batch('c', 2, 100, t0 + 2000)))
    expect(batchesOf(join(dataDir, seg('rolls', 4))).map((b) => b.base)).toEqual([4])
    const ended = [seg('rolls'), seg('rolls', 0, 'index'), seg('rolls', 0, 'timeindex'), join('broker-0', 'rolls-0')]
    await until(
      () => ended.every((p) => fsynced.slice(from).includes(p)),
      5000,
      () => `the rolled segment and its directory fsynced (fsynced: ${fsynced.slice(from).join(', ')})`,
    )
    // Not the new one: nothing is unflushed in it (the producer snapshot taken at its base is a file of its own, flushed as written).
    expect(fsynced.slice(from).filter((p) => /00000000000000000004\.(log|index|timeindex)$/.test(p))).toEqual([])
  })

  it("a flush in line (here the clean stop's) covers a rolled segment whose background flush is not done yet", async () => {
    const t0 = Date.now()
    const c = await start({ topics: [{ name: 'slow', partitions: 1, configs: { 'segment.ms': '1000' } }] })
    const held: (() => void)[] = []
    // The thread pool's fsyncs never finish (a slow disk) until let go.
    diskIo.fsyncAsync = () => new Promise((resolve) => held.push(resolve))
    await ok(produce(c, 'slow', batch('a', 2, 100, t0)))
    await ok(produce(c, 'slow', batch('b', 2, 100, t0 + 2000)))
    expect(held.length).toBe(1)
    for (const c of open.splice(0)) c.close()
    const stopped = await fsyncsOf(() => cluster!.stop())
    cluster = undefined
    expect(stopped).toEqual(expect.arrayContaining([seg('slow'), seg('slow', 0, 'index'), seg('slow', 0, 'timeindex'), seg('slow', 2)]))
    for (const release of held) release()
  })

  it('a clean stop fsyncs what is unflushed: the active segment, and the directories created since', async () => {
    const c = await start({ topics: [{ name: 'stop', partitions: 1 }] })
    await ok(produce(c, 'stop', batch('a', 3)))
    for (const c of open.splice(0)) c.close()
    const stopped = await fsyncsOf(() => cluster!.stop())
    cluster = undefined
    expect(stopped).toEqual(
      expect.arrayContaining([seg('stop'), seg('stop', 0, 'index'), seg('stop', 0, 'timeindex'), join('broker-0', 'stop-0'), 'broker-0']),
    )
  })

  it('flush.ms: the flusher (log.flush.scheduler.interval.ms) fsyncs a log unflushed for that long; log.flush.interval.ms, unset, is the scheduler interval (as Kafka)', async () => {
    const c = await start({
      logFlushSchedulerIntervalMs: 20,
      topics: [
        { name: 'timed', partitions: 1, configs: { 'flush.ms': '0' } },
        { name: 'never', partitions: 1, configs: { 'flush.ms': '9223372036854775807' } },
        { name: 'inherits', partitions: 1 },
      ],
    })
    await ok(produce(c, 'never', batch('n', 1)))
    await ok(produce(c, 'timed', batch('t', 1)))
    await ok(produce(c, 'inherits', batch('i', 1)))
    await until(
      async () => fsynced.includes(seg('timed')) && fsynced.includes(seg('inherits')),
      5000,
      () => `the flusher to fsync timed-0 and inherits-0 (fsynced: ${fsynced.join(', ')})`,
    )
    const settled = fsynced.length
    // A few more checks of the flusher: nothing new is unflushed, so nothing more is fsynced; never-0 never is.
    await new Promise((r) => setTimeout(r, 100))
    expect(fsynced.slice(settled).filter((p) => p.endsWith('.log'))).toEqual([])
    // (Its partition.metadata is written once, flushed and renamed into place, as Kafka's checkpoint files.)
    expect(fsynced.filter((p) => p.includes('never-0') && !p.includes('partition.metadata') && !p.endsWith('never-0'))).toEqual([])
  })

  describe("committed offsets, in the group's partition of __consumer_offsets: under the broker's flush policy", () => {
    // Group 'g': abs("g".hashCode()) % 50 = 3.
    const groupLog = join('broker-0', '__consumer_offsets-3', '00000000000000000000.log')
    const commit = (c: RawClient, offset: bigint) =>
      c.request(OffsetCommit, 8, {
        groupId: 'g',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [
          { name: 't', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] },
        ],
      })
    const committed = async (c: RawClient, offset: bigint) => expect((await commit(c, offset)).topics[0].partitions[0].errorCode).toBe(0)
    const fetched = async (c: RawClient) =>
      (await c.request(OffsetFetch, 7, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0] }], requireStable: false })).topics[0]
        .partitions[0].committedOffset

    it('log.flush.interval.messages=1: each offset commit is fsynced before it is answered; by default none is, and a clean stop fsyncs it', async () => {
      let c = await start({ logFlushIntervalMessages: 1, topics: [{ name: 't', partitions: 1 }] })
      await groupCoordinator(c, 'g')
      for (const offset of [1n, 2n]) expect(await fsyncsOf(() => committed(c, offset))).toContain(groupLog)
      await cluster!.stop()
      cluster = undefined
      c = await start({ topics: [{ name: 't', partitions: 1 }] })
      await groupCoordinator(c, 'g')
      expect((await fsyncsOf(() => committed(c, 3n))).filter((p) => p.endsWith('.log'))).toEqual([])
      for (const c of open.splice(0)) c.close()
      const stopped = await fsyncsOf(() => cluster!.stop())
      cluster = undefined
      expect(stopped).toContain(groupLog)
    })

    it("a failed fsync of the group's partition: the commit is answered NOT_COORDINATOR (Kafka's coordinator maps KAFKA_STORAGE_ERROR so) and not kept; the next one is", async () => {
      const c = await start({ logFlushIntervalMessages: 1, topics: [{ name: 't', partitions: 1 }] })
      await groupCoordinator(c, 'g')
      await committed(c, 1n)
      diskIo.fsync = () => {
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', syscall: 'fsync' })
      }
      expect((await commit(c, 2n)).topics[0].partitions[0].errorCode).toBe(ErrorCodes.NOT_COORDINATOR)
      diskIo.fsync = realFsync
      expect(await fetched(c)).toBe(1n)
      await committed(c, 3n)
      expect(await fetched(c)).toBe(3n)
    })

    it('flush.ms: the flusher fsyncs a group partition unflushed for log.flush.interval.ms', async () => {
      const c = await start({ logFlushSchedulerIntervalMs: 20, logFlushIntervalMs: 0, topics: [{ name: 't', partitions: 1 }] })
      await groupCoordinator(c, 'g')
      await committed(c, 5n)
      await until(
        async () => fsynced.includes(groupLog),
        5000,
        () => `the flusher to fsync the group log (fsynced: ${fsynced.join(', ')})`,
      )
    })
  })

  it('a failed fsync (flush.messages=1) fails the produce with KAFKA_STORAGE_ERROR and cuts the batch back off', async () => {
    const c = await start({ topics: [{ name: 'eio', partitions: 1, configs: { 'flush.messages': '1' } }] })
    await ok(produce(c, 'eio', batch('kept', 2)))
    diskIo.fsync = () => {
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', syscall: 'fsync' })
    }
    expect((await produce(c, 'eio', batch('lost', 2))).errorCode).toBe(ErrorCodes.KAFKA_STORAGE_ERROR)
    diskIo.fsync = realFsync
    expect(batchesOf(join(dataDir, seg('eio'))).map((b) => b.base)).toEqual([0])
    expect((await produce(c, 'eio', batch('next', 2))).baseOffset).toBe(2n)
    expect((await readAll(c, 'eio')).map((r) => r.key)).toEqual(['kept-0', 'kept-1', 'next-0', 'next-1'])
  })

  it("flush.messages and flush.ms take Kafka's bounds", () => {
    expect(topicConfigProblem('flush.messages', '0')).toBe('Invalid value 0 for configuration flush.messages: Value must be at least 1')
    expect(topicConfigProblem('flush.messages', '1')).toBeNull()
    expect(topicConfigProblem('flush.ms', '-1')).toBe('Invalid value -1 for configuration flush.ms: Value must be at least 0')
    expect(topicConfigProblem('flush.ms', '0')).toBeNull()
  })
})
