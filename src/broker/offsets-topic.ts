import type { EmbeddedCluster } from './cluster.js'
import type { TopicImage } from './controller.js'
import { BrokerError } from './broker-error.js'
import { OFFSETS_TOPIC } from './topic-names.js'

/** Java's String.hashCode, which places a key on its partition. */
export function javaHash(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

/** Kafka's Utils.abs: Math.abs, with Integer.MIN_VALUE taken as 0. */
export function kafkaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n)
}

/**
 * A group's partition of __consumer_offsets, abs(groupId.hashCode()) %
 * partitions (GroupCoordinatorService.partitionFor): the topic's partition
 * count once it exists, else offsets.topic.num.partitions.
 */
export function offsetsPartitionFor(cluster: EmbeddedCluster, groupId: string): number {
  const count = cluster.controller.topics.get(OFFSETS_TOPIC)?.partitions.length || cluster.options.offsetsTopicNumPartitions
  return kafkaAbs(javaHash(groupId)) % count
}

/**
 * __consumer_offsets, created when it is missing as Kafka's broker creates
 * it (AutoTopicCreationManager: the first FindCoordinator for a group, a
 * Metadata request that may create topics): offsets.topic.num.partitions
 * partitions of offsets.topic.replication.factor replicas placed on the
 * registered brokers (a stopped one too: its replicas offline until it is
 * back), with the configs Kafka's group coordinator gives it. Null while it
 * cannot be created (fewer registered brokers than its replication factor,
 * none live, its record not written):
 * said in the log, and the caller answers as Kafka does meanwhile
 * (COORDINATOR_NOT_AVAILABLE).
 */
export function ensureOffsetsTopic(cluster: EmbeddedCluster, forWhat: string): TopicImage | null {
  const { controller, options } = cluster
  const existing = controller.topics.get(OFFSETS_TOPIC)
  if (existing) return existing
  try {
    const t = controller.createTopic(OFFSETS_TOPIC, {
      partitions: options.offsetsTopicNumPartitions,
      replicationFactor: options.offsetsTopicReplicationFactor,
      // As Kafka's: a stopped broker still registered takes replicas (offline until it is back).
      onRegistered: true,
      configs: {
        'cleanup.policy': 'compact',
        'compression.type': 'producer',
        'segment.bytes': String(options.offsetsTopicSegmentBytes),
      },
    })!
    cluster.problem(null, `created ${OFFSETS_TOPIC} (${t.id}) with ${t.partitions.length} partitions for ${forWhat}`, 'info')
    return t
  } catch (err) {
    if (!(err instanceof BrokerError)) throw err
    cluster.problem(null, `${OFFSETS_TOPIC} not created for ${forWhat}: ${err.message}`, 'info')
    return null
  }
}
