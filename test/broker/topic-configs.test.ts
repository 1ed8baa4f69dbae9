// Topic configs Kafka accepts and what they do on the embedded broker:
// compression.type (batches stored in the topic's codec), message.timestamp.type
// (LogAppendTime stamped on append and returned by Produce), file.delete.delay.ms
// and max.compaction.lag.ms; each created or altered, described, and seen in what
// Produce and Fetch answer on the wire.
import { Buffer } from 'node:buffer'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { encodeRecordBatch } from '../../src/codec/batch-encoder.js'
import { decodeRecordSet } from '../../src/codec/batch-decoder.js'
import { batchCompression, batchMaxTimestamp, batchTimestampType } from '../../src/codec/batch-header.js'
import { Compression, type CompressionName } from '../../src/codec/compression.js'
import { Kafka } from '../../src/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { Fetch, Produce } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'

let cluster: RunningCluster | undefined
const open: Array<{ close(): void } | { disconnect(): Promise<void> }> = []
afterEach(async () => {
  for (const c of open.splice(0)) await ('close' in c ? c.close() : c.disconnect())
  await cluster?.stop()
  cluster = undefined
})

async function start() {
  cluster = await startCluster({ brokers: 1 })
  const admin = new Kafka({ clientId: 'topic-configs', brokers: cluster.bootstrapServers.split(',') }).admin()
  await admin.connect()
  open.push(admin)
  const b = cluster.brokers[0]
  const raw = await RawClient.open(`${b.host}:${b.port}`)
  open.push(raw)
  return { admin, raw }
}

type Admin = Awaited<ReturnType<typeof start>>['admin']

const create = (admin: Admin, topic: string, configs: Record<string, string>) =>
  admin.createTopics({
    topics: [{ topic, numPartitions: 1, configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
  })

async function described(admin: Admin, topic: string, names: string[]): Promise<Record<string, string>> {
  const res = await admin.describeConfigs({ resources: [{ type: 2, name: topic, configNames: names }] })
  return Object.fromEntries(
    res.resources[0].configEntries.map((c: { configName: string; configValue: string }) => [c.configName, c.configValue]),
  )
}

const RECORDS = [
  { key: 'k0', value: 'first', headers: [['h', 'x']] as [string, string][], timestamp: 1_000 },
  { key: null, value: 'second', headers: [], timestamp: 2_000 },
  {
    key: 'k2',
    value: null,
    headers: [
      ['a', 'b'],
      ['a', 'c'],
    ] as [string, string][],
    timestamp: 1_500,
  },
]

async function produce(raw: RawClient, topic: string, compression: CompressionName) {
  const res = await raw.request(Produce, 9, {
    acks: -1,
    timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: 0, records: encodeRecordBatch(RECORDS, { compression }) }] }],
  })
  return res.responses[0].partitionResponses[0]
}

/** The partition's stored batches as Fetch sends them, each whole. */
async function fetched(raw: RawClient, topic: string): Promise<Buffer> {
  const res = await raw.request(Fetch, 12, {
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
  })
  const p = res.responses[0].partitions[0]
  expect(p.errorCode).toBe(0)
  return p.records!
}

/** What a reader sees of each record: the same whatever the codec the batch was stored in. */
const seen = (bytes: Buffer) =>
  decodeRecordSet(bytes).batches.flatMap((b) =>
    b.records.map((r) => ({
      offset: Number(r.offset),
      key: r.key?.toString() ?? null,
      value: r.value?.toString() ?? null,
      headers: r.headerList.map(([k, v]) => [k, v?.toString()]),
      timestamp: r.timestamp,
    })),
  )

const asSent = (from: number, timestamp?: number) =>
  RECORDS.map((r, i) => ({
    offset: from + i,
    key: r.key,
    value: r.value,
    headers: r.headers,
    timestamp: timestamp ?? r.timestamp,
  }))

