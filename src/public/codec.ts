// wafka/codec: the record-batch codec on its own (CRC-32C, varints,
// RecordBatch v2 encode/decode, compression), for tools that read or write
// Kafka's bytes without a client. The errors it throws come with it.
export * from '../codec/index.js'
export { WafkaError, ProtocolError, CorruptRecordError } from '../errors.js'
