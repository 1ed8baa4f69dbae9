import type { ClusterClient } from '../cluster/client.js'
import { createAcls, deleteAcls, describeAcls, type AclEntry, type AclFilter } from './acls.js'
import {
  createDelegationToken,
  describeDelegationToken,
  expireDelegationToken,
  renewDelegationToken,
  type DelegationToken,
} from './delegation-tokens.js'
import { alterUserScramCredentials, describeUserScramCredentials, type ScramDeletion, type ScramUpsertion } from './scram-credentials.js'
import { checkArgument, checkEntries, checkOptions } from '../config/option.js'
import {
  ALTER_CONFIGS_OPTIONS,
  ALTER_CONFIGS_RESOURCE_OPTIONS,
  ALTER_REASSIGNMENTS_OPTIONS,
  ALTER_SCRAM_OPTIONS,
  ACL_FILTER_OPTIONS,
  CREATE_ACLS_OPTIONS,
  CREATE_DELEGATION_TOKEN_OPTIONS,
  DESCRIBE_DELEGATION_TOKEN_OPTIONS,
  EXPIRE_DELEGATION_TOKEN_OPTIONS,
  RENEW_DELEGATION_TOKEN_OPTIONS,
  DELETE_ACLS_OPTIONS,
  DESCRIBE_SCRAM_OPTIONS,
  CONFIG_ENTRY_OPTIONS,
  CREATE_PARTITIONS_OPTIONS,
  CREATE_TOPICS_OPTIONS,
  DELETE_RECORDS_OPTIONS,
  DELETE_TOPICS_OPTIONS,
  DESCRIBE_CONFIGS_OPTIONS,
  DESCRIBE_CONFIGS_RESOURCE_OPTIONS,
  ELECT_LEADERS_OPTIONS,
  FEATURE_UPDATE_OPTIONS,
  LIST_CONFIG_RESOURCES_OPTIONS,
  UPDATE_FEATURES_OPTIONS,
  FETCH_OFFSETS_ALIASES,
  FETCH_OFFSETS_OPTIONS,
  FETCH_TOPIC_METADATA_OPTIONS,
  LIST_REASSIGNMENTS_OPTIONS,
  RESET_OFFSETS_OPTIONS,
  SET_OFFSETS_OPTIONS,
  LIST_SHARE_GROUP_OFFSETS_OPTIONS,
  LIST_GROUPS_OPTIONS,
  ALTER_SHARE_GROUP_OFFSETS_OPTIONS,
  DELETE_SHARE_GROUP_OFFSETS_OPTIONS,
  TOPIC_CONFIG_OPTIONS,
  TOPIC_PARTITIONS_COUNT_OPTIONS,
} from './options.js'
import { describeCluster } from './cluster-info.js'
import { alterConfigs, describeConfigs, listConfigResources, type ConfigOperation } from './configs.js'
import { describeFeatures, updateFeatures, type FeatureUpdate } from './features.js'
import { fetchOffsets, resetOffsets, setOffsets } from './group-offsets.js'
import { deleteGroups, describeGroups, listGroups } from './groups.js'
import { alterShareGroupOffsets, deleteShareGroupOffsets, describeShareGroups, listShareGroupOffsets } from './share-groups.js'
import { describeStreamsGroups } from './streams-groups.js'
import { deleteRecords, fetchTopicOffsets, fetchTopicOffsetsByTimestamp, listOffsets } from './offsets.js'
import {
  alterPartitionReassignments,
  electLeaders,
  listPartitionReassignments,
  type ElectionType,
  type TopicPartitions,
} from './replicas.js'
import { createPartitions, createTopics, deleteTopics, fetchTopicMetadata, listTopics, type TopicConfig } from './topics.js'

export { ConfigResourceTypes, ConfigOperations, type ConfigOperation } from './configs.js'
export { ElectionTypes, type ElectionType, type TopicPartitions } from './replicas.js'
export type { TopicConfig } from './topics.js'