describe('compression.type', () => {
  const TARGETS = ['gzip', 'uncompressed', 'snappy', 'lz4', 'zstd'] as const

  it.each(TARGETS)('%s: accepted, described, and batches from an uncompressed and an lz4 producer are stored in it', async (target) => {
    const { admin, raw } = await start()
    await create(admin, 'c', { 'compression.type': target })
    expect(await described(admin, 'c', ['compression.type'])).toEqual({ 'compression.type': target })
    for (const source of ['none', 'lz4'] as const) {
      const r = await produce(raw, 'c', source)
      expect(r.errorCode).toBe(0)
      expect(r.logAppendTimeMs).toBe(-1n)
    }
    const bytes = await fetched(raw, 'c')
    const codec = target === 'uncompressed' ? Compression.none : Compression[target]
    const batches = decodeRecordSet(bytes).batches // verifies each batch's CRC
    expect(batches.map((b) => [Number(b.baseOffset), b.lastOffsetDelta, b.attributes & 7])).toEqual([
      [0, 2, codec],
      [3, 2, codec],
    ])
    expect(seen(bytes)).toEqual([...asSent(0), ...asSent(3)])
  })

  it('producer keeps each batch as sent; a topic altered to gzip stores later batches in gzip; unknown codecs are refused', async () => {
    const { admin, raw } = await start()
    await create(admin, 'p', {})
    expect(await described(admin, 'p', ['compression.type'])).toEqual({ 'compression.type': 'producer' })
    await produce(raw, 'p', 'lz4')
    await admin.alterConfigs({ resources: [{ type: 2, name: 'p', configEntries: [{ name: 'compression.type', value: 'gzip' }] }] })
    expect(await described(admin, 'p', ['compression.type'])).toEqual({ 'compression.type': 'gzip' })
    await produce(raw, 'p', 'lz4')
    const bytes = await fetched(raw, 'p')
    expect(decodeRecordSet(bytes).batches.map((b) => b.compression)).toEqual(['lz4', 'gzip'])
    expect(seen(bytes)).toEqual([...asSent(0), ...asSent(3)])
    await expect(create(admin, 'bad', { 'compression.type': 'brotli' })).rejects.toThrow(/String must be one of: uncompressed, zstd/)
  })

  it('an idempotent producer re-encoded into the topic codec keeps its producer id, epoch and sequences (retries deduplicated)', async () => {
    const { admin } = await start()
    await create(admin, 'i', { 'compression.type': 'zstd' })
    const kafka = new Kafka({ clientId: 'idem', brokers: cluster!.bootstrapServers.split(',') })
    const producer = kafka.producer({ idempotent: true, compression: 'snappy' })
    await producer.connect()
    open.push(producer)
    for (let i = 0; i < 3; i++) await producer.send({ topic: 'i', messages: [{ key: `k${i}`, value: `v${i}` }] })
    const b = cluster!.brokers[0]
    const raw = await RawClient.open(`${b.host}:${b.port}`)
    open.push(raw)
    const batches = decodeRecordSet(await fetched(raw, 'i')).batches
    expect(batches.map((x) => [x.compression, x.baseSequence, Number(x.baseOffset)])).toEqual([
      ['zstd', 0, 0],
      ['zstd', 1, 1],
      ['zstd', 2, 2],
    ])
    expect(new Set(batches.map((x) => x.producerId)).size).toBe(1)
    expect(batches[0].producerId).toBeGreaterThanOrEqual(0n)
  })
})

