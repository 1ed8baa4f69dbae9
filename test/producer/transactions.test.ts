import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, KafkaError, WafkaError } from '../../src/index.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { readBatches } from './support.js'

// librdkafka 2.15's mock coordinates transactions and writes commit markers;
// the 2.0.2 build writes none, so the flows are checked against 2.15.
describe('transactions against the modern librdkafka mock', () => {
  let mock: MockCluster
  let kafka: Kafka
  const open: Array<{ disconnect(): Promise<void> }> = []

  beforeAll(async () => {
    requirePeers()
    mock = await startMockCluster({ brokers: 3, build: 'modern' })
    kafka = new Kafka({ clientId: 'wafka-txn-test', brokers: mock.bootstrap.split(',') })
    await mock.createTopic('txn', { partitions: 2, replicationFactor: 3 })
  })
  afterAll(async () => {
    await Promise.allSettled(open.map((p) => p.disconnect()))
    await mock?.stop()
  })

  it('commits: records land in transactional batches followed by a COMMIT marker', async () => {
    const p = kafka.producer({ transactionalId: 'tx-commit' })
    open.push(p)
    await p.connect()
    const txn = await p.transaction()
    await txn.send({
      topic: 'txn',
      messages: [
        { key: 'a', value: '1', partition: 0 },
        { key: 'b', value: '2', partition: 1 },
      ],
    })
    await txn.send({ topic: 'txn', messages: [{ key: 'c', value: '3', partition: 0 }] })
    await txn.commit()
    expect(txn.isActive()).toBe(false)
    const batches = await readBatches(mock.bootstrap, 'txn', 0)
    const data = batches.filter((b) => !b.isControl)
    expect(data.every((b) => b.isTransactional)).toBe(true)
    expect(data.flatMap((b) => b.records.map((r) => r.value!.toString()))).toEqual(['1', '3'])
    expect(batches.at(-1)!.controlType).toBe('COMMIT')
    await expect(txn.send({ topic: 'txn', messages: [{ value: 'late' }] })).rejects.toThrow(/ended/)
  })

  it('aborts, and refuses sends outside a transaction', async () => {
    const p = kafka.producer({ transactionalId: 'tx-abort' })
    open.push(p)
    await p.connect()
    await expect(p.send({ topic: 'txn', messages: [{ value: 'x' }] })).rejects.toThrow(/transaction/)
    const txn = await p.transaction()
    await txn.send({ topic: 'txn', messages: [{ value: 'aborted', partition: 1 }] })
    await txn.abort()
    const batches = await readBatches(mock.bootstrap, 'txn', 1)
    const aborted = batches.filter((b) => !b.isControl && b.records.some((r) => r.value?.toString() === 'aborted'))
    expect(aborted).toHaveLength(1)
    expect(aborted[0].isTransactional).toBe(true)
    // A new transaction can follow.
    const next = await p.transaction()
    await next.send({ topic: 'txn', messages: [{ value: 'after', partition: 1 }] })
    await next.commit()
  })

  it('adds consumed offsets to the transaction', async () => {
    // The mock accepts AddOffsetsToTxn and TxnOffsetCommit but does not store
    // transactional offsets, so only the exchange is checked here (the request
    // bodies are checked against the spec at every version in test/protocol).
    const p = kafka.producer({ transactionalId: 'tx-offsets' })
    open.push(p)
    await p.connect()
    const txn = await p.transaction()
    await txn.send({ topic: 'txn', messages: [{ value: 'out', partition: 0 }] })
    await txn.sendOffsets({ consumerGroupId: 'processor', topics: [{ topic: 'txn', partitions: [{ partition: 1, offset: '5' }] }] })
    await txn.commit()
    expect(txn.isActive()).toBe(false)
  })

  // The mock gives every InitProducerId a fresh producer id instead of bumping
  // the epoch of the transactionalId's, so a second producer does not fence the
  // first there: the broker's fencing answers are injected instead.
  it('reports fencing (PRODUCER_FENCED on Produce) and stops the fenced producer', async () => {
    const p = kafka.producer({ transactionalId: 'tx-fenced', retryBackoffMs: 10 })
    open.push(p)
    await p.connect()
    const txn = await p.transaction()
    await mock.pushRequestErrors(0, [90])
    const err = await txn.send({ topic: 'txn', messages: [{ value: 'zombie', partition: 0 }] }).catch((e) => e)
    expect(err).toBeInstanceOf(KafkaError)
    expect(err).toMatchObject({ type: 'PRODUCER_FENCED', retriable: false })
    // Fatal for the fenced producer, as in Java.
    await expect(txn.commit()).rejects.toMatchObject({ type: 'PRODUCER_FENCED' })
    await expect(p.transaction()).rejects.toMatchObject({ type: 'PRODUCER_FENCED' })
  })

  it('reports fencing at commit (INVALID_PRODUCER_EPOCH on EndTxn)', async () => {
    const p = kafka.producer({ transactionalId: 'tx-fenced-end' })
    open.push(p)
    await p.connect()
    const txn = await p.transaction()
    await txn.send({ topic: 'txn', messages: [{ value: 'v', partition: 1 }] })
    await mock.pushRequestErrors(26, [47])
    const err = await txn.commit().catch((e) => e)
    expect(err).toBeInstanceOf(WafkaError)
    expect(err).toMatchObject({ type: 'INVALID_PRODUCER_EPOCH' })
    await expect(p.transaction()).rejects.toMatchObject({ type: 'INVALID_PRODUCER_EPOCH' })
  })
})
