// Recovery of the embedded broker's dataDir at start: a torn or corrupt
// tail is cut to the last whole CRC-valid batch, missing or corrupt indexes
// are rebuilt, producer state and the metadata log are replayed; and the
// crash test: kill -9 of a `wafka broker --data-dir` process under an
// acks=all load loses nothing acknowledged.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { decodeRecordSet, encodeRecordBatch } from '../../src/codec/index.js'
import { logLevel } from '../../src/logger.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { Kafka } from '../../src/index.js'
import {
  DescribeTransactions,
  Fetch,
  FindCoordinator,
  InitProducerId,
  JoinGroup,
  ListOffsets,
  Metadata,
  OffsetCommit,
  OffsetFetch,
  Produce,
  SyncGroup,
} from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { groupCoordinator, keepLog, until } from './support.js'
import { batch, batchesOf, listOffset, produce, readAll, storageFixture } from './storage-support.js'
import { configureShareGroup } from '../kafka/share-support.js'
import { SHARE_GROUP_TEST_CONFIG } from '../peers/kafka.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const built = existsSync(join(root, 'dist', 'cli.js'))
if (!built && process.env.CI) throw new Error('dist/cli.js is missing: run npm run build first')

const fx = storageFixture('wafka-recovery-')
const { tempDir, start, stop } = fx
const children: ChildProcess[] = []

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

const partDir = (dataDir: string, topic: string) => join(dataDir, 'broker-0', `${topic}-0`)
const onlyLog = (dataDir: string, topic: string) => join(partDir(dataDir, topic), '00000000000000000000.log')

/** Ten batches of three records (offsets 0-29) in topic `topic`, then a clean stop. */
async function tenBatches(dataDir: string, topic: string): Promise<void> {
  const c = await start({ dataDir, topics: [{ name: topic, partitions: 1 }] })
  for (let i = 0; i < 10; i++) expect((await produce(c, topic, batch(`b${i}`, 3, 200))).errorCode).toBe(0)
  await stop()
}

/**
 * An offset index entry every few batches of tenIndexedBatches' (about 700
 * bytes each: entries at batches 3, 6 and 9): batches 4 and 7 lie between
 * entries, so a start after a clean stop reads neither.
 */
const SPARSE_INDEX = { 'index.interval.bytes': '1500', 'segment.ms': '60000' }

/** Ten batches of three records in `topic`: record k of batch i is key b<i>-<k> at offset 3i+k, record time timestamp(i). */
async function tenIndexedBatches(c: RawClient, topic: string, timestamp: (i: number) => number): Promise<void> {
  for (let i = 0; i < 10; i++) expect((await produce(c, topic, batch(`b${i}`, 3, 200, timestamp(i)))).errorCode).toBe(0)
}

/**
 * Flips `bit` of the low byte of the base offset of batch `n` of `file`
 * (after a clean stop): not under the CRC-32C, so its CRC still holds.
 * Asserts whether an offset index entry points at it, and that one follows it.
 */
function flipBaseOffset(file: string, n: number, bit: number, indexed: boolean): { file: string; position: number } {
  const index = readFileSync(file.replace(/\.log$/, '.index'))
  const entries = Array.from({ length: index.length / 8 }, (_, i) => index.readInt32BE(i * 8 + 4))
  const b = batchesOf(file)[n]
  expect(entries.includes(b.position)).toBe(indexed)
  expect(entries.some((at) => at > b.position)).toBe(true)
  const bytes = readFileSync(file)
  bytes[b.position + 7] ^= bit
  writeFileSync(file, bytes)
  return { file, position: b.position }
}

/** A cluster on `dataDir` whose log (DEBUG and up) is kept in `logged`; `errors` picks its ERROR messages. */
async function startLogged(dataDir: string, options: Partial<Parameters<typeof startCluster>[0]> = {}) {
  const logged: { label: string; message: string }[] = []
  fx.cluster = await startCluster({
    dataDir,
    logLevel: logLevel.DEBUG,
    logCreator: () => (e) => void logged.push({ label: e.label, message: e.log.message }),
    ...options,
  })
  return { logged, errors: () => logged.filter((e) => e.label === 'ERROR').map((e) => e.message) }
}

