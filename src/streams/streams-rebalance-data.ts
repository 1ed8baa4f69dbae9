// Java's StreamsRebalanceData under the streams protocol (KIP-1071): the
// topology as the group coordinator sees it, sent when the member joins so
// the broker can create the internal topics and assign tasks (each
// sub-topology by its id, "0", "1", ..., its source topics, the repartition
// topics it reads and writes, its stores' changelogs and its co-partition
// groups, as StreamThread.initBrokerTopology builds them); and a task's
// partitions: partition p of each topic its sub-topology reads.
import type {
  StreamsGroupHeartbeatRequestSubtopology,
  StreamsGroupHeartbeatRequestTopicInfo,
  StreamsGroupHeartbeatResponseEndpointToPartitions,
} from '../protocol/messages/index.js'
import type { TopicPartition } from '../consumer/partition-state.js'
import { changelogConfigs, REPARTITION_CONFIGS, type TopicNames } from './internal-topics.js'
import type { Topology } from './topology.js'

/** Java's replication.factor default: -1, the broker's default.replication.factor. */
const REPLICATION_FACTOR = -1
/** Java's StreamsRebalanceData.topologyEpoch(): fixed, as topologies do not change while an instance runs. */
export const TOPOLOGY_EPOCH = 0

/** One task: its sub-topology's id and partition (Java's StreamsRebalanceData.TaskId). */
export interface TaskId {
  subtopologyId: string
  partition: number
}

export const taskName = (t: TaskId): string => `${t.subtopologyId}_${t.partition}`

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

const topicInfo = (name: string, partitions: number, configs: Record<string, string>): StreamsGroupHeartbeatRequestTopicInfo => ({
  name,
  partitions,
  replicationFactor: REPLICATION_FACTOR,
  topicConfigs: Object.entries(configs)
    .map(([key, value]) => ({ key, value }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
})

export class StreamsRebalanceData {
  /** The heartbeat's sub-topologies, sorted by id as Java sends them. */
  readonly subtopologies: StreamsGroupHeartbeatRequestSubtopology[]
  /** Each sub-topology's topics (source and repartition source), by id. */
  private readonly reads = new Map<string, string[]>()

  constructor(topology: Topology, names: TopicNames) {
    const subs = topology.subtopologies()
    const internal = (t: string) => topology.internalTopics.has(t)
    // Java's repartitionSinkTopics: the sinks' topics that some sub-topology reads as a repartition source.
    const repartitionSources = new Set(subs.flatMap((s) => s.sourceTopics.filter(internal)))
    this.subtopologies = subs
      .map((sub) => {
        const sourceTopics = sub.sourceTopics
          .filter((t) => !internal(t))
          .map(names.topicName)
          .sort()
        const repartitionSourceTopics = sub.sourceTopics
          .filter(internal)
          .map((t) => topicInfo(names.topicName(t), topology.internalTopicPartitions.get(t) ?? 0, REPARTITION_CONFIGS))
          .sort(byName)
        const repartitionSinkTopics = [
          ...new Set(
            sub.nodes.flatMap((n) =>
              n.kind === 'sink' && typeof n.topic === 'string' && repartitionSources.has(n.topic) ? [n.topic] : [],
            ),
          ),
        ]
          .map(names.topicName)
          .sort()
        // A changelog's partition count is the sub-topology's task count, which the broker works out: 0 here, as in Java.
        const stateChangelogTopics = sub.stores
          .map((s) => topicInfo(names.changelogTopic(s), 0, changelogConfigs(topology, s)))
          .sort(byName)
        const own = new Set(sub.sourceTopics)
        const copartitionGroups = topology.copartitionGroups
          .filter((group) => group.every((t) => own.has(t)))
          .map((group) => {
            const full = group.map(names.topicName)
            return {
              sourceTopics: full.flatMap((t) => (sourceTopics.includes(t) ? [sourceTopics.indexOf(t)] : [])),
              sourceTopicRegex: [],
              repartitionSourceTopics: full.flatMap((t) => {
                const i = repartitionSourceTopics.findIndex((r) => r.name === t)
                return i >= 0 ? [i] : []
              }),
            }
          })
        this.reads.set(String(sub.id), [...sourceTopics, ...repartitionSourceTopics.map((r) => r.name)])
        return {
          subtopologyId: String(sub.id),
          sourceTopics,
          sourceTopicRegex: [],
          stateChangelogTopics,
          repartitionSinkTopics,
          repartitionSourceTopics,
          copartitionGroups,
        }
      })
      .sort((a, b) => (a.subtopologyId < b.subtopologyId ? -1 : a.subtopologyId > b.subtopologyId ? 1 : 0))
  }

  /** The heartbeat's topology (sent when joining). */
  topology(): { epoch: number; subtopologies: StreamsGroupHeartbeatRequestSubtopology[] } {
    return { epoch: TOPOLOGY_EPOCH, subtopologies: this.subtopologies }
  }

  /** Whether `subtopologyId` is one of this topology's (an assignment naming another cannot be applied). */
  knows(subtopologyId: string): boolean {
    return this.reads.has(subtopologyId)
  }

  /** The partitions active tasks read: partition p of each of their sub-topology's topics (Java's topicPartitionsForActiveTasks). */
  partitionsOf(tasks: readonly TaskId[]): TopicPartition[] {
    return tasks.flatMap((t) => (this.reads.get(t.subtopologyId) ?? []).map((topic) => ({ topic, partition: t.partition })))
  }

  /** Java's setPartitionsByHost: the group's endpoint-to-partitions map, when a heartbeat carries one (it comes only when it changed). */
  partitionsByHostChanged: ((entries: StreamsGroupHeartbeatResponseEndpointToPartitions[]) => void) | undefined

  setPartitionsByHost(entries: StreamsGroupHeartbeatResponseEndpointToPartitions[]): void {
    this.partitionsByHostChanged?.(entries)
  }

  /** Every topic the tasks may read (the consumer's subscription). */
  topics(): string[] {
    return [...new Set([...this.reads.values()].flat())].sort()
  }
}
