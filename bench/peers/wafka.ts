// Moved to src/cli/bench/ so that `wafka bench codec` ships the same harness.
export * from '../../src/cli/bench/wafka-codec.js'
