// split() at run time, on real Kafka 4.4 and on the embedded broker with the
// same assertions: each record goes to the first branch whose predicate takes
// it, else to the default branch; peek and merge see records in order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder } from '../../src/public/streams.js'
import { requireKafka } from '../peers/kafka.js'
import { until } from '../kafka/support.js'
import { client, tableReader, targets, type Target } from './support.js'

const kafkaOk = requireKafka()

for (const [target, start] of targets) {
  describe.skipIf(target === 'real Kafka' && !kafkaOk)(`split() on ${target}`, () => {
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

    it('routes each record to the first branch that takes it, the rest to the default branch', async () => {
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({ topics: ['numbers', 'negative', 'zero', 'rest', 'not-negative'].map((topic) => ({ topic })) })
      await admin.disconnect()
      const producer = kafka.producer()
      await producer.connect()
      const values = [5, -1, 0, 7, -3, 0, 2]
      await producer.send({
        topic: 'numbers',
        messages: values.map((v, i) => ({ key: `k${i}`, value: Serdes.Integer().serialize('numbers', v) })),
      })
      await producer.disconnect()

      const builder = new StreamsBuilder()
      const peeked: number[] = []
      const branches = builder
        .stream<string, number>('numbers')
        .peek((_k, v) => peeked.push(v))
        .split('sign-')
        .branch((_k, v) => v < 0, { name: 'negative', withConsumer: (s) => s.to('negative') })
        .branch((_k, v) => v === 0, { name: 'zero' })
        .defaultBranch({ name: 'rest' })
      branches['sign-zero'].to('zero')
      branches['sign-rest'].to('rest')
      branches['sign-zero'].merge(branches['sign-rest']).to('not-negative', { keySerde: Serdes.String(), valueSerde: Serdes.Integer() })
      app = new KafkaStreams(builder.build(), {
        applicationId: 'split-app',
        brokers: cluster.bootstrap,
        commitIntervalMs: 200,
        defaultKeySerde: Serdes.String(),
        defaultValueSerde: Serdes.Integer(),
      })
      await app.start()
      const readers = await Promise.all(['negative', 'zero', 'rest', 'not-negative'].map((t) => tableReader(kafka, t)))
      try {
        await until(
          'every branch',
          () => readers.map((r) => r.records()),
          (n) => n.join() === '2,2,3,5',
        )
        const read = (i: number) => Object.fromEntries([...readers[i].table].map(([k, v]) => [k, v!.readInt32BE(0)]))
        expect(read(0)).toEqual({ k1: -1, k4: -3 })
        expect(read(1)).toEqual({ k2: 0, k5: 0 })
        expect(read(2)).toEqual({ k0: 5, k3: 7, k6: 2 })
        expect(read(3)).toEqual({ k0: 5, k2: 0, k3: 7, k5: 0, k6: 2 })
        expect(peeked).toEqual(values)
      } finally {
        for (const r of readers) await r.stop()
      }
    }, 120_000)
  })
}
