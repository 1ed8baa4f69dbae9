import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, Kafka, KafkaError, TimeoutError } from '../../src/index.js'
import { kcatConsume } from '../peers/kcat.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { readBatches } from './support.js'

const PRODUCE = 0

describe.each(['legacy', 'modern'] as const)('producer against the %s librdkafka mock', (build) => {
  let mock: MockCluster
  let kafka: Kafka
  const open: Array<{ disconnect(): Promise<void> }> = []
  const producer = (config: Parameters<Kafka['producer']>[0] = {}) => {
    const p = kafka.producer(config)
    open.push(p)
    return p
  }

  beforeAll(async () => {
    requirePeers()
    mock = await startMockCluster({ brokers: 3, build })
    kafka = new Kafka({ clientId: 'wafka-producer-test', brokers: mock.bootstrap.split(',') })
  })
  afterAll(async () => {
    await Promise.allSettled(open.map((p) => p.disconnect()))
    await mock?.stop()
  })

  it('writes keyed records with headers and nulls that kcat reads back in order', async () => {
    await mock.createTopic('basic', { partitions: 6, replicationFactor: 3 })
    const p = producer()
    await p.connect()
    const messages = Array.from({ length: 1000 }, (_, i) => ({
      key: i % 17 === 0 ? null : `user-${i % 50}`,
      value: i % 23 === 0 ? null : `{"n":${i},"s":"${'ü'.repeat(i % 5)}"}`,
      headers: i % 3 === 0 ? { trace: `t${i}`, dup: ['a', 'b'] } : undefined,
    }))
    const results = await Promise.all(
      [0, 250, 500, 750].map((start) => p.send({ topic: 'basic', messages: messages.slice(start, start + 250) })),
    )
    for (const r of results) for (const m of r) expect(Number(m.baseOffset)).toBeGreaterThanOrEqual(0)
    const read = await kcatConsume(mock.bootstrap, 'basic', { count: 1000 })
    expect(read).toHaveLength(1000)
    const byPartition = new Map<number, string[]>()
    for (const m of read) byPartition.set(m.partition, [...(byPartition.get(m.partition) ?? []), m.value?.toString() ?? 'null'])
    const sentValues = messages.map((m) => m.value ?? 'null')
    // Every record once, and within each partition in the order sent.
    expect([...byPartition.values()].flat().sort()).toEqual([...sentValues].sort())
    for (const values of byPartition.values()) {
      const order = values.map((v) => sentValues.indexOf(v)).filter((i) => messages[i].value !== null)
      expect(order).toEqual([...order].sort((a, b) => a - b))
    }
    const withHeaders = read.find((m) => m.value?.toString() === messages[3].value)!
    expect(withHeaders.key?.toString()).toBe('user-3')
    expect(withHeaders.headers.map(([k, v]) => [k, v?.toString()])).toEqual([
      ['trace', 't3'],
      ['dup', 'a'],
      ['dup', 'b'],
    ])
    // The same key always lands on the same partition.
    const partitionOfKey = new Map<string, number>()
    for (const m of read) {
      if (!m.key) continue
      const k = m.key.toString()
      expect(partitionOfKey.get(k) ?? m.partition).toBe(m.partition)
      partitionOfKey.set(k, m.partition)
    }
  })

  it('reports per-partition offsets, and sequences batches under one producer id', async () => {
    await mock.createTopic('offsets', { partitions: 2, replicationFactor: 1 })
    const p = producer({ lingerMs: 0 })
    await p.connect()
    const first = await p.send({
      topic: 'offsets',
      messages: [
        { value: 'a', partition: 0 },
        { value: 'b', partition: 0 },
        { value: 'c', partition: 1 },
      ],
    })
    const second = await p.send({ topic: 'offsets', messages: [{ value: 'd', partition: 0 }] })
    expect(first.sort((a, b) => a.partition - b.partition).map((r) => [r.partition, r.baseOffset])).toEqual([
      [0, '0'],
      [1, '0'],
    ])
    expect(second.map((r) => [r.partition, r.baseOffset])).toEqual([[0, '2']])
    const batches = await readBatches(mock.bootstrap, 'offsets', 0)
    expect(batches.map((b) => b.producerId)).toEqual([batches[0].producerId, batches[0].producerId])
    expect(batches[0].producerId).toBeGreaterThanOrEqual(0n)
    expect(batches.map((b) => b.baseSequence)).toEqual([0, 2])
  })

  it("reports where a send's first record went when its records fill several batches, shared with other sends", async () => {
    await mock.createTopic('spanning', { partitions: 1, replicationFactor: 1 })
    // About three records a batch: the middle send spans batches, sharing its first and last with its neighbours.
    const p = producer({ lingerMs: 50, batchSize: 120 })
    await p.connect()
    const value = 'v'.repeat(10)
    const sends = [1, 10, 2].map((n) => p.send({ topic: 'spanning', messages: Array.from({ length: n }, () => ({ value })) }))
    const results = await Promise.all(sends)
    expect(results.map((r) => r.map((m) => [m.partition, m.baseOffset]))).toEqual([[[0, '0']], [[0, '1']], [[0, '11']]])
    const batches = await readBatches(mock.bootstrap, 'spanning', 0)
    expect(batches.length).toBeGreaterThan(2)
    expect(batches.reduce((n, b) => n + b.records.length, 0)).toBe(13)
  })

  it('compresses with every codec the broker takes', async () => {
    await mock.createTopic('codecs', { partitions: 1, replicationFactor: 1 })
    const p = producer()
    await p.connect()
    const codecs =
      build === 'legacy' ? (['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) : (['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const)
    for (const compression of codecs)
      await p.send({ topic: 'codecs', compression, messages: [{ key: compression, value: `${compression} `.repeat(50) }] })
    const batches = await readBatches(mock.bootstrap, 'codecs', 0)
    expect(batches.map((b) => b.compression)).toEqual([...codecs])
    expect(batches.map((b) => b.records[0].key!.toString())).toEqual([...codecs])
  })

  it('sends with acks=1 and acks=0 when not idempotent', async () => {
    await mock.createTopic('acks', { partitions: 1, replicationFactor: 1 })
    const p = producer({ idempotent: false, acks: 1 })
    await p.connect()
    const one = await p.send({ topic: 'acks', messages: [{ value: 'one' }] })
    expect(one[0].baseOffset).toBe('0')
    const zero = await p.send({ topic: 'acks', acks: 0, messages: [{ value: 'zero' }] })
    expect(zero[0].baseOffset).toBe('-1')
    await p.flush()
    const read = await kcatConsume(mock.bootstrap, 'acks', { count: 2 })
    expect(read.map((m) => m.value!.toString())).toEqual(['one', 'zero'])
    expect(() => kafka.producer({ acks: 1, idempotent: true })).toThrow(ConfigError)
  })

  it('retries retriable errors and keeps the order', async () => {
    await mock.createTopic('retries', { partitions: 1, replicationFactor: 3 })
    const p = producer({ lingerMs: 1, retryBackoffMs: 10 })
    await p.connect()
    await mock.pushRequestErrors(PRODUCE, [6, 19, -195, 6])
    const sends = Array.from({ length: 20 }, (_, i) => p.send({ topic: 'retries', messages: [{ value: `r${i}` }] }))
    await Promise.all(sends)
    const batches = await readBatches(mock.bootstrap, 'retries', 0)
    // The mock appends a batch twice when it drops the connection after writing it (it checks sequences only for
    // transactional producers): judge as a broker would, by (producer id, epoch, base sequence).
    const unique = new Map(batches.map((b) => [`${b.producerId}/${b.producerEpoch}/${b.baseSequence}`, b]))
    const values = [...unique.values()].flatMap((b) => b.records.map((r) => r.value!.toString()))
    expect(values).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`))
    const seqs = [...unique.values()].map((b) => b.baseSequence)
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
  })

  it('splits a batch the broker finds too large, so only a record too large fails', async () => {
    await mock.createTopic('too-large', { partitions: 1, replicationFactor: 1 })
    const p = producer({ lingerMs: 20 })
    await p.connect()
    await mock.pushRequestErrors(PRODUCE, [10]) // MESSAGE_TOO_LARGE for the three-record batch
    const sent = await Promise.all(['a', 'b', 'c'].map((value) => p.send({ topic: 'too-large', messages: [{ value }] })))
    expect(sent.map((r) => r[0].baseOffset)).toEqual(['0', '1', '2'])
    const batches = await readBatches(mock.bootstrap, 'too-large', 0)
    expect(batches.map((b) => [b.records.length, b.baseSequence, b.records[0].value!.toString()])).toEqual([
      [1, 0, 'a'],
      [1, 1, 'b'],
      [1, 2, 'c'],
    ])
  })

  it('fails a send with a non-retriable error, as a KafkaError', async () => {
    await mock.createTopic('fatal', { partitions: 1, replicationFactor: 1 })
    const p = producer({ idempotent: false, acks: 1 })
    await p.connect()
    await mock.pushRequestErrors(PRODUCE, [87]) // INVALID_RECORD
    const err = await p.send({ topic: 'fatal', messages: [{ value: 'x' }] }).catch((e) => e)
    expect(err).toBeInstanceOf(KafkaError)
    expect(err).toMatchObject({ type: 'INVALID_RECORD', retriable: false })
    expect(err.message).toMatch(/fatal-0/)
    // The producer goes on.
    expect((await p.send({ topic: 'fatal', messages: [{ value: 'y' }] }))[0].baseOffset).toBe('0')
  })

  // The legacy mock creates any topic a Metadata v0-v2 request names, whatever the request says.
  if (build === 'modern')
    it('waits up to maxBlockMs for a topic that does not exist, then fails with a TimeoutError naming it', async () => {
      const p = producer({ maxBlockMs: 400, allowAutoTopicCreation: false })
      await p.connect()
      const started = Date.now()
      const err = await p.send({ topic: 'never-created', messages: [{ value: 'x' }] }).catch((e) => e)
      expect(err).toBeInstanceOf(TimeoutError)
      expect(err.message).toMatch(/maxBlockMs.*never-created/)
      expect(err.cause).toMatchObject({ type: 'UNKNOWN_TOPIC_OR_PARTITION' })
      expect(Date.now() - started).toBeGreaterThanOrEqual(200)
    })

  it('a send rejected by maxBlockMs leaves no unhandled rejection when its appended records fail later', async () => {
    await mock.createTopic('abandoned', { partitions: 1, replicationFactor: 1 })
    const p = producer({
      bufferMemory: 1000,
      maxBlockMs: 200,
      lingerMs: 0,
      requestTimeoutMs: 300,
      deliveryTimeoutMs: 800,
      retryBackoffMs: 50,
    })
    await p.send({ topic: 'abandoned', messages: [{ value: 'metadata now cached' }] })
    const leader = (await kafka.admin().fetchTopicMetadata({ topics: ['abandoned'] })).topics[0].partitions[0].leader
    await mock.brokerDown(leader)
    try {
      const err = await p
        .send({ topic: 'abandoned', messages: [0, 1, 2].map((i) => ({ value: `${i}`.padStart(600, '.') })) })
        .catch((e) => e)
      expect(err).toBeInstanceOf(TimeoutError)
      expect(err.message).toMatch(/buffer space/)
      // The first record was appended before the wait; it fails by deliveryTimeoutMs with nobody listening.
      await new Promise((r) => setTimeout(r, 1500))
    } finally {
      await mock.brokerUp(leader)
    }
  })

  it('waits for buffer space, then fails after maxBlockMs, losing nothing that resolved', async () => {
    await mock.createTopic('pressure', { partitions: 1, replicationFactor: 1 })
    const p = producer({ bufferMemory: 4000, maxBlockMs: 300, lingerMs: 0, batchSize: 1000 })
    await p.connect()
    const leader = (await kafka.admin().fetchTopicMetadata({ topics: ['pressure'] })).topics[0].partitions[0].leader
    await mock.setRtt(leader, 1500)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => p.send({ topic: 'pressure', messages: [{ value: `${i}`.padStart(800, '.') }] })),
    )
    await mock.setRtt(leader, 0)
    const failed = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[]
    expect(failed.length).toBeGreaterThan(0)
    for (const f of failed) {
      expect(f.reason).toBeInstanceOf(TimeoutError)
      expect(f.reason.message).toMatch(/maxBlockMs/)
    }
    await p.flush()
    const resolved = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [`${i}`.padStart(800, '.')] : []))
    const read = await kcatConsume(mock.bootstrap, 'pressure', { count: resolved.length })
    expect(read.map((m) => m.value!.toString())).toEqual(expect.arrayContaining(resolved))
  })
})
