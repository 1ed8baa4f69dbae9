import * as acls from '../admin/acls.js'

// KafkaJS's enumerations: each a value and the type of its values, as a TypeScript enum is.
type ValueOf<T> = T[keyof T]

/** KafkaJS 2.2.4-compatible: the same values as `wafka`'s AclResourceTypes. */
export const AclResourceTypes = acls.AclResourceTypes
export type AclResourceTypes = ValueOf<typeof AclResourceTypes>
/** KafkaJS 2.2.4-compatible: the same values as `wafka`'s AclOperationTypes. */
export const AclOperationTypes = acls.AclOperationTypes
export type AclOperationTypes = ValueOf<typeof AclOperationTypes>
/** KafkaJS 2.2.4-compatible: the same values as `wafka`'s AclPermissionTypes. */
export const AclPermissionTypes = acls.AclPermissionTypes
export type AclPermissionTypes = ValueOf<typeof AclPermissionTypes>
/** KafkaJS 2.2.4-compatible: the same values as `wafka`'s ResourcePatternTypes. */
export const ResourcePatternTypes = acls.ResourcePatternTypes
export type ResourcePatternTypes = ValueOf<typeof ResourcePatternTypes>

/**
 * KafkaJS's ConfigResourceTypes (the DescribeConfigs resource types it knows).
 * KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s ConfigResourceTypes (more types).
 */
export const ConfigResourceTypes = { UNKNOWN: 0, TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const
export type ConfigResourceTypes = ValueOf<typeof ConfigResourceTypes>

/** Where a config value comes from (DescribeConfigs v1+ configSource). */
export const ConfigSource = {
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
} as const
export type ConfigSource = ValueOf<typeof ConfigSource>
