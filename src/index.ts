export * from './codec/index.js'
export { WafkaError, ProtocolError, CorruptRecordError, ConfigError } from './errors.js'
