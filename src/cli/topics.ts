import { ConfigResourceTypes, type Admin, type ConfigOperation } from '../admin/admin.js'
import { CONNECTION_OPTIONS, CONNECTION_USAGE, UsageError, int, parse, resolveConnection, type Values } from './args.js'
import { show } from './table-output.js'
import { MissingTopicError, topicPartitions } from './topic-check.js'
import type { Io } from './io.js'
import { withAdmin, type AdminAction } from './admin-action.js'

export const USAGE = `usage: wafka topics list|create|delete|describe|alter -b BROKERS [options]

  wafka topics list                                   topic names
  wafka topics create TOPIC [-P N] [-r R] [-c k=v ...] a new topic (default: the broker's partitions and replication)
  wafka topics describe TOPIC ...                     partitions (leader, replicas, ISR, offsets) and the configs set on it
  wafka topics delete TOPIC ...                       deletes the topics
  wafka topics alter TOPIC [-P N] [--config k=v ...] [--delete-config k ...]
                                                      more partitions (CreatePartitions; never fewer), and
                                                      config changes (IncrementalAlterConfigs)

  -P, --partitions N           partitions of a new topic
  -r, --replication-factor R   replicas of each partition
  -c, --topic-config k=v       a topic config (e.g. retention.ms=60000); repeatable
  alter: -P N                  the new partition count (more than it has)
         --config k=v          sets a topic config; repeatable (also -c k=v; --config FILE still
                               names the connection's properties file)
         --delete-config k     removes a topic config (back to the broker's default); repeatable
         --validate-only       the broker checks the changes and applies none
${CONNECTION_USAGE}`

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  partitions: { type: 'string', short: 'P' },
  'replication-factor': { type: 'string', short: 'r' },
  'topic-config': { type: 'string', short: 'c', multiple: true },
  'delete-config': { type: 'string', multiple: true },
  'validate-only': { type: 'boolean' },
  // The connection's properties file elsewhere; with alter, --config k=v is also a topic config
  // (kafka-configs.sh's --add-config), and a --config without '=' is still the properties file.
  config: { type: 'string', multiple: true },
} as const

/** DescribeConfigs' source of a config set on the topic itself. */
const DYNAMIC_TOPIC_CONFIG = 1

const ACTIONS = ['list', 'create', 'delete', 'describe', 'alter']

/** `k=v` flags as config entries. */
function keyValues(flag: string, list: string[]): Array<{ name: string; value: string }> {
  return list.map((kv) => {
    const eq = kv.indexOf('=')
    if (eq <= 0) throw new UsageError(`${flag} needs key=value, not ${JSON.stringify(kv)}`)
    return { name: kv.slice(0, eq), value: kv.slice(eq + 1) }
  })
}

export async function topicsCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, true)
  if (values.help) {
    io.out(USAGE + '\n')
    return 0
  }
  const [action, ...names] = positionals
  if (!ACTIONS.includes(action))
    throw new UsageError(action === undefined ? 'say list, create, delete, describe or alter' : `unknown action ${action}`)
  if (action !== 'list' && names.length === 0) throw new UsageError(`topics ${action} needs a topic name`)
  if (action === 'list' && names.length > 0) throw new UsageError('topics list takes no names')
  if ((action === 'create' || action === 'alter') && names.length > 1) throw new UsageError(`topics ${action} takes one topic`)
  const given = (values.config as string[] | undefined) ?? []
  const files = action === 'alter' ? given.filter((c) => !c.includes('=')) : given
  if (files.length > 1) throw new UsageError('one --config FILE at most')
  // alter's flags are checked before connecting.
  const changes = action === 'alter' ? alterations(values, given) : undefined
  const { kafka: config } = resolveConnection({ ...values, config: files[0] })
  return withAdmin(config, io, values, names, (run) => {
    if (action === 'list') return listTopics(run)
    if (action === 'create') return createTopic(run)
    if (action === 'delete') return deleteTopics(run)
    if (action === 'alter') return alterTopic(run, changes!)
    return describeTopics(run)
  })
}

async function listTopics({ admin, io, json }: AdminAction): Promise<void> {
  const topics = (await admin.listTopics()).sort()
  if (json) io.out(JSON.stringify(topics) + '\n')
  else for (const t of topics) io.out(t + '\n')
}

async function createTopic({ admin, io, json, values, names }: AdminAction): Promise<void> {
  const configEntries = keyValues('-c', (values['topic-config'] as string[] | undefined) ?? [])
  const topic = names[0]
  const created = await admin.createTopics({
    topics: [
      { topic, numPartitions: int(values, 'partitions', 1), replicationFactor: int(values, 'replication-factor', 1), configEntries },
    ],
  })
  if (!created) throw new Error(`topic ${JSON.stringify(topic)} already exists`)
  if (json) io.out(JSON.stringify({ created: topic }) + '\n')
  else io.out(`created topic ${topic}\n`)
}