describe('compression levels (KIP-390)', () => {
  it('compression.gzip.level and compression.zstd.level set the level batches are re-encoded at; lz4 level accepted; ranges as Kafka', async () => {
    const { admin, raw } = await start()
    const words = Array.from({ length: 3000 }, (_, i) => ['kafka', 'log', 'batch', 'offset', 'broker', 'topic'][(i * 7 + (i >> 3)) % 6])
    const big = encodeRecordBatch([{ key: 'k', value: words.join(' ') }])
    const sizes: Record<string, number> = {}
    for (const [topic, configs] of [
      ['gz1', { 'compression.type': 'gzip', 'compression.gzip.level': '1' }],
      ['gz9', { 'compression.type': 'gzip', 'compression.gzip.level': '9' }],
      ['zs1', { 'compression.type': 'zstd', 'compression.zstd.level': '1' }],
      ['zs19', { 'compression.type': 'zstd', 'compression.zstd.level': '19' }],
    ] as const) {
      await create(admin, topic, configs)
      const r = await raw.request(Produce, 9, {
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: topic, partitionData: [{ index: 0, records: big }] }],
      })
      expect(r.responses[0].partitionResponses[0].errorCode).toBe(0)
      const bytes = await fetched(raw, topic)
      expect(decodeRecordSet(bytes).batches[0].records[0].value!.toString()).toBe(words.join(' '))
      sizes[topic] = bytes.length
    }
    expect(sizes.gz9).toBeLessThan(sizes.gz1)
    expect(sizes.zs19).toBeLessThan(sizes.zs1)
    await create(admin, 'lz', { 'compression.lz4.level': '17' })
    expect(await described(admin, 'lz', ['compression.gzip.level', 'compression.lz4.level', 'compression.zstd.level'])).toEqual({
      'compression.gzip.level': '-1',
      'compression.lz4.level': '17',
      'compression.zstd.level': '3',
    })
    await expect(create(admin, 'bad1', { 'compression.gzip.level': '0' })).rejects.toThrow(/between 1 and 9 or equal to -1/)
    await expect(create(admin, 'bad2', { 'compression.lz4.level': '18' })).rejects.toThrow(/no more than 17/)
    await expect(create(admin, 'bad3', { 'compression.zstd.level': '-131073' })).rejects.toThrow(/at least -131072/)
  })
})

describe('message.timestamp.type', () => {
  it('LogAppendTime: accepted and described; the broker stamps each batch (attribute bit, max timestamp) and Produce returns the time', async () => {
    const { admin, raw } = await start()
    await create(admin, 'lat', { 'message.timestamp.type': 'LogAppendTime' })
    await create(admin, 'lat-gzip', { 'message.timestamp.type': 'LogAppendTime', 'compression.type': 'gzip' })
    expect(await described(admin, 'lat', ['message.timestamp.type'])).toEqual({ 'message.timestamp.type': 'LogAppendTime' })
    for (const [topic, source] of [
      ['lat', 'none'],
      ['lat', 'lz4'],
      ['lat-gzip', 'none'],
    ] as const) {
      const before = Date.now()
      const r = await produce(raw, topic, source)
      const after = Date.now()
      expect(r.errorCode).toBe(0)
      const stamped = Number(r.logAppendTimeMs)
      expect(stamped).toBeGreaterThanOrEqual(before)
      expect(stamped).toBeLessThanOrEqual(after)
      const bytes = await fetched(raw, topic)
      const at = bytes.length - lastBatchLength(bytes)
      expect(batchTimestampType(bytes, at)).toBe('LogAppendTime')
      expect(batchMaxTimestamp(bytes, at)).toBe(stamped)
      expect(batchCompression(bytes, at)).toBe(topic === 'lat-gzip' ? Compression.gzip : Compression[source])
      // Every record reads the append time.
      const last = seen(bytes).slice(-RECORDS.length)
      expect(last).toEqual(asSent(Number(r.baseOffset), stamped))
    }
  })

  it('CreateTime by default; altered to LogAppendTime, later batches are stamped and earlier ones keep their create times', async () => {
    const { admin, raw } = await start()
    await create(admin, 'ct', {})
    expect(await described(admin, 'ct', ['message.timestamp.type'])).toEqual({ 'message.timestamp.type': 'CreateTime' })
    expect((await produce(raw, 'ct', 'none')).logAppendTimeMs).toBe(-1n)
    await admin.alterConfigs({
      resources: [{ type: 2, name: 'ct', configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] }],
    })
    const stamped = Number((await produce(raw, 'ct', 'none')).logAppendTimeMs)
    expect(stamped).toBeGreaterThan(0)
    expect(seen(await fetched(raw, 'ct'))).toEqual([...asSent(0), ...asSent(3, stamped)])
    await expect(create(admin, 'bad', { 'message.timestamp.type': 'BrokerTime' })).rejects.toThrow(
      /String must be one of: CreateTime, LogAppendTime/,
    )
  })
})

