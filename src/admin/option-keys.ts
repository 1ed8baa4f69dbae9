import type { Expect, SameKeys } from '../config/option.js'
import type { Admin, TopicConfig } from './admin.js'
import type { AclEntry, AclFilter } from './acls.js'
import type * as tables from './options.js'
import type { ScramDeletion, ScramUpsertion } from './scram-credentials.js'
import type { FeatureUpdate } from './features.js'

/**
 * Compile-time only (nothing imports it): each table of options.ts has
 * exactly the keys of the Admin call's parameter it checks, so a key added to
 * one and not the other fails `tsc`. Kept apart from options.ts, which the
 * files declaring these types import.
 */

/** The first parameter of an Admin call. */
type OptionsOf<K extends keyof Admin> = Admin[K] extends (...args: infer A) => unknown ? NonNullable<A[0]> : never
/** The second parameter of an Admin call (those that take a value first: the token calls' HMAC). */
type SecondOf<K extends keyof Admin> = Admin[K] extends (...args: infer A) => unknown ? NonNullable<A[1]> : never
type EntryOf<T> = T extends ReadonlyArray<infer E> ? E : never

export type AdminOptionKeys = [
  Expect<SameKeys<typeof tables.FETCH_TOPIC_METADATA_OPTIONS, OptionsOf<'fetchTopicMetadata'>>>,
  Expect<SameKeys<typeof tables.CREATE_TOPICS_OPTIONS, OptionsOf<'createTopics'>>>,
  Expect<SameKeys<typeof tables.TOPIC_CONFIG_OPTIONS, TopicConfig>>,
  Expect<SameKeys<typeof tables.DELETE_TOPICS_OPTIONS, OptionsOf<'deleteTopics'>>>,
  Expect<SameKeys<typeof tables.CREATE_PARTITIONS_OPTIONS, OptionsOf<'createPartitions'>>>,
  Expect<SameKeys<typeof tables.TOPIC_PARTITIONS_COUNT_OPTIONS, EntryOf<OptionsOf<'createPartitions'>['topicPartitions']>>>,
  Expect<SameKeys<typeof tables.DELETE_RECORDS_OPTIONS, OptionsOf<'deleteRecords'>>>,
  Expect<SameKeys<typeof tables.DESCRIBE_CONFIGS_OPTIONS, OptionsOf<'describeConfigs'>>>,
  Expect<SameKeys<typeof tables.DESCRIBE_CONFIGS_RESOURCE_OPTIONS, EntryOf<OptionsOf<'describeConfigs'>['resources']>>>,
  Expect<SameKeys<typeof tables.LIST_CONFIG_RESOURCES_OPTIONS, OptionsOf<'listConfigResources'>>>,
  Expect<SameKeys<typeof tables.UPDATE_FEATURES_OPTIONS, OptionsOf<'updateFeatures'>>>,
  Expect<SameKeys<typeof tables.FEATURE_UPDATE_OPTIONS, FeatureUpdate>>,
  Expect<SameKeys<typeof tables.ALTER_CONFIGS_OPTIONS, OptionsOf<'alterConfigs'>>>,
  Expect<SameKeys<typeof tables.ALTER_CONFIGS_RESOURCE_OPTIONS, EntryOf<OptionsOf<'alterConfigs'>['resources']>>>,
  Expect<SameKeys<typeof tables.CONFIG_ENTRY_OPTIONS, EntryOf<EntryOf<OptionsOf<'alterConfigs'>['resources']>['configEntries']>>>,
  Expect<SameKeys<typeof tables.ELECT_LEADERS_OPTIONS, OptionsOf<'electLeaders'>>>,
  Expect<SameKeys<typeof tables.ALTER_REASSIGNMENTS_OPTIONS, OptionsOf<'alterPartitionReassignments'>>>,
  Expect<SameKeys<typeof tables.LIST_REASSIGNMENTS_OPTIONS, OptionsOf<'listPartitionReassignments'>>>,
  Expect<SameKeys<typeof tables.FETCH_OFFSETS_OPTIONS, OptionsOf<'fetchOffsets'>>>,
  Expect<SameKeys<typeof tables.SET_OFFSETS_OPTIONS, OptionsOf<'setOffsets'>>>,
  Expect<SameKeys<typeof tables.RESET_OFFSETS_OPTIONS, OptionsOf<'resetOffsets'>>>,
  Expect<SameKeys<typeof tables.LIST_GROUPS_OPTIONS, OptionsOf<'listGroups'>>>,
  Expect<SameKeys<typeof tables.LIST_SHARE_GROUP_OFFSETS_OPTIONS, OptionsOf<'listShareGroupOffsets'>>>,
  Expect<SameKeys<typeof tables.ALTER_SHARE_GROUP_OFFSETS_OPTIONS, OptionsOf<'alterShareGroupOffsets'>>>,
  Expect<SameKeys<typeof tables.DELETE_SHARE_GROUP_OFFSETS_OPTIONS, OptionsOf<'deleteShareGroupOffsets'>>>,
  Expect<SameKeys<typeof tables.CREATE_ACLS_OPTIONS, OptionsOf<'createAcls'>>>,
  Expect<SameKeys<typeof tables.ACL_ENTRY_OPTIONS, AclEntry>>,
  Expect<SameKeys<typeof tables.ACL_FILTER_OPTIONS, AclFilter>>,
  Expect<SameKeys<typeof tables.DELETE_ACLS_OPTIONS, OptionsOf<'deleteAcls'>>>,
  Expect<SameKeys<typeof tables.DESCRIBE_SCRAM_OPTIONS, OptionsOf<'describeUserScramCredentials'>>>,
  Expect<SameKeys<typeof tables.ALTER_SCRAM_OPTIONS, OptionsOf<'alterUserScramCredentials'>>>,
  Expect<SameKeys<typeof tables.SCRAM_UPSERTION_OPTIONS, ScramUpsertion>>,
  Expect<SameKeys<typeof tables.SCRAM_DELETION_OPTIONS, ScramDeletion>>,
  Expect<SameKeys<typeof tables.CREATE_DELEGATION_TOKEN_OPTIONS, OptionsOf<'createDelegationToken'>>>,
  Expect<SameKeys<typeof tables.DESCRIBE_DELEGATION_TOKEN_OPTIONS, OptionsOf<'describeDelegationToken'>>>,
  Expect<SameKeys<typeof tables.RENEW_DELEGATION_TOKEN_OPTIONS, SecondOf<'renewDelegationToken'>>>,
  Expect<SameKeys<typeof tables.EXPIRE_DELEGATION_TOKEN_OPTIONS, SecondOf<'expireDelegationToken'>>>,
]
