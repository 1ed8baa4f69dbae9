// Fast restart of the embedded broker on a dataDir (issue 22), as Kafka's
// LogLoader and ProducerStateManager: the segments below a partition's
// recovery point (recovery-point-offset-checkpoint) are trusted, not read;
// producer state, open transactions and the epoch cache come from the newest
// producer snapshot (<offset>.snapshot) and leader-epoch-checkpoint, aborted
// transactions from the .txnindex files; only the batches after the snapshot
// are replayed. A corrupt checkpoint, snapshot or index is said, and the
// batches are read instead: never fatal, nothing lost.
import { Buffer } from 'node:buffer'
import { cpSync, existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Replica } from '../../src/broker/broker.js'
import { EmbeddedCluster } from '../../src/broker/cluster.js'
import { snapshotEntries } from '../../src/broker/producer-state.js'
import { diskIo } from '../../src/broker/storage/disk-io.js'
import { readSnapshot } from '../../src/broker/storage/producer-snapshot.js'
import { encodeRecordBatch, loadCodecs } from '../../src/codec/index.js'
import { Kafka } from '../../src/index.js'
import { InitProducerId } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { batch, listOffset, produce, readAll, storageFixture } from './storage-support.js'
import { keepLog } from './support.js'

const fx = storageFixture('wafka-restart-')
const { tempDir } = fx
const realRead = diskIo.read

afterEach(() => {
  diskIo.read = realRead
})

interface Started {
  embedded: EmbeddedCluster
  c: RawClient
  problems: string[]
  /** Segment reads (diskIo.read calls) while the cluster started and opened its replicas. */
  reads: number
}

async function open(dataDir: string, topics: { name: string; partitions: number }[] = []): Promise<Started> {
  await loadCodecs()
  const problems: string[] = []
  let reads = 0
  diskIo.read = (...args) => {
    reads++
    return realRead(...args)
  }
  const embedded = new EmbeddedCluster({ dataDir, ...keepLog(problems) })
  fx.keep(embedded)
  await embedded.start(topics)
  diskIo.read = realRead
  const b = embedded.brokers.get(0)!
  const c = fx.keep(await RawClient.open(`${b.host}:${b.port}`))
  return { embedded, c, problems, reads }
}

const stop = fx.stop

function replicaOf(embedded: EmbeddedCluster, topic: string): Replica {
  const id = embedded.controller.topics.get(topic)!.id
  return embedded.brokers.get(0)!.replicas.get(`${id}/0`)!
}

const partDir = (dataDir: string, topic: string) => join(dataDir, 'broker-0', `${topic}-0`)

/** `segments` segments of `perSegment` batches of three records each (a roll after each group), then the log's batches. */
async function segmentsOf(s: Started, topic: string, segments: number, perSegment: number): Promise<number> {
  const disk = replicaOf(s.embedded, topic).log.disk!
  let n = 0
  for (let seg = 0; seg < segments; seg++) {
    if (seg > 0) disk.roll()
    for (let i = 0; i < perSegment; i++) expect((await produce(s.c, topic, batch(`s${seg}-${i}`, 3, 200))).errorCode).toBe(0)
    n += perSegment
  }
  await disk.flushedInBackground()
  return n
}

async function initProducerId(c: RawClient): Promise<{ producerId: bigint; producerEpoch: number }> {
  const r = await c.request(InitProducerId, 4, {
    transactionalId: null,
    transactionTimeoutMs: 60_000,
    producerId: -1n,
    producerEpoch: -1,
    enable2Pc: false,
    keepPreparedTxn: false,
  })
  expect(r.errorCode).toBe(0)
  return r
}

const stateOf = (r: Replica) => snapshotEntries(r.producers, (pid) => r.log.transactionFirstOffset(pid))

