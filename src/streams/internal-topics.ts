// The topics an application makes for itself, created at start as Java's
// InternalTopicManager creates them: a repartition topic gets the count
// repartition() gave it, else the partition count of the sub-topology that
// writes it (the most partitions among that sub-topology's source topics), a
// changelog the count of its store's sub-topology (one partition per task).
// An existing one with another count is refused, as Java refuses it.
import type { Admin } from '../admin/admin.js'
import type { Logger } from '../logger.js'
import { StreamsError } from './streams-error.js'
import { checkCopartitioned } from './copartition.js'
import type { Topology } from './topology.js'

export interface TopicNames {
  topicName(topic: string): string
  changelogTopic(store: string): string
}

// Java's configs for them (RepartitionTopicConfig, UnwindowedChangelogTopicConfig).
export const REPARTITION_CONFIGS: Record<string, string> = {
  'cleanup.policy': 'delete',
  'segment.bytes': '52428800',
  'retention.ms': '-1',
  'message.timestamp.type': 'CreateTime',
}
const CHANGELOG_CONFIGS = { 'cleanup.policy': 'compact', 'message.timestamp.type': 'CreateTime' }
// A window store's changelog (WindowedChangelogTopicConfig) also deletes past the store's retention and
// windowstore.changelog.additional.retention.ms (a day by default).
const WINDOW_CHANGELOG_ADDITIONAL_RETENTION_MS = 86_400_000
const windowChangelogConfigs = (retentionMs: number) => ({
  'cleanup.policy': 'compact,delete',
  'retention.ms': String(retentionMs + WINDOW_CHANGELOG_ADDITIONAL_RETENTION_MS),
  'message.timestamp.type': 'CreateTime',
})

/** The configs of store `store`'s changelog, as Java's InternalTopicConfig of its kind gives them. */
export function changelogConfigs(topology: Topology, store: string): Record<string, string> {
  const def = topology.stores.get(store)!
  const retained = def.window ?? def.session
  return retained ? windowChangelogConfigs(retained.retentionMs) : CHANGELOG_CONFIGS
}

/** Creates the missing internal topics; returns each sub-topology's task count (its partitions). */
export async function prepareInternalTopics(
  admin: Admin,
  topology: Topology,
  names: TopicNames,
  log: Logger,
): Promise<Map<number, number>> {
  const subs = topology.subtopologies()
  const existing = new Set(await admin.listTopics())
  const external = [...new Set(subs.flatMap((s) => s.sourceTopics).filter((t) => !topology.internalTopics.has(t)))]
  const missing = external.filter((t) => !existing.has(t))
  if (missing.length > 0) throw new StreamsError(`source topics ${missing.join(', ')} do not exist: create them before start()`)
  const counts = new Map<string, number>(topology.internalTopicPartitions)
  if (external.length > 0)
    for (const t of (await admin.fetchTopicMetadata({ topics: external })).topics) counts.set(t.name, t.partitions.length)
  // Before any topic is made: only the given topics and the repartition topics of a fixed count are held to it.
  checkCopartitioned(topology.copartitionGroups, counts, names.topicName)

  // A repartition topic a join reads with a given topic takes that topic's count (Java's CopartitionedTopicsEnforcer).
  const fixed = new Set<string>(topology.internalTopicPartitions.keys())
  for (const group of topology.copartitionGroups) {
    const given = group.find((t) => !topology.internalTopics.has(t) && counts.has(t)) ?? group.find((t) => fixed.has(t))
    if (given !== undefined)
      for (const t of group.filter((x) => topology.internalTopics.has(x) && !fixed.has(x))) {
        counts.set(t, counts.get(given)!)
        fixed.add(t)
      }
  }
  // Upstream sub-topologies fix the counts of the repartition topics downstream ones read.
  const tasks = new Map<number, number>()
  for (let changed = true; changed;) {
    changed = false
    for (const sub of subs) {
      if (tasks.has(sub.id) || !sub.sourceTopics.every((t) => counts.has(t))) continue
      const n = Math.max(...sub.sourceTopics.map((t) => counts.get(t)!))
      tasks.set(sub.id, n)
      changed = true
      for (const node of sub.nodes)
        if (node.kind === 'sink' && typeof node.topic === 'string' && topology.internalTopics.has(node.topic) && !fixed.has(node.topic))
          counts.set(node.topic, Math.max(counts.get(node.topic) ?? 0, n))
    }
  }
  const unresolved = subs.filter((s) => !tasks.has(s.id))
  if (unresolved.length > 0)
    throw new StreamsError(
      `cannot tell the partition count of sub-topologies ${unresolved.map((s) => s.id).join(', ')}: no upstream writes their topics`,
    )

  const wanted = [
    ...[...topology.internalTopics].map((t) => ({ topic: names.topicName(t), partitions: counts.get(t)!, configs: REPARTITION_CONFIGS })),
    ...subs.flatMap((s) =>
      s.stores.map((store) => ({
        topic: names.changelogTopic(store),
        partitions: tasks.get(s.id)!,
        configs: changelogConfigs(topology, store),
      })),
    ),
  ]
  const present = wanted.filter((w) => existing.has(w.topic))
  if (present.length > 0) {
    const meta = await admin.fetchTopicMetadata({ topics: present.map((w) => w.topic) })
    for (const t of meta.topics) {
      const w = present.find((p) => p.topic === t.name)!
      if (t.partitions.length !== w.partitions)
        throw new StreamsError(`internal topic ${t.name} has ${t.partitions.length} partitions, the topology needs ${w.partitions}`)
    }
  }
  const create = wanted.filter((w) => !existing.has(w.topic))
  if (create.length > 0) {
    log.info('creating internal topics', { topics: create.map((w) => `${w.topic} (${w.partitions})`) })
    await admin.createTopics({
      waitForLeaders: true,
      topics: create.map((w) => ({
        topic: w.topic,
        numPartitions: w.partitions,
        configEntries: Object.entries(w.configs).map(([name, value]) => ({ name, value })),
      })),
    })
  }
  return tasks
}
