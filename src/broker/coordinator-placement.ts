import type { EmbeddedCluster } from './cluster.js'
import { offsetsPartitionFor } from './offsets-topic.js'
import { transactionStatePartitionFor } from './transaction-state-topic.js'
import { OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC } from './topic-names.js'

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
 * A transactional id's coordinator, as Kafka's: the leader of its partition
 * of __transaction_state, where its state is kept; -1 while that topic does
 * not exist or the partition has no leader.
 */
export function transactionCoordinatorFor(cluster: EmbeddedCluster, transactionalId: string): number {
  const t = cluster.controller.topics.get(TRANSACTION_STATE_TOPIC)
  if (!t) return -1
  return t.partitions[transactionStatePartitionFor(cluster, transactionalId)]?.leader ?? -1
}
