// The client API and its types. The codec and the protocol are subpath
// exports: wafka/codec, wafka/protocol.
export * from './errors.js'
export { Kafka, type KafkaConfig } from './kafka.js'
export { logLevel, type LogLevel, type LogCreator, type LogEntry, type Logger } from './logger.js'
export { Admin, ConfigResourceTypes, ConfigOperations, ElectionTypes, type ElectionType } from './admin/admin.js'
export {
  AclResourceTypes,
  AclOperationTypes,
  AclPermissionTypes,
  ResourcePatternTypes,
  type AclEntry,
  type AclFilter,
} from './admin/acls.js'
export type { ScramUpsertion, ScramDeletion, ScramMechanismName } from './admin/scram-credentials.js'
export type { DelegationToken, TokenInformation } from './admin/delegation-tokens.js'
export type { FeatureUpdate, FeatureUpgradeType } from './admin/features.js'
export { ErrorCodes } from './protocol/error-codes.js'
export { loadCodecs, type CompressionName, type CompressionType } from './codec/compression.js'
export type { Bytes, HeadersInput, Headers, HeaderValue } from './codec/types.js'
export { Producer, type Message, type ProducerRecord, type RecordMetadata, type Transaction } from './producer/producer.js'
export type { ProducerConfig, Acks } from './producer/config.js'
export {
  Consumer,
  ConsumerEvents,
  type EachMessagePayload,
  type EachBatchPayload,
  type RunOptions,
  type SubscribeOptions,
  type DisconnectOptions,
} from './consumer/consumer.js'
export type { ConsumerConfig } from './consumer/config.js'
export {
  ShareConsumer,
  ShareConsumerEvents,
  type AcknowledgeType,
  type AcknowledgementResult,
  type ShareDelivery,
  type ShareEachBatchPayload,
  type ShareEachMessagePayload,
  type ShareHandlers,
} from './consumer/share/share-consumer.js'
export { ShareMessage } from './consumer/share/share-message.js'
export type { ShareConsumerConfig, AcknowledgementMode, ShareAcquireMode } from './consumer/share/config.js'
export { Batch } from './consumer/batch.js'
export { KafkaMessage } from './consumer/message.js'
export { CommitFailedError } from './consumer/offsets.js'
export {
  rangeAssignor,
  roundRobinAssignor,
  kafkaJSRoundRobinAssignor,
  cooperativeStickyAssignor,
  type PartitionAssignor,
} from './consumer/assignors/index.js'
export type {
  SaslConfig,
  SaslOption,
  PasswordSaslConfig,
  AwsSaslConfig,
  OauthbearerSaslConfig,
  OauthbearerToken,
  CustomSaslConfig,
  AuthenticationProviderArgs,
  SaslAuthenticateFn,
} from './net/sasl/types.js'
export type { SocketFactory, SocketFactoryArgs } from './net/socket-factory.js'
export {
  channelNames,
  type RequestContext,
  type SendContext,
  type ChannelSendMessage,
  type ProduceContext,
  type ProcessContext,
  type BatchContext,
  type ChannelMessage,
  type CommitContext,
  type RebalanceContext,
  type ChannelPartition,
} from './observe/channels.js'
export { clientChannelName, statsChannelName } from './observe/channel-names.js'
export type {
  ClientStatistics,
  ConsumerStatistics,
  ProducerStatistics,
  PartitionStatistics,
  BrokerStatistics,
  BatchStatistics,
  ClientAnnouncement,
  StatisticsSource,
} from './observe/statistics.js'
