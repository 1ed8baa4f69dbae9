import { ErrorCodes } from '../../protocol/error-codes.js'
import { BrokerError } from '../broker-error.js'

/** An internal topic as a streams application declares it (partitions 0: the coordinator decides). */
export interface StreamsTopicInfo {
  name: string
  partitions: number
  replicationFactor: number
  topicConfigs: Array<{ key: string; value: string }>
}

/** Indexes into a subtopology's source and repartition source topics that must have the same partition count. */
export interface StreamsCopartitionGroup {
  sourceTopics: number[]
  sourceTopicRegex: number[]
  repartitionSourceTopics: number[]
}

export interface StreamsSubtopology {
  subtopologyId: string
  sourceTopics: string[]
  sourceTopicRegex: string[]
  stateChangelogTopics: StreamsTopicInfo[]
  repartitionSinkTopics: string[]
  repartitionSourceTopics: StreamsTopicInfo[]
  copartitionGroups: StreamsCopartitionGroup[]
}

/** The topology a streams group's first member brings (KIP-1071): the group keeps it. */
export interface StreamsTopology {
  epoch: number
  subtopologies: StreamsSubtopology[]
}

/** StreamsGroupHeartbeatResponse's status codes (Kafka's StreamsGroupHeartbeatResponse.Status). */
export const StreamsStatus = {
  STALE_TOPOLOGY: 0,
  MISSING_SOURCE_TOPICS: 1,
  INCORRECTLY_PARTITIONED_TOPICS: 2,
  MISSING_INTERNAL_TOPICS: 3,
  SHUTDOWN_APPLICATION: 4,
  ASSIGNMENT_DELAYED: 5,
} as const

export interface StreamsStatusEntry {
  statusCode: number
  statusDetail: string
}

/** A subtopology with its topics' partition counts decided: it has `tasks` tasks, one per partition. */
export interface ConfiguredSubtopology {
  subtopologyId: string
  tasks: number
  sourceTopics: string[]
  repartitionSinkTopics: string[]
  repartitionSourceTopics: StreamsTopicInfo[]
  stateChangelogTopics: StreamsTopicInfo[]
}

/** An internal topic the coordinator has the broker create. */
export interface InternalTopicToCreate {
  name: string
  partitions: number
  /** -1: the broker's default. */
  replicationFactor: number
  configs: Record<string, string>
}

/**
 * The topology against the cluster's topics (Kafka's ConfiguredTopology):
 * ready when every source topic exists and every internal topic exists
 * with the partition count it must have; otherwise the status the
 * heartbeat answers, and the internal topics still to create.
 */
export interface ConfiguredTopology {
  epoch: number
  /** Null when the topics could not be configured (missing source topics, wrong partition counts). */
  subtopologies: ConfiguredSubtopology[] | null
  toCreate: InternalTopicToCreate[]
  status: StreamsStatusEntry | null
}

class TopicConfigurationProblem extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message)
  }
}

const invalid = (message: string) => new BrokerError(ErrorCodes.STREAMS_INVALID_TOPOLOGY, message)

/** At most three names, then how many more (as Kafka's coordinator words it). */
function summarize(topics: Iterable<string>): string {
  const all = [...topics]
  if (all.length === 0) return '<none>'
  return all.slice(0, 3).join(', ') + (all.length > 3 ? ` and ${all.length - 3} additional topics` : '')
}

/** The checks Kafka makes of a joining member's topology before it reaches the group. */
export function checkTopology(t: StreamsTopology): void {
  for (const s of t.subtopologies) {
    for (const c of s.stateChangelogTopics)
      if (c.partitions !== 0)
        throw invalid(`Changelog topic ${c.name} must have an undefined partition count, but it is set to ${c.partitions}.`)
    if (s.sourceTopicRegex.length > 0)
      throw new BrokerError(ErrorCodes.INVALID_REQUEST, 'Regular expressions for source topics are not supported yet.')
  }
}

