// Transactions on the embedded broker (the first transaction protocol):
// markers, read_committed (the last stable offset and aborted lists),
// offsets committed with a transaction, fencing by epoch, timeouts; driven
// by wafka's transactional producer and read back by wafka and kcat.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka, type Consumer, type Producer } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { requirePeers } from '../peers/available.js'
import { kcatConsume, kcatProduce } from '../peers/kcat.js'
import { received, until, type Received } from './support.js'

let cluster: RunningCluster | undefined
const clients: Array<{ disconnect(): Promise<void> }> = []
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.disconnect()))
  await cluster?.stop()
  cluster = undefined
})

async function start(partitions = 2): Promise<Kafka> {
  cluster = await startCluster({
    brokers: 3,
    topics: [
      { name: 'tx', partitions },
      { name: 'in', partitions: 1 },
    ],
  })
  return new Kafka({ clientId: 'txn-test', brokers: cluster.bootstrapServers.split(',') })
}

async function open<T extends Producer | Consumer>(c: T): Promise<T> {
  clients.push(c)
  await c.connect()
  return c
}

async function readAll(
  kafka: Kafka,
  groupId: string,
  isolationLevel: 'read_committed' | 'read_uncommitted',
  topic = 'tx',
): Promise<Received[]> {
  const got: Received[] = []
  const consumer = await open(kafka.consumer({ groupId, isolationLevel, maxWaitTimeInMs: 100 }))
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  await consumer.run({ eachMessage: async ({ partition, message }) => void got.push(received(partition, message)) })
  return got
}

const values = (got: Received[]) => got.map((m) => m.value?.toString()).sort()
const settle = () => new Promise((r) => setTimeout(r, 500))

