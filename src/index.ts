export * from './codec/index.js'
export * from './errors.js'
export { Kafka, type KafkaConfig } from './kafka.js'
export { Admin, ResourceTypes, ConfigOperations } from './admin/admin.js'
export { Cluster, type ClusterOptions } from './cluster/cluster.js'
export { Connection, type ConnectionOptions } from './net/connection.js'
export * as protocol from './protocol/index.js'
export { Producer, type Message, type ProducerRecord, type RecordMetadata, type Transaction } from './producer/producer.js'
export type { ProducerConfig, Acks } from './producer/config.js'
export { Consumer, ConsumerEvents, type EachMessagePayload, type EachBatchPayload, type RunOptions, type SubscribeOptions } from './consumer/consumer.js'
export type { ConsumerConfig } from './consumer/config.js'
export { Batch } from './consumer/batch.js'
export { Message as KafkaMessage } from './consumer/message.js'
export { CommitFailedError } from './consumer/offsets.js'
export { rangeAssignor, roundRobinAssignor, cooperativeStickyAssignor, type PartitionAssignor } from './consumer/assignors/index.js'
export type {
  SaslConfig, SaslOption, PasswordSaslConfig, OauthbearerSaslConfig, OauthbearerToken, CustomSaslConfig,
  AuthenticationProviderArgs, SaslAuthenticateFn,
} from './net/sasl/types.js'
