// A key changed before a grouping goes through a repartition topic, on real
// Kafka 4.4 and on the embedded broker with the same assertions: orders keyed
// by order id, re-keyed by customer (selectKey), summed per customer
// (groupByKey → aggregate) and filtered as a table. Each customer's records
// land in one partition of `<applicationId>-totals-repartition` (created with
// the source's three partitions), the totals are exact, and a table filter
// forwards a deletion for a key it refuses, as Java's KTableFilter does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder } from '../../src/public/streams.js'
import { requireKafka } from '../peers/kafka.js'
import { until } from '../kafka/support.js'
import { client, tableReader, targets, type Target } from './support.js'
import { startCluster } from '../../src/broker/index.js'

const kafkaOk = requireKafka()

interface Order {
  customer: string
  amount: number
}

const ORDERS: Array<[string, Order]> = [
  ['o1', { customer: 'ann', amount: 30 }],
  ['o2', { customer: 'bob', amount: 10 }],
  ['o3', { customer: 'cy', amount: 70 }],
  ['o4', { customer: 'ann', amount: 25 }],
  ['o5', { customer: 'bob', amount: 5 }],
  ['o6', { customer: 'dee', amount: 49 }],
  ['o7', { customer: 'ann', amount: 1 }],
  ['o8', { customer: 'dee', amount: 1 }],
  ['o9', { customer: 'eve', amount: 60 }],
  ['o10', { customer: 'eve', amount: -20 }],
]

function totalsTopology() {
  const builder = new StreamsBuilder()
  const totals = builder
    .stream<string, Order>('orders', { keySerde: Serdes.String(), valueSerde: Serdes.JSON<Order>() })
    .selectKey((_id, order) => order.customer)
    .groupByKey({ keySerde: Serdes.String(), valueSerde: Serdes.JSON<Order>() })
    .aggregate(
      () => 0,
      (_customer, order, total) => total + order.amount,
      { storeName: 'totals', keySerde: Serdes.String(), valueSerde: Serdes.Integer() },
    )
  totals.toStream().to('totals-out', { keySerde: Serdes.String(), valueSerde: Serdes.Integer() })
  totals
    .filter((_customer, total) => total >= 50)
    .mapValues((total) => `big spender: ${total}`)
    .toStream()
    .to(() => 'big-out', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
  return builder.build()
}

for (const [target, start] of targets) {
  describe.skipIf(target === 'real Kafka' && !kafkaOk)(`a repartition before a grouping on ${target}`, () => {
    let cluster: Target
    let kafka: Kafka
    let app: KafkaStreams | undefined
    beforeAll(async () => {
      cluster = await start()
      kafka = client(cluster)
    })
    afterAll(async () => {
      await app?.close()
      await cluster?.stop()
    })

    it('re-keys through <applicationId>-totals-repartition, each key in one partition, the totals exact', async () => {
      const admin = kafka.admin()
      await admin.connect()
      const readers: Array<{ stop(): Promise<void> }> = []
      try {
        await admin.createTopics({
          topics: ['orders', 'totals-out', 'big-out'].map((topic) => ({ topic, numPartitions: topic === 'orders' ? 3 : 1 })),
        })
        const producer = kafka.producer()
        await producer.connect()
        await producer.send({
          topic: 'orders',
          messages: ORDERS.map(([key, order]) => ({ key, value: JSON.stringify(order) })),
        })
        await producer.disconnect()

        // Every update forwarded: the test counts one update of the filtered table per order.
        app = new KafkaStreams(totalsTopology(), {
          applicationId: 'orders-app',
          brokers: cluster.bootstrap,
          commitIntervalMs: 500,
          statestoreCacheMaxBytes: 0,
        })
        await app.start()

        const totals = await tableReader(kafka, 'totals-out')
        const big = await tableReader(kafka, 'big-out')
        const repartition = await tableReader(kafka, 'orders-app-totals-repartition')
        readers.push(totals, big, repartition)
        const expected = new Map<string, number>()
        for (const [, o] of ORDERS) expected.set(o.customer, (expected.get(o.customer) ?? 0) + o.amount)
        const ints = (t: Map<string, Buffer | null>) => new Map([...t].map(([k, v]) => [k, v === null ? null : v.readInt32BE(0)]))
        await until(
          'totals',
          () => ints(totals.table),
          (t) => [...expected].every(([c, n]) => t.get(c) === n),
        )
        expect(ints(totals.table)).toEqual(expected)

        // eve went over 50 and back: her update after the refusal is a deletion; ann and cy stay.
        // One update of the filtered table per order.
        await until(
          'big spenders',
          () => big.records(),
          (n) => n === ORDERS.length,
        )
        expect(new Map([...big.table].map(([k, v]) => [k, v?.toString() ?? null]))).toEqual(
          new Map([
            ['ann', 'big spender: 56'],
            ['bob', null],
            ['cy', 'big spender: 70'],
            ['dee', 'big spender: 50'],
            ['eve', null],
          ]),
        )

        // Every order went through the repartition topic, each customer's to one partition of three.
        await until(
          'the repartition topic',
          () => repartition.records(),
          (n) => n === ORDERS.length,
        )
        const meta = await admin.fetchTopicMetadata({ topics: ['orders-app-totals-repartition'] })
        expect(meta.topics[0].partitions).toHaveLength(3)
        expect([...repartition.partitions].map(([customer, ps]) => [customer, ps.size]).sort()).toEqual(
          [...expected.keys()].map((c) => [c, 1]).sort(),
        )
        expect(new Set([...repartition.partitions.values()].flatMap((ps) => [...ps])).size).toBeGreaterThan(1)
      } finally {
        for (const r of readers) await r.stop()
        await admin.disconnect()
      }
    }, 120_000)
  })
}

describe('KStream.repartition(): its count checked', () => {
  const joined = (numberOfPartitions: number) => {
    const b = new StreamsBuilder()
    const users = b.table<string, string>('users', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    b.stream<string, string>('clicks', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .selectKey((_key, user) => user)
      .repartition({ name: 'by-user', numberOfPartitions })
      .join(users, (click, user) => `${click}+${user}`)
      .to('out')
    return b.build()
  }

  it('a count that is not a positive integer is refused when the topology is built', () => {
    for (const n of [0, -1, 1.5, Number.NaN]) expect(() => joined(n), String(n)).toThrow(/numberOfPartitions must be a positive integer/)
  })

  it("joined with a table of another count: start() refuses, naming both topics and their counts (Java's co-partitioning)", async () => {
    const cluster = await startCluster({ brokers: 1 })
    const app = new KafkaStreams(joined(5), {
      applicationId: 'rep-check',
      brokers: cluster.bootstrapServers,
      defaultKeySerde: Serdes.String(),
      defaultValueSerde: Serdes.String(),
    })
    try {
      const kafka = client({ bootstrap: cluster.bootstrapServers })
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({ topics: ['users', 'clicks', 'out'].map((topic) => ({ topic, numPartitions: 3 })) })
      await admin.disconnect()
      await expect(app.start()).rejects.toThrow('Topics not co-partitioned: [{rep-check-by-user-repartition=5, users=3}]')
    } finally {
      await app.close()
      await cluster.stop()
    }
  }, 60_000)
})