describe('transactions', () => {
  it('read_committed sees committed records only; read_uncommitted sees the aborted too', async () => {
    const kafka = await start()
    const p = await open(kafka.producer({ transactionalId: 'tx-1' }))
    const t1 = await p.transaction()
    await t1.send({
      topic: 'tx',
      messages: [
        { value: 'c1', partition: 0 },
        { value: 'c2', partition: 1 },
      ],
    })
    await t1.commit()
    const t2 = await p.transaction()
    await t2.send({
      topic: 'tx',
      messages: [
        { value: 'a1', partition: 0 },
        { value: 'a2', partition: 1 },
      ],
    })
    await t2.abort()
    const t3 = await p.transaction()
    await t3.send({ topic: 'tx', messages: [{ value: 'c3', partition: 0 }] })
    await t3.commit()
    const committed = await readAll(kafka, 'rc', 'read_committed')
    const everything = await readAll(kafka, 'ru', 'read_uncommitted')
    await until(
      () => committed.length >= 3 && everything.length >= 5,
      20_000,
      () => `${committed.length} committed, ${everything.length} in all`,
    )
    await settle()
    expect(values(committed)).toEqual(['c1', 'c2', 'c3'])
    expect(values(everything)).toEqual(['a1', 'a2', 'c1', 'c2', 'c3'])
    // Markers take offsets: partition 0 holds c1, COMMIT, a1, ABORT, c3, COMMIT.
    expect(committed.filter((m) => m.partition === 0).map((m) => [m.offset, m.value?.toString()])).toEqual([
      [0n, 'c1'],
      [4n, 'c3'],
    ])
  })

  it('an open transaction holds the last stable offset back; its commit releases it', async () => {
    const kafka = await start(1)
    const admin = kafka.admin()
    clients.push(admin)
    const plain = await open(kafka.producer())
    await plain.send({ topic: 'tx', messages: [{ value: 'before' }] })
    const p = await open(kafka.producer({ transactionalId: 'tx-lso' }))
    const t = await p.transaction()
    await t.send({ topic: 'tx', messages: [{ value: 'pending' }] })
    await plain.send({ topic: 'tx', messages: [{ value: 'after' }] })
    const committed = await admin.listOffsets('tx', [0], -1n, 1)
    const uncommitted = await admin.listOffsets('tx', [0], -1n, 0)
    expect([committed.get(0), uncommitted.get(0)]).toEqual([1n, 3n])
    const rc = await readAll(kafka, 'lso', 'read_committed')
    await settle()
    expect(values(rc)).toEqual(['before'])
    await t.commit()
    await until(
      () => rc.length >= 3,
      20_000,
      () => `${rc.length} of 3 after the commit`,
    )
    expect(rc.map((m) => m.value?.toString())).toEqual(['before', 'pending', 'after'])
    expect((await admin.listOffsets('tx', [0], -1n, 1)).get(0)).toBe(4n)
  })

  it('offsets sent with a transaction are committed with it, and dropped with an abort', async () => {
    const kafka = await start()
    const admin = kafka.admin()
    clients.push(admin)
    const p = await open(kafka.producer({ transactionalId: 'tx-offsets' }))
    const aborted = await p.transaction()
    await aborted.send({ topic: 'tx', messages: [{ value: 'x', partition: 0 }] })
    await aborted.sendOffsets({ consumerGroupId: 'processor', topics: [{ topic: 'in', partitions: [{ partition: 0, offset: '7' }] }] })
    await aborted.abort()
    expect((await admin.fetchOffsets({ groupId: 'processor', topics: ['in'] }))[0].partitions[0].offset).toBe('-1')
    const done = await p.transaction()
    await done.send({ topic: 'tx', messages: [{ value: 'y', partition: 0 }] })
    await done.sendOffsets({ consumerGroupId: 'processor', topics: [{ topic: 'in', partitions: [{ partition: 0, offset: '9' }] }] })
    await done.commit()
    expect((await admin.fetchOffsets({ groupId: 'processor', topics: ['in'] }))[0].partitions[0].offset).toBe('9')
  })

  it('a second producer with the same transactional id fences the first and aborts its open transaction', async () => {
    const kafka = await start()
    const zombie = await open(kafka.producer({ transactionalId: 'tx-same' }))
    const zt = await zombie.transaction()
    await zt.send({ topic: 'tx', messages: [{ value: 'zombie', partition: 0 }] })
    const fresh = await open(kafka.producer({ transactionalId: 'tx-same' }))
    const ft = await fresh.transaction()
    await ft.send({ topic: 'tx', messages: [{ value: 'fresh', partition: 0 }] })
    await ft.commit()
    const err = await zt.commit().catch((e) => e)
    expect(err).toMatchObject({ type: expect.stringMatching(/PRODUCER_FENCED|INVALID_PRODUCER_EPOCH/) })
    const rc = await readAll(kafka, 'fenced', 'read_committed')
    await until(
      () => rc.length >= 1,
      20_000,
      () => 'the fresh record',
    )
    await settle()
    expect(values(rc)).toEqual(['fresh'])
  })

  it('a transaction open past its timeout is aborted and its producer fenced', async () => {
    const kafka = await start()
    const p = await open(kafka.producer({ transactionalId: 'tx-slow', transactionTimeoutMs: 300 }))
    const t = await p.transaction()
    await t.send({ topic: 'tx', messages: [{ value: 'too slow', partition: 1 }] })
    await new Promise((r) => setTimeout(r, 800))
    const err = await t.commit().catch((e) => e)
    expect(err).toMatchObject({ type: expect.stringMatching(/PRODUCER_FENCED|INVALID_PRODUCER_EPOCH/) })
    const admin = kafka.admin()
    clients.push(admin)
    // Aborted: the LSO is past its marker, and read_committed sees nothing of it.
    expect((await admin.listOffsets('tx', [1], -1n, 1)).get(1)).toBe(2n)
    const plain = await open(kafka.producer())
    await plain.send({ topic: 'tx', messages: [{ value: 'later', partition: 1 }] })
    const rc = await readAll(kafka, 'timeout', 'read_committed')
    await until(
      () => rc.length >= 1,
      20_000,
      () => 'the later record',
    )
    await settle()
    expect(values(rc)).toEqual(['later'])
  })
})

describe.skipIf(!requirePeers({ builds: [], kcat: true }))('transactions with kcat', () => {
  it('kcat produces in a transaction; kcat read_committed and wafka read it back', async () => {
    const kafka = await start()
    await kcatProduce(
      cluster!.bootstrapServers,
      'tx',
      [0, 1, 2, 3].map((i) => ({ key: `k${i}`, value: `kcat ${i}`, partition: i % 2 })),
      { transactionalId: 'kcat-tx' },
    )
    const byKcat = await kcatConsume(cluster!.bootstrapServers, 'tx', { config: { 'isolation.level': 'read_committed' } })
    expect(byKcat.map((m) => m.value?.toString()).sort()).toEqual(['kcat 0', 'kcat 1', 'kcat 2', 'kcat 3'])
    const rc = await readAll(kafka, 'kcat-rc', 'read_committed')
    await until(
      () => rc.length >= 4,
      20_000,
      () => `${rc.length} of 4`,
    )
    expect(values(rc)).toEqual(['kcat 0', 'kcat 1', 'kcat 2', 'kcat 3'])
  })
})