async function deleteTopics({ admin, io, json, names }: AdminAction): Promise<void> {
  const existing = new Set(await admin.listTopics())
  for (const t of names) if (!existing.has(t)) throw new MissingTopicError(t)
  await admin.deleteTopics({ topics: names })
  if (json) io.out(JSON.stringify({ deleted: names }) + '\n')
  else for (const t of names) io.out(`deleted topic ${t}\n`)
}

/** What `topics alter` asks for: a partition count, configs to set or delete. */
interface Alterations {
  partitions: number | undefined
  configs: Array<{ name: string; value: string | null; operation: ConfigOperation }>
}

/** alter's flags; `given` is every --config (k=v ones are topic configs). */
function alterations(values: Values, given: string[]): Alterations {
  const partitions = int(values, 'partitions', 1)
  const set = keyValues('--config', [...given.filter((c) => c.includes('=')), ...((values['topic-config'] as string[] | undefined) ?? [])])
  const removed = (values['delete-config'] as string[] | undefined) ?? []
  const configs = [
    ...set.map((c) => ({ ...c, operation: 'SET' as const })),
    ...removed.map((name) => ({ name, value: null, operation: 'DELETE' as const })),
  ]
  if (partitions === undefined && configs.length === 0) throw new UsageError('topics alter needs -P N, --config k=v or --delete-config k')
  return { partitions, configs }
}

async function alterTopic({ admin, io, json, values, names }: AdminAction, { partitions, configs: changes }: Alterations): Promise<void> {
  const topic = names[0]
  const before = await topicPartitions(admin, topic)
  const validateOnly = values['validate-only'] === true
  if (partitions !== undefined && partitions !== before.length) {
    if (partitions < before.length) throw new Error(`${topic} has ${before.length} partitions: Kafka can add partitions, never remove them`)
    await admin.createPartitions({ topicPartitions: [{ topic, count: partitions }], validateOnly })
  }
  if (changes.length > 0)
    await admin.alterConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: changes }],
      validateOnly,
    })
  const data = {
    altered: topic,
    validateOnly,
    partitions: { from: before.length, to: partitions ?? before.length },
    configs: Object.fromEntries(changes.map((c) => [c.name, c.value])),
  }
  if (json) {
    io.out(JSON.stringify(data) + '\n')
    return
  }
  const would = validateOnly ? 'would change ' : ''
  if (data.partitions.to !== data.partitions.from) io.out(`${topic}: ${would}partitions ${data.partitions.from} -> ${data.partitions.to}\n`)
  for (const c of changes)
    io.out(`${topic}: ${validateOnly ? 'would ' : ''}${c.operation === 'SET' ? `set ${c.name}=${c.value}` : `delete ${c.name}`}\n`)
  if (data.partitions.to === data.partitions.from && changes.length === 0)
    io.out(`${topic}: already has ${data.partitions.to} partitions\n`)
}

async function describeTopics({ admin, io, json, names }: AdminAction): Promise<void> {
  const described = []
  for (const topic of names) described.push(await describeTopic(admin, topic))
  if (json) {
    io.out(JSON.stringify(names.length === 1 ? described[0] : described) + '\n')
    return
  }
  for (const d of described) {
    io.out(`topic ${d.topic}: ${d.partitions.length} partition(s), replication factor ${d.partitions[0]?.replicas.length ?? 0}\n`)
    const set = Object.entries(d.configs)
    if (set.length > 0) io.out(`configs: ${set.map(([k, v]) => `${k}=${v ?? '(sensitive)'}`).join(', ')}\n`)
    show(
      io,
      false,
      d,
      ['partition', 'leader', 'replicas', 'isr', 'low', 'high'],
      d.partitions.map((p) => [p.partition, p.leader, p.replicas.join(','), p.isr.join(','), p.low, p.high]),
    )
  }
}

/** One topic's partitions (leader, replicas, ISR, offsets) and the configs set on it. */
async function describeTopic(admin: Admin, topic: string) {
  await topicPartitions(admin, topic)
  const [meta] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics
  const offsets = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, o]))
  const [configs] = (await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] })).resources
  return {
    topic,
    // What is set on the topic itself (not broker defaults); sensitive values are the broker's null.
    configs: Object.fromEntries(
      configs.configEntries
        .filter((c) => c.configSource === DYNAMIC_TOPIC_CONFIG)
        .map((c) => [c.configName, c.configValue])
        .sort(([a], [b]) => (a! < b! ? -1 : 1)),
    ),
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
  }
}
