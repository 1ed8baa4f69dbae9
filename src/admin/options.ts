import { callOption as spec, type Alias, type OptionTable } from '../config/option.js'
import { INT32_MAX } from '../int32.js'

/**
 * The options objects of Admin's calls (and their entries), checked by
 * checkOptions() at each call as the producer's and consumer's are
 * (producer/send-options.ts, consumer/call-options.ts). option-keys.ts ties
 * each table to the call's parameter type, so a key added to a call without
 * its table entry does not compile (there, not here: admin.ts, acls.ts and
 * scram-credentials.ts import these tables, so importing their types here
 * would close an import circle).
 */

const timeout = spec('integer', 'ms the call (and the broker) may take.', { max: INT32_MAX })
const topic = spec('string', 'The topic.')
const topics = spec('array', 'Topic names.')
const groupId = spec('string', 'The group.')
const validateOnly = spec('boolean', 'Only check the request: change nothing.')

export const FETCH_TOPIC_METADATA_OPTIONS = {
  topics: spec('array', 'Topic names (default: every topic).'),
} as const satisfies OptionTable

export const CREATE_TOPICS_OPTIONS = {
  topics: spec('array', 'The topics: `{ topic, numPartitions?, replicationFactor?, replicaAssignment?, configEntries? }`.'),
  validateOnly,
  waitForLeaders: spec('boolean', 'Resolve once every new partition has a leader (default true).'),
  timeout,
} as const satisfies OptionTable

export const TOPIC_CONFIG_OPTIONS = {
  topic,
  numPartitions: spec('integer', "Partitions (-1: the broker's num.partitions).", { min: -1, max: INT32_MAX }),
  replicationFactor: spec('integer', "Replicas (-1: the broker's default.replication.factor).", { min: -1, max: 32_767 }),
  replicaAssignment: spec('array', '`{ partition, replicas }` a partition, instead of the two counts.'),
  configEntries: spec('array', '`{ name, value }` topic configs.'),
} as const satisfies OptionTable

export const DELETE_TOPICS_OPTIONS = { topics, timeout } as const satisfies OptionTable

export const CREATE_PARTITIONS_OPTIONS = {
  topicPartitions: spec('array', '`{ topic, count, assignments? }` a topic.'),
  validateOnly,
  timeout,
} as const satisfies OptionTable

export const TOPIC_PARTITIONS_COUNT_OPTIONS = {
  topic,
  count: spec('integer', 'The partition count to grow to.', { min: 1, max: INT32_MAX }),
  assignments: spec('array', "The new partitions' replica lists.", { nullable: true }),
} as const satisfies OptionTable

export const DELETE_RECORDS_OPTIONS = {
  topic,
  partitions: spec('array', '`{ partition, offset }`: delete records before offset.'),
  timeout,
} as const satisfies OptionTable

export const DESCRIBE_CONFIGS_OPTIONS = {
  resources: spec('array', '`{ type, name, configNames? }` (ConfigResourceTypes).'),
  includeSynonyms: spec('boolean', 'Also the synonyms each value comes from.'),
} as const satisfies OptionTable

export const DESCRIBE_CONFIGS_RESOURCE_OPTIONS = {
  type: spec('integer', 'ConfigResourceTypes.'),
  name: spec('string', 'The resource name (a broker: its id).'),
  configNames: spec('array', 'The configs wanted (default: all).', { nullable: true }),
} as const satisfies OptionTable

export const LIST_CONFIG_RESOURCES_OPTIONS = {
  types: spec('array', 'ConfigResourceTypes to list (default: every type the broker lists).'),
} as const satisfies OptionTable

export const UPDATE_FEATURES_OPTIONS = {
  features: spec(
    'object',
    "By feature name: `{ maxVersionLevel, upgradeType? }` ('UPGRADE' default, 'SAFE_DOWNGRADE', 'UNSAFE_DOWNGRADE').",
  ),
  validateOnly,
  timeout,
} as const satisfies OptionTable

