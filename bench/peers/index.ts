export { kafkajs } from './kafkajs.js'
export { platformatic } from './platformatic.js'
export { wafka } from './wafka.js'
export type * from './types.js'
