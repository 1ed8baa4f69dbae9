import type { EmbeddedCluster } from './cluster.js'
import { javaHash, kafkaAbs, offsetsPartitionFor } from './offsets-topic.js'
import { OFFSETS_TOPIC } from './topic-names.js'

/** Kafka's transaction.state.log.num.partitions: a transactional id's partition of __transaction_state. */
const TRANSACTION_STATE_PARTITIONS = 50

/**
 * A group's coordinator, as Kafka's: the leader of the group's partition of
 * __consumer_offsets; -1 while that topic does not exist or the partition
 * has no leader (COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR).
 */
export function groupCoordinatorFor(cluster: EmbeddedCluster, groupId: string): number {
  const t = cluster.controller.topics.get(OFFSETS_TOPIC)
  if (!t) return -1
  return t.partitions[offsetsPartitionFor(cluster, groupId)]?.leader ?? -1
}

/**
 * A transactional id's coordinator, or -1 when no broker is up: its
 * __transaction_state partition (that topic is not kept: the state lives in
 * memory) placed round-robin on the live brokers, so a stopped
 * coordinator's ids move to another broker.
 */
export function transactionCoordinatorFor(cluster: EmbeddedCluster, transactionalId: string): number {
  const live = cluster.controller.liveBrokers()
  if (live.length === 0) return -1
  const partition = kafkaAbs(javaHash(transactionalId)) % TRANSACTION_STATE_PARTITIONS
  return live[partition % live.length].id
}