describe('recovery at start', () => {
  it('a .log cut mid-batch is truncated to the last whole batch; the log goes on from there', async () => {
    const dataDir = tempDir()
    await tenBatches(dataDir, 'torn')
    const file = onlyLog(dataDir, 'torn')
    const batches = batchesOf(file)
    expect(batches.length).toBe(10)
    const last = batches[9]
    truncateSync(file, last.position + Math.floor(last.bytes.length / 2))
    const c = await start({ dataDir })
    expect(readFileSync(file).length).toBe(last.position)
    expect(await listOffset(c, 'torn', -1n)).toMatchObject({ offset: 27n })
    expect((await readAll(c, 'torn')).map((r) => r.key)).toEqual(batches.slice(0, 9).flatMap((_, i) => [0, 1, 2].map((k) => `b${i}-${k}`)))
    expect(await produce(c, 'torn', batch('next', 1))).toMatchObject({ errorCode: 0, baseOffset: 27n })
  })

  it('a flipped byte in the last batch fails its CRC-32C: that batch is cut', async () => {
    const dataDir = tempDir()
    await tenBatches(dataDir, 'flip')
    const file = onlyLog(dataDir, 'flip')
    const bytes = readFileSync(file)
    const last = batchesOf(file)[9]
    // A byte of a record value: the header still parses, only the CRC can tell.
    bytes[last.position + last.bytes.length - 20] ^= 0x01
    writeFileSync(file, bytes)
    const problems: string[] = []
    const c = await start({ dataDir, ...keepLog(problems) })
    expect(readFileSync(file).length).toBe(last.position)
    // Said, and the bytes cut kept beside the segment (never deleted).
    expect(problems.filter((m) => m.includes(`cut at offset 27 (${last.bytes.length} bytes from byte ${last.position}`))).toHaveLength(1)
    expect(readFileSync(`${file}.cut-${last.position}`)).toEqual(bytes.subarray(last.position))
    expect(await listOffset(c, 'flip', -1n)).toMatchObject({ offset: 27n })
    expect((await readAll(c, 'flip')).length).toBe(27)
  })

  it('after an unclean stop with no recovery point every segment is checked: corruption in an older one cuts it; the later ones leave the log, kept aside and said', async () => {
    const dataDir = tempDir()
    const topic = 'older'
    let c = await start({ dataDir, topics: [{ name: topic, partitions: 1, configs: { 'segment.ms': '60000' } }] })
    const old = Date.now() - 5 * 3_600_000
    // An hour apart in record time: every batch rolls a new segment (segment.ms), so four segments.
    for (let i = 0; i < 4; i++) await produce(c, topic, batch(`s${i}`, 2, 50, old + i * 3_600_000))
    await stop()
    const dir = partDir(dataDir, topic)
    expect(readdirSync(dir).filter((f) => f.endsWith('.log')).length).toBe(4)
    // As after a kill -9: no clean-shutdown marker.
    unlinkSync(join(dataDir, 'broker-0', '.clean-shutdown'))
    // And no recovery point (a directory that never checkpointed one): every segment is recovered, as Kafka's loader does from 0.
    unlinkSync(join(dataDir, 'broker-0', 'recovery-point-offset-checkpoint'))
    const second = join(dir, '00000000000000000002.log')
    const bytes = readFileSync(second)
    bytes[bytes.length - 5] ^= 0xff
    writeFileSync(second, bytes)
    const later = ['00000000000000000004.log', '00000000000000000006.log'].map((f) => readFileSync(join(dir, f)))
    const problems: string[] = []
    c = await start({ dataDir, ...keepLog(problems) })
    expect(readdirSync(dir).filter((f) => f.endsWith('.log'))).toEqual(['00000000000000000000.log', '00000000000000000002.log'])
    expect(readFileSync(second).length).toBe(0)
    expect(readFileSync(join(dir, '00000000000000000002.log.cut-0'))).toEqual(bytes)
    expect(readFileSync(join(dir, '00000000000000000004.log.cut'))).toEqual(later[0])
    expect(readFileSync(join(dir, '00000000000000000006.log.cut'))).toEqual(later[1])
    expect(problems.filter((m) => m.includes('segment 2 cut at offset 2'))).toHaveLength(1)
    expect(problems.filter((m) => /segment [46] follows a cut .*moved aside/.test(m))).toHaveLength(2)
    // And one line for all that left the log: from which offset, in which files, how many bytes.
    expect(problems).toContainEqual(
      expect.stringContaining(
        `${dir}: recovery took offsets 2 and on out of the log (${bytes.length + later[0].length + later[1].length} bytes): ` +
          `the cut segment's last ${bytes.length} bytes and 2 later segment(s), ` +
          `00000000000000000004.log.cut (offsets 4-5, ${later[0].length} bytes), 00000000000000000006.log.cut (offsets 6 on, ${later[1].length} bytes); ` +
          'all kept beside the log, none deleted, none served',
      ),
    )
    expect(await listOffset(c, topic, -1n)).toMatchObject({ offset: 2n })
    expect((await readAll(c, topic)).map((r) => r.key)).toEqual(['s0-0', 's0-1'])
  })

  it('after a clean stop, an indexed batch of the active segment whose base offset disagrees with its index entry is seen: cut there and said; an index entry wrong instead only rebuilds the index', async () => {
    const dataDir = tempDir()
    // Every batch indexed, as the fault matrix's: a read of offset 15 goes straight to batch 5. One topic's log is changed, the other's index.
    const configs = { 'index.interval.bytes': '1' }
    let c = await start({ dataDir, topics: ['based', 'entry'].map((name) => ({ name, partitions: 1, configs })) })
    for (const topic of ['based', 'entry'])
      for (let i = 0; i < 10; i++) expect((await produce(c, topic, batch(`b${i}`, 3, 200))).errorCode).toBe(0)
    await stop()
    const file = onlyLog(dataDir, 'based')
    const goodLog = readFileSync(file)
    const b5 = batchesOf(file)[5]
    // Its base offset's low byte: 15 becomes 31 (offsets 31-33), past the end: a gap, were it not for its index entry (17).
    const bytes = Buffer.from(goodLog)
    bytes[b5.position + 7] ^= 0x10
    writeFileSync(file, bytes)
    // The other log as written, its index entry for batch 5 saying 16: the batch follows the one before it, so the entry is the wrong one.
    const index = onlyLog(dataDir, 'entry').replace(/\.log$/, '.index')
    const goodIndex = readFileSync(index)
    const wrongEntry = Buffer.from(goodIndex)
    // (Entry 4: the first batch has none, as in Kafka, where an entry follows index.interval.bytes written.)
    wrongEntry.writeInt32BE(16, 4 * 8)
    writeFileSync(index, wrongEntry)
    const problems: string[] = []
    c = await start({ dataDir, ...keepLog(problems) })
    expect(problems).toContainEqual(
      `broker 0: ${file} is corrupt: the batch at byte ${b5.position} (offsets 31-33) disagrees with its offset index entry 17 (the previous entry: 14): ` +
        "read whole, every batch's CRC-32C checked, and cut at the first bad one",
    )
    expect(
      problems.filter((m) => m.includes(`cut at offset 15 (${goodLog.length - b5.position} bytes from byte ${b5.position}`)),
    ).toHaveLength(1)
    expect(readFileSync(`${file}.cut-${b5.position}`)).toEqual(bytes.subarray(b5.position))
    expect(await listOffset(c, 'based', -1n)).toMatchObject({ offset: 15n })
    expect((await readAll(c, 'based')).map((r) => r.offset)).toEqual([...Array(15).keys()])
    // The wrong entry: said, nothing cut, the index rebuilt as it was written.
    expect(problems.filter((m) => m.includes('disagrees with its offset index entry 16'))).toHaveLength(1)
    expect(problems.filter((m) => m.includes('entry-0: segment 0 cut'))).toEqual([])
    expect(readFileSync(index).equals(goodIndex)).toBe(true)
    expect((await readAll(c, 'entry')).map((r) => r.offset)).toEqual([...Array(30).keys()])
  })

  it('after a clean stop, a base offset flipped in a batch between offset index entries of the active segment is never served: a read of its range is refused (KAFKA_STORAGE_ERROR, an ERROR naming the file and byte), the ranges around it are served', async () => {
    const dataDir = tempDir()
    let c = await start({ dataDir, topics: ['up', 'down', 'sealed'].map((name) => ({ name, partitions: 1, configs: SPARSE_INDEX })) })
    const old = Date.now() - 5 * 3_600_000
    for (const topic of ['up', 'down', 'sealed']) await tenIndexedBatches(c, topic, () => old)
    // Two hours later in record time: 'sealed' rolls, its first segment trusted at the next start (its first batch read, no other).
    expect((await produce(c, 'sealed', batch('b10', 3, 200, old + 2 * 3_600_000))).errorCode).toBe(0)
    await stop()
    const flip = (topic: string, n: number, bit: number, indexed: boolean) => flipBaseOffset(onlyLog(dataDir, topic), n, bit, indexed)
    // Upward: batch 4 (offsets 12-14) says 28-30; downward: batch 7 (21-23) says 5-7.
    const up = flip('up', 4, 0x10, false)
    const down = flip('down', 7, 0x10, false)
    // And an indexed batch of a trusted segment, a little down: batch 6 (18-20) says 16-18, still past the entry before (11).
    const sealed = flip('sealed', 6, 0x02, true)
    const log = await startLogged(dataDir)
    c = await fx.client()
    const fetchAt = async (topic: string, offset: number, partitionMaxBytes = 1 << 20) => {
      const md = await c.request(Metadata, 12, { topics: [{ name: topic }] })
      const r = await c.request(Fetch, 13, {
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        topics: [{ topicId: md.topics[0].topicId, partitions: [{ partition: 0, fetchOffset: BigInt(offset), partitionMaxBytes }] }],
      })
      const p = r.responses[0].partitions[0]
      const records = p.records?.length ? decodeRecordSet(p.records).batches.flatMap((b) => b.records) : []
      // Whatever is served is served at its own offset: record k of batch i (b<i>-<k>) is offset 3i+k.
      for (const r of records) expect(r.key?.toString()).toBe(`b${Math.floor(Number(r.offset) / 3)}-${Number(r.offset) % 3}`)
      return { errorCode: p.errorCode, offsets: records.map((r) => Number(r.offset)) }
    }
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i)
    // Up to the batch before the flipped one (or, flipped down, before the one it goes back past).
    expect(await fetchAt('up', 0)).toEqual({ errorCode: 0, offsets: range(0, 12) })
    expect(await fetchAt('down', 0)).toEqual({ errorCode: 0, offsets: range(0, 18) })
    // Its range is refused, its one batch alone too (the batch after it tells).
    for (const offset of [12, 15, 18])
      expect(await fetchAt('up', offset)).toEqual({ errorCode: ErrorCodes.KAFKA_STORAGE_ERROR, offsets: [] })
    expect(await fetchAt('up', 12, 1)).toEqual({ errorCode: ErrorCodes.KAFKA_STORAGE_ERROR, offsets: [] })
    for (const offset of [18, 21, 24])
      expect(await fetchAt('down', offset)).toEqual({ errorCode: ErrorCodes.KAFKA_STORAGE_ERROR, offsets: [] })
    // After the next index entry past it, served.
    expect(await fetchAt('up', 21)).toEqual({ errorCode: 0, offsets: range(21, 30) })
    // The trusted segment: its batch 6 ends short of its index entry (20), and no batch ends there: from the entry before, refused.
    expect(await fetchAt('sealed', 0)).toEqual({ errorCode: 0, offsets: range(0, 15) })
    for (const offset of [15, 20, 24])
      expect(await fetchAt('sealed', offset)).toEqual({ errorCode: ErrorCodes.KAFKA_STORAGE_ERROR, offsets: [] })
    expect(await fetchAt('sealed', 29)).toEqual({ errorCode: 0, offsets: range(27, 30) })
    expect(await fetchAt('sealed', 30)).toEqual({ errorCode: 0, offsets: range(30, 33) })
    // Said at ERROR, once for each place (the later refusals at DEBUG), naming the file and the bytes.
    const errors = log.errors()
    expect(errors.filter((m) => m.includes(`${up.file} is corrupt`) && m.includes(`byte ${up.position} (offsets 28-30)`))).toHaveLength(1)
    expect(errors.filter((m) => m.includes(`${down.file} is corrupt`) && m.includes(`byte ${down.position} (offsets 5-7)`))).toHaveLength(1)
    expect(errors.filter((m) => m.includes(`no batch from byte ${sealed.position} ends at its offset index entry 20`))).toHaveLength(1)
  })

  it('ListOffsets by timestamp never answers an offset read from a batch out of offset order: that partition KAFKA_STORAGE_ERROR (an ERROR once), the look-ups around it answered', async () => {
    const dataDir = tempDir()
    const old = Date.now() - 5 * 3_600_000
    let c = await start({ dataDir, topics: ['ts-up', 'ts-down'].map((name) => ({ name, partitions: 1, configs: SPARSE_INDEX })) })
    // A second apart in record time: batch i's records at old + i s.
    for (const topic of ['ts-up', 'ts-down']) await tenIndexedBatches(c, topic, (i) => old + i * 1000)
    await stop()
    // Upward: batch 4 (12-14) says 28-30; downward: batch 7 (21-23) says 5-7.
    const up = flipBaseOffset(onlyLog(dataDir, 'ts-up'), 4, 0x10, false)
    const down = flipBaseOffset(onlyLog(dataDir, 'ts-down'), 7, 0x10, false)
    const log = await startLogged(dataDir)
    c = await fx.client()
    const at = async (topic: string, i: number) => {
      const r = await listOffset(c, topic, BigInt(old + i * 1000))
      return { errorCode: r.errorCode, offset: Number(r.offset) }
    }
    const refused = { errorCode: ErrorCodes.KAFKA_STORAGE_ERROR, offset: -1 }
    // The flipped batch's own time (unchecked, it answered 28, a record of batch 9), twice; and the next (the pair is withheld, as a fetch's).
    expect(await at('ts-up', 4)).toEqual(refused)
    expect(await at('ts-up', 4)).toEqual(refused)
    expect(await at('ts-up', 5)).toEqual(refused)
    expect(await at('ts-up', 3)).toEqual({ errorCode: 0, offset: 9 })
    expect(await at('ts-up', 7)).toEqual({ errorCode: 0, offset: 21 })
    // Downward: the batch before it (its successor tells) and its own (unchecked, it answered 5).
    expect(await at('ts-down', 6)).toEqual(refused)
    expect(await at('ts-down', 7)).toEqual(refused)
    expect(await at('ts-down', 5)).toEqual({ errorCode: 0, offset: 15 })
    expect(await at('ts-down', 9)).toEqual({ errorCode: 0, offset: 27 })
    // The max timestamp's batch (9) is sound in both.
    expect((await listOffset(c, 'ts-up', -3n)).offset).toBe(27n)
    const errors = log.errors().filter((m) => m.startsWith('ListOffsets of '))
    const upFirst = errors.filter((m) => m.includes(`a look-up of timestamp ${old + 4000} is refused`))
    expect(upFirst).toHaveLength(1)
    expect(upFirst[0]).toContain(`${up.file} is corrupt: the batch at byte ${up.position} (offsets 28-30) and`)
    expect(
      errors.filter((m) => m.includes(`${down.file} is corrupt`) && m.includes(`byte ${down.position} (offsets 5-7)`)).length,
    ).toBeGreaterThan(0)
  })

  it('a share fetch meeting a batch out of offset order answers that partition KAFKA_STORAGE_ERROR (an ERROR once), never failing the whole request, and serves the others', async () => {
    const dataDir = tempDir()
    let c = await start({
      dataDir,
      config: SHARE_GROUP_TEST_CONFIG,
      topics: [
        { name: 'share-up', partitions: 1, configs: SPARSE_INDEX },
        { name: 'share-fine', partitions: 1 },
      ],
    })
    for (const topic of ['share-up', 'share-fine']) await tenIndexedBatches(c, topic, () => Date.now())
    await stop()
    const up = flipBaseOffset(onlyLog(dataDir, 'share-up'), 4, 0x10, false)
    const log = await startLogged(dataDir, { config: SHARE_GROUP_TEST_CONFIG })
    const kafka = new Kafka({ brokers: [fx.cluster!.bootstrapServers], retryBackoffMs: 100 })
    const admin = fx.keep(kafka.admin())
    await admin.connect()
    await configureShareGroup(admin, 'corrupt')
    const member = fx.keep(kafka.shareConsumer({ groupId: 'corrupt', maxWaitTimeInMs: 200 }))
    const got: string[] = []
    await member.subscribe({ topics: ['share-up', 'share-fine'] })
    const counts: number[] = []
    await member.run({
      eachMessage: async ({ topic, message }) => {
        got.push(`${topic}/${message.key?.toString()}`)
        counts.push(message.deliveryCount)
      },
    })
    const keys = (topic: string, batches: number) =>
      Array.from({ length: batches * 3 }, (_, o) => `${topic}/b${Math.floor(o / 3)}-${o % 3}`)
    const refusals = () => log.logged.filter((e) => e.message.startsWith('share fetch from share-up-0: '))
    // The other partition whole, the refused one up to the batch before the flipped one; then its retries refused a while.
    await until(
      () => got.length >= 42 && refusals().length >= 3,
      30_000,
      () => JSON.stringify({ got, refusals: refusals().length }),
    )
    const sorted = (l: string[]) => [...l].sort()
    expect(sorted(got.filter((g) => g.startsWith('share-fine/')))).toEqual(sorted(keys('share-fine', 10)))
    expect(sorted(got.filter((g) => g.startsWith('share-up/')))).toEqual(sorted(keys('share-up', 4)))
    // Each delivered once: nothing acquired was held back by a failed request until its lock timed out.
    expect(counts.every((n) => n === 1)).toBe(true)
    // Said at ERROR once (naming the file and bytes), the retries at DEBUG; never a whole request failed.
    const errors = refusals().filter((e) => e.label === 'ERROR')
    expect(errors).toHaveLength(1)
    expect(errors[0].message).toContain(`${up.file} is corrupt: the batch at byte ${up.position} (offsets 28-30)`)
    expect(log.errors().filter((m) => !m.startsWith('share fetch from share-up-0: '))).toEqual([])
  })

  it('the log cleaner never rewrites a segment holding a batch out of offset order: the log is skipped as uncleanable (an ERROR naming the file, once), and retention still deletes it', async () => {
    const dataDir = tempDir()
    const old = Date.now() - 5 * 3_600_000
    // compact,delete, three hours' retention: the first segment (records five hours old) is due, once retention looks.
    const configs = { ...SPARSE_INDEX, 'cleanup.policy': 'compact,delete', 'retention.ms': String(3 * 3_600_000) }
    let c = await start({ dataDir, topics: [{ name: 'cc', partitions: 1, configs }] })
    await tenIndexedBatches(c, 'cc', () => old)
    // Now in record time: a new segment, so the first is below the active one (cleanable).
    expect((await produce(c, 'cc', batch('b10', 3, 200))).errorCode).toBe(0)
    await stop()
    const up = flipBaseOffset(onlyLog(dataDir, 'cc'), 4, 0x10, false)
    const bytes = readFileSync(up.file)
    // The cleaner's timer often (its dirty ratio is 1), retention's not within the test.
    let log = await startLogged(dataDir, { logCleanerBackoffMs: 50 })
    const uncleanable = () => log.logged.filter((e) => e.message.includes('cc-0 is uncleanable'))
    await until(
      () => uncleanable().length > 0,
      10_000,
      () => JSON.stringify(log.logged.slice(-5)),
    )
    await new Promise((r) => setTimeout(r, 500))
    expect(fx.cluster!.compact('cc')).toMatchObject({ recordsRemoved: 0, bytesBefore: 0 })
    // Once at ERROR, naming the file and the bytes; the timer's later passes and compact() skip it.
    expect(uncleanable()).toHaveLength(1)
    expect(uncleanable()[0].label).toBe('ERROR')
    expect(uncleanable()[0].message).toContain(`${up.file} is corrupt: the batch at byte ${up.position} (offsets 28-30)`)
    expect(log.errors().filter((m) => !m.includes('cc-0 is uncleanable'))).toEqual([])
    // Never rewritten (nor cut, as a rewrite's re-read would have).
    expect(readFileSync(up.file)).toEqual(bytes)
    await fx.stop()
    // Retention goes on: the first segment is deleted, and the rest cleans.
    log = await startLogged(dataDir, { logCleanerBackoffMs: 50, retentionCheckIntervalMs: 50 })
    c = await fx.client()
    await until(
      () => !existsSync(up.file),
      10_000,
      () => JSON.stringify(log.logged.slice(-5)),
    )
    expect(await listOffset(c, 'cc', -2n)).toMatchObject({ errorCode: 0, offset: 30n })
    expect(() => fx.cluster!.compact('cc')).not.toThrow()
  })

  it('a missing offset index and a corrupt time index are rebuilt, entry for entry', async () => {
    const dataDir = tempDir()
    let c = await start({ dataDir, topics: [{ name: 'idx', partitions: 1 }] })
    for (let i = 0; i < 200; i++) await produce(c, 'idx', batch(`i${i}`, 2, 600, Date.now() - 10_000 + i))
    await stop()
    const index = onlyLog(dataDir, 'idx').replace(/\.log$/, '.index')
    const timeIndex = index.replace(/\.index$/, '.timeindex')
    const [goodIndex, goodTime] = [readFileSync(index), readFileSync(timeIndex)]
    expect(goodIndex.length).toBeGreaterThan(8 * 10)
    unlinkSync(index)
    writeFileSync(timeIndex, Buffer.alloc(goodTime.length + 5, 0xab))
    c = await start({ dataDir })
    expect(readFileSync(index).equals(goodIndex)).toBe(true)
    expect(readFileSync(timeIndex).equals(goodTime)).toBe(true)
    expect((await readAll(c, 'idx', 301n))[0]).toMatchObject({ offset: 301, key: 'i150-1' })
  })

  it('producer state, producer ids and topic configs come back: a retried batch is still a duplicate', async () => {
    const dataDir = tempDir()
    let c = await start({ dataDir, topics: [{ name: 'ids', partitions: 1, configs: { 'retention.ms': '123456' } }] })
    const init = await c.request(InitProducerId, 4, {
      transactionalId: null,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
      enable2Pc: false,
      keepPreparedTxn: false,
    })
    expect(init.errorCode).toBe(0)
    const idempotent = (seq: number) =>
      encodeRecordBatch([{ key: `q${seq}`, value: 'v' }], {
        producerId: init.producerId,
        producerEpoch: init.producerEpoch,
        baseSequence: seq,
      })
    for (let s = 0; s < 3; s++) expect(await produce(c, 'ids', idempotent(s))).toMatchObject({ errorCode: 0, baseOffset: BigInt(s) })
    await stop()
    c = await start({ dataDir })
    // The last batch again (a producer retrying across the restart): answered with its offset, not appended.
    expect(await produce(c, 'ids', idempotent(2))).toMatchObject({ errorCode: 0, baseOffset: 2n })
    expect(await produce(c, 'ids', idempotent(3))).toMatchObject({ errorCode: 0, baseOffset: 3n })
    expect(await listOffset(c, 'ids', -1n)).toMatchObject({ offset: 4n })
    const again = await c.request(InitProducerId, 4, {
      transactionalId: null,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
      enable2Pc: false,
      keepPreparedTxn: false,
    })
    expect(again.producerId).toBeGreaterThan(init.producerId)
    const t = fx.cluster!.metadataLog.filter((r) => r.type === 'config' && r.name === 'ids')
    expect(t).toMatchObject([{ key: 'retention.ms', value: '123456' }])
  })

  it('a transaction left open by a stopped process is aborted at its timeout by the coordinator that loaded it: the last stable offset is not held back for good', async () => {
    const dataDir = tempDir()
    let c = await start({ dataDir, topics: [{ name: 'txo', partitions: 1 }] })
    const kafka = new Kafka({ clientId: 'txo', brokers: fx.cluster!.bootstrapServers.split(','), logLevel: 0 })
    const producer = kafka.producer({ transactionalId: 'txo-1', transactionTimeoutMs: 2000 })
    await producer.connect()
    const done = await producer.transaction()
    await done.send({ topic: 'txo', messages: [{ value: 'committed', partition: 0 }] })
    await done.commit()
    const open = await producer.transaction()
    await open.send({ topic: 'txo', messages: [{ value: 'never-ended', partition: 0 }] })
    const lso = async () =>
      (
        await c.request(ListOffsets, 7, {
          replicaId: -1,
          isolationLevel: 1,
          topics: [{ name: 'txo', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
        })
      ).topics[0].partitions[0].offset
    // Offsets 0 (committed), 1 (its marker), 2 (open): the last stable offset stops at 2.
    expect(await lso()).toBe(2n)
    await stop()
    await producer.disconnect().catch(() => {})
    c = await start({ dataDir })
    // The coordinator has it open again (__transaction_state): at its timeout it aborts it with a marker (offset 3).
    const described = (await c.request(DescribeTransactions, 0, { transactionalIds: ['txo-1'] })).transactionStates[0]
    expect(described).toMatchObject({ errorCode: 0, transactionState: 'Ongoing', transactionTimeoutMs: 2000 })
    await until(
      async () => (await lso()) === 4n,
      10_000,
      () => `the last stable offset: still held back`,
    )
    expect(await listOffset(c, 'txo', -1n)).toMatchObject({ offset: 4n })
    expect((await readAll(c, 'txo')).map((r) => r.value)).toEqual(['committed', 'never-ended'])
  })

  it('a transaction a partition has open that __transaction_state does not know (a data directory of an earlier version) is aborted at start', async () => {
    const dataDir = tempDir()
    await start({ dataDir, topics: [{ name: 'txq', partitions: 1 }] })
    const kafka = new Kafka({ clientId: 'txq', brokers: fx.cluster!.bootstrapServers.split(','), logLevel: 0 })
    const producer = kafka.producer({ transactionalId: 'txq-1' })
    await producer.connect()
    const open = await producer.transaction()
    await open.send({ topic: 'txq', messages: [{ value: 'unknown', partition: 0 }] })
    await stop()
    await producer.disconnect().catch(() => {})
    // As an earlier version left it: no transaction state kept.
    for (const d of readdirSync(join(dataDir, 'broker-0')))
      if (d.startsWith('__transaction_state-')) rmSync(join(dataDir, 'broker-0', d), { recursive: true })
    const c = await start({ dataDir })
    const stable = await c.request(ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 1,
      topics: [{ name: 'txq', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
    })
    // Its record (0) and the ABORT marker its leader wrote (1): stable.
    expect(stable.topics[0].partitions[0].offset).toBe(2n)
  })

  it('a group comes back with its generation and offsets: the next rebalance after a restart is the next generation', async () => {
    const dataDir = tempDir()
    const join = async (c: RawClient) => {
      const req = {
        groupId: 'gen',
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 10_000,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
      }
      expect(await groupCoordinator(c, 'gen')).toBe(0)
      const first = await c.request(JoinGroup, 9, { ...req, memberId: '' })
      return c.request(JoinGroup, 9, { ...req, memberId: first.memberId })
    }
    let c = await start({ dataDir, topics: [{ name: 'gt', partitions: 1 }] })
    const joined = await join(c)
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1 })
    // As Kafka, the generation is written with the leader's assignment (SyncGroup), not at the join.
    const synced = await c.request(SyncGroup, 5, {
      groupId: 'gen',
      generationId: joined.generationId,
      memberId: joined.memberId,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [{ memberId: joined.memberId, assignment: Buffer.from('all') }],
    })
    expect(synced).toMatchObject({ errorCode: 0 })
    await stop()
    c = await start({ dataDir })
    expect(await join(c)).toMatchObject({ errorCode: 0, generationId: 2 })
  })

  it(
    'a SIGTERM while `wafka broker --data-dir` starts stops it cleanly once started: exit 0, its logs marked closed cleanly',
    { skip: !built, timeout: 60_000 },
    async () => {
      const dataDir = tempDir()
      const args = ['broker', '--port', '0', '--brokers', '2', '--data-dir', dataDir]
      const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      children.push(child)
      let out = ''
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.once('exit', (code, signal) => resolve([code, signal])),
      )
      child.stderr!.setEncoding('utf8').on('data', (s: string) => (out += s))
      child.stdout!.setEncoding('utf8').on('data', (s: string) => {
        out += s
        // At once, before the cluster has started (it was killed by the signal's default action then).
        if (/starting 2 broker/.test(out) && child.signalCode === null && !child.killed) child.kill('SIGTERM')
      })
      expect(await exited).toEqual([0, null])
      expect(out).toMatch(/SIGTERM, stopping/)
      for (const id of [0, 1]) expect(existsSync(join(dataDir, `broker-${id}`, '.clean-shutdown')), out).toBe(true)
    },
  )

  it.each([1, 3])(
    'kill -9 of `wafka broker --data-dir --brokers %i` under an acks=all load: every acknowledged message is there after a restart, in order, exactly once',
    { skip: !built, timeout: 120_000 },
    async (brokers) => {
      const dataDir = tempDir()
      const serve = async (): Promise<{ child: ChildProcess; bootstrap: string[] }> => {
        const args = ['broker', '--port', '0', '--brokers', String(brokers), '--partitions', '3', '--data-dir', dataDir]
        const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
        children.push(child)
        let out = ''
        child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s))
        child.stderr!.setEncoding('utf8').on('data', (s: string) => (out += s))
        const deadline = Date.now() + 20_000
        while (!/bootstrap servers (\S+)/.test(out)) {
          if (Date.now() > deadline || child.exitCode !== null) throw new Error(`wafka broker did not start: ${out}`)
          await new Promise((r) => setTimeout(r, 20))
        }
        return { child, bootstrap: /bootstrap servers (\S+)/.exec(out)![1].split(',') }
      }
      /** A connection to the broker leading `partition` of the load topic (or coordinating the group, for -1). */
      const connect = async (bootstrap: string[], partition: number): Promise<RawClient> => {
        const c = fx.keep(await RawClient.open(bootstrap[0]))
        const md = await c.request(Metadata, 12, { topics: [{ name: 'load' }] })
        const id =
          partition < 0
            ? (await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['crash-group'] })).coordinators[0].nodeId
            : md.topics[0].partitions.find((x) => x.partitionIndex === partition)!.leaderId
        const b = md.brokers.find((x) => x.nodeId === id)!
        return fx.keep(await RawClient.open(`${b.host}:${b.port}`))
      }
      const first = await serve()
      const exited = new Promise((resolve) => first.child.once('exit', resolve))
      const kafka = new Kafka({ clientId: 'crash-test', brokers: first.bootstrap })
      const producer = kafka.producer({ acks: 'all', idempotent: true, deliveryTimeoutMs: 3000, requestTimeoutMs: 2000 })
      await producer.connect()
      const acked: string[][] = [[], [], []]
      let killed = false
      let total = 0
      const loop = async (partition: number) => {
        for (let seq = 0; !killed;) {
          const values = Array.from({ length: 1 + (seq % 7) }, (_, k) => `p${partition}-${seq + k}`)
          try {
            const meta = await producer.send({ topic: 'load', messages: values.map((value) => ({ key: value, value, partition })) })
            if (meta.some((m) => m.errorCode !== 0)) break
          } catch {
            break
          }
          // Acknowledged before the kill landed, or after: either way it must be there (an ack is an ack).
          acked[partition].push(...values)
          if (killed) break
          seq += values.length
          total += values.length
          if (total >= 3000 && !killed) {
            killed = true
            // Sends of the other partitions are in flight now.
            first.child.kill('SIGKILL')
          }
          if (seq === 210 && partition === 0) {
            const r = await (
              await connect(first.bootstrap, -1)
            ).request(OffsetCommit, 8, {
              groupId: 'crash-group',
              generationIdOrMemberEpoch: -1,
              memberId: '',
              groupInstanceId: null,
              topics: [
                {
                  name: 'load',
                  partitions: [{ partitionIndex: 0, committedOffset: 210n, committedLeaderEpoch: -1, committedMetadata: null }],
                },
              ],
            })
            expect(r.topics[0].partitions[0].errorCode).toBe(0)
          }
        }
      }
      await Promise.all([loop(0), loop(1), loop(2)])
      await exited
      await fx.stop()
      await producer.disconnect().catch(() => {})
      expect(total).toBeGreaterThanOrEqual(3000)

      const second = await serve()
      const seen = new Set<string>()
      for (let p = 0; p < 3; p++) {
        const c = await connect(second.bootstrap, p)
        // Replicated, the high watermark comes back as the followers fetch again.
        await until(
          async () => (await listOffset(c, 'load', -1n, p)).offset >= BigInt(acked[p].length),
          20_000,
          () => `the high watermark of partition ${p} to reach the ${acked[p].length} acknowledged`,
        )
        const values = (await readAll(c, 'load', 0n, p)).map((r) => r.value!)
        for (const v of values) {
          expect(seen.has(v), `${v} stored twice`).toBe(false)
          seen.add(v)
        }
        // Exactly what was acknowledged, in order; past it, at most what was in flight (sent, not acknowledged).
        expect(values.slice(0, acked[p].length)).toEqual(acked[p])
        for (const v of values.slice(acked[p].length)) expect(v.startsWith(`p${p}-`)).toBe(true)
      }
      const fetched = await (
        await connect(second.bootstrap, -1)
      ).request(OffsetFetch, 7, {
        groupId: 'crash-group',
        topics: [{ name: 'load', partitionIndexes: [0] }],
        requireStable: false,
      })
      expect(fetched.topics[0].partitions[0].committedOffset).toBe(210n)
      second.child.kill('SIGTERM')
    },
  )
})
