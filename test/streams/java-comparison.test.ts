// Java Kafka Streams (the rig's RigStreams, kafka-streams 4.4) and
// wafka/streams run the same topology on the same input, on real Kafka 4.4
// and on the embedded broker with the same assertions: each output topic's
// final table, compared byte for byte (key bytes to value bytes), is the same,
// and is the table the input gives. Java's own deserializers (RigSerdes:
// StringDeserializer, LongDeserializer) read every record wafka/streams wrote
// back to the words and counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder } from '../../src/public/streams.js'
import { javaSerdes, type JavaStreamsAppName, type JavaStreamsOptions, javaStreamsApp } from '../peers/java-streams.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until, wafka, wafkaRead } from '../kafka/support.js'

const str = Serdes.String()
const VOCABULARY = ['kafka', 'Streams', 'wafka', 'JAVA', 'table', 'window', 'join', 'count', 'x', 'a1', 'under_score']

/** Lines of words with punctuation, capitals and runs of separators between them. */
function lines(count: number): string[] {
  let x = 11
  const next = (n: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x % n
  }
  const seps = [' ', ', ', '  -- ', '!', '... ', '\t']
  return Array.from({ length: count }, () => {
    const words = Array.from({ length: 1 + next(8) }, () => VOCABULARY[next(VOCABULARY.length)])
    return words.map((w, j) => (j === 0 ? w : seps[next(seps.length)] + w)).join('') + (next(3) === 0 ? '.' : '')
  })
}

/** Lower case, split on \W+ (ASCII, as Java's), empty words dropped: RigStreams' wordcount. */
const words = (line: string) => line.toLowerCase().split(/\W+/).filter(Boolean)

function expectedCounts(text: string[]): Record<string, bigint> {
  const counts: Record<string, bigint> = {}
  for (const line of text) for (const w of words(line)) counts[w] = (counts[w] ?? 0n) + 1n
  return counts
}

async function endOffsetsSum(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((sum, o) => sum + Number(o.high), 0)
  } finally {
    await admin.disconnect()
  }
}

/** Every record of `topic` as key bytes (hex) to value bytes (hex), the latest per key; tombstones delete. */
async function rawTable(kafka: Kafka, topic: string): Promise<Record<string, string>> {
  const table: Record<string, string> = {}
  for (const r of await wafkaRead(kafka, topic, await endOffsetsSum(kafka, topic))) {
    const key = r.key!.toString('hex')
    if (r.value === null) delete table[key]
    else table[key] = r.value.toString('hex')
  }
  return table
}

/** Runs a Java Streams application until it has committed `count` input records and closed. */
async function runJavaToEnd(cluster: RunningTarget, app: JavaStreamsAppName, options: JavaStreamsOptions): Promise<void> {
  const run = javaStreamsApp(cluster, app, { ...options, props: { 'group.protocol': 'classic', 'commit.interval.ms': 100 } })
  let timer: ReturnType<typeof setTimeout> | undefined
  const exit = await Promise.race([
    run.exited,
    new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(
          () => reject(new Error(`${app} did not finish in 150 s (state ${run.state()}):\n${run.stderr.join('\n')}`)),
          150_000,
        )),
    ),
  ]).finally(() => {
    clearTimeout(timer)
    return run.kill()
  })
  expect({ exit, errors: run.events.filter((e) => e.event === 'error') }, run.stderr.join('\n')).toEqual({
    exit: { code: 0, signal: null },
    errors: [],
  })
  expect(run.events.find((e) => e.event === 'committed')).toEqual({ event: 'committed', records: options.count })
}