describe('file.delete.delay.ms and max.compaction.lag.ms', () => {
  it('accepted on create and alter, described with their defaults, refused below their minimums', async () => {
    const { admin } = await start()
    await create(admin, 'd', { 'file.delete.delay.ms': '0', 'max.compaction.lag.ms': '5000', 'cleanup.policy': 'compact' })
    expect(await described(admin, 'd', ['file.delete.delay.ms', 'max.compaction.lag.ms'])).toEqual({
      'file.delete.delay.ms': '0',
      'max.compaction.lag.ms': '5000',
    })
    await create(admin, 'defaults', {})
    expect(await described(admin, 'defaults', ['file.delete.delay.ms', 'max.compaction.lag.ms'])).toEqual({
      'file.delete.delay.ms': '60000',
      'max.compaction.lag.ms': '9223372036854775807',
    })
    await admin.alterConfigs({
      resources: [
        {
          type: 2,
          name: 'defaults',
          configEntries: [
            { name: 'file.delete.delay.ms', value: '100' },
            { name: 'max.compaction.lag.ms', value: '1' },
          ],
        },
      ],
    })
    expect(await described(admin, 'defaults', ['file.delete.delay.ms', 'max.compaction.lag.ms'])).toEqual({
      'file.delete.delay.ms': '100',
      'max.compaction.lag.ms': '1',
    })
    await expect(create(admin, 'bad1', { 'file.delete.delay.ms': '-1' })).rejects.toThrow(/at least 0/)
    await expect(create(admin, 'bad2', { 'max.compaction.lag.ms': '0' })).rejects.toThrow(/at least 1/)
  })
})

/** The size of the last batch in a record set (walking from the first). */
function lastBatchLength(bytes: Buffer): number {
  let at = 0
  let size = 0
  while (at < bytes.length) {
    size = bytes.readInt32BE(at + 8) + 12
    at += size
  }
  return size
}

