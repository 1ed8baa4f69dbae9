// Word count end to end, on real Kafka 4.4 and on the embedded broker with
// the same assertions: lines spread over three partitions (so the counts need
// the repartition topic groupBy makes), the final count of every word exact,
// the internal topics named and configured as Java's (`<applicationId>-
// counts-store-repartition`, `<applicationId>-counts-store-changelog`,
// compacted, three partitions each, Long values in Java's 8-byte form); a
// clean close and a restart restore the counts from the changelog, with no
// word counted twice (at_least_once commits after the output is acknowledged
// and on close).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigResourceTypes, type Kafka } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder, type StreamsState } from '../../src/public/streams.js'
import { requireKafka } from '../peers/kafka.js'
import { until } from '../kafka/support.js'
import { client, tableReader, targets, type Target } from './support.js'

const kafkaOk = requireKafka()

function wordCount(input: string, output: string) {
  const builder = new StreamsBuilder()
  builder
    .stream<string, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
    .groupBy((_key, word) => word)
    .count({ storeName: 'counts-store' })
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() })
  return builder.build()
}

const ROUND_1 = ['the quick brown fox', 'jumps over the lazy dog', 'The dog barks', 'a fox, a dog and THE end', 'quick quick quick']
const ROUND_2 = ['the fox returns', 'dog days', 'brand new words here', 'the the the']

function counted(lines: string[]): Map<string, bigint> {
  const m = new Map<string, bigint>()
  for (const l of lines) for (const w of l.toLowerCase().split(/\W+/).filter(Boolean)) m.set(w, (m.get(w) ?? 0n) + 1n)
  return m
}

const asCounts = (table: Map<string, Buffer | null>) =>
  new Map([...table].map(([k, v]) => [k, v === null ? null : Serdes.Long().deserialize('', v)]))

for (const [target, start] of targets) {
  describe.skipIf(target === 'real Kafka' && !kafkaOk)(`word count on ${target}`, () => {
    let cluster: Target
    let kafka: Kafka
    beforeAll(async () => {
      cluster = await start()
      kafka = client(cluster)
    })
    afterAll(async () => cluster?.stop())

    async function produce(topic: string, lines: string[], from: number) {
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({ topic, messages: lines.map((value, i) => ({ key: `line-${from + i}`, value })) })
      await producer.disconnect()
    }

    const running: KafkaStreams[] = []
    afterAll(async () => {
      for (const app of running) await app.close()
    })

    async function run(app: KafkaStreams, states: StreamsState[]) {
      running.push(app)
      app.on('stateChange', (next) => states.push(next))
      await app.start()
    }

    it('counts every word exactly, through a repartition topic; a restart restores the counts from the changelog', async () => {
      const applicationId = 'wc-app'
      const [input, output] = ['wc-input', 'wc-output']
      const admin = kafka.admin()
      await admin.connect()
      try {
        await admin.createTopics({
          topics: [
            { topic: input, numPartitions: 3 },
            { topic: output, numPartitions: 2 },
          ],
        })
        await produce(input, ROUND_1, 0)
        // As Java's WordCountDemo: String serdes by default (the words after flatMapValues have no serde of their own).
        const options = {
          applicationId,
          brokers: cluster.bootstrap,
          commitIntervalMs: 500,
          defaultApiTimeoutMs: 30_000,
          defaultKeySerde: Serdes.String(),
          defaultValueSerde: Serdes.String(),
          // Every update forwarded (the test counts the output records per word); record-cache.test.ts has the cache.
          statestoreCacheMaxBytes: 0,
        }

        const states: StreamsState[] = []
        const first = new KafkaStreams(wordCount(input, output), options)
        expect(first.state).toBe('CREATED')
        await run(first, states)
        const reader = await tableReader(kafka, output)
        try {
          const expected1 = counted(ROUND_1)
          await until(
            'round 1 counts',
            () => asCounts(reader.table),
            (t) => t.size === expected1.size && [...expected1].every(([w, n]) => t.get(w) === n),
            60_000,
          )
          expect(first.state).toBe('RUNNING')
          await first.close()
          expect(states).toEqual(['REBALANCING', 'RUNNING', 'PENDING_SHUTDOWN', 'NOT_RUNNING'])

          // The internal topics, as Java names and configures them.
          const meta = await admin.fetchTopicMetadata({
            topics: [`${applicationId}-counts-store-repartition`, `${applicationId}-counts-store-changelog`],
          })
          expect(meta.topics.map((t) => [t.name, t.partitions.length])).toEqual([
            [`${applicationId}-counts-store-repartition`, 3],
            [`${applicationId}-counts-store-changelog`, 3],
          ])
          const configs = await admin.describeConfigs({
            resources: [
              { type: ConfigResourceTypes.TOPIC, name: `${applicationId}-counts-store-changelog`, configNames: ['cleanup.policy'] },
            ],
          })
          expect(configs.resources[0].configEntries.map((e) => [e.configName, e.configValue])).toEqual([['cleanup.policy', 'compact']])
          const changelog = await tableReader(kafka, `${applicationId}-counts-store-changelog`)
          await until(
            'the changelog holds every count',
            () => asCounts(changelog.table),
            (t) => t.size === expected1.size,
          ).finally(() => changelog.stop())
          expect(asCounts(changelog.table)).toEqual(expected1)

          // A new instance of the same application: the counts go on from the changelog, nothing counted twice.
          await produce(input, ROUND_2, ROUND_1.length)
          const second = new KafkaStreams(wordCount(input, output), options)
          await run(second, [])
          const expected2 = counted([...ROUND_1, ...ROUND_2])
          const seen = reader.records()
          await until(
            'round 2 counts',
            () => asCounts(reader.table),
            (t) => t.size === expected2.size && [...expected2].every(([w, n]) => t.get(w) === n),
            60_000,
          )
          // Only round 2's words were written again: round 1 was not processed a second time.
          expect(reader.records() - seen).toBe([...counted(ROUND_2).values()].reduce((a, b) => a + Number(b), 0))
          await second.close()
          expect(second.state).toBe('NOT_RUNNING')
        } finally {
          await reader.stop()
        }
      } finally {
        await admin.disconnect()
      }
    }, 150_000)
  })
}
