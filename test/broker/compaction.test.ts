// cleanup.policy=compact on the embedded broker: the log cleaner keeps the
// newest record per key (offsets kept, gaps between them), tombstones until
// delete.retention.ms after their first cleaning, no aborted records, and
// producers' sequence state; keyless records are refused at produce time.
// Checked against a model (a Map of the newest record per key) with wafka's
// consumer, and with the Java client and kcat reading the compacted topic.
import { Buffer } from 'node:buffer'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, type Consumer, type Producer } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { encodeRecordBatch } from '../../src/codec/batch-encoder.js'
import { loadCodecs } from '../../src/codec/compression.js'
import { cleanLog, dirtyRatio } from '../../src/broker/log-cleaner.js'
import { PartitionLog } from '../../src/broker/partition-log.js'
import { ProducerState } from '../../src/broker/producer-state.js'
import { readBatchHeader } from '../../src/broker/record-batch.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { Prng } from '../../bench/support/prng.js'
import { seedFromEnv } from '../prng.js'
import { requirePeers } from '../peers/available.js'
import { kcatConsume } from '../peers/kcat.js'
import { javaConsume, javaProduce } from '../peers/java-client.js'
import { requireKafka, runJava, startKafka, type KafkaCluster } from '../peers/kafka.js'
import { received, until, type Received } from './support.js'
import { RawClient } from './raw-client.js'
import { Produce } from '../../src/protocol/messages/Produce.js'
import { Fetch } from '../../src/protocol/messages/Fetch.js'
import { decodeRecordSet } from '../../src/codec/batch-decoder.js'

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const
const RETENTION_MS = 1500
const COMPACTED = { 'cleanup.policy': 'compact', 'delete.retention.ms': String(RETENTION_MS) }
/** The timer stays out of the way: these tests clean through cluster.compact(). */
const NO_TIMER = 3_600_000

let cluster: RunningCluster | undefined
const clients: Array<{ disconnect(): Promise<void> }> = []
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.disconnect()))
  await cluster?.stop()
  cluster = undefined
})

async function open<T extends Producer | Consumer>(c: T): Promise<T> {
  clients.push(c)
  await c.connect()
  return c
}

const kafkaOf = (c: RunningCluster) => new Kafka({ clientId: 'compaction-test', brokers: c.bootstrapServers.split(',') })

let groups = 0
/** Everything in `topic` from the start, by a fresh group: `count` records, then a moment for any extra. */
async function readAll(
  kafka: Kafka,
  topic: string,
  count: number,
  isolationLevel: 'read_committed' | 'read_uncommitted' = 'read_uncommitted',
): Promise<Received[]> {
  const got: Received[] = []
  const consumer = await open(kafka.consumer({ groupId: `reader-${++groups}`, isolationLevel, maxWaitTimeInMs: 100 }))
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  await consumer.run({ eachMessage: async ({ partition, message }) => void got.push(received(partition, message)) })
  await until(
    () => got.length >= count,
    20_000,
    () => `${got.length} of ${count} read`,
  )
  await new Promise((r) => setTimeout(r, 300))
  await consumer.disconnect()
  return got
}

/** What a reader must see of a record, byte for byte. */
const shown = (m: { offset: bigint | number; key: Buffer | null; value: Buffer | null; headers?: [string, Buffer | null][] }) => ({
  offset: String(m.offset),
  key: m.key?.toString('hex') ?? null,
  value: m.value?.toString('hex') ?? null,
  ...(m.headers ? { headers: m.headers.map(([k, v]) => [k, v?.toString('hex') ?? null]) } : {}),
})

/** The model: the newest record of each key, in offset order (tombstones included, or not). */
function newestPerKey<T extends { offset: bigint; key: Buffer | null; value: Buffer | null }>(all: T[], tombstones: boolean): T[] {
  const newest = new Map<string, T>()
  for (const m of [...all].sort((a, b) => (a.offset < b.offset ? -1 : 1))) newest.set(m.key!.toString('hex'), m)
  return [...newest.values()].filter((m) => tombstones || m.value !== null).sort((a, b) => (a.offset < b.offset ? -1 : 1))
}

