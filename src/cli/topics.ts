import { Kafka } from '../kafka.js'
import { CONNECTION_OPTIONS, CONNECTION_USAGE, UsageError, int, parse, resolveConnection } from './args.js'
import { show } from './table-output.js'
import { MissingTopicError, topicPartitions } from './topic-check.js'
import type { Io } from './io.js'

export const USAGE = `usage: wafka topics list|create|delete|describe -b BROKERS [options]

  wafka topics list                                   topic names
  wafka topics create TOPIC [-P N] [-r R] [-c k=v ...] a new topic (default: the broker's partitions and replication)
  wafka topics describe TOPIC ...                     partitions: leader, replicas, ISR, offsets
  wafka topics delete TOPIC ...                       deletes the topics

  -P, --partitions N           partitions of a new topic
  -r, --replication-factor R   replicas of each partition
  -c, --topic-config k=v       a topic config (e.g. retention.ms=60000); repeatable
${CONNECTION_USAGE}`

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  partitions: { type: 'string', short: 'P' },
  'replication-factor': { type: 'string', short: 'r' },
  'topic-config': { type: 'string', short: 'c', multiple: true },
} as const

export async function topicsCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, true)
  if (values.help) {
    io.out(USAGE + '\n')
    return 0
  }
  const [action, ...names] = positionals
  if (!['list', 'create', 'delete', 'describe'].includes(action))
    throw new UsageError(action === undefined ? 'say list, create, delete or describe' : `unknown action ${action}`)
  if (action !== 'list' && names.length === 0) throw new UsageError(`topics ${action} needs a topic name`)
  if (action === 'list' && names.length > 0) throw new UsageError('topics list takes no names')
  if (action === 'create' && names.length > 1) throw new UsageError('topics create takes one topic')
  const json = values.json === true
  const { kafka: config } = resolveConnection(values)
  const admin = new Kafka(config).admin()
  try {
    await admin.connect()
    if (action === 'list') {
      const topics = (await admin.listTopics()).sort()
      if (json) io.out(JSON.stringify(topics) + '\n')
      else for (const t of topics) io.out(t + '\n')
    } else if (action === 'create') {
      const configEntries = ((values['topic-config'] as string[] | undefined) ?? []).map((kv) => {
        const eq = kv.indexOf('=')
        if (eq <= 0) throw new UsageError(`-c needs key=value, not ${JSON.stringify(kv)}`)
        return { name: kv.slice(0, eq), value: kv.slice(eq + 1) }
      })
      const topic = names[0]
      const created = await admin.createTopics({
        topics: [
          { topic, numPartitions: int(values, 'partitions', 1), replicationFactor: int(values, 'replication-factor', 1), configEntries },
        ],
      })
      if (!created) throw new Error(`topic ${JSON.stringify(topic)} already exists`)
      if (json) io.out(JSON.stringify({ created: topic }) + '\n')
      else io.out(`created topic ${topic}\n`)
    } else if (action === 'delete') {
      const existing = new Set(await admin.listTopics())
      for (const t of names) if (!existing.has(t)) throw new MissingTopicError(t)
      await admin.deleteTopics({ topics: names })
      if (json) io.out(JSON.stringify({ deleted: names }) + '\n')
      else for (const t of names) io.out(`deleted topic ${t}\n`)
    } else {
      const described = []
      for (const topic of names) {
        await topicPartitions(admin, topic)
        const [meta] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics
        const offsets = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, o]))
        described.push({
          topic,
          partitions: meta.partitions
            .map((p) => ({
              partition: p.partitionId,
              leader: p.leader,
              replicas: p.replicas,
              isr: p.isr,
              low: offsets.get(p.partitionId)?.low,
              high: offsets.get(p.partitionId)?.high,
            }))
            .sort((a, b) => a.partition - b.partition),
        })
      }
      if (json) io.out(JSON.stringify(names.length === 1 ? described[0] : described) + '\n')
      else {
        for (const d of described) {
          io.out(`topic ${d.topic}: ${d.partitions.length} partition(s), replication factor ${d.partitions[0]?.replicas.length ?? 0}\n`)
          show(
            io,
            false,
            d,
            ['partition', 'leader', 'replicas', 'isr', 'low', 'high'],
            d.partitions.map((p) => [p.partition, p.leader, p.replicas.join(','), p.isr.join(','), p.low, p.high]),
          )
        }
      }
    }
    return 0
  } finally {
    await admin.disconnect().catch(() => {})
  }
}
