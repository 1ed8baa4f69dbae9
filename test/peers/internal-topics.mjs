// The internal topics' partition counts in both targets of the tests: the
// Kafka rig (kafka.ts) and the peer suites' `wafka broker` (suite-targets.mjs).
// 10, not Kafka's 50 (test speed); one value for both, so a test that reads
// __consumer_offsets (franz-go's Test848RegexBrokerResolves is assigned it
// by its regex) sees as many partitions on either.
export const RIG_INTERNAL_TOPICS = Object.freeze({
  'offsets.topic.num.partitions': '10',
  'transaction.state.log.num.partitions': '10',
})
