import { Buffer } from 'node:buffer'
import { kafkaJSRoundRobinAssignor, type PartitionAssignor } from '../consumer/assignors/index.js'
import type { AssignContext, MemberAssignment as EngineAssignment } from '../consumer/assignors/assignor.js'
import { AssignerProtocol } from './assigner-protocol.js'
import type { Logger } from './logger.js'
import type { Cluster, PartitionMetadata } from './cluster-types.js'
import { KafkaJSNotImplemented } from './errors.js'

export interface GroupMember {
  memberId: string
  memberMetadata: Buffer
}

export interface GroupMemberAssignment {
  memberId: string
  memberAssignment: Buffer
}

export interface GroupState {
  name: string
  metadata: Buffer
}

/** KafkaJS's assigner: a factory given the cluster, returning the protocol it offers and how it assigns. */
export interface Assigner {
  name: string
  version: number
  assign(group: { members: GroupMember[]; topics: string[]; userData?: Buffer }): Promise<GroupMemberAssignment[]>
  protocol(subscription: { topics: string[] }): GroupState
}

export type PartitionAssigner = (config: { cluster: Cluster; groupId: string; logger: Logger }) => Assigner

/** The calls of KafkaJS's Cluster an assigner is not given here (it is given the partitions of each topic). */
const NOT_GIVEN = [
  'getNodeIds',
  'metadata',
  'removeBroker',
  'addMultipleTargetTopics',
  'isConnected',
  'connect',
  'disconnect',
  'refreshMetadata',
  'refreshMetadataIfNecessary',
  'addTargetTopic',
  'findBroker',
  'findControllerBroker',
  'findLeaderForPartitions',
  'findGroupCoordinator',
  'findGroupCoordinatorMetadata',
  'defaultOffset',
  'fetchTopicsOffset',
] as const

/** An assigner's cluster: the topics' partitions, and a clear error for the rest. */
function assignerCluster(findTopicPartitionMetadata: (topic: string) => PartitionMetadata[]): Cluster {
  const cluster: Record<string, unknown> = { findTopicPartitionMetadata }
  for (const name of NOT_GIVEN)
    cluster[name] = () => {
      throw new KafkaJSNotImplemented(`wafka/kafkajs: a partition assigner's cluster has findTopicPartitionMetadata() only, not ${name}()`)
    }
  return cluster as unknown as Cluster
}

/** The engine's assignor a KafkaJS built-in stands for. */
const ENGINE = Symbol('wafka.assignor')

/**
 * KafkaJS's round robin, under its protocol name and v0 encoding; wafka runs
 * it as its own RoundRobinAssigner (Java's round robin, with KafkaJS's name),
 * so KafkaJS and wafka members share a group.
 */
const roundRobin: PartitionAssigner = Object.assign(
  ({ cluster }: { cluster: Cluster }): Assigner => ({
    name: 'RoundRobinAssigner',
    version: 0,
    async assign({ members, topics }) {
      const ids = members.map((m) => m.memberId).sort()
      const out = new Map<string, Record<string, number[]>>(ids.map((id) => [id, {}]))
      let i = 0
      for (const topic of topics)
        for (const { partitionId } of cluster.findTopicPartitionMetadata(topic)) {
          const a = out.get(ids[i++ % ids.length])!
          ;(a[topic] ??= []).push(partitionId)
        }
      return [...out].map(([memberId, assignment]) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment }),
      }))
    },
    protocol({ topics }) {
      return { name: 'RoundRobinAssigner', metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics }) }
    },
  }),
  { [ENGINE]: kafkaJSRoundRobinAssignor },
)

export const PartitionAssigners = { roundRobin }

/**
 * The engine's assignor for a KafkaJS assigner factory: a built-in maps to
 * the engine's own, a custom one is run as KafkaJS runs it (members'
 * metadata as v0 MemberMetadata, assignments decoded from its buffers).
 */
export function engineAssignor(factory: PartitionAssigner, groupId: string, logger: Logger): PartitionAssignor {
  const builtIn = (factory as unknown as Record<symbol, PartitionAssignor | undefined>)[ENGINE]
  if (builtIn) return builtIn
  let counts = new Map<string, number>()
  const cluster = assignerCluster((topic) =>
    Array.from({ length: counts.get(topic) ?? 0 }, (_, partitionId) => ({
      partitionId,
      leader: -1,
      replicas: [],
      isr: [],
      partitionErrorCode: 0,
    })),
  )
  const assigner = factory({ cluster, groupId, logger })
  return {
    name: assigner.name,
    rebalanceProtocol: 'eager',
    subscriptionUserData: () => {
      const { metadata } = assigner.protocol({ topics: [] })
      const { userData } = AssignerProtocol.MemberMetadata.decode(metadata)
      return userData.length > 0 ? userData : null
    },
    async assign({ members, partitionCounts }: AssignContext) {
      counts = partitionCounts
      const topics = [...new Set(members.flatMap((m) => m.topics))].filter((t) => partitionCounts.has(t))
      const given = await assigner.assign({
        topics,
        members: members.map((m) => ({
          memberId: m.memberId,
          memberMetadata: AssignerProtocol.MemberMetadata.encode({
            version: assigner.version,
            topics: m.topics,
            userData: m.userData ?? Buffer.alloc(0),
          }),
        })),
      })
      const result = new Map<string, EngineAssignment>()
      for (const { memberId, memberAssignment } of given) {
        const decoded = AssignerProtocol.MemberAssignment.decode(memberAssignment)
        result.set(memberId, {
          partitions: Object.entries(decoded?.assignment ?? {}).map(([topic, partitions]) => ({ topic, partitions })),
          userData: decoded && decoded.userData.length > 0 ? decoded.userData : null,
        })
      }
      return result
    },
  }
}