/**
 * Random keyed records, tombstones among them, sent in batches of random
 * sizes, then two deletes; then one last batch of its own (the active tail, never cleaned),
 * so that every record of the model is in the cleanable range.
 */
async function produceRandom(
  producer: Producer,
  topic: string,
  seed: number,
  sends = 30,
  beforeTail: () => Promise<void> = async () => {},
): Promise<number> {
  const rng = new Prng(seed)
  const keys = Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? Buffer.from([i, 0, 255]) : Buffer.from(`key-${i}`)))
  let total = 0
  for (let s = 0; s < sends; s++) {
    const messages = Array.from({ length: rng.between(1, 12) }, (_, i) => ({
      key: keys[rng.int(keys.length)],
      value: rng.chance(0.15) ? null : Buffer.from(`v${s}.${i}:${'x'.repeat(rng.int(300))}`),
      headers: rng.chance(0.3) ? [['h', Buffer.from(`s${s}`)] as [string, Buffer]] : undefined,
    }))
    const [meta] = await producer.send({ topic, messages })
    expect(meta.errorCode).toBe(0)
    total += messages.length
  }
  // Two keys deleted last, so the model always ends with tombstones.
  const deleted = [keys[rng.int(12)], keys[12 + rng.int(12)]].map((key) => ({ key, value: null }))
  await producer.send({ topic, messages: deleted })
  await beforeTail()
  await producer.send({ topic, messages: [{ key: 'active-tail', value: 'last' }] })
  return total + deleted.length + 1
}

