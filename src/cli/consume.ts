import { Kafka } from '../kafka.js'
import type { Admin } from '../admin/admin.js'
import type { Consumer } from '../consumer/consumer.js'
import type { IsolationLevel } from '../consumer/config.js'
import { CONNECTION_OPTIONS, CONNECTION_USAGE, UsageError, int, parse, resolveConnection, str, type Values } from './args.js'
import { compileFormat, jsonLine, type Shown } from './format.js'
import { topicPartitions } from './topic-check.js'
import type { Io } from './io.js'

export const USAGE = `usage: wafka consume -b BROKERS -t TOPIC [options]

Prints messages as they arrive, until -c/-e is met or SIGINT/SIGTERM.

  -t, --topic TOPIC          the topic (it must exist)
  -g, --group GROUP          consume as a member of GROUP (commits what was printed);
                             without it, every partition (or -p) is read directly, committing nothing
  -o, --offset WHERE         beginning, end (default), OFFSET, -N (N before the end), @TIMESTAMP (ms);
                             with -g only beginning or end (where the group has no committed offset)
  -p, --partition N          only partition N (not with -g)
  -c, --count N              exit after N messages
  -e, --exit                 exit at the end of the partitions (the high watermarks when it started)
  -f, --format FMT           kcat-style: %t topic %p partition %o offset %k key %s value %h headers
                             %T timestamp %K/%S key/value length, \\n \\t (default '%s\\n')
  --json                     one JSON object a line: topic, partition, offset, timestamp, key, value, headers
  --isolation LEVEL          read_uncommitted (default) or read_committed
  --stats                    print the consumer's statistics (per broker: requests, latency, throttle,
                             in flight; per partition: position, high watermark, lag, queued) as one
                             JSON line on stderr every second (statistics.interval.ms in -X/--config to change)
${CONNECTION_USAGE}`

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  topic: { type: 'string', short: 't' },
  group: { type: 'string', short: 'g' },
  offset: { type: 'string', short: 'o' },
  partition: { type: 'string', short: 'p' },
  count: { type: 'string', short: 'c' },
  exit: { type: 'boolean', short: 'e' },
  format: { type: 'string', short: 'f' },
  isolation: { type: 'string' },
  stats: { type: 'boolean' },
} as const

type Start = { kind: 'beginning' | 'end' } | { kind: 'offset'; at: bigint } | { kind: 'tail'; n: bigint } | { kind: 'time'; ms: number }

function parseStart(v: string | undefined): Start {
  if (v === undefined || v === 'end') return { kind: 'end' }
  if (v === 'beginning') return { kind: 'beginning' }
  if (/^\d+$/.test(v)) return { kind: 'offset', at: BigInt(v) }
  if (/^-\d+$/.test(v)) return { kind: 'tail', n: -BigInt(v) }
  if (/^@\d+$/.test(v)) return { kind: 'time', ms: Number(v.slice(1)) }
  throw new UsageError(`-o takes beginning, end, OFFSET, -N or @TIMESTAMP, not ${JSON.stringify(v)}`)
}

export async function consumeCommand(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, OPTIONS)
  if (values.help) {
    io.out(USAGE + '\n')
    return 0
  }
  const flags = consumeFlags(values)
  const { topic, group, start, only, isolation } = flags

  const connection = resolveConnection(values)
  const config = connection.kafka
  const extra = connection.clientOptions('consumer', (line) => io.err(`wafka consume: ${line}\n`))
  const kafka = new Kafka(config)
  const admin = kafka.admin()
  const consumer = kafka.consumer({
    ...(group !== undefined ? { groupId: group } : {}),
    isolationLevel: isolation,
    autoOffsetReset: start.kind === 'beginning' ? 'earliest' : 'latest',
    ...(values.stats === true ? { statisticsIntervalMs: 1000 } : {}),
    ...extra,
  })
  // stderr: stdout stays the messages, for pipes.
  if (values.stats === true) consumer.on(consumer.events.STATS, (e) => io.err(JSON.stringify(e.payload) + '\n'))
  let finish: () => void = () => {}
  const finished = new Promise<void>((resolve) => (finish = resolve))
  const onSignal = () => finish()
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    await admin.connect()
    const all = await topicPartitions(admin, topic)
    if (only !== undefined && !all.includes(only)) throw new Error(`topic ${topic} has no partition ${only} (it has ${all.length})`)
    const partitions = only !== undefined ? [only] : all
    const positions = await startPositions(admin, flags, partitions)
    if (flags.exitAtEnd && positions.pendingEnd.size === 0) return 0
    await printMessages(consumer, flags, partitions, positions, io, finish)
    await finished
    return 0
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await consumer.disconnect().catch(() => {})
    await admin.disconnect().catch(() => {})
  }
}

interface ConsumeFlags {
  topic: string
  group: string | undefined
  start: Start
  /** -p: the one partition to read. */
  only: number | undefined
  /** -c: how many messages to print. */
  limit: number | undefined
  exitAtEnd: boolean
  isolation: IsolationLevel
  render: (m: Shown) => string
}