/**
 * Cluster administration, shaped like KafkaJS's admin client (same method
 * names and results; offsets as strings as KafkaJS gives them). Every call
 * retries retriable errors until `timeout` (default: defaultApiTimeoutMs).
 * The facade checks each call's options; the work is in a module per
 * domain: topics, offsets (and records), configs, replicas (leaders and
 * reassignments), groups, group-offsets, cluster-info, features, acls,
 * scram-credentials, delegation-tokens.
 */
export class Admin {
  constructor(private readonly cluster: ClusterClient) {}

  connect(): Promise<void> {
    return this.cluster.connect()
  }

  disconnect(): Promise<void> {
    return this.cluster.disconnect()
  }

  async listTopics(): Promise<string[]> {
    return listTopics(this.cluster)
  }

  async fetchTopicMetadata(options: { topics?: string[] } = {}) {
    checkOptions('fetchTopicMetadata()', options, FETCH_TOPIC_METADATA_OPTIONS)
    return fetchTopicMetadata(this.cluster, options)
  }

  async describeCluster() {
    return describeCluster(this.cluster)
  }

  /** Creates topics; resolves false when every one already existed (as KafkaJS does). */
  async createTopics(options: {
    topics: TopicConfig[]
    validateOnly?: boolean
    waitForLeaders?: boolean
    timeout?: number
  }): Promise<boolean> {
    checkOptions('createTopics()', options, CREATE_TOPICS_OPTIONS)
    checkEntries('createTopics() topics', options.topics, TOPIC_CONFIG_OPTIONS)
    return createTopics(this.cluster, options)
  }

  async deleteTopics(options: { topics: string[]; timeout?: number }): Promise<void> {
    return deleteTopics(this.cluster, checkOptions('deleteTopics()', options, DELETE_TOPICS_OPTIONS))
  }

  async createPartitions(options: {
    topicPartitions: Array<{ topic: string; count: number; assignments?: number[][] }>
    validateOnly?: boolean
    timeout?: number
  }): Promise<void> {
    checkOptions('createPartitions()', options, CREATE_PARTITIONS_OPTIONS)
    checkEntries('createPartitions() topicPartitions', options.topicPartitions, TOPIC_PARTITIONS_COUNT_OPTIONS)
    return createPartitions(this.cluster, options)
  }

  /** Deletes records before the given offsets (each partition's leader sets its low watermark). */
  async deleteRecords(options: {
    topic: string
    partitions: Array<{ partition: number; offset: string | number | bigint }>
    timeout?: number
  }): Promise<Array<{ partition: number; lowWatermark: string }>> {
    return deleteRecords(this.cluster, checkOptions('deleteRecords()', options, DELETE_RECORDS_OPTIONS))
  }

  /** Per partition: the latest offset (`offset`, `high`) and the earliest (`low`), as KafkaJS returns them. */
  async fetchTopicOffsets(topic: string) {
    checkArgument('fetchTopicOffsets()', 'topic', topic, { kind: 'string' })
    return fetchTopicOffsets(this.cluster, topic)
  }

  /** Per partition: the earliest offset whose timestamp is at or after `timestamp` (latest when none). */
  async fetchTopicOffsetsByTimestamp(topic: string, timestamp?: number) {
    checkArgument('fetchTopicOffsetsByTimestamp()', 'topic', topic, { kind: 'string' })
    checkArgument('fetchTopicOffsetsByTimestamp()', 'timestamp', timestamp, { kind: 'integer', optional: true })
    return fetchTopicOffsetsByTimestamp(this.cluster, topic, timestamp)
  }

  /** ListOffsets at each partition's leader: offset by partition. */
  async listOffsets(topic: string, partitions: number[], timestamp: bigint, isolationLevel = 0): Promise<Map<number, bigint>> {
    return listOffsets(this.cluster, topic, partitions, timestamp, isolationLevel)
  }

  async describeConfigs(options: {
    resources: Array<{ type: number; name: string; configNames?: string[] | null }>
    includeSynonyms?: boolean
  }) {
    checkOptions('describeConfigs()', options, DESCRIBE_CONFIGS_OPTIONS)
    checkEntries('describeConfigs() resources', options.resources, DESCRIBE_CONFIGS_RESOURCE_OPTIONS)
    return describeConfigs(this.cluster, options)
  }