describe('compaction, checked against a model with wafka reading', () => {
  it.each(CODECS)(
    '%s: the newest record per key at its offset, in offset order; tombstones kept until delete.retention.ms, then gone',
    async (compression) => {
      const seed = seedFromEnv('COMPACTION_SEED') + CODECS.indexOf(compression)
      cluster = await startCluster({
        brokers: 3,
        topics: [{ name: 'c', partitions: 1, configs: COMPACTED }],
        logCleanerBackoffMs: NO_TIMER,
      })
      const kafka = kafkaOf(cluster)
      const producer = await open(kafka.producer({ compression, idempotent: true }))
      const total = await produceRandom(producer, 'c', seed)
      const before = await readAll(kafka, 'c', total)
      expect(before.length, `seed ${seed}`).toBe(total)

      const expected = newestPerKey(before, true)
      const first = cluster.compact('c')
      expect(first.recordsRemoved, `seed ${seed}`).toBe(total - expected.length)
      expect(first.bytesAfter).toBeLessThan(first.bytesBefore)
      const after = await readAll(kafka, 'c', expected.length)
      expect(after.map(shown), `seed ${seed}`).toEqual(expected.map(shown))
      expect(
        after.some((m) => m.value === null),
        `seed ${seed}: the model has tombstones`,
      ).toBe(true)

      // Cleaned again before delete.retention.ms: the tombstones stay.
      expect(cluster.compact('c').recordsRemoved).toBe(0)
      await new Promise((r) => setTimeout(r, RETENTION_MS + 100))
      const live = newestPerKey(before, false)
      expect(cluster.compact('c').recordsRemoved).toBe(expected.length - live.length)
      const final = await readAll(kafka, 'c', live.length)
      expect(final.map(shown), `seed ${seed}`).toEqual(live.map(shown))

      // The idempotent producer goes on after its batches were rewritten and emptied.
      const [meta] = await producer.send({ topic: 'c', messages: [{ key: 'after', value: 'more' }] })
      expect(meta.errorCode).toBe(0)
    },
    60_000,
  )

  it('the cleaner timer (logCleanerBackoffMs) compacts a dirty log by itself', async () => {
    // Any dirty byte is enough (cleanings while the records arrive leave a small dirty part each time).
    const configs = { ...COMPACTED, 'min.cleanable.dirty.ratio': '0.01' }
    cluster = await startCluster({ brokers: 1, topics: [{ name: 't', configs }], logCleanerBackoffMs: 50 })
    const kafka = kafkaOf(cluster)
    const producer = await open(kafka.producer({ compression: 'snappy' }))
    for (let i = 0; i < 10; i++) await producer.send({ topic: 't', messages: [{ key: `k${i % 3}`, value: `v${i}` }] })
    await producer.send({ topic: 't', messages: [{ key: 'tail', value: 'last' }] })
    // Everything below the tail is dirty (ratio 1 >= min.cleanable.dirty.ratio 0.5): the next tick cleans it.
    await new Promise((r) => setTimeout(r, 400))
    const got = await readAll(kafka, 't', 4)
    expect(got.map((m) => `${m.offset}:${m.key}=${m.value}`)).toEqual(['7:k1=v7', '8:k2=v8', '9:k0=v9', '10:tail=last'])
  })

  it('min.compaction.lag.ms: records younger than it are not cleaned yet', async () => {
    const configs = { ...COMPACTED, 'min.compaction.lag.ms': '1500' }
    cluster = await startCluster({ brokers: 1, topics: [{ name: 'lag', configs }], logCleanerBackoffMs: NO_TIMER })
    const kafka = kafkaOf(cluster)
    const producer = await open(kafka.producer())
    for (let i = 0; i < 6; i++) await producer.send({ topic: 'lag', messages: [{ key: `k${i % 2}`, value: `v${i}` }] })
    await producer.send({ topic: 'lag', messages: [{ key: 'tail', value: 'last' }] })
    expect(cluster.compact('lag')).toMatchObject({ cleanedTo: 0, recordsRemoved: 0 })
    await new Promise((r) => setTimeout(r, 1600))
    expect(cluster.compact('lag')).toMatchObject({ cleanedTo: 6, recordsRemoved: 4 })
    const got = await readAll(kafka, 'lag', 3)
    expect(got.map((m) => `${m.offset}:${m.key}=${m.value}`)).toEqual(['4:k0=v4', '5:k1=v5', '6:tail=last'])
  })

  it('max.compaction.lag.ms: a dirty log below min.cleanable.dirty.ratio is cleaned once its dirty records are older than it', async () => {
    // Ratio 1: after its first cleaning a log is never dirty enough again; only max.compaction.lag.ms cleans it.
    const base = { ...COMPACTED, 'min.cleanable.dirty.ratio': '1' }
    cluster = await startCluster({
      brokers: 1,
      topics: [
        { name: 'lagged', configs: { ...base, 'max.compaction.lag.ms': '300' } },
        { name: 'unlagged', configs: base },
      ],
      logCleanerBackoffMs: 50,
    })
    const kafka = kafkaOf(cluster)
    const producer = await open(kafka.producer())
    const send = (key: string, value: string) =>
      Promise.all(['lagged', 'unlagged'].map((topic) => producer.send({ topic, messages: [{ key, value }] })))
    await send('k0', 'v0')
    await send('k1', 'v1')
    await send('tail', 'first')
    // A few ticks: every log is cleaned once (all it could clean was dirty), up to its newest batch.
    await new Promise((r) => setTimeout(r, 250))
    await send('k0', 'v3')
    await send('tail', 'second')
    await new Promise((r) => setTimeout(r, 900))
    const lagged = await readAll(kafka, 'lagged', 4)
    expect(lagged.map((m) => `${m.offset}:${m.key}=${m.value}`)).toEqual(['1:k1=v1', '2:tail=first', '3:k0=v3', '4:tail=second'])
    const unlagged = await readAll(kafka, 'unlagged', 5)
    expect(unlagged.map((m) => `${m.offset}:${m.key}=${m.value}`)).toEqual([
      '0:k0=v0',
      '1:k1=v1',
      '2:tail=first',
      '3:k0=v3',
      '4:tail=second',
    ])
  })

  it('message.timestamp.type=LogAppendTime: a batch the cleaner rewrites keeps its timestamp type and append time', async () => {
    const configs = { ...COMPACTED, 'message.timestamp.type': 'LogAppendTime' }
    cluster = await startCluster({ brokers: 1, topics: [{ name: 'lat', configs }], logCleanerBackoffMs: NO_TIMER })
    const producer = await open(kafkaOf(cluster).producer())
    const [first] = await producer.send({
      topic: 'lat',
      messages: [
        { key: 'k0', value: 'a', timestamp: '1000' },
        { key: 'k1', value: 'b', timestamp: '2000' },
      ],
    })
    await producer.send({ topic: 'lat', messages: [{ key: 'k0', value: 'c' }] })
    await producer.send({ topic: 'lat', messages: [{ key: 'tail', value: 'last' }] })
    expect(cluster.compact('lat')).toMatchObject({ recordsRemoved: 1 })
    const b = cluster.brokers[0]
    const raw = await RawClient.open(`${b.host}:${b.port}`)
    try {
      const res = await raw.request(Fetch, 12, {
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        topics: [{ topic: 'lat', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
      })
      const [rewritten] = decodeRecordSet(res.responses[0].partitions[0].records!).batches
      expect(rewritten.records.map((r) => `${r.offset}:${r.key}=${r.value}`)).toEqual(['1:k1=b'])
      expect(rewritten.timestampType).toBe('LogAppendTime')
      expect(rewritten.maxTimestamp).toBe(Number(first.logAppendTime))
      expect(rewritten.records[0].timestamp).toBe(Number(first.logAppendTime))
    } finally {
      raw.close()
    }
  })

  it('CreateTopics takes compact and compact,delete, refuses other policies and bad cleaner configs with INVALID_CONFIG', async () => {
    cluster = await startCluster({ brokers: 1, logCleanerBackoffMs: NO_TIMER })
    const admin = kafkaOf(cluster).admin()
    clients.push(admin)
    await admin.connect()
    const create = (topic: string, configs: Record<string, string>) =>
      admin.createTopics({
        topics: [{ topic, numPartitions: 1, configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
      })
    await create('ok1', { 'cleanup.policy': 'compact' })
    await create('ok2', { 'cleanup.policy': 'compact,delete', 'min.cleanable.dirty.ratio': '0.1', 'min.compaction.lag.ms': '10' })
    for (const [name, value] of [
      ['cleanup.policy', 'sideways'],
      ['min.cleanable.dirty.ratio', '1.5'],
      ['delete.retention.ms', '-1'],
      ['min.compaction.lag.ms', 'soon'],
    ])
      await expect(create(`bad-${name}`, { [name]: value })).rejects.toMatchObject({ code: ErrorCodes.INVALID_CONFIG })
    const topics = await admin.listTopics()
    expect(topics.filter((t) => t.startsWith('ok') || t.startsWith('bad')).sort()).toEqual(['ok1', 'ok2'])
  })

  it('a record without a key is refused with INVALID_RECORD (87); keyed ones in the same topic are taken', async () => {
    cluster = await startCluster({
      brokers: 1,
      topics: [
        { name: 'keyed', configs: { 'cleanup.policy': 'compact,delete' } },
        { name: 'plain', configs: { 'cleanup.policy': 'delete' } },
      ],
      logCleanerBackoffMs: NO_TIMER,
    })
    const producer = await open(kafkaOf(cluster).producer())
    await expect(producer.send({ topic: 'keyed', messages: [{ key: 'k', value: 'a' }, { value: 'no key' }] })).rejects.toMatchObject({
      code: ErrorCodes.INVALID_RECORD,
    })
    const [ok] = await producer.send({ topic: 'keyed', messages: [{ key: 'k', value: 'b' }] })
    expect([ok.errorCode, ok.baseOffset]).toEqual([0, '0'])
    const [plain] = await producer.send({ topic: 'plain', messages: [{ value: 'no key is fine here' }] })
    expect(plain.errorCode).toBe(0)

    // On the wire (Produce v11): the partition's error, and record_errors naming each keyless record of the batch.
    const b = cluster.brokers[0]
    const raw = await RawClient.open(`${b.host}:${b.port}`)
    try {
      const records = encodeRecordBatch([{ key: 'k', value: '1' }, { value: '2' }, { key: 'k', value: '3' }, { value: '4' }])
      const r = await raw.request(Produce, 11, {
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: 'keyed', partitionData: [{ index: 0, records }] }],
      })
      const res = r.responses[0].partitionResponses[0]
      expect([res.errorCode, res.recordErrors.map((e) => e.batchIndex)]).toEqual([ErrorCodes.INVALID_RECORD, [1, 3]])
      expect(res.errorMessage).toBe('Compacted topic cannot accept message without key in topic partition keyed-0.')
    } finally {
      raw.close()
    }
  })

  it('transactions: aborted records go, markers stay until delete.retention.ms, read_committed reads right after they go', async () => {
    cluster = await startCluster({ brokers: 3, topics: [{ name: 'tc', partitions: 1, configs: COMPACTED }], logCleanerBackoffMs: NO_TIMER })
    const kafka = kafkaOf(cluster)
    const p = await open(kafka.producer({ transactionalId: 'compacting' }))
    const txn = async (commit: boolean, messages: { key: string; value: string }[]) => {
      const t = await p.transaction()
      await t.send({ topic: 'tc', messages })
      await (commit ? t.commit() : t.abort())
    }
    await txn(true, [
      { key: 'a', value: 'a1' },
      { key: 'b', value: 'b1' },
    ]) // offsets 0, 1, COMMIT 2
    await txn(false, [
      { key: 'a', value: 'a2' },
      { key: 'c', value: 'c1' },
    ]) // offsets 3, 4, ABORT 5
    await txn(true, [{ key: 'b', value: 'b2' }]) // 6, COMMIT 7
    await txn(true, [{ key: 'tail', value: 't' }]) // 8, COMMIT 9: the active tail
    const values = (got: Received[]) => got.map((m) => `${m.offset}:${m.key}=${m.value}`)
    expect(values(await readAll(kafka, 'tc', 6))).toEqual(['0:a=a1', '1:b=b1', '3:a=a2', '4:c=c1', '6:b=b2', '8:tail=t'])

    // Cleaned below the newest batch (the last COMMIT): a2 and c1 were aborted, b1 superseded.
    const first = cluster.compact('tc')
    expect(first.cleanedTo).toBe(9)
    expect(first.recordsRemoved).toBe(3)
    const expected = ['0:a=a1', '6:b=b2', '8:tail=t']
    expect(values(await readAll(kafka, 'tc', 3))).toEqual(expected)
    expect(values(await readAll(kafka, 'tc', 3, 'read_committed'))).toEqual(expected)

    // The ABORT marker had nothing left to mark: it goes once its horizon has passed, and only then.
    expect(cluster.compact('tc').recordsRemoved).toBe(0)
    await new Promise((r) => setTimeout(r, RETENTION_MS + 100))
    expect(cluster.compact('tc').recordsRemoved).toBe(1)
    // Its aborted transaction is forgotten too: read_committed would otherwise skip b2, waiting for a marker that is gone.
    expect(values(await readAll(kafka, 'tc', 3, 'read_committed'))).toEqual(expected)
    await txn(true, [{ key: 'a', value: 'a3' }])
    expect(values(await readAll(kafka, 'tc', 4, 'read_committed'))).toEqual([...expected, '10:a=a3'])
  }, 60_000)

  it('a follower that fell behind catches up across the gaps compaction left in its leader, and leads with the same records', async () => {
    cluster = await startCluster({
      brokers: 3,
      topics: [{ name: 'g', partitions: 1, configs: COMPACTED }],
      replicaLagTimeMaxMs: 600,
      logCleanerBackoffMs: NO_TIMER,
    })
    const kafka = kafkaOf(cluster)
    const admin = kafka.admin()
    clients.push(admin)
    await admin.connect()
    const partition = async () => (await admin.fetchTopicMetadata({ topics: ['g'] })).topics[0].partitions[0]
    const { leader } = await partition()
    const follower = [0, 1, 2].find((b) => b !== leader)!
    cluster.pauseFollower(follower)
    const producer = await open(kafka.producer())
    // The first batch is superseded whole: the leader's log starts with a gap once cleaned.
    await producer.send({ topic: 'g', messages: [{ key: 'gone', value: 'old' }] })
    await until(
      async () => !(await partition()).isr.includes(follower),
      10_000,
      () => `broker ${follower} out of the ISR`,
    )
    await producer.send({ topic: 'g', messages: [{ key: 'gone', value: 'new' }] })
    const total = 2 + (await produceRandom(producer, 'g', 99, 12))
    const before = await readAll(kafka, 'g', total)
    cluster.compact('g')
    cluster.pauseFollower(follower, false)
    await until(
      async () => (await partition()).isr.includes(follower),
      10_000,
      () => `broker ${follower} back in the ISR`,
    )
    // The caught-up follower leads, and cleans what it fetched.
    for (const b of [0, 1, 2]) if (b !== follower) await cluster.stopBroker(b)
    await until(
      async () => (await partition()).leader === follower,
      10_000,
      () => `broker ${follower} leading`,
    )
    cluster.compact('g')
    const expected = newestPerKey(before, true)
    expect((await readAll(kafka, 'g', expected.length)).map(shown)).toEqual(expected.map(shown))
  }, 60_000)
})

describe('the cleaner on one log', () => {
  beforeAll(() => loadCodecs())
  const batch = (producerId: number, baseSequence: number, keys: string[], compression: (typeof CODECS)[number] = 'none') =>
    encodeRecordBatch(
      keys.map((k) => ({ key: k, value: `${k}@${baseSequence}`, timestamp: 1000 + baseSequence })),
      { producerId, producerEpoch: 3, baseSequence, compression },
    )
  const append = (log: PartitionLog, b: Buffer) => log.append(b, readBatchHeader(b), 0)

  it.each(CODECS)(
    '%s: a batch emptied by compaction is kept when it is its producer last, with its offsets and sequence; others go, leaving gaps',
    (compression) => {
      const log = new PartitionLog()
      append(log, batch(7, 0, ['a', 'b', 'c'], compression)) // 0-2, producer 7 seq 0-2
      append(log, batch(7, 3, ['a', 'b'], compression)) // 3-4, seq 3-4: producer 7's last
      append(log, batch(8, 0, ['a', 'b', 'c', 'd'], compression)) // 5-8
      append(log, batch(8, 4, ['d'], compression)) // 9: the active tail
      const { stats } = cleanLog(log, { firstDirty: 0, deleteRetentionMs: 100, now: 0 })
      // The active tail (d@9) is not cleaned and not in the offset map: d@8 stays, as in Kafka.
      expect(stats).toMatchObject({ cleanedTo: 9, recordsRead: 9, recordsRemoved: 5 })
      const kept = log.storedBatches().map((b) => {
        const h = readBatchHeader(b.bytes)
        return [b.baseOffset, b.lastOffset, h.count, h.producerId, h.producerEpoch, h.baseSequence, h.compression]
      })
      const codec = CODECS.indexOf(compression)
      expect(kept).toEqual([
        [3, 4, 0, 7n, 3, 3, 0], // emptied, kept for producer 7's sequence (uncompressed, as Kafka's empty batches)
        [5, 8, 4, 8n, 3, 0, codec], // untouched: every record its key's newest
        [9, 9, 1, 8n, 3, 4, codec],
      ])
      expect([log.logStartOffset, log.logEndOffset]).toEqual([0, 10])
      // Producer state rebuilt from the cleaned log (as after a truncation): producer 7 goes on at sequence 5, not anywhere else.
      const producers = new ProducerState()
      for (const b of log.storedBatches()) producers.update(readBatchHeader(b.bytes), b.baseOffset)
      expect(producers.check(readBatchHeader(batch(7, 5, ['e'])))).toBeNull()
      expect(() => producers.check(readBatchHeader(batch(7, 9, ['e'])))).toThrow(/out of order/)
      // A fetch from a gap's offset gets the next batch.
      expect(log.read(1, 1 << 20).chunks[0].readBigInt64BE(0)).toBe(3n)
    },
  )

  it('the dirty ratio: bytes past the cleaner checkpoint over all cleanable bytes', () => {
    const log = new PartitionLog()
    const at = (firstDirty: number) => ({ firstDirty, minCompactionLagMs: 0, now: 0 })
    expect(dirtyRatio(log, at(0))).toBe(0)
    for (const k of ['a', 'b', 'c', 'd']) append(log, batch(-1, -1, [k]))
    expect(dirtyRatio(log, at(0))).toBe(1) // 0-2 below the active tail, all dirty
    const { stats } = cleanLog(log, { ...at(0), deleteRetentionMs: 100 })
    expect(dirtyRatio(log, at(stats.cleanedTo))).toBe(0)
    append(log, batch(-1, -1, ['e'])) // d@3 leaves the active tail: one dirty batch of four
    expect(dirtyRatio(log, at(stats.cleanedTo))).toBeCloseTo(1 / 4, 5)
  })

  it('never cleans the newest batch nor past the last stable offset (an open transaction)', () => {
    const log = new PartitionLog()
    append(log, batch(-1, -1, ['a']))
    const txn = encodeRecordBatch([{ key: 'a', value: 'open' }], { producerId: 5, producerEpoch: 0, baseSequence: 0, transactional: true })
    append(log, txn) // 1: open transaction
    append(log, batch(-1, -1, ['a'])) // 2
    append(log, batch(-1, -1, ['a'])) // 3
    const { stats } = cleanLog(log, { firstDirty: 0, deleteRetentionMs: 100, now: 0 })
    expect([stats.cleanedTo, stats.recordsRemoved]).toEqual([1, 0])
    log.writeMarker(5n, 0, true, 0) // 4: committed
    append(log, batch(-1, -1, ['a'])) // 5: the active tail
    const again = cleanLog(log, { firstDirty: 0, deleteRetentionMs: 100, now: 0 }).stats
    // 0-2 superseded by 3. The emptied transactional batch stays for its producer's sequence, the marker as its producer's last entry (its epoch fences).
    expect([again.cleanedTo, again.recordsRemoved]).toEqual([5, 3])
    expect(log.storedBatches().map((b) => [b.baseOffset, readBatchHeader(b.bytes).count])).toEqual([
      [1, 0],
      [3, 1],
      [4, 1],
      [5, 1],
    ])
  })
})

/** The rig's Java helpers need only a bootstrap list and a way to run the JVM. */
const javaOn = (c: RunningCluster) => ({ bootstrap: c.bootstrapServers, runJava }) as unknown as KafkaCluster

describe.skipIf(!requireKafka())('the Java client reads a compacted topic', () => {
  it('the Java consumer from the start (lz4 batches, 3 brokers): the newest record per key at its offset, tombstones included, as the model says', async () => {
    cluster = await startCluster({ brokers: 3, topics: [{ name: 'jc', partitions: 1, configs: COMPACTED }], logCleanerBackoffMs: NO_TIMER })
    const kafka = kafkaOf(cluster)
    const producer = await open(kafka.producer({ compression: 'lz4' }))
    const total = await produceRandom(producer, 'jc', 31)
    const expected = newestPerKey(await readAll(kafka, 'jc', total), true)
    cluster.compact('jc')
    const byJava = await javaConsume(javaOn(cluster), 'jc', { timeoutMs: 30_000 })
    expect(byJava.map((r) => shown({ ...r, headers: r.headers }))).toEqual(expected.map(shown))
  }, 120_000)

  it('the Java producer (idempotent, zstd, linger): its batches compacted, its keyless record refused with InvalidRecordException', async () => {
    cluster = await startCluster({ brokers: 3, topics: [{ name: 'jp', partitions: 1, configs: COMPACTED }], logCleanerBackoffMs: NO_TIMER })
    const props = { 'compression.type': 'zstd', 'enable.idempotence': true, acks: 'all', 'linger.ms': 20 }
    const rng = new Prng(33)
    const sent = Array.from({ length: 300 }, (_, i) => ({
      key: `key-${rng.int(40)}`,
      value: rng.chance(0.1) ? null : `value ${i} ${'z'.repeat(rng.int(100))}`,
    }))
    const results = await javaProduce(javaOn(cluster), 'jp', sent, props)
    expect(results.filter((r) => 'error' in r)).toEqual([])
    // A run of its own, so the active tail (never cleaned) holds this record alone.
    const [tail] = await javaProduce(javaOn(cluster), 'jp', [{ key: 'active-tail', value: 'last' }], props)
    const [keyless] = await javaProduce(javaOn(cluster), 'jp', [{ value: 'no key' }], props)
    expect('error' in keyless && keyless.error).toMatch(/InvalidRecordException/)
    const written = sent.map((m, i) => ({
      offset: BigInt((results[i] as { offset: number }).offset),
      key: Buffer.from(m.key),
      value: m.value === null ? null : Buffer.from(m.value),
      headers: [] as [string, Buffer | null][],
    }))
    const expected = [
      ...newestPerKey(written, true),
      { offset: BigInt((tail as { offset: number }).offset), key: Buffer.from('active-tail'), value: Buffer.from('last'), headers: [] },
    ]
    const stats = cluster.compact('jp')
    expect(stats.recordsRemoved).toBe(sent.length + 1 - expected.length)
    const byJava = await javaConsume(javaOn(cluster), 'jp', { timeoutMs: 30_000 })
    expect(byJava.map((r) => shown(r))).toEqual(expected.map(shown))
    const byWafka = await readAll(kafkaOf(cluster), 'jp', expected.length)
    expect(byWafka.map((r) => shown(r))).toEqual(expected.map(shown))
  }, 120_000)
})

describe.skipIf(!requirePeers({ builds: [], kcat: true }))('kcat reads a compacted topic', () => {
  it('kcat from the start (zstd batches, 3 brokers): the newest record per key at its offset, tombstones included, as the model says', async () => {
    cluster = await startCluster({ brokers: 3, topics: [{ name: 'kc', partitions: 1, configs: COMPACTED }], logCleanerBackoffMs: NO_TIMER })
    const kafka = kafkaOf(cluster)
    const producer = await open(kafka.producer({ compression: 'zstd' }))
    const total = await produceRandom(producer, 'kc', 32)
    const expected = newestPerKey(await readAll(kafka, 'kc', total), true)
    cluster.compact('kc')
    const byKcat = await kcatConsume(cluster.bootstrapServers, 'kc')
    expect(byKcat.map((m) => shown(m))).toEqual(expected.map(shown))
  }, 60_000)
})

describe.skipIf(!requireKafka())('against Apache Kafka, the reference', () => {
  let real: KafkaCluster | undefined
  afterEach(async () => {
    await real?.stop()
    real = undefined
  })

  it("Kafka's log cleaner and the embedded one leave the same records at the same offsets", async () => {
    real = await startKafka({ config: { 'log.cleaner.backoff.ms': '100' } })
    const realKafka = new Kafka({ clientId: 'compaction-reference', brokers: real.bootstrap.split(',') })
    const admin = realKafka.admin()
    clients.push(admin)
    await admin.connect()
    // Kafka cleans only below its active segment: a roll (segment.ms) before the tail leaves the tail alone in it.
    const configs = {
      'cleanup.policy': 'compact',
      'min.cleanable.dirty.ratio': '0.01',
      'segment.ms': '300',
      'delete.retention.ms': '3600000',
    }
    await admin.createTopics({
      topics: [{ topic: 'ref', numPartitions: 1, configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
    })
    const realProducer = await open(realKafka.producer({ compression: 'gzip' }))
    const total = await produceRandom(realProducer, 'ref', 4242, 30, () => new Promise((r) => setTimeout(r, 400)))

    cluster = await startCluster({
      brokers: 1,
      topics: [{ name: 'ref', configs: { 'cleanup.policy': 'compact', 'delete.retention.ms': '3600000' } }],
      logCleanerBackoffMs: NO_TIMER,
    })
    const kafka = kafkaOf(cluster)
    const producer = await open(kafka.producer({ compression: 'gzip' }))
    expect(await produceRandom(producer, 'ref', 4242, 30)).toBe(total)
    const expected = newestPerKey(await readAll(kafka, 'ref', total), true)
    cluster.compact('ref')
    const ours = await readAll(kafka, 'ref', expected.length)
    expect(ours.map(shown)).toEqual(expected.map(shown))

    // Kafka cleans on its own time: read until it has.
    let theirs: Received[] = []
    await until(
      async () => (theirs = await readAll(realKafka, 'ref', expected.length)).length === expected.length,
      60_000,
      () => `Kafka still shows ${theirs.length} records, the model ${expected.length}`,
    )
    expect(theirs.map(shown)).toEqual(ours.map(shown))
  }, 180_000)
})
