// The CommonJS build's shared bundle (src/build/bundle.mjs): the root, codec,
// protocol and streams entry points as namespaces, so require('wafka') and
// require('wafka/codec') hand out the same classes and one wasm instance, as
// the ESM build's chunks do.
export * as index from '../index.js'
export * as codec from './codec.js'
export * as protocol from './protocol.js'
export * as streams from './streams.js'