  /**
   * The resources configs can be described for (ListConfigResources, as
   * Java's Admin#listConfigResources): `{ type, name }` of each group with
   * configs, broker (and its loggers), topic and client-metrics
   * subscription, or of the `types` (ConfigResourceTypes) asked for.
   */
  async listConfigResources(options: { types?: number[] } = {}): Promise<Array<{ type: number; name: string }>> {
    checkOptions('listConfigResources()', options, LIST_CONFIG_RESOURCES_OPTIONS)
    checkArgument('listConfigResources()', 'types', options.types, { kind: 'array', entries: 'integer', optional: true })
    return listConfigResources(this.cluster, options.types)
  }

  /**
   * What a broker supports of the cluster's features and the levels the
   * cluster finalized (KIP-584, Java's Admin#describeFeatures):
   * `{ supported: { name: { minVersion, maxVersion } }, finalized: { name:
   * { minVersionLevel, maxVersionLevel } }, epoch }`.
   */
  async describeFeatures() {
    return describeFeatures(this.cluster)
  }

  /**
   * Finalizes feature levels (UpdateFeatures, Java's Admin#updateFeatures):
   * a lower level needs upgradeType 'SAFE_DOWNGRADE' or 'UNSAFE_DOWNGRADE';
   * the controller takes every update or none, and its refusal is thrown.
   */
  async updateFeatures(options: { features: Record<string, FeatureUpdate>; validateOnly?: boolean; timeout?: number }): Promise<void> {
    checkOptions('updateFeatures()', options, UPDATE_FEATURES_OPTIONS)
    checkArgument('updateFeatures()', 'features', options.features, { kind: 'object' })
    for (const [name, u] of Object.entries(options.features)) checkOptions(`updateFeatures() features.${name}`, u, FEATURE_UPDATE_OPTIONS)
    return updateFeatures(this.cluster, options)
  }

  /** Incremental config changes (IncrementalAlterConfigs): each entry says SET, DELETE, APPEND or SUBTRACT (default SET). */
  async alterConfigs(options: {
    resources: Array<{
      type: number
      name: string
      configEntries: Array<{ name: string; value?: string | null; operation?: ConfigOperation }>
    }>
    validateOnly?: boolean
  }) {
    checkOptions('alterConfigs()', options, ALTER_CONFIGS_OPTIONS)
    checkEntries('alterConfigs() resources', options.resources, ALTER_CONFIGS_RESOURCE_OPTIONS)
    for (const r of options.resources) checkEntries(`alterConfigs() ${r.name} configEntries`, r.configEntries, CONFIG_ENTRY_OPTIONS)
    return alterConfigs(this.cluster, options)
  }

  /**
   * Leader elections (ElectLeaders): the preferred replica (the first of the
   * replica list) or, UNCLEAN, any live replica. `topicPartitions` null: every
   * partition. Per partition its outcome: `error` null when a leader was
   * elected, else the broker's KafkaError (ELECTION_NOT_NEEDED when the
   * preferred replica already leads), as the Java client reports it.
   */
  async electLeaders(options: { electionType?: ElectionType; topicPartitions?: TopicPartitions[] | null; timeout?: number } = {}) {
    checkOptions('electLeaders()', options, ELECT_LEADERS_OPTIONS)
    return electLeaders(this.cluster, options)
  }

  /**
   * Moves partitions to new replica lists (AlterPartitionReassignments);
   * `replicas: null` cancels a reassignment in progress. Resolves once the
   * controller accepted them (the data moves afterwards: see
   * listPartitionReassignments); throws the first partition's error.
   */
  async alterPartitionReassignments(options: {
    topics: Array<{ topic: string; partitions: Array<{ partition: number; replicas: number[] | null }> }>
    timeout?: number
  }) {
    checkOptions('alterPartitionReassignments()', options, ALTER_REASSIGNMENTS_OPTIONS)
    return alterPartitionReassignments(this.cluster, options)
  }

