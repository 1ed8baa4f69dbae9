// Moved to src/cli/bench/ so that `wafka bench` ships the same harness.
export * from '../../src/cli/bench/measure.js'