describe('fast restart', () => {
  it('a clean restart reads one batch of each sealed segment (its first: offsets and CRC checked), not the segments: their indexes are loaded, only the active segment after its last index entry is read', async () => {
    const dataDir = tempDir()
    let s = await open(dataDir, [{ name: 'fast', partitions: 1 }])
    const batches = await segmentsOf(s, 'fast', 8, 10)
    const keys = (await readAll(s.c, 'fast')).map((r) => r.key)
    expect(keys.length).toBe(batches * 3)
    await stop()
    expect(readFileSync(join(dataDir, 'broker-0', 'recovery-point-offset-checkpoint'), 'utf8')).toBe(`0\n1\nfast 0 ${batches * 3}\n`)
    s = await open(dataDir)
    const disk = replicaOf(s.embedded, 'fast').log.disk!
    expect(disk.loadStats).toEqual({ segmentsTrusted: 7, segmentsRecovered: 1, batchesRead: expect.any(Number), firstBatchesChecked: 7 })
    // The active segment's tail after its last index entry (index.interval.bytes: 4096, batches of ~700 bytes), and nothing replayed (the snapshot is at the log end).
    expect(disk.loadStats.batchesRead).toBeLessThanOrEqual(7)
    // Per sealed segment two reads (its first batch's header, then that batch for its CRC), of 10 batches; the active one's tail.
    expect(s.reads).toBeGreaterThanOrEqual(2 * 7)
    expect(s.reads).toBeLessThan(2 * 7 + 20)
    expect(s.problems).toEqual([])
    // Everything is there, and the log goes on where it ended.
    expect((await readAll(s.c, 'fast')).map((r) => r.key)).toEqual(keys)
    expect(await produce(s.c, 'fast', batch('next', 1))).toMatchObject({ errorCode: 0, baseOffset: BigInt(batches * 3) })
  })

  it("a sealed segment's first batch is checked at a clean start: a base offset its segment pins is written back, a CRC failure served as is, anything else read whole and cut; each said", async () => {
    const dataDir = tempDir()
    const s = await open(dataDir, [{ name: 'chk', partitions: 1 }])
    // Segments 0, 6 and 12, two batches of three records each.
    await segmentsOf(s, 'chk', 3, 2)
    const keys = (await readAll(s.c, 'chk')).map((r) => r.key)
    await stop()
    const segment6 = join(partDir(dataDir, 'chk'), '00000000000000000006.log')
    const good = readFileSync(segment6)
    const startWith = async (edit: (b: Buffer) => void) => {
      const copy = tempDir()
      cpSync(dataDir, copy, { recursive: true })
      const file = join(partDir(copy, 'chk'), '00000000000000000006.log')
      const bytes = Buffer.from(good)
      edit(bytes)
      writeFileSync(file, bytes)
      return { file, bytes, started: await open(copy) }
    }

    // Its base offset's high byte flipped: its three offsets fit only from 6, the segment's base, so that is its base offset.
    let { file, bytes, started } = await startWith((b) => (b[0] ^= 0x01))
    expect(started.problems).toEqual([
      `broker 0: ${file} is corrupt: its first batch's offsets 72057594037927940-72057594037927940 are outside the segment's 6-8; its CRC-32C holds ` +
        `(the base offset is not under it) and its 3 offsets fit only from 6: base offset written back as 6, the 8 bytes it held kept as ${file}.base-0`,
    ])
    expect(readFileSync(file)).toEqual(good)
    expect(readFileSync(`${file}.base-0`)).toEqual(bytes.subarray(0, 8))
    expect((await readAll(started.c, 'chk')).map((r) => r.key)).toEqual(keys)
    await stop()

    // A byte of its records flipped: its offsets hold, so it is served as it is (a consumer's CRC check refuses it), and said.
    ;({ file, started } = await startWith((b) => (b[b.readInt32BE(8) + 12 - 3] ^= 0x01)))
    expect(started.problems).toEqual([
      `broker 0: ${file} is corrupt: its first batch fails its CRC-32C (its offsets hold): served as it is`,
    ])
    expect(replicaOf(started.embedded, 'chk').log.disk!.loadStats).toMatchObject({ segmentsTrusted: 2, firstBatchesChecked: 2 })
    expect(await listOffset(started.c, 'chk', -1n)).toMatchObject({ offset: 18n })
    await stop()

    // Its last offset delta flipped (under the CRC, which fails): nothing pins it; the segment is read whole and cut there, the next one moved aside, each said.
    ;({ file, started } = await startWith((b) => (b[23 + 3] ^= 0x10)))
    expect(started.problems[0]).toBe(
      `broker 0: ${file} is corrupt: its first batch's offsets 6-24 are outside the segment's 6-8: not trusted; read whole, every batch's CRC-32C checked, and cut at the first bad one`,
    )
    expect(started.problems.join('\n')).toMatch(/segment 6 cut at offset 6 .*kept as .*00000000000000000006\.log\.cut-0/)
    expect(started.problems.join('\n')).toMatch(/00000000000000000012\.log\.cut \(offsets 12 on, \d+ bytes\); all kept beside the log/)
    expect(await listOffset(started.c, 'chk', -1n)).toMatchObject({ offset: 6n })
  })

  it('after a kill -9 only the segments from the recovery point on are read (CRC-checked), and the batches after the roll snapshot replayed', async () => {
    const dataDir = tempDir()
    const s = await open(dataDir, [{ name: 'crash', partitions: 1 }])
    await segmentsOf(s, 'crash', 6, 10)
    // Three more in the active segment, past the recovery point (the last roll's flush).
    for (let i = 0; i < 3; i++) await produce(s.c, 'crash', batch(`tail-${i}`, 3, 200))
    const keys = (await readAll(s.c, 'crash')).map((r) => r.key)
    // The files as they are in the page cache while the process runs: what a kill -9 leaves (no clean-shutdown marker).
    const copy = tempDir()
    cpSync(dataDir, copy, { recursive: true })
    unlinkSync(join(copy, '.lock'))
    expect(existsSync(join(copy, 'broker-0', '.clean-shutdown'))).toBe(false)
    expect(readFileSync(join(copy, 'broker-0', 'recovery-point-offset-checkpoint'), 'utf8')).toBe('0\n1\ncrash 0 150\n')
    await stop()
    const after = await open(copy)
    const disk = replicaOf(after.embedded, 'crash').log.disk!
    // The active segment (base 150): walked with its CRCs checked, then its batches replayed from the snapshot at 150.
    expect(disk.loadStats).toEqual({ segmentsTrusted: 5, segmentsRecovered: 1, batchesRead: 13 * 2, firstBatchesChecked: 5 })
    expect(after.problems).toEqual([])
    expect((await readAll(after.c, 'crash')).map((r) => r.key)).toEqual(keys)
    expect(await produce(after.c, 'crash', batch('next', 1))).toMatchObject({ errorCode: 0, baseOffset: 189n })
  })

  it('producer state after a restart from its snapshot equals that before, every cached batch; an idempotent producer continues its sequences', async () => {
    const dataDir = tempDir()
    let s = await open(dataDir, [{ name: 'idem', partitions: 1 }])
    const producers = [await initProducerId(s.c), await initProducerId(s.c), await initProducerId(s.c)]
    const send = (p: { producerId: bigint; producerEpoch: number }, seq: number) =>
      encodeRecordBatch(
        [
          { key: `${p.producerId}-${seq}`, value: 'v' },
          { key: `${p.producerId}-${seq}b`, value: 'v' },
        ],
        {
          producerId: p.producerId,
          producerEpoch: p.producerEpoch,
          baseSequence: seq,
        },
      )
    const offsets = new Map<string, bigint>()
    const disk = replicaOf(s.embedded, 'idem').log.disk!
    for (let round = 0; round < 7; round++) {
      // A roll midway: a snapshot at its base, and batches after it.
      if (round === 3) disk.roll()
      for (const p of producers) {
        const r = await produce(s.c, 'idem', send(p, round * 2))
        expect(r.errorCode).toBe(0)
        offsets.set(`${p.producerId}-${round * 2}`, r.baseOffset)
      }
    }
    const before = stateOf(replicaOf(s.embedded, 'idem'))
    expect(before.length).toBe(15)
    await stop()
    expect(readdirSync(partDir(dataDir, 'idem')).filter((f) => f.endsWith('.snapshot'))).toEqual([
      '00000000000000000018.snapshot',
      '00000000000000000042.snapshot',
    ])
    expect(readSnapshot(join(partDir(dataDir, 'idem'), '00000000000000000042.snapshot'))).toEqual(before)
    s = await open(dataDir)
    const replica = replicaOf(s.embedded, 'idem')
    // The active segment's twelve batches (less than an index interval), none replayed: the snapshot is at the log end.
    expect(replica.log.disk!.loadStats.batchesRead).toBe(12)
    expect(stateOf(replica)).toEqual(before)
    for (const p of producers) {
      // The newest batch and one three back, retried across the restart: duplicates, answered with their offsets.
      expect(await produce(s.c, 'idem', send(p, 12))).toMatchObject({ errorCode: 0, baseOffset: offsets.get(`${p.producerId}-12`) })
      expect(await produce(s.c, 'idem', send(p, 6))).toMatchObject({ errorCode: 0, baseOffset: offsets.get(`${p.producerId}-6`) })
      // The next in sequence goes on; one that skips is out of order.
      expect((await produce(s.c, 'idem', send(p, 14))).errorCode).toBe(0)
      expect((await produce(s.c, 'idem', send(p, 20))).errorCode).toBe(45)
    }
  })

  it('transactions across a restart from a snapshot: an aborted one below it is still told to read_committed (its .txnindex); the epoch cache comes back (leader-epoch-checkpoint)', async () => {
    const dataDir = tempDir()
    let s = await open(dataDir, [{ name: 'txs', partitions: 1 }])
    const kafka = new Kafka({
      clientId: 'txs',
      brokers: [`${s.embedded.brokers.get(0)!.host}:${s.embedded.brokers.get(0)!.port}`],
      logLevel: 0,
    })
    const producer = kafka.producer({ transactionalId: 'txs-1' })
    await producer.connect()
    const aborted = await producer.transaction()
    await aborted.send({ topic: 'txs', messages: [{ value: 'aborted', partition: 0 }] })
    await aborted.abort()
    const disk = replicaOf(s.embedded, 'txs').log.disk!
    disk.roll()
    const committed = await producer.transaction()
    await committed.send({ topic: 'txs', messages: [{ value: 'committed', partition: 0 }] })
    await committed.commit()
    disk.roll()
    const before = replicaOf(s.embedded, 'txs').log
    const abortedBefore = [...before.abortedTransactions]
    expect(abortedBefore).toEqual([{ producerId: expect.any(BigInt), firstOffset: 0, lastOffset: 1 }])
    expect(existsSync(join(partDir(dataDir, 'txs'), '00000000000000000000.txnindex'))).toBe(true)
    const epochs = [...before.epochs]
    await producer.disconnect()
    await stop()
    s = await open(dataDir)
    const log = replicaOf(s.embedded, 'txs').log
    expect(log.disk!.loadStats).toMatchObject({ segmentsTrusted: 2, batchesRead: 0 })
    expect(log.abortedTransactions).toEqual(abortedBefore)
    expect(log.abortedBetween(0, 10)).toEqual(abortedBefore)
    expect(log.epochs).toEqual(epochs)
    expect((await readAll(s.c, 'txs')).map((r) => r.value)).toEqual(['aborted', 'committed'])
  })

  it("producer snapshots stay bounded across restarts, as Kafka keeps them: one per segment (its roll) and the last clean stop's, older strays removed at open", async () => {
    const dataDir = tempDir()
    let s = await open(dataDir, [{ name: 'bound', partitions: 1 }])
    const p = await initProducerId(s.c)
    let seq = 0
    const send = async () =>
      expect(
        (await produce(s.c, 'bound', encodeRecordBatch([{ key: `k${seq}`, value: 'v' }], { ...p, baseSequence: seq++ }))).errorCode,
      ).toBe(0)
    const snapshots = () => readdirSync(partDir(dataDir, 'bound')).filter((f) => f.endsWith('.snapshot'))
    await send()
    replicaOf(s.embedded, 'bound').log.disk!.roll()
    for (let cycle = 0; cycle < 4; cycle++) {
      await send()
      await send()
      await stop()
      s = await open(dataDir)
    }
    // The roll's at 1, and the clean stops' at 3, 5, 7, 9: the opening removed each but the newest.
    expect(snapshots()).toEqual(['00000000000000000001.snapshot', '00000000000000000009.snapshot'])
    // The state comes back whole from them: the producer goes on in sequence.
    await send()
    await stop()
    s = await open(dataDir)
    expect(snapshots()).toEqual(['00000000000000000001.snapshot', '00000000000000000010.snapshot'])
    await send()
  })

  it('a corrupt producer snapshot is said and skipped: the state comes from the one before it and the batches after, the same as before', async () => {
    const dataDir = tempDir()
    let s = await open(dataDir, [{ name: 'snap', partitions: 1 }])
    const p = await initProducerId(s.c)
    const disk = replicaOf(s.embedded, 'snap').log.disk!
    for (let i = 0; i < 8; i++) {
      if (i === 4) disk.roll()
      await produce(s.c, 'snap', encodeRecordBatch([{ key: `k${i}`, value: 'v' }], { ...p, baseSequence: i }))
    }
    const before = stateOf(replicaOf(s.embedded, 'snap'))
    await stop()
    const latest = join(partDir(dataDir, 'snap'), '00000000000000000008.snapshot')
    const bytes = readFileSync(latest)
    bytes[bytes.length - 3] ^= 0x10
    writeFileSync(latest, bytes)
    s = await open(dataDir)
    expect(s.problems).toEqual([expect.stringMatching(/00000000000000000008\.snapshot: CRC-32C does not match: producer snapshot skipped/)])
    const replica = replicaOf(s.embedded, 'snap')
    // The active segment's four batches read (its tail), then replayed from the roll's snapshot at 4.
    expect(replica.log.disk!.loadStats.batchesRead).toBe(8)
    expect(stateOf(replica)).toEqual(before)
    expect(await produce(s.c, 'snap', encodeRecordBatch([{ key: 'k8', value: 'v' }], { ...p, baseSequence: 8 }))).toMatchObject({
      errorCode: 0,
      baseOffset: 8n,
    })
  })

  it('a corrupt recovery-point checkpoint is said and not used: every segment is read, nothing is lost', async () => {
    const dataDir = tempDir()
    let s = await open(dataDir, [{ name: 'rp', partitions: 1 }])
    const batches = await segmentsOf(s, 'rp', 4, 5)
    const keys = (await readAll(s.c, 'rp')).map((r) => r.key)
    await stop()
    writeFileSync(join(dataDir, 'broker-0', 'recovery-point-offset-checkpoint'), '0\n1\nrp 0 6x\n')
    s = await open(dataDir)
    expect(s.problems).toEqual([expect.stringMatching(/recovery-point-offset-checkpoint: entry 1 "rp 0 6x" is not 3 fields: not used/)])
    const disk = replicaOf(s.embedded, 'rp').log.disk!
    expect(disk.loadStats).toEqual({ segmentsTrusted: 0, segmentsRecovered: 4, batchesRead: batches, firstBatchesChecked: 0 })
    expect((await readAll(s.c, 'rp')).map((r) => r.key)).toEqual(keys)
  })

  it('a corrupt leader-epoch checkpoint or .txnindex is said and not used: the epochs and aborted transactions come from every batch', async () => {
    const dataDir = tempDir()
    let s = await open(dataDir, [{ name: 'idx', partitions: 1 }])
    const kafka = new Kafka({
      clientId: 'idx',
      brokers: [`${s.embedded.brokers.get(0)!.host}:${s.embedded.brokers.get(0)!.port}`],
      logLevel: 0,
    })
    const producer = kafka.producer({ transactionalId: 'idx-1' })
    await producer.connect()
    const txn = await producer.transaction()
    await txn.send({ topic: 'idx', messages: [{ value: 'aborted', partition: 0 }] })
    await txn.abort()
    await producer.disconnect()
    replicaOf(s.embedded, 'idx').log.disk!.roll()
    await produce(s.c, 'idx', batch('after', 2))
    const log = replicaOf(s.embedded, 'idx').log
    const [aborted, epochs] = [[...log.abortedTransactions], [...log.epochs]]
    expect(aborted).toHaveLength(1)
    await stop()
    const dir = partDir(dataDir, 'idx')
    for (const [file, garbage, said] of [
      ['leader-epoch-checkpoint', '0\n2\n0 0\n', /leader-epoch-checkpoint: count line "2" does not match its 1 entries: not used/],
      ['00000000000000000000.txnindex', 'torn', /00000000000000000000\.txnindex: 4 bytes is not whole 34-byte entries: not used/],
    ] as const) {
      const good = readFileSync(join(dir, file))
      writeFileSync(join(dir, file), garbage)
      s = await open(dataDir)
      expect(s.problems).toEqual([expect.stringMatching(said)])
      const again = replicaOf(s.embedded, 'idx').log
      expect(again.disk!.loadStats.batchesRead).toBe(4)
      expect(again.abortedTransactions).toEqual(aborted)
      expect(again.epochs).toEqual(epochs)
      await stop()
      // Written again whole at the stop (the epochs) or at the replay (the .txnindex).
      expect(readFileSync(join(dir, file))).toEqual(good)
    }
  })
})