  /** Reassignments in progress (of `topics`, else all): target replicas and those being added and removed. */
  async listPartitionReassignments(options: { topics?: TopicPartitions[]; timeout?: number } = {}) {
    checkOptions('listPartitionReassignments()', options, LIST_REASSIGNMENTS_OPTIONS)
    return listPartitionReassignments(this.cluster, options)
  }

  /** Every group on every broker (each broker lists the groups it coordinates); of `types` only ('classic', 'consumer', 'share', 'streams') when given. */
  async listGroups(options: { types?: string[] } = {}) {
    return listGroups(this.cluster, checkOptions('listGroups()', options, LIST_GROUPS_OPTIONS).types)
  }

  /**
   * Groups of either type. DescribeGroups knows only classic groups (it
   * calls a KIP-848 group Dead); for those the broker's ConsumerGroupDescribe
   * answers, as the Java admin client asks it. KIP-848 members carry their
   * `assignment` as topic partitions and empty metadata/assignment bytes.
   */
  async describeGroups(groupIds: string[]) {
    checkArgument('describeGroups()', 'groupIds', groupIds, { kind: 'array', entries: 'string' })
    return describeGroups(this.cluster, groupIds)
  }

  async deleteGroups(groupIds: string[]) {
    checkArgument('deleteGroups()', 'groupIds', groupIds, { kind: 'array', entries: 'string' })
    return deleteGroups(this.cluster, groupIds)
  }

  /** Committed offsets of a group (for `topics`, else every topic it committed); -1 where none. */
  async fetchOffsets(options: { groupId: string; topics?: string[] }) {
    checkOptions('fetchOffsets()', options, FETCH_OFFSETS_OPTIONS, FETCH_OFFSETS_ALIASES)
    return fetchOffsets(this.cluster, options)
  }

  /** Commits offsets for a group that has no active members (as KafkaJS's setOffsets). */
  async setOffsets(options: {
    groupId: string
    topic: string
    partitions: Array<{ partition: number; offset: string | number | bigint }>
  }): Promise<void> {
    return setOffsets(this.cluster, checkOptions('setOffsets()', options, SET_OFFSETS_OPTIONS))
  }

  /** Moves a group's committed offsets on `topic` to the earliest (or latest) ones. */
  async resetOffsets(options: { groupId: string; topic: string; earliest?: boolean }): Promise<void> {
    return resetOffsets(this.cluster, checkOptions('resetOffsets()', options, RESET_OFFSETS_OPTIONS))
  }

  /** Share groups (KIP-932): state, epochs, assignor and members with their assignments (Java's describeShareGroups). */
  async describeShareGroups(groupIds: string[]) {
    checkArgument('describeShareGroups()', 'groupIds', groupIds, { kind: 'array', entries: 'string' })
    return describeShareGroups(this.cluster, groupIds)
  }

  /**
   * Streams groups (KIP-1071): state, epochs, assignor, the topology the coordinator holds and members with their
   * process, endpoint and current and target tasks (Java's describeStreamsGroups).
   */
  async describeStreamsGroups(groupIds: string[]) {
    checkArgument('describeStreamsGroups()', 'groupIds', groupIds, { kind: 'array', entries: 'string' })
    return describeStreamsGroups(this.cluster, groupIds)
  }

  /** A share group's start offset per partition (of `topics`, else all it has state for) and lag where the broker tells it; '-1' where none. */
  async listShareGroupOffsets(options: { groupId: string; topics?: string[] }) {
    return listShareGroupOffsets(this.cluster, checkOptions('listShareGroupOffsets()', options, LIST_SHARE_GROUP_OFFSETS_OPTIONS))
  }

  /** Sets an empty share group's start offsets on `topic`: those partitions start again there, nothing in flight. */
  async alterShareGroupOffsets(options: {
    groupId: string
    topic: string
    partitions: Array<{ partition: number; offset: string | number | bigint }>
  }): Promise<void> {
    return alterShareGroupOffsets(this.cluster, checkOptions('alterShareGroupOffsets()', options, ALTER_SHARE_GROUP_OFFSETS_OPTIONS))
  }

