// wafka/protocol: the low-level pieces, as franz-go keeps kmsg beside kgo:
// every API's generated codecs, the error-code table, request headers,
// Reader/Writer, and the connection and cluster the clients are built on.
export * from '../protocol/index.js'
export {
  COORDINATOR_MOVED,
  STALE_METADATA,
  COMMIT_FENCED,
  REJOIN,
  GROUP_FATAL,
  PRODUCER_FATAL,
  SEQUENCE_LOST,
  FETCH_SESSION_LOST,
} from '../error-policy.js'
export { Cluster, type ClusterOptions, type CoordinatorType, type Lane } from '../cluster/cluster.js'
export { bootstrapNodeId, isBootstrapNodeId } from '../cluster/broker-address.js'
export { Connection, type ConnectionOptions, type RequestOptions } from '../net/connection.js'
export { WafkaError, ProtocolError, KafkaError, ConnectionError, TimeoutError, UnsupportedApiError, kafkaError } from '../errors.js'
