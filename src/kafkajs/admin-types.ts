import type { Buffer } from 'node:buffer'
import type {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  ConfigResourceTypes,
  ConfigSource,
  ResourcePatternTypes,
} from './constants.js'
import type { PartitionMetadata } from './cluster-types.js'
import type { KafkaJSProtocolError } from './errors.js'

/** KafkaJS's admin vocabulary: what its admin calls take and give. */

export interface PartitionOffset {
  partition: number
  offset: string
}
export type SeekEntry = PartitionOffset
export type FetchOffsetsPartition = PartitionOffset & { metadata: string | null }

export interface ReplicaAssignment {
  partition: number
  replicas: number[]
}
export interface IResourceConfigEntry {
  name: string
  value: string
}
export interface ITopicConfig {
  topic: string
  numPartitions?: number
  replicationFactor?: number
  replicaAssignment?: ReplicaAssignment[]
  configEntries?: IResourceConfigEntry[]
}
export interface ITopicPartitionConfig {
  topic: string
  count: number
  assignments?: number[][]
}
export interface ITopicMetadata {
  name: string
  partitions: PartitionMetadata[]
}
export interface PartitionReassignment {
  topic: string
  partitionAssignment: ReplicaAssignment[]
}

export interface ResourceConfigQuery {
  type: ConfigResourceTypes
  name: string
  configNames?: string[]
}
export interface ConfigSynonyms {
  configName: string
  configValue: string
  configSource: ConfigSource
}
export interface ConfigEntries {
  configName: string
  configValue: string
  isDefault: boolean
  configSource: ConfigSource
  isSensitive: boolean
  readOnly: boolean
  configSynonyms: ConfigSynonyms[]
}
export interface DescribeConfigResponse {
  resources: Array<{
    configEntries: ConfigEntries[]
    errorCode: number
    errorMessage: string
    resourceName: string
    resourceType: ConfigResourceTypes
  }>
  throttleTime: number
}
export interface IResourceConfig {
  type: ConfigResourceTypes
  name: string
  configEntries: IResourceConfigEntry[]
}

export interface Acl {
  principal: string
  host: string
  operation: AclOperationTypes
  permissionType: AclPermissionTypes
}
export interface AclResource {
  resourceType: AclResourceTypes
  resourceName: string
  resourcePatternType: ResourcePatternTypes
}
/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s AclEntry. */
export type AclEntry = Acl & AclResource
export type DescribeAclResource = AclResource & { acls: Acl[] }
export interface DescribeAclResponse {
  throttleTime: number
  errorCode: number
  errorMessage?: string
  resources: DescribeAclResource[]
}
/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s AclFilter. */
export interface AclFilter {
  resourceType: AclResourceTypes
  resourceName?: string
  resourcePatternType: ResourcePatternTypes
  principal?: string
  host?: string
  operation: AclOperationTypes
  permissionType: AclPermissionTypes
}
export interface MatchingAcl {
  errorCode: number
  errorMessage?: string
  resourceType: AclResourceTypes
  resourceName: string
  resourcePatternType: ResourcePatternTypes
  principal: string
  host: string
  operation: AclOperationTypes
  permissionType: AclPermissionTypes
}
export interface DeleteAclFilterResponses {
  errorCode: number
  errorMessage?: string
  matchingAcls: MatchingAcl[]
}
export interface DeleteAclResponse {
  throttleTime: number
  filterResponses: DeleteAclFilterResponses[]
}

export interface OngoingPartitionReassignment {
  partitionIndex: number
  replicas: number[]
  addingReplicas?: number[]
  removingReplicas?: number[]
}
export interface OngoingTopicReassignment {
  topic: string
  partitions: OngoingPartitionReassignment[]
}
export interface ListPartitionReassignmentsResponse {
  topics: OngoingTopicReassignment[]
}

export interface GroupOverview {
  groupId: string
  protocolType: string
}
export interface DeleteGroupsResult {
  groupId: string
  errorCode?: number
  error?: KafkaJSProtocolError
}

/** Kafka's classic group states (Java's ConsumerGroupState), as KafkaJS names them. */
export type ConsumerGroupState = 'Unknown' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead' | 'Empty'

/** A member as describeGroups gives it: its subscription and assignment as the consumer protocol's bytes (AssignerProtocol decodes them). */
export interface MemberDescription {
  clientHost: string
  clientId: string
  memberId: string
  memberAssignment: Buffer
  memberMetadata: Buffer
}
export interface GroupDescription {
  groupId: string
  members: MemberDescription[]
  protocol: string
  protocolType: string
  state: ConsumerGroupState
}
export interface GroupDescriptions {
  groups: GroupDescription[]
}
