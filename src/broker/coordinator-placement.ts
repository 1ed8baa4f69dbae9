import type { EmbeddedCluster } from './cluster.js'

/**
 * Kafka's offsets.topic.num.partitions and transaction.state.log.num.partitions:
 * a group's (or transactional id's) coordinator is the leader of its partition
 * of __consumer_offsets (__transaction_state).
 */
const STATE_PARTITIONS = 50

/** Java's String.hashCode, which places a key on its partition. */
function javaHash(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

/**
 * The broker coordinating `key`, or -1 when none is up: its state-log
 * partition placed round-robin on the live brokers, so a stopped
 * coordinator's keys move to another broker (their state with them, as a
 * new coordinator loads it from the state log).
 */
export function coordinatorFor(cluster: EmbeddedCluster, key: string): number {
  const live = cluster.controller.liveBrokers()
  if (live.length === 0) return -1
  const partition = (javaHash(key) & 0x7fffffff) % STATE_PARTITIONS
  return live[partition % live.length].id
}
