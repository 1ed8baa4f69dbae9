// Moved to src/cli/bench/ so that `wafka bench codec` ships the same harness.
export type * from '../../src/cli/bench/peer-codec.js'
