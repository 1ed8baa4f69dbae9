import type { Buffer } from 'node:buffer'
import type { CompressionTypes } from './compression.js'
import type { Message, TopicOffsets } from './producer.js'
import type { PartitionReassignment, ListPartitionReassignmentsResponse } from './admin-types.js'

/** KafkaJS's cluster vocabulary: partitions, brokers and the cluster view a custom assigner is given. */

export interface PartitionMetadata {
  partitionErrorCode: number
  partitionId: number
  leader: number
  replicas: number[]
  isr: number[]
  offlineReplicas?: number[]
}

export interface TopicPartition {
  topic: string
  partition: number
}
export type TopicPartitionOffset = TopicPartition & { offset: string }
export type TopicPartitionOffsetAndMetadata = TopicPartitionOffset & { metadata?: string | null }
export interface TopicPartitions {
  topic: string
  partitions: number[]
}

/** A member's partitions by topic, as AssignerProtocol's MemberAssignment carries them. */
export interface Assignment {
  [topic: string]: number[]
}

/** How AssignerProtocol's MemberMetadata and MemberAssignment encode and decode. */
export interface ISerializer<T> {
  encode(value: T): Buffer
  decode(buffer: Buffer): T | null
}

/** What a custom partitioner is asked (KafkaJS's createPartitioner). */
export interface PartitionerArgs {
  topic: string
  partitionMetadata: PartitionMetadata[]
  message: Message
}
export type ICustomPartitioner = () => (args: PartitionerArgs) => number
export type DefaultPartitioner = ICustomPartitioner
export type LegacyPartitioner = ICustomPartitioner

export interface BrokerMetadata {
  brokers: Array<{ nodeId: number; host: string; port: number; rack?: string }>
  topicMetadata: Array<{ topicErrorCode: number; topic: string; partitionMetadata: PartitionMetadata[] }>
}

export interface ApiVersions {
  [apiKey: number]: { minVersion: number; maxVersion: number }
}

export interface CoordinatorMetadata {
  errorCode: number
  coordinator: { nodeId: number; host: string; port: number }
}

/** KafkaJS's broker connection (wafka/kafkajs gives none out: its assigners' cluster has no brokers to hand). */
export interface Broker {
  isConnected(): boolean
  connect(): Promise<void>
  disconnect(): Promise<void>
  apiVersions(): Promise<ApiVersions>
  metadata(topics: string[]): Promise<BrokerMetadata>
  describeGroups: (options: { groupIds: string[] }) => Promise<any>
  offsetCommit(request: {
    groupId: string
    groupGenerationId: number
    memberId: string
    retentionTime?: number
    topics: TopicOffsets[]
  }): Promise<any>
  offsetFetch(request: { groupId: string; topics: TopicOffsets[] }): Promise<{ responses: TopicOffsets[] }>
  fetch(request: {
    replicaId?: number
    isolationLevel?: number
    maxWaitTime?: number
    minBytes?: number
    maxBytes?: number
    topics: Array<{ topic: string; partitions: Array<{ partition: number; fetchOffset: string; maxBytes: number }> }>
    rackId?: string
  }): Promise<any>
  produce(request: {
    topicData: Array<{ topic: string; partitions: Array<{ partition: number; firstSequence?: number; messages: Message[] }> }>
    transactionalId?: string
    producerId?: number
    producerEpoch?: number
    acks?: number
    timeout?: number
    compression?: CompressionTypes
  }): Promise<any>
  alterPartitionReassignments(request: { topics: PartitionReassignment[]; timeout?: number }): Promise<any>
  listPartitionReassignments(request: { topics?: TopicPartitions[]; timeout?: number }): Promise<ListPartitionReassignmentsResponse>
}

/** KafkaJS's `{ fromBeginning }` or `{ fromTimestamp }`, one of the two. */
type FromBeginningOrTimestamp = { fromBeginning: boolean; fromTimestamp?: never } | { fromTimestamp: number; fromBeginning?: never }

/**
 * The cluster a custom PartitionAssigner is given. KafkaJS hands its own
 * cluster object; wafka/kafkajs answers findTopicPartitionMetadata (what
 * assigners use) and throws KafkaJSNotImplemented, naming the call, for the rest.
 */
export interface Cluster {
  getNodeIds(): number[]
  metadata(): Promise<BrokerMetadata>
  removeBroker(options: { host: string; port: number }): void
  addMultipleTargetTopics(topics: string[]): Promise<void>
  isConnected(): boolean
  connect(): Promise<void>
  disconnect(): Promise<void>
  refreshMetadata(): Promise<void>
  refreshMetadataIfNecessary(): Promise<void>
  addTargetTopic(topic: string): Promise<void>
  findBroker(node: { nodeId: string }): Promise<Broker>
  findControllerBroker(): Promise<Broker>
  findTopicPartitionMetadata(topic: string): PartitionMetadata[]
  findLeaderForPartitions(topic: string, partitions: number[]): { [leader: string]: number[] }
  findGroupCoordinator(group: { groupId: string }): Promise<Broker>
  findGroupCoordinatorMetadata(group: { groupId: string }): Promise<CoordinatorMetadata>
  defaultOffset(config: { fromBeginning: boolean }): number
  fetchTopicsOffset(
    topics: Array<{ topic: string; partitions: Array<{ partition: number }> } & FromBeginningOrTimestamp>,
  ): Promise<TopicOffsets[]>
}

export interface ConsumerGroup {
  groupId: string
  generationId: number
  memberId: string
  coordinator: Broker
}