export const FEATURE_UPDATE_OPTIONS = {
  maxVersionLevel: spec('integer', 'The level to finalize (0: the feature disabled).', { min: 0, max: 32_767 }),
  upgradeType: spec('string', "'UPGRADE' (default), 'SAFE_DOWNGRADE' or 'UNSAFE_DOWNGRADE'."),
} as const satisfies OptionTable

export const ALTER_CONFIGS_OPTIONS = {
  resources: spec('array', '`{ type, name, configEntries }` (ConfigResourceTypes).'),
  validateOnly,
} as const satisfies OptionTable

export const ALTER_CONFIGS_RESOURCE_OPTIONS = {
  type: spec('integer', 'ConfigResourceTypes.'),
  name: spec('string', 'The resource name (a broker: its id).'),
  configEntries: spec('array', '`{ name, value?, operation? }` a change.'),
} as const satisfies OptionTable

export const CONFIG_ENTRY_OPTIONS = {
  name: spec('string', 'The config.'),
  value: spec('string', 'Its value (DELETE: none).', { nullable: true }),
  operation: spec('string', "'SET' (default), 'DELETE', 'APPEND' or 'SUBTRACT'."),
} as const satisfies OptionTable

export const ELECT_LEADERS_OPTIONS = {
  electionType: spec('string', "'PREFERRED' (default) or 'UNCLEAN'."),
  topicPartitions: spec('array', '`{ topic, partitions }` (null: every partition).', { nullable: true }),
  timeout,
} as const satisfies OptionTable

export const ALTER_REASSIGNMENTS_OPTIONS = {
  topics: spec('array', '`{ topic, partitions: [{ partition, replicas }] }`.'),
  timeout,
} as const satisfies OptionTable

export const LIST_REASSIGNMENTS_OPTIONS = {
  topics: spec('array', '`{ topic, partitions }` (default: all).'),
  timeout,
} as const satisfies OptionTable

export const FETCH_OFFSETS_OPTIONS = {
  groupId,
  topics: spec('array', 'Topic names (default: every topic the group committed).'),
} as const satisfies OptionTable

/** KafkaJS's fetchOffsets option wafka does not take. */
export const FETCH_OFFSETS_ALIASES: Record<string, Alias> = {
  resolveOffsets: { instead: 'offsets come back as committed (-1 where none): fetchTopicOffsets gives the ends to resolve them against' },
}

export const SET_OFFSETS_OPTIONS = {
  groupId,
  topic,
  partitions: spec('array', '`{ partition, offset }` to commit.'),
} as const satisfies OptionTable

export const RESET_OFFSETS_OPTIONS = {
  groupId,
  topic,
  earliest: spec('boolean', 'To the earliest offsets (default: the latest).'),
} as const satisfies OptionTable

export const LIST_GROUPS_OPTIONS = {
  types: spec('array', "Group types to list: 'classic', 'consumer', 'share', 'streams' (default: all)."),
} as const satisfies OptionTable

export const LIST_SHARE_GROUP_OFFSETS_OPTIONS = {
  groupId,
  topics: spec('array', 'Topic names (default: every topic the share group has state for).'),
} as const satisfies OptionTable

export const ALTER_SHARE_GROUP_OFFSETS_OPTIONS = {
  groupId,
  topic,
  partitions: spec('array', '`{ partition, offset }`: where each share partition starts again.'),
} as const satisfies OptionTable

export const DELETE_SHARE_GROUP_OFFSETS_OPTIONS = {
  groupId,
  topics: spec('array', 'Topic names whose share state goes.'),
} as const satisfies OptionTable

export const CREATE_ACLS_OPTIONS = {
  acl: spec('array', 'The ACLs: `{ resourceType, resourceName, resourcePatternType, principal, host, operation, permissionType }`.'),
} as const satisfies OptionTable