/** Runs a wafka/streams application until `done` holds of its output's raw table, then closes it. */
async function runWafkaUntil(
  cluster: RunningTarget,
  kafka: Kafka,
  build: (b: StreamsBuilder) => void,
  applicationId: string,
  output: string,
  done: (table: Record<string, string>) => boolean,
): Promise<void> {
  const builder = new StreamsBuilder()
  build(builder)
  const app = new KafkaStreams(builder.build(), {
    applicationId,
    brokers: cluster.bootstrap,
    commitIntervalMs: 100,
    defaultApiTimeoutMs: 30_000,
    defaultKeySerde: Serdes.String(),
    defaultValueSerde: Serdes.String(),
  })
  await app.start()
  try {
    await until(`${applicationId}'s output`, () => rawTable(kafka, output), done, 90_000)
  } finally {
    await app.close()
  }
  expect(app.state).toBe('NOT_RUNNING')
}

async function createTopics(kafka: Kafka, names: string[]): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    await admin.createTopics({ topics: names.map((topic) => ({ topic, numPartitions: 3 })) })
  } finally {
    await admin.disconnect()
  }
}

for (const target of brokerTargets()) {
  describe.skipIf(!target.available)(`Java Kafka Streams and wafka/streams on ${target.name}`, () => {
    let cluster: RunningTarget
    let kafka: Kafka
    beforeAll(async () => {
      cluster = await target.start()
      kafka = wafka(cluster)
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    it("word count: the same final table, byte for byte; Java's deserializers read wafka's output", async () => {
      const text = lines(300)
      await createTopics(kafka, ['cmp-text', 'cmp-java-counts', 'cmp-wafka-counts'])
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({
        topic: 'cmp-text',
        messages: text.map((value, i) => ({ key: str.serialize('cmp-text', `line-${i}`), value: str.serialize('cmp-text', value) })),
      })
      await producer.disconnect()
      const expected = expectedCounts(text)

      await runJavaToEnd(cluster, 'wordcount', {
        applicationId: 'cmp-java-wc',
        inputs: ['cmp-text'],
        output: 'cmp-java-counts',
        count: text.length,
      })
      const javaTable = await rawTable(kafka, 'cmp-java-counts')

      // The same topology as RigStreams' wordcount, store "counts".
      await runWafkaUntil(
        cluster,
        kafka,
        (b) =>
          b
            .stream<string, string>('cmp-text', { keySerde: str, valueSerde: str })
            .flatMapValues(words)
            .groupBy((_key, word) => word)
            .count({ storeName: 'counts' })
            .toStream()
            .to('cmp-wafka-counts', { keySerde: str, valueSerde: Serdes.Long() }),
        'cmp-wafka-wc',
        'cmp-wafka-counts',
        // Until each word's count is the input's (computed here, not from Java's output), so a difference shows as one.
        (t) => sameCounts(decode(t), expected),
      )
      const wafkaTable = await rawTable(kafka, 'cmp-wafka-counts')
      expect(wafkaTable).toEqual(javaTable)
      expect(decode(javaTable)).toEqual(expected)

      // Java's StringDeserializer and LongDeserializer on every record wafka/streams wrote.
      const written = await wafkaRead(kafka, 'cmp-wafka-counts', await endOffsetsSum(kafka, 'cmp-wafka-counts'))
      const answers = await javaSerdes(
        written.flatMap((r) => [
          { op: 'deserialize' as const, serde: 'String' as const, bytes: r.key },
          { op: 'deserialize' as const, serde: 'Long' as const, bytes: r.value },
        ]),
      )
      const javaRead: Record<string, unknown> = {}
      for (let i = 0; i < answers.length; i += 2) {
        const [k, v] = [answers[i], answers[i + 1]]
        if (!('value' in k) || !('value' in v)) throw new Error(`Java could not read record ${i / 2}: ${JSON.stringify([k, v])}`)
        javaRead[k.value as string] = v.value
      }
      expect(javaRead).toEqual(expected)
    }, 300_000)
  })
}

const decode = (t: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(t).map(([k, v]) => [str.deserialize('', Buffer.from(k, 'hex')), Serdes.Long().deserialize('', Buffer.from(v, 'hex'))]),
  )

function sameCounts(a: Record<string, bigint | null>, b: Record<string, bigint>): boolean {
  return Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v)
}
