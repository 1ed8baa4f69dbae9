import { Kafka } from '../kafka.js'
import type { Message, RecordMetadata } from '../producer/producer.js'
import { CONNECTION_OPTIONS, CONNECTION_USAGE, UsageError, acksFlag, compressionFlag, int, parse, resolveConnection, str } from './args.js'
import { inputLines } from './lines.js'
import { topicPartitions } from './topic-check.js'
import type { Io } from './io.js'

export const USAGE = `usage: wafka produce -b BROKERS -t TOPIC [options] [FILE...]

Sends one message per line of the files (or stdin, or '-').

  -t, --topic TOPIC          the topic (it must exist)
  -k, --key KEY              the key of every message
  --key-delimiter D          each line is KEY<D>VALUE (a line without D: no key)
  -H, --header k=v           a header on every message; repeatable
  -p, --partition N          send every message to partition N (default: by key, sticky without)
  -z, --compression C        none, gzip, snappy, lz4 or zstd (default none)
  --acks 0|1|all             default all (idempotent, as the Java client); 0 and 1 turn idempotence off
  --idempotent               insist on idempotence (needs --acks all)
  --format json              each line is {"key":..,"value":..,"headers":{..},"partition":N}
                             (value null: a tombstone; a non-string value is sent as its JSON)
  --verbose                  print the partition and offset of each message (JSON lines with --json)
${CONNECTION_USAGE}`

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  topic: { type: 'string', short: 't' },
  key: { type: 'string', short: 'k' },
  'key-delimiter': { type: 'string' },
  header: { type: 'string', short: 'H', multiple: true },
  partition: { type: 'string', short: 'p' },
  compression: { type: 'string', short: 'z' },
  acks: { type: 'string' },
  idempotent: { type: 'boolean' },
  format: { type: 'string' },
  verbose: { type: 'boolean' },
} as const

/** Sends awaiting acknowledgement at once; the producer batches them. */
const WINDOW = 5000

function headerPairs(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const kv of list ?? []) {
    const eq = kv.indexOf('=')
    if (eq <= 0) throw new UsageError(`-H needs key=value, not ${JSON.stringify(kv)}`)
    out[kv.slice(0, eq)] = kv.slice(eq + 1)
  }
  return out
}

function jsonMessage(line: string, n: number): Message {
  let o: unknown
  try {
    o = JSON.parse(line)
  } catch {
    throw new Error(`line ${n}: not JSON`)
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error(`line ${n}: expected a JSON object with a value`)
  const r = o as { key?: unknown; value?: unknown; headers?: unknown; partition?: unknown }
  const text = (v: unknown) => (v === undefined || v === null ? v : typeof v === 'string' ? v : JSON.stringify(v))
  const m: Message = { value: text(r.value) as string }
  if (r.key !== undefined && r.key !== null) m.key = text(r.key) as string
  if (r.headers !== undefined) {
    if (typeof r.headers !== 'object' || r.headers === null) throw new Error(`line ${n}: headers must be an object`)
    m.headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, text(v) as string]))
  }
  if (r.partition !== undefined) {
    if (!Number.isInteger(r.partition)) throw new Error(`line ${n}: partition must be an integer`)
    m.partition = r.partition as number
  }
  return m
}

export async function produceCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals: files } = parse(args, OPTIONS, true)
  if (values.help) {
    io.out(USAGE + '\n')
    return 0
  }
  const topic = str(values, 'topic')
  if (topic === undefined) throw new UsageError('-t TOPIC is required')
  const key = str(values, 'key')
  const delimiter = str(values, 'key-delimiter')
  if (key !== undefined && delimiter !== undefined) throw new UsageError('give -k or --key-delimiter, not both')
  if (delimiter === '') throw new UsageError('--key-delimiter cannot be empty')
  const headers = headerPairs(values.header as string[] | undefined)
  const partition = int(values, 'partition', 0)
  const compression = compressionFlag(values, '-z')
  const acks = acksFlag(values)
  if (values.idempotent && acks !== 'all') throw new UsageError('--idempotent needs --acks all')
  const format = str(values, 'format')
  if (format !== undefined && format !== 'json') throw new UsageError(`--format takes json, not ${format}`)
  const verbose = values.verbose === true
  const json = values.json === true

  const connection = resolveConnection(values)
  const config = connection.kafka
  const extra = connection.clientOptions('producer', (line) => io.err(`wafka produce: ${line}\n`))
  const kafka = new Kafka(config)
  const admin = kafka.admin()
  const producer = kafka.producer({ acks, idempotent: acks === 'all', compression, allowAutoTopicCreation: false, ...extra })
  try {
    await admin.connect()
    await topicPartitions(admin, topic)
    await producer.connect()
    const pending: Array<Promise<RecordMetadata[]>> = []
    let sent = 0
    const report = async () => {
      const [meta] = await pending.shift()!
      if (!verbose) return
      if (json) io.out(JSON.stringify({ topic, partition: meta.partition, offset: meta.baseOffset }) + '\n')
      else io.out(`${topic} [${meta.partition}] @ ${meta.baseOffset}\n`)
    }
    let n = 0
    for await (const line of inputLines(files)) {
      n++
      let m: Message
      if (format === 'json') m = jsonMessage(line, n)
      else if (delimiter !== undefined) {
        const at = line.indexOf(delimiter)
        m = at < 0 ? { value: line } : { key: line.slice(0, at), value: line.slice(at + delimiter.length) }
      } else m = { value: line }
      if (key !== undefined) m.key = key
      if (Object.keys(headers).length > 0) m.headers = { ...headers, ...m.headers }
      if (partition !== undefined && m.partition === undefined) m.partition = partition
      const p = producer.send({ topic, messages: [m] })
      p.catch(() => {}) // reported in order by report()
      pending.push(p)
      sent++
      if (pending.length >= WINDOW) await report()
    }
    while (pending.length > 0) await report()
    if (!verbose && json) io.out(JSON.stringify({ topic, messages: sent }) + '\n')
    return 0
  } finally {
    await producer.disconnect().catch(() => {})
    await admin.disconnect().catch(() => {})
  }
}
