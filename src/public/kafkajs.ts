// wafka/kafkajs: the KafkaJS drop-in (see src/kafkajs/).
export * from '../kafkajs/index.js'
