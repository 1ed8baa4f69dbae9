// The Java Kafka Streams rig (test/peers/java-streams.ts) on real Kafka 4.4
// and on the embedded broker, with the same assertions: Java's word count
// (kafka-streams 4.4, classic group protocol) reads a topic wafka wrote and
// its output topic, read back with wafka's consumer and wafka/streams'
// serdes, holds the exact count of every word. On the embedded broker this
// is Kafka Streams served end to end: its internal topics created as it asks
// (the repartition topic and the compacted changelog), its group, its
// offsets, its repartition purges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka } from '../../src/index.js'
import { Serdes } from '../../src/streams/serdes.js'
import { javaStreamsApp } from '../peers/java-streams.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { wafka, wafkaRead } from '../kafka/support.js'

const TOPIC_RESOURCE = 2
const VOCABULARY = ['kafka', 'streams', 'wafka', 'java', 'table', 'window', 'join', 'count', 'Record', 'TOPIC', 'x', 'a1', 'under_score']

/** Lines of words with punctuation, capitals and runs of separators between them. */
function lines(count: number): string[] {
  const out: string[] = []
  let x = 7
  const next = (n: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x % n
  }
  for (let i = 0; i < count; i++) {
    const words = Array.from({ length: 1 + next(9) }, () => VOCABULARY[next(VOCABULARY.length)])
    const seps = [' ', ', ', '  -- ', '!', '... ', '\t']
    out.push(
      (next(4) === 0 ? '(' : '') + words.map((w, j) => (j === 0 ? w : seps[next(seps.length)] + w)).join('') + (next(3) === 0 ? '.' : ''),
    )
  }
  return out
}

/** The word count RigStreams computes, computed here: lower case, split on \W+, empty words dropped. */
function expectedCounts(text: string[]): Record<string, bigint> {
  const counts: Record<string, bigint> = {}
  for (const line of text) {
    for (const word of line.toLowerCase().split(/\W+/)) if (word !== '') counts[word] = (counts[word] ?? 0n) + 1n
  }
  return counts
}

async function readAll(kafka: Kafka, topic: string) {
  const admin = kafka.admin()
  await admin.connect()
  const offsets = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect())
  const total = offsets.reduce((sum, o) => sum + Number(o.high), 0)
  return wafkaRead(kafka, topic, total)
}

for (const target of brokerTargets()) {
  describe.skipIf(!target.available)(`Java Kafka Streams on ${target.name}`, () => {
    let cluster: RunningTarget
    let kafka: Kafka
    beforeAll(async () => {
      cluster = await target.start()
      kafka = wafka(cluster)
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    it('word count (classic group protocol): the output topic holds the exact count of every word', async () => {
      const text = lines(400)
      const appId = 'rig-wordcount'
      const admin = kafka.admin()
      await admin.connect()
      try {
        await admin.createTopics({
          topics: [
            { topic: 'text', numPartitions: 3 },
            { topic: 'word-counts', numPartitions: 3 },
          ],
        })
        const producer = kafka.producer()
        await producer.connect()
        await producer.send({
          topic: 'text',
          messages: text.map((line, i) => ({
            key: Serdes.String().serialize('text', `line-${i}`),
            value: Serdes.String().serialize('text', line),
          })),
        })
        await producer.disconnect()

        const app = javaStreamsApp(cluster, 'wordcount', {
          applicationId: appId,
          inputs: ['text'],
          output: 'word-counts',
          count: text.length,
          props: { 'group.protocol': 'classic', 'commit.interval.ms': 100 },
        })
        await app.waitFor((e) => e.event === 'state' && e.to === 'RUNNING', 90_000)
        const exit = await Promise.race([
          app.exited,
          new Promise<never>((_, reject) =>
            setTimeout(
              () => reject(new Error(`word count did not finish in 120 s (state ${app.state()}):\n${app.stderr.join('\n')}`)),
              120_000,
            ),
          ),
        ]).finally(() => app.kill())
        expect({ exit, errors: app.events.filter((e) => e.event === 'error') }, app.stderr.join('\n')).toEqual({
          exit: { code: 0, signal: null },
          errors: [],
        })
        expect(app.events.find((e) => e.event === 'committed')).toEqual({ event: 'committed', records: text.length })

        // The last count of each word is the exact count; a word's counts only go up.
        const records = await readAll(kafka, 'word-counts')
        const last: Record<string, bigint> = {}
        const notRising: string[] = []
        for (const r of records) {
          const word = Serdes.String().deserialize('word-counts', r.key)!
          const count = Serdes.Long().deserialize('word-counts', r.value)!
          if (last[word] !== undefined && count <= last[word]) notRising.push(`${word}: ${last[word]} then ${count}`)
          last[word] = count
        }
        expect(last).toEqual(expectedCounts(text))
        expect(notRising).toEqual([])

        // Streams' internal topics, as it asked for them: the repartition topic of the
        // groupBy and the store's changelog, compacted.
        const topics = await admin.listTopics()
        expect(topics.filter((t) => t.startsWith(`${appId}-`)).sort()).toEqual([`${appId}-counts-changelog`, `${appId}-counts-repartition`])
        const { resources } = await admin.describeConfigs({
          resources: [`${appId}-counts-changelog`, `${appId}-counts-repartition`].map((name) => ({
            type: TOPIC_RESOURCE,
            name,
            configNames: ['cleanup.policy'],
          })),
        })
        expect(resources.map((r) => [r.resourceName, r.configEntries[0]?.configValue])).toEqual([
          [`${appId}-counts-changelog`, 'compact'],
          [`${appId}-counts-repartition`, 'delete'],
        ])
      } finally {
        await admin.disconnect()
      }
    }, 300_000)
  })
}
