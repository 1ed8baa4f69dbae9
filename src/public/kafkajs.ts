// wafka/kafkajs: the KafkaJS drop-in (see src/kafkajs/).
import * as kafkajs from '../kafkajs/index.js'
export * from '../kafkajs/index.js'
// KafkaJS is a CommonJS module, so `import kafkajs from 'kafkajs'` gives its
// exports object: the default export here is the same set of names.
export default kafkajs