describe('min.compaction.lag.ms and max.compaction.lag.ms together', () => {
  it('min above max is INVALID_CONFIG on create and on alter, where the values they would have are compared', async () => {
    const { admin } = await start()
    const conflict = /conflict topic config setting min.compaction.lag.ms \(10\) > max.compaction.lag.ms \(5\)/
    await expect(create(admin, 'x', { 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' })).rejects.toThrow(conflict)
    await create(admin, 'm', { 'max.compaction.lag.ms': '5' })
    const set = (entries: { name: string; value?: string; operation?: 'SET' | 'DELETE' }[]) =>
      admin.alterConfigs({ resources: [{ type: 2, name: 'm', configEntries: entries }] })
    await expect(set([{ name: 'min.compaction.lag.ms', value: '10' }])).rejects.toThrow(conflict)
    await set([
      { name: 'min.compaction.lag.ms', value: '10' },
      { name: 'max.compaction.lag.ms', value: '20' },
    ])
    await expect(set([{ name: 'max.compaction.lag.ms', value: '5' }])).rejects.toThrow(conflict)
    // Back to the default (Long.MAX_VALUE): no conflict.
    await set([{ name: 'max.compaction.lag.ms', operation: 'DELETE' }])
    expect(await described(admin, 'm', ['min.compaction.lag.ms', 'max.compaction.lag.ms'])).toEqual({
      'min.compaction.lag.ms': '10',
      'max.compaction.lag.ms': '9223372036854775807',
    })
  })
})

describe('IncrementalAlterConfigs APPEND and SUBTRACT', () => {
  const alter = (admin: Admin, topic: string, entries: { name: string; value?: string; operation: 'APPEND' | 'SUBTRACT' | 'SET' }[]) =>
    admin.alterConfigs({ resources: [{ type: 2, name: topic, configEntries: entries }] })

  it('cleanup.policy APPEND compact makes "delete,compact" (keyless records then refused), SUBTRACT takes items out', async () => {
    const { admin, raw } = await start()
    await create(admin, 'l', {})
    expect((await produce(raw, 'l', 'none')).errorCode).toBe(0)
    // librdkafka's 0011: APPEND to the default (delete).
    await alter(admin, 'l', [{ name: 'cleanup.policy', value: 'compact', operation: 'APPEND' }])
    expect(await described(admin, 'l', ['cleanup.policy'])).toEqual({ 'cleanup.policy': 'delete,compact' })
    expect((await produce(raw, 'l', 'none')).errorCode).toBe(ErrorCodes.INVALID_RECORD)
    // An item already there is not added twice.
    await alter(admin, 'l', [{ name: 'cleanup.policy', value: 'compact,delete', operation: 'APPEND' }])
    expect(await described(admin, 'l', ['cleanup.policy'])).toEqual({ 'cleanup.policy': 'delete,compact' })
    await alter(admin, 'l', [{ name: 'cleanup.policy', value: 'delete', operation: 'SUBTRACT' }])
    expect(await described(admin, 'l', ['cleanup.policy'])).toEqual({ 'cleanup.policy': 'compact' })
    await alter(admin, 'l', [
      { name: 'cleanup.policy', value: 'delete', operation: 'APPEND' },
      { name: 'retention.ms', value: '1000', operation: 'SET' },
    ])
    expect(await described(admin, 'l', ['cleanup.policy', 'retention.ms'])).toEqual({
      'cleanup.policy': 'compact,delete',
      'retention.ms': '1000',
    })
    await alter(admin, 'l', [{ name: 'cleanup.policy', value: 'compact', operation: 'SUBTRACT' }])
    expect(await described(admin, 'l', ['cleanup.policy'])).toEqual({ 'cleanup.policy': 'delete' })
    // Everything subtracted: the empty policy, which Kafka 4.4 takes (neither retention nor compaction).
    await alter(admin, 'l', [{ name: 'cleanup.policy', value: 'delete', operation: 'SUBTRACT' }])
    expect(await described(admin, 'l', ['cleanup.policy'])).toEqual({ 'cleanup.policy': '' })
    await alter(admin, 'l', [{ name: 'cleanup.policy', value: 'delete', operation: 'APPEND' }])
    expect(await described(admin, 'l', ['cleanup.policy'])).toEqual({ 'cleanup.policy': 'delete' })
    expect((await produce(raw, 'l', 'none')).errorCode).toBe(0)
  })

  it('APPEND or SUBTRACT on a config that is not a LIST is INVALID_CONFIG, and nothing of the resource changes', async () => {
    const { admin } = await start()
    await create(admin, 'n', {})
    for (const operation of ['APPEND', 'SUBTRACT'] as const) {
      await expect(
        alter(admin, 'n', [
          { name: 'retention.ms', value: '5', operation: 'SET' },
          { name: 'compression.type', value: 'gzip', operation },
        ]),
      ).rejects.toThrow(new RegExp(`Can't ${operation} to key compression.type because its type is not LIST`))
    }
    await expect(alter(admin, 'n', [{ name: 'cleanup.policy', value: 'shred', operation: 'APPEND' }])).rejects.toThrow(
      /INVALID_CONFIG|String must be one of/,
    )
    expect(await described(admin, 'n', ['retention.ms', 'cleanup.policy', 'compression.type'])).toEqual({
      'retention.ms': '604800000',
      'cleanup.policy': 'delete',
      'compression.type': 'producer',
    })
  })
})
