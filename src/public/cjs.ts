// The CommonJS build's one bundle (src/build/bundle.mjs): every client entry
// point as a namespace, so require('wafka') and require('wafka/codec') hand
// out the same classes and one wasm instance, as the ESM build's chunks do.
export * as index from '../index.js'
export * as codec from './codec.js'
export * as protocol from './protocol.js'
export * as kafkajs from './kafkajs.js'
