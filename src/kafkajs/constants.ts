// KafkaJS's enumerations that wafka's root does not have under these names.
export { AclResourceTypes, AclOperationTypes, AclPermissionTypes, ResourcePatternTypes } from '../admin/acls.js'

/** KafkaJS's ConfigResourceTypes (the DescribeConfigs resource types it knows). */
export const ConfigResourceTypes = { UNKNOWN: 0, TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const

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
