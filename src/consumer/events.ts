/** KafkaJS's instrumentation event names. */
export const ConsumerEvents = {
  HEARTBEAT: 'consumer.heartbeat',
  COMMIT_OFFSETS: 'consumer.commit_offsets',
  GROUP_JOIN: 'consumer.group_join',
  FETCH_START: 'consumer.fetch_start',
  FETCH: 'consumer.fetch',
  START_BATCH_PROCESS: 'consumer.start_batch_process',
  END_BATCH_PROCESS: 'consumer.end_batch_process',
  CONNECT: 'consumer.connect',
  DISCONNECT: 'consumer.disconnect',
  STOP: 'consumer.stop',
  CRASH: 'consumer.crash',
  REBALANCING: 'consumer.rebalancing',
  /** Not in KafkaJS: the partitions a rebalance gave this member, and those it gave up (lost: without a commit). */
  PARTITIONS_ASSIGNED: 'consumer.partitions_assigned',
  PARTITIONS_REVOKED: 'consumer.partitions_revoked',
  /** Not in KafkaJS: every statisticsIntervalMs, the consumer's statistics (src/observe/statistics.ts). */
  STATS: 'consumer.stats',
} as const

/** Sends one instrumentation event to its listeners. */
export type Emit = (type: string, payload: object) => void