/** The command's flags, checked before anything connects. */
function consumeFlags(values: Values): ConsumeFlags {
  const topic = str(values, 'topic')
  if (topic === undefined) throw new UsageError('-t TOPIC is required')
  const group = str(values, 'group')
  const start = parseStart(str(values, 'offset'))
  const only = int(values, 'partition', 0)
  const limit = int(values, 'count', 1)
  const exitAtEnd = values.exit === true
  if (group !== undefined && only !== undefined)
    throw new UsageError('-p is for reading without a group; a group member gets its partitions from the group')
  if (group !== undefined && start.kind !== 'beginning' && start.kind !== 'end') throw new UsageError('with -g, -o takes beginning or end')
  const isolation = (str(values, 'isolation') ?? 'read_uncommitted') as IsolationLevel
  if (isolation !== 'read_uncommitted' && isolation !== 'read_committed')
    throw new UsageError(`--isolation takes read_uncommitted or read_committed, not ${isolation}`)
  return { topic, group, start, only, limit, exitAtEnd, isolation, render: renderer(values) }
}

/** -f's format, or --json's one object a line. */
function renderer(values: Values): (m: Shown) => string {
  if (values.json === true) {
    if (str(values, 'format') !== undefined) throw new UsageError('give -f or --json, not both')
    return jsonLine
  }
  try {
    return compileFormat(str(values, 'format') ?? '%s\\n')
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

interface Positions {
  /** Without a group: where each partition starts. */
  begin: Map<number, bigint>
  /** Where each partition ends, for -e: the high watermarks now (or the last stable offsets under read_committed). */
  high: Map<number, bigint>
  /** Partitions with messages before their end (-e waits for these). */
  pendingEnd: Set<number>
}

/** Where reading starts in each partition (-o, or the group's committed offsets) and where -e stops. */
async function startPositions(admin: Admin, { topic, group, start }: ConsumeFlags, partitions: number[]): Promise<Positions> {
  const offsets = await admin.fetchTopicOffsets(topic)
  const high = new Map(offsets.map((o) => [o.partition, BigInt(o.high)]))
  const low = new Map(offsets.map((o) => [o.partition, BigInt(o.low)]))
  const pendingEnd = new Set<number>()
  const begin = new Map<number, bigint>()
  if (group === undefined) {
    const byTime =
      start.kind === 'time'
        ? new Map((await admin.fetchTopicOffsetsByTimestamp(topic, start.ms)).map((o) => [o.partition, BigInt(o.offset)]))
        : undefined
    for (const p of partitions) {
      const lo = low.get(p)!
      const hi = high.get(p)!
      let at: bigint
      if (start.kind === 'beginning') at = lo
      else if (start.kind === 'end') at = hi
      else if (start.kind === 'offset') at = start.at < lo ? lo : start.at > hi ? hi : start.at
      else if (start.kind === 'tail') at = hi - start.n < lo ? lo : hi - start.n
      else at = byTime!.get(p)!
      begin.set(p, at)
      if (at < hi) pendingEnd.add(p)
    }
  } else {
    const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] })
    const byPartition = new Map<number, bigint>()
    for (const t of committed) for (const p of t.partitions) if (BigInt(p.offset) >= 0n) byPartition.set(p.partition, BigInt(p.offset))
    for (const p of partitions) {
      const from = byPartition.get(p) ?? (start.kind === 'beginning' ? low.get(p)! : high.get(p)!)
      if (from < high.get(p)!) pendingEnd.add(p)
    }
  }
  return { begin, high, pendingEnd }
}

/** Assigns (or subscribes) and prints each message; `finish` once -c or -e is met. */
async function printMessages(
  consumer: Consumer,
  { topic, group, start, limit, exitAtEnd, render }: ConsumeFlags,
  partitions: number[],
  { begin, high, pendingEnd }: Positions,
  io: Io,
  finish: () => void,
): Promise<void> {
  let printed = 0
  await consumer.connect()
  if (group === undefined) {
    consumer.assign([{ topic, partitions }])
    for (const [p, at] of begin) consumer.seek({ topic, partition: p, offset: at })
  } else await consumer.subscribe({ topics: [topic], fromBeginning: start.kind === 'beginning' })
  await consumer.run({
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, isStale }) => {
      let out = ''
      for (const m of batch.messages) {
        if (limit !== undefined && printed >= limit) break
        if (isStale()) break
        out += render({
          topic: batch.topic,
          partition: batch.partition,
          offset: m.offset,
          timestamp: m.timestamp,
          key: m.key,
          value: m.value,
          headers: m.headerList as Array<[string, Buffer | null]>,
        })
        printed++
        resolveOffset(m.offset)
        if (exitAtEnd && BigInt(m.offset) + 1n >= high.get(batch.partition)!) pendingEnd.delete(batch.partition)
      }
      if (out) io.out(out)
      if ((limit !== undefined && printed >= limit) || (exitAtEnd && pendingEnd.size === 0)) finish()
    },
  })
}