export const ACL_ENTRY_OPTIONS = {
  resourceType: spec('integer', 'AclResourceTypes.'),
  resourceName: spec('string', 'The resource.'),
  resourcePatternType: spec('integer', 'ResourcePatternTypes (default LITERAL).'),
  principal: spec('string', "The principal ('User:alice')."),
  host: spec('string', "The host ('*': any)."),
  operation: spec('integer', 'AclOperationTypes.'),
  permissionType: spec('integer', 'AclPermissionTypes.'),
} as const satisfies OptionTable

/** describeAcls(filter) and each of deleteAcls({ filters }): an absent field matches any. */
export const ACL_FILTER_OPTIONS = {
  resourceType: spec('integer', 'AclResourceTypes (default ANY).'),
  resourceName: spec('string', 'The resource (default: any).', { nullable: true }),
  resourcePatternType: spec('integer', 'ResourcePatternTypes (default ANY).'),
  principal: spec('string', 'The principal (default: any).', { nullable: true }),
  host: spec('string', 'The host (default: any).', { nullable: true }),
  operation: spec('integer', 'AclOperationTypes (default ANY).'),
  permissionType: spec('integer', 'AclPermissionTypes (default ANY).'),
} as const satisfies OptionTable

export const DELETE_ACLS_OPTIONS = {
  filters: spec('array', 'The filters: each as describeAcls takes one.'),
} as const satisfies OptionTable

export const DESCRIBE_SCRAM_OPTIONS = {
  users: spec('array', 'User names (default: every user).'),
} as const satisfies OptionTable

export const ALTER_SCRAM_OPTIONS = {
  upsertions: spec('array', '`{ user, mechanism, password, iterations? }` a credential to set.'),
  deletions: spec('array', '`{ user, mechanism }` a credential to delete.'),
} as const satisfies OptionTable

export const SCRAM_UPSERTION_OPTIONS = {
  user: spec('string', 'The user.'),
  mechanism: spec('string', "'SCRAM-SHA-256' or 'SCRAM-SHA-512'."),
  // 'any': the code that takes it checks it without showing the value (a secret).
  password: spec('any', 'The password (never shown in an error).'),
  iterations: spec('integer', 'PBKDF2 iterations (4096-16384, default 4096).', { min: 4096, max: 16_384 }),
} as const satisfies OptionTable

export const SCRAM_DELETION_OPTIONS = {
  user: spec('string', 'The user.'),
  mechanism: spec('string', "'SCRAM-SHA-256' or 'SCRAM-SHA-512'."),
} as const satisfies OptionTable

const principals = (doc: string) => spec('array', doc)

export const CREATE_DELEGATION_TOKEN_OPTIONS = {
  owner: spec('string', "The token's owner, 'User:name' (default: the caller; another needs CREATE_TOKENS on it)."),
  renewers: principals("Who else may renew and expire it, 'User:name' each."),
  maxLifetimeMs: spec('integer', "Its longest life (-1, default: the broker's delegation.token.max.lifetime.ms, also its cap).", {
    min: -1,
    max: Number.MAX_SAFE_INTEGER,
  }),
  timeout,
} as const satisfies OptionTable

export const RENEW_DELEGATION_TOKEN_OPTIONS = {
  renewTimePeriodMs: spec(
    'integer',
    "How long from now it lives (-1, default: the broker's delegation.token.expiry.time.ms, also its cap).",
    {
      min: -1,
      max: Number.MAX_SAFE_INTEGER,
    },
  ),
  timeout,
} as const satisfies OptionTable

export const EXPIRE_DELEGATION_TOKEN_OPTIONS = {
  expiryTimePeriodMs: spec('integer', 'When it expires, from now (negative, default -1: at once, the token removed).', {
    min: Number.MIN_SAFE_INTEGER,
    max: Number.MAX_SAFE_INTEGER,
  }),
  timeout,
} as const satisfies OptionTable

export const DESCRIBE_DELEGATION_TOKEN_OPTIONS = {
  owners: principals("Only the tokens these own or may renew, 'User:name' each (default: every token the caller may see)."),
  timeout,
} as const satisfies OptionTable
