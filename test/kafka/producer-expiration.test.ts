// What a broker forgets of idle producers, on real Kafka 4.4 and the
// embedded broker with the same assertions, their expiries set to 2 s:
// producer.id.expiration.ms (a partition's state of a producer: gone from
// DescribeProducers once its last batch is that old, kept while its
// transaction there is open; the producer's next batch still lands once)
// and transactional.id.expiration.ms (a transactional id with no
// transaction open: DescribeTransactions answers TRANSACTIONAL_ID_NOT_FOUND,
// and the id starts anew under a new producer id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { DescribeProducers } from '../../src/protocol/messages/DescribeProducers.js'
import { DescribeTransactions } from '../../src/protocol/messages/DescribeTransactions.js'
import { InitProducerId } from '../../src/protocol/messages/InitProducerId.js'
import { RawClient } from '../broker/raw-client.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until, wafka, wafkaRead } from './support.js'

const EXPIRATION_MS = 2000
const CHECK_MS = 300

// One broker each: the partition's leader and every coordinator are the bootstrap broker.
const targets = brokerTargets({
  kafka: {
    config: {
      'producer.id.expiration.ms': String(EXPIRATION_MS),
      'producer.id.expiration.check.interval.ms': String(CHECK_MS),
      'transactional.id.expiration.ms': String(EXPIRATION_MS),
      'transaction.remove.expired.transaction.cleanup.interval.ms': String(CHECK_MS),
      'transaction.state.log.replication.factor': '1',
      'transaction.state.log.min.isr': '1',
    },
  },
  embedded: {
    brokers: 1,
    producerIdExpirationMs: EXPIRATION_MS,
    producerIdExpirationCheckIntervalMs: CHECK_MS,
    transactionalIdExpirationMs: EXPIRATION_MS,
    transactionRemoveExpiredTransactionCleanupIntervalMs: CHECK_MS,
  },
})

for (const target of targets)
  describe.skipIf(!target.available)(`idle producers and transactional ids expire on ${target.name}`, () => {
    let cluster: RunningTarget
    let raw: RawClient
    beforeAll(async () => {
      cluster = await target.start()
      raw = await RawClient.open(cluster.bootstrap.split(',')[0])
    }, 120_000)
    afterAll(async () => {
      raw?.close()
      await cluster?.stop()
    })

    const producersOf = async (topic: string) => {
      const res = await raw.request(DescribeProducers, 0, { topics: [{ name: topic, partitionIndexes: [0] }] })
      const p = res.topics[0].partitions[0]
      expect(p.errorCode).toBe(ErrorCodes.NONE)
      return p.activeProducers
    }
    const describeTxn = async (id: string) => (await raw.request(DescribeTransactions, 0, { transactionalIds: [id] })).transactionStates[0]

    const createTopic = async (topic: string) => {
      const admin = wafka(cluster).admin()
      await admin.connect()
      try {
        await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
      } finally {
        await admin.disconnect()
      }
    }

    it("an idempotent producer's partition state goes after producer.id.expiration.ms; its next batch still lands once", async () => {
      const topic = 'pid-expiry'
      await createTopic(topic)
      const producer = wafka(cluster).producer()
      await producer.connect()
      try {
        for (const value of ['a', 'b', 'c']) await producer.send({ topic, messages: [{ value }] })
        const before = await producersOf(topic)
        expect(before).toHaveLength(1)
        expect(before[0].lastSequence).toBe(2)
        const producerId = before[0].producerId
        await until(
          'the producer expired from the partition',
          () => producersOf(topic),
          (ps) => ps.length === 0,
          20_000,
        )
        // The producer goes on at sequence 3: a broker with no state of it takes that batch.
        await producer.send({ topic, messages: [{ value: 'd' }] })
        const after = await producersOf(topic)
        expect(after.map((p) => [p.producerId, p.lastSequence])).toEqual([[producerId, 3]])
      } finally {
        await producer.disconnect()
      }
      const records = await wafkaRead(wafka(cluster), topic, 4)
      expect(records.map((r) => r.value!.toString())).toEqual(['a', 'b', 'c', 'd'])
    })

    it('a transaction open keeps its producer and its id; once it ends, the id expires and starts anew under a new producer id', async () => {
      const topic = 'txn-id-expiry'
      const transactionalId = 'expiring-txn'
      await createTopic(topic)
      const producer = wafka(cluster).producer({ transactionalId })
      await producer.connect()
      let producerId: bigint
      try {
        const txn = await producer.transaction()
        await txn.send({ topic, messages: [{ value: 'open' }] })
        // Past both expiries (and several sweeps of each) with the transaction open: nothing of it goes.
        await new Promise((r) => setTimeout(r, EXPIRATION_MS + 4 * CHECK_MS))
        const open = await producersOf(topic)
        expect(open).toHaveLength(1)
        expect(open[0].currentTxnStartOffset).toBe(0n)
        producerId = open[0].producerId
        const ongoing = await describeTxn(transactionalId)
        expect([ongoing.errorCode, ongoing.transactionState, ongoing.producerId]).toEqual([ErrorCodes.NONE, 'Ongoing', producerId])
        await txn.commit()
      } finally {
        await producer.disconnect()
      }
      const ended = await until(
        'the transactional id expired',
        () => describeTxn(transactionalId),
        (t) => t.errorCode !== ErrorCodes.NONE,
        20_000,
      )
      expect(ended.errorCode).toBe(ErrorCodes.TRANSACTIONAL_ID_NOT_FOUND)
      await until(
        'the producer expired from the partition',
        () => producersOf(topic),
        (ps) => ps.length === 0,
        20_000,
      )
      const init = await raw.request(InitProducerId, 4, {
        transactionalId,
        transactionTimeoutMs: 60_000,
        producerId: -1n,
        producerEpoch: -1,
      })
      expect(init.errorCode).toBe(ErrorCodes.NONE)
      expect(init.producerEpoch).toBe(0)
      expect(init.producerId).not.toBe(producerId!)
    })
  })
