import type { EmbeddedCluster } from './cluster.js'
import type { TopicImage } from './controller.js'
import { BrokerError } from './broker-error.js'
import { javaHash, kafkaAbs } from './offsets-topic.js'
import { TRANSACTION_STATE_TOPIC } from './topic-names.js'

/**
 * A transactional id's partition of __transaction_state, abs(id.hashCode())
 * % partitions (TransactionStateManager.partitionFor): the topic's
 * partition count once it exists, else transaction.state.log.num.partitions.
 */
export function transactionStatePartitionFor(cluster: EmbeddedCluster, transactionalId: string): number {
  const count =
    cluster.controller.topics.get(TRANSACTION_STATE_TOPIC)?.partitions.length || cluster.options.transactionStateLogNumPartitions
  return kafkaAbs(javaHash(transactionalId)) % count
}

/**
 * __transaction_state, created when it is missing as Kafka's broker creates
 * it (the first FindCoordinator for a transactional id):
 * transaction.state.log.num.partitions partitions of
 * transaction.state.log.replication.factor replicas on the registered
 * brokers, with the configs Kafka's TransactionLog enforces (compacted,
 * uncompressed, min.insync.replicas from transaction.state.log.min.isr).
 * Null while it cannot be created: said in the log, and the caller answers
 * COORDINATOR_NOT_AVAILABLE meanwhile, as Kafka does.
 */
export function ensureTransactionStateTopic(cluster: EmbeddedCluster, forWhat: string): TopicImage | null {
  const { controller, options } = cluster
  const existing = controller.topics.get(TRANSACTION_STATE_TOPIC)
  if (existing) return existing
  try {
    const t = controller.createTopic(TRANSACTION_STATE_TOPIC, {
      partitions: options.transactionStateLogNumPartitions,
      replicationFactor: options.transactionStateLogReplicationFactor,
      onRegistered: true,
      configs: {
        'cleanup.policy': 'compact',
        'compression.type': 'uncompressed',
        'min.insync.replicas': String(options.transactionStateLogMinIsr),
        'segment.bytes': String(options.transactionStateLogSegmentBytes),
        'unclean.leader.election.enable': 'false',
      },
    })!
    cluster.problem(null, `created ${TRANSACTION_STATE_TOPIC} (${t.id}) with ${t.partitions.length} partitions for ${forWhat}`, 'info')
    return t
  } catch (err) {
    if (!(err instanceof BrokerError)) throw err
    cluster.problem(null, `${TRANSACTION_STATE_TOPIC} not created for ${forWhat}: ${err.message}`, 'info')
    return null
  }
}