  /** Deletes an empty share group's state of whole topics: a later member starts them at share.auto.offset.reset. */
  async deleteShareGroupOffsets(options: { groupId: string; topics: string[] }): Promise<void> {
    return deleteShareGroupOffsets(this.cluster, checkOptions('deleteShareGroupOffsets()', options, DELETE_SHARE_GROUP_OFFSETS_OPTIONS))
  }

  /** Creates ACLs (KafkaJS: `createAcls({ acl: [...] })`); StandardAuthorizer applies them cluster-wide. */
  async createAcls(options: { acl: AclEntry[] }): Promise<boolean> {
    return createAcls(this.cluster, checkOptions('createAcls()', options, CREATE_ACLS_OPTIONS).acl)
  }

  /** The ACLs matching a filter, grouped by resource (KafkaJS's result shape). */
  async describeAcls(filter: AclFilter = {}) {
    return describeAcls(this.cluster, checkOptions('describeAcls()', filter, ACL_FILTER_OPTIONS))
  }

  /** Deletes the ACLs matching each filter; says which were deleted (KafkaJS's result shape). */
  async deleteAcls(options: { filters: AclFilter[] }) {
    checkOptions('deleteAcls()', options, DELETE_ACLS_OPTIONS)
    return deleteAcls(this.cluster, options.filters)
  }

  /** Users' SCRAM credentials: mechanisms and iterations, never secrets (KIP-554). */
  async describeUserScramCredentials(options: { users?: string[] } = {}) {
    checkOptions('describeUserScramCredentials()', options, DESCRIBE_SCRAM_OPTIONS)
    return describeUserScramCredentials(this.cluster, options.users)
  }

  /** Creates, replaces or deletes users' SCRAM credentials (KIP-554); Kafka takes one change per user per call. */
  async alterUserScramCredentials(changes: { upsertions?: ScramUpsertion[]; deletions?: ScramDeletion[] }): Promise<void> {
    return alterUserScramCredentials(this.cluster, checkOptions('alterUserScramCredentials()', changes, ALTER_SCRAM_OPTIONS))
  }

  /**
   * A delegation token (KIP-48) for the caller, or for `owner` (KIP-373);
   * Java's Admin.createDelegationToken. Its HMAC, base64, is the password
   * of a SCRAM login with `tokenAuth: true` and the token id as user name.
   */
  async createDelegationToken(
    options: { owner?: string; renewers?: string[]; maxLifetimeMs?: number; timeout?: number } = {},
  ): Promise<DelegationToken> {
    checkOptions('createDelegationToken()', options, CREATE_DELEGATION_TOKEN_OPTIONS)
    return createDelegationToken(this.cluster, options)
  }

  /** Renews the token whose HMAC this is (by its owner or a renewer); resolves to its new expiry timestamp (epoch ms). */
  async renewDelegationToken(hmac: Uint8Array, options: { renewTimePeriodMs?: number; timeout?: number } = {}): Promise<number> {
    checkOptions('renewDelegationToken()', options, RENEW_DELEGATION_TOKEN_OPTIONS)
    return renewDelegationToken(this.cluster, hmac, options)
  }

  /** Expires the token whose HMAC this is, `expiryTimePeriodMs` from now (default: at once); resolves to its expiry timestamp. */
  async expireDelegationToken(hmac: Uint8Array, options: { expiryTimePeriodMs?: number; timeout?: number } = {}): Promise<number> {
    checkOptions('expireDelegationToken()', options, EXPIRE_DELEGATION_TOKEN_OPTIONS)
    return expireDelegationToken(this.cluster, hmac, options)
  }

  /** The delegation tokens the caller may see, of `owners` (default: all). */
  async describeDelegationToken(options: { owners?: string[]; timeout?: number } = {}): Promise<DelegationToken[]> {
    checkOptions('describeDelegationToken()', options, DESCRIBE_DELEGATION_TOKEN_OPTIONS)
    return describeDelegationToken(this.cluster, options)
  }
}
