// wafka/kafkajs: KafkaJS 2.2.4's API over wafka's engine. A KafkaJS program
// changes `from 'kafkajs'` to `from 'wafka/kafkajs'` and nothing else.
export { Kafka } from './kafka.js'
export { logLevel, type logCreator } from './levels.js'
export type { LogLevel, LogEntry, Logger, LogCreator } from '../logger.js'
export { CompressionTypes, CompressionCodecs, type CompressionCodec } from './compression.js'
export { Partitioners, type ICustomPartitioner } from './partitioners.js'
export {
  PartitionAssigners,
  type Assigner,
  type PartitionAssigner,
  type GroupMember,
  type GroupMemberAssignment,
  type GroupState,
} from './assigners.js'
export { AssignerProtocol, type MemberMetadata, type MemberAssignment } from './assigner-protocol.js'
export {
  ConfigResourceTypes,
  ConfigSource,
  AclResourceTypes,
  AclOperationTypes,
  AclPermissionTypes,
  ResourcePatternTypes,
} from './constants.js'
export {
  KafkaJSError,
  KafkaJSNonRetriableError,
  KafkaJSPartialMessageError,
  KafkaJSBrokerNotFound,
  KafkaJSProtocolError,
  KafkaJSConnectionError,
  KafkaJSConnectionClosedError,
  KafkaJSRequestTimeoutError,
  KafkaJSSASLAuthenticationError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSOffsetOutOfRange,
  KafkaJSMemberIdRequired,
  KafkaJSGroupCoordinatorNotFound,
  KafkaJSNotImplemented,
  KafkaJSMetadataNotLoaded,
  KafkaJSTopicMetadataNotLoaded,
  KafkaJSStaleTopicMetadataAssignment,
  KafkaJSDeleteGroupsError,
  KafkaJSTimeout,
  KafkaJSLockTimeout,
  KafkaJSServerDoesNotSupportApiKey,
  KafkaJSUnsupportedMagicByteInMessageSet,
  KafkaJSDeleteTopicRecordsError,
  KafkaJSInvariantViolation,
  KafkaJSInvalidVarIntError,
  KafkaJSInvalidLongError,
  KafkaJSCreateTopicError,
  KafkaJSAggregateError,
  KafkaJSFetcherRebalanceError,
  KafkaJSNoBrokerAvailableError,
  KafkaJSAlterPartitionReassignmentsError,
} from './errors.js'
export type { KafkaConfig, ProducerConfig, ConsumerConfig, SASLOptions, BrokersFunction } from './options.js'
export type { RetryOptions } from './retry.js'
export type {
  Producer,
  Message,
  ProducerRecord,
  ProducerBatch,
  TopicMessages,
  RecordMetadata,
  Transaction,
  Offsets,
  TopicOffsets,
} from './producer.js'
export type {
  Consumer,
  ConsumerSubscribeTopics,
  ConsumerSubscribeTopic,
  TopicPartitionOffsetAndMetadata,
  GroupDescription,
} from './consumer.js'
export type {
  EachMessagePayload,
  EachBatchPayload,
  EachMessageHandler,
  EachBatchHandler,
  ConsumerRunConfig,
  OffsetsByTopicPartition,
} from './run.js'
export type { Admin, AdminConfig, ITopicConfig } from './admin.js'
export type { KafkaMessage, Batch, IHeaders } from './messages.js'
export type { InstrumentationEvent, RemoveInstrumentationEventListener } from './events.js'
