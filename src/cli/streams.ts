// `wafka streams wordcount`: Kafka Streams' word count, run by wafka/streams
// over the lines of stdin, on the embedded broker unless -b names a cluster.
import { randomUUID } from 'node:crypto'
import type { Readable } from 'node:stream'
import type { Admin } from '../admin/admin.js'
import { startCluster, type RunningCluster } from '../broker/index.js'
import { Kafka } from '../kafka.js'
import { KafkaStreams } from '../streams/kafka-streams.js'
import { Serdes } from '../streams/serdes.js'
import { StreamsBuilder } from '../streams/streams-builder.js'
import { CONNECTION_OPTIONS, CONNECTION_USAGE, UsageError, cliLogLevel, int, parse, resolveConnection, str, type Values } from './args.js'
import type { Io } from './io.js'
import { inputLines } from './lines.js'

export const USAGE = `usage: wafka streams wordcount [-b BROKERS] [--input TOPIC] [--output TOPIC] [--application-id ID] [--partitions P] [FILE...]

Kafka Streams' word count, run by wafka/streams: the lines of the files (or
stdin) go to the input topic; the application splits them into words,
regroups them by word through a repartition topic and counts them in the
store "counts" (logged to its changelog topic), writing each new count to
the output topic (8-byte longs, as Java's Serdes.Long). Once every line is
processed, the counts are read from the running application's store (an
interactive query) and printed, most frequent first.
Without -b it starts the embedded broker in this process.

  --input TOPIC          default wordcount-input (created if missing)
  --output TOPIC         default wordcount-output (created if missing)
  --application-id ID    default wordcount-<random>, so a run counts only its own lines
  --partitions P         partitions of the topics it creates (default 3)
${CONNECTION_USAGE}`

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  input: { type: 'string' },
  output: { type: 'string' },
  'application-id': { type: 'string' },
  partitions: { type: 'string' },
} as const

/** How long the application may take to process what was written before the command gives up. */
const PROCESS_TIMEOUT_MS = 60_000

export async function streamsCommand(args: string[], io: Io, stdin?: Readable): Promise<number> {
  const [sub, ...rest] = args
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.out(USAGE + '\n')
    return sub === undefined ? 2 : 0
  }
  if (sub !== 'wordcount') throw new UsageError(`unknown streams application ${JSON.stringify(sub)}: wafka streams wordcount`)
  const { values, positionals } = parse(rest, OPTIONS, true)
  if (values.help) {
    io.out(USAGE + '\n')
    return 0
  }
  const input = str(values, 'input') ?? 'wordcount-input'
  const output = str(values, 'output') ?? 'wordcount-output'
  const applicationId = str(values, 'application-id') ?? `wordcount-${randomUUID().slice(0, 8)}`
  const partitions = int(values, 'partitions', 1) ?? 3
  let cluster: RunningCluster | undefined
  let conn: Values = values
  if (str(values, 'brokers') === undefined) {
    cluster = await startCluster({ brokers: 1, logLevel: cliLogLevel() })
    conn = { ...values, brokers: cluster.bootstrapServers }
    io.err(`embedded broker at ${cluster.bootstrapServers}\n`)
  }
  const { kafka: config } = resolveConnection(conn)
  const kafka = new Kafka(config)
  const admin = kafka.admin()
  let app: KafkaStreams | undefined
  try {
    await admin.connect()
    const existing = new Set(await admin.listTopics())
    const missing = [input, output].filter((t) => !existing.has(t))
    if (missing.length)
      await admin.createTopics({ topics: missing.map((topic) => ({ topic, numPartitions: partitions })), waitForLeaders: true })

    const lines = await writeLines(kafka, input, positionals, stdin)
    // String default serdes, as Java's WordCountDemo sets them: groupBy's new key is a word.
    app = new KafkaStreams(wordCount(input, output), {
      ...config,
      applicationId,
      // The embedded broker's changelogs end with this run: a store on disk would outlive them.
      ...(cluster && { defaultDslStore: 'in_memory' as const }),
      commitIntervalMs: 100,
      defaultKeySerde: Serdes.String(),
      defaultValueSerde: Serdes.String(),
    })
    await app.start()
    await processed(admin, applicationId, [input, `${applicationId}-counts-repartition`], app)
    const counts = app
      .store<string, bigint>('counts', 'keyValue')
      .all()
      .sort((a, b) => (a.value === b.value ? (a.key < b.key ? -1 : 1) : a.value > b.value ? -1 : 1))
    io.err(`${lines} lines to ${input}; application ${applicationId}; counts also in ${output}\n`)
    const width = Math.max(4, ...counts.map((c) => c.key.length))
    io.out(`${'word'.padEnd(width)}  count\n`)
    for (const { key, value } of counts) io.out(`${key.padEnd(width)}  ${value}\n`)
    return 0
  } finally {
    await app?.close()
    await admin.disconnect()
    await cluster?.stop()
  }
}

/** Java's WordCountDemo, with the store named so its repartition and changelog topics carry "counts". */
function wordCount(input: string, output: string) {
  const builder = new StreamsBuilder()
  builder
    .stream<string | null, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
    .groupBy((_key, word) => word)
    .count({ storeName: 'counts' })
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() })
  return builder.build()
}

/** Sends every line as a keyless record; returns how many. */
async function writeLines(kafka: Kafka, topic: string, files: string[], stdin?: Readable): Promise<number> {
  const producer = kafka.producer()
  await producer.connect()
  let n = 0
  try {
    let batch: string[] = []
    const flush = async () => {
      if (batch.length) await producer.send({ topic, messages: batch.map((value) => ({ value })) })
      batch = []
    }
    for await (const line of inputLines(files, stdin)) {
      n++
      batch.push(line)
      if (batch.length === 500) await flush()
    }
    await flush()
  } finally {
    await producer.disconnect()
  }
  return n
}

/** Until the application runs and its group has committed the end of each topic (its input and its repartition topic), within PROCESS_TIMEOUT_MS. */
async function processed(admin: Admin, groupId: string, topics: string[], app: KafkaStreams): Promise<void> {
  const deadline = Date.now() + PROCESS_TIMEOUT_MS
  for (;;) {
    // Its store is read once it runs: an empty input is processed before the group has formed.
    let behind = app.state === 'RUNNING' ? 0 : 1
    for (const topic of topics) {
      const ends = await admin.fetchTopicOffsets(topic).catch(() => [])
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] })
      for (const e of ends) {
        const c = committed?.partitions.find((p) => p.partition === e.partition)
        behind += Math.max(0, Number(e.high) - Math.max(0, Number(c?.offset ?? 0)))
      }
    }
    if (behind === 0) return
    if (Date.now() > deadline)
      throw new Error(`the word count did not process its input within ${PROCESS_TIMEOUT_MS} ms (${behind} records behind)`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