/**
 * Decides every internal topic's partition count and checks the topics
 * that exist, as Kafka 4.4's InternalTopicManager: repartition topics
 * without a fixed count take the largest count among the source topics of
 * the subtopology that writes them (repeated until every one is known);
 * copartition groups are enforced; a changelog takes its subtopology's
 * task count. `partitionsOf` is the cluster's topics (undefined: absent).
 * Throws BrokerError(STREAMS_INVALID_TOPOLOGY) for a topology no counts fit.
 */
export function configureTopology(t: StreamsTopology, partitionsOf: (topic: string) => number | undefined): ConfiguredTopology {
  try {
    const missing = new Set<string>()
    for (const s of t.subtopologies) for (const topic of s.sourceTopics) if (partitionsOf(topic) === undefined) missing.add(topic)
    if (missing.size > 0)
      throw new TopicConfigurationProblem(
        StreamsStatus.MISSING_SOURCE_TOPICS,
        `Source topics ${summarize([...missing].sort())} are missing.`,
      )
    const decided = new Map<string, number>()
    const count = (topic: string) => partitionsOf(topic) ?? decided.get(topic)
    for (const [k, v] of repartitionCounts(t, count)) decided.set(k, v)
    enforceCopartitioning(t, count, decided)
    for (const s of t.subtopologies) {
      const n = taskCount(s, count)
      for (const c of s.stateChangelogTopics) decided.set(c.name, n)
    }
    const subtopologies = [...t.subtopologies]
      .sort((a, b) => (a.subtopologyId < b.subtopologyId ? -1 : a.subtopologyId > b.subtopologyId ? 1 : 0))
      .map((s) => {
        const configured = (i: StreamsTopicInfo): StreamsTopicInfo => ({ ...i, partitions: i.partitions || decided.get(i.name)! })
        return {
          subtopologyId: s.subtopologyId,
          tasks: taskCount(s, count),
          sourceTopics: s.sourceTopics,
          repartitionSinkTopics: s.repartitionSinkTopics,
          repartitionSourceTopics: s.repartitionSourceTopics.map(configured),
          stateChangelogTopics: s.stateChangelogTopics.map(configured),
        }
      })
    const wanted = new Map<string, InternalTopicToCreate>()
    for (const s of subtopologies)
      for (const i of [...s.repartitionSourceTopics, ...s.stateChangelogTopics])
        wanted.set(i.name, {
          name: i.name,
          partitions: i.partitions,
          replicationFactor: i.replicationFactor === 0 ? -1 : i.replicationFactor,
          configs: Object.fromEntries(i.topicConfigs.map((c) => [c.key, c.value])),
        })
    for (const [name, want] of [...wanted]) {
      const existing = partitionsOf(name)
      if (existing === undefined) continue
      wanted.delete(name)
      if (existing !== want.partitions)
        throw new TopicConfigurationProblem(
          StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
          `Existing topic ${name} has different number of partitions: expected ${want.partitions}, found ${existing}`,
        )
    }
    const toCreate = [...wanted.values()]
    return {
      epoch: t.epoch,
      subtopologies,
      toCreate,
      status:
        toCreate.length === 0
          ? null
          : { statusCode: StreamsStatus.MISSING_INTERNAL_TOPICS, statusDetail: `Internal topics are missing: ${summarize(wanted.keys())}` },
    }
  } catch (err) {
    if (!(err instanceof TopicConfigurationProblem)) throw err
    return { epoch: t.epoch, subtopologies: null, toCreate: [], status: { statusCode: err.statusCode, statusDetail: err.message } }
  }
}

/** A subtopology's task count: the most partitions among its source and repartition source topics. */
function taskCount(s: StreamsSubtopology, count: (topic: string) => number | undefined): number {
  const topics = [...s.sourceTopics, ...s.repartitionSourceTopics.map((r) => r.name)]
  if (topics.length === 0) throw invalid(`No source topics found for subtopology ${s.subtopologyId}`)
  return Math.max(
    ...topics.map((topic) => {
      const n = count(topic)
      if (n === undefined) throw invalid(`Number of partitions must be set for topic ${topic}`)
      return n
    }),
  )
}

/**
 * Repartition topics' partition counts: a fixed one as declared; otherwise,
 * from the subtopology writing it, the most partitions among that
 * subtopology's (repartition) source topics, repeated until every count is
 * known or no pass makes progress (a loop).
 */
function repartitionCounts(t: StreamsTopology, count: (topic: string) => number | undefined): Map<string, number> {
  const counts = new Map<string, number>()
  for (const s of t.subtopologies) for (const r of s.repartitionSourceTopics) if (r.partitions !== 0) counts.set(r.name, r.partitions)
  for (;;) {
    let needed = false
    let progress = false
    for (const s of t.subtopologies)
      for (const sink of s.repartitionSinkTopics) {
        if (counts.has(sink)) continue
        let n: number | undefined
        for (const r of s.repartitionSourceTopics) {
          const c = counts.get(r.name)
          if (c !== undefined && (n === undefined || c > n)) n = c
        }
        for (const topic of s.sourceTopics) {
          const c = count(topic)
          if (c !== undefined && (n === undefined || c > n)) n = c
        }
        if (n === undefined) needed = true
        else {
          counts.set(sink, n)
          progress = true
        }
      }
    if (!needed) break
    if (!progress)
      throw invalid(
        'Failed to compute number of partitions for all repartition topics. There may be loops in the topology that cannot be resolved.',
      )
  }
  for (const s of t.subtopologies)
    if (s.repartitionSourceTopics.some((r) => !counts.has(r.name)))
      throw invalid(
        'Failed to compute number of partitions for all repartition topics, because a repartition source topic is never used as a sink topic.',
      )
  return counts
}

/**
 * Each copartition group's topics get one partition count (Kafka's
 * CopartitionedTopicsEnforcer): repartition topics alone take the fixed
 * ones' count (which must agree) or the largest; with other topics, those
 * must agree and the repartition topics take their count. A fixed
 * repartition topic of another count is INCORRECTLY_PARTITIONED_TOPICS.
 */
function enforceCopartitioning(t: StreamsTopology, count: (topic: string) => number | undefined, decided: Map<string, number>): void {
  const fixed = new Set<string>()
  const flexible = new Set<string>()
  for (const s of t.subtopologies) for (const r of s.repartitionSourceTopics) (r.partitions !== 0 ? fixed : flexible).add(r.name)
  const must = (topic: string) => {
    const n = count(topic)
    if (n === undefined) throw invalid(`Number of partitions is not set for topic: ${topic}`)
    return n
  }
  for (const s of t.subtopologies)
    for (const g of s.copartitionGroups) {
      const topics = new Set([
        ...g.sourceTopics.map((i) => s.sourceTopics[i]),
        ...g.repartitionSourceTopics.map((i) => s.repartitionSourceTopics[i].name),
      ])
      if (topics.size === 0) continue
      const repartition = new Map<string, number>()
      const others = new Map<string, number>()
      for (const topic of topics) (fixed.has(topic) || flexible.has(topic) ? repartition : others).set(topic, must(topic))
      let n: number
      if (others.size === 0) {
        if (fixed.size > 0) {
          const counts = [...fixed].map(must)
          if (counts.some((c) => c !== counts[0]))
            throw new TopicConfigurationProblem(
              StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
              `Following topics do not have the same number of partitions: [{${sortedPairs(repartition)}}]`,
            )
          n = counts[0]
        } else n = Math.max(0, ...repartition.values())
        if (n === 0)
          throw invalid(`All topics in the copartition group had undefined partition number: [${[...repartition.keys()].join(', ')}]`)
      } else {
        const counts = [...others.values()]
        if (counts.some((c) => c !== counts[0]))
          throw new TopicConfigurationProblem(
            StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
            `Following topics do not have the same number of partitions: [{${sortedPairs(others)}}]`,
          )
        n = counts[0]
      }
      for (const [topic, c] of repartition) {
        decided.set(topic, n)
        if (fixed.has(topic) && c !== n)
          throw new TopicConfigurationProblem(
            StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
            `Number of partitions [${c}] of repartition topic [${topic}] doesn't match number of partitions [${n}] of the source topic.`,
          )
      }
    }
}

/** A Java TreeMap's toString without its braces: "a=1, b=2". */
function sortedPairs(m: Map<string, number>): string {
  return [...m]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')
}
