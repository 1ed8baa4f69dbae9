import { ZERO_UUID } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { Metadata, type MetadataRequest, type MetadataResponse, type MetadataResponseTopic } from '../../protocol/messages/Metadata.js'
import type { EmbeddedCluster } from '../cluster.js'
import { type TopicImage } from '../controller.js'
import { defineHandler } from '../handler.js'
import { isInternalTopic, OFFSETS_TOPIC, topicNameProblem } from '../topic-names.js'
import { ensureOffsetsTopic } from '../offsets-topic.js'
import { BrokerError } from '../broker-error.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed, allowedNames, authorizedOperations, clusterAuthorizedOperations } from '../auth/authorizer.js'

/** Authorized operations not asked for (Kafka's Integer.MIN_VALUE). */
export const OPERATIONS_OMITTED = -2147483648

export function topicMetadata(cluster: EmbeddedCluster, t: TopicImage): MetadataResponseTopic {
  const live = new Set(cluster.controller.liveBrokers().map((b) => b.id))
  return {
    errorCode: ErrorCodes.NONE,
    name: t.name,
    topicId: t.id,
    isInternal: isInternalTopic(t.name),
    topicAuthorizedOperations: OPERATIONS_OMITTED,
    partitions: t.partitions.map((p) => ({
      errorCode: p.leader === -1 ? ErrorCodes.LEADER_NOT_AVAILABLE : ErrorCodes.NONE,
      partitionIndex: p.partition,
      leaderId: p.leader,
      leaderEpoch: p.leaderEpoch,
      replicaNodes: p.replicas,
      isrNodes: p.isr,
      offlineReplicas: p.replicas.filter((r) => !live.has(r)),
    })),
  }
}

function missingTopic(name: string | null, topicId: string, errorCode: number, version: number): MetadataResponseTopic {
  // A topic asked for by id has no name; v10-11 cannot say null.
  return {
    errorCode,
    name: name ?? (version >= 12 ? null : ''),
    topicId,
    isInternal: false,
    partitions: [],
    topicAuthorizedOperations: OPERATIONS_OMITTED,
  }
}

export const metadataHandler = defineHandler<MetadataRequest, MetadataResponse>({
  spec: Metadata,
  minVersion: Metadata.minVersion,
  maxVersion: Metadata.maxVersion,
  handle(req, ctx) {
    const { cluster, version, broker, header } = ctx
    const { controller, options } = cluster
    // v0 asks for every topic with an empty list; v1+ with null.
    const all = req.topics === null || (version === 0 && req.topics.length === 0)
    const autoCreate = options.autoCreateTopics && (version < 4 || req.allowAutoTopicCreation)
    const topics: MetadataResponseTopic[] = []
    // Topics the principal may not DESCRIBE: left out of "all topics", refused by name (their existence not told) or by id.
    const describable = allowedNames(
      ctx,
      AclOperationTypes.DESCRIBE,
      AclResourceTypes.TOPIC,
      all ? controller.topics.keys() : req.topics!.map((w) => w.name || controller.topicsById.get(w.topicId)?.name || null),
    )
    const refused = (name: string | null, topicId: string) => missingTopic(name, topicId, ErrorCodes.TOPIC_AUTHORIZATION_FAILED, version)
    // Auto-creation needs CREATE on the cluster or on the topic.
    const mayCreate = (name: string) =>
      allowed(ctx, AclOperationTypes.CREATE) || allowed(ctx, AclOperationTypes.CREATE, AclResourceTypes.TOPIC, name)
    if (all) {
      for (const t of controller.topics.values()) if (describable.has(t.name)) topics.push(topicMetadata(cluster, t))
    } else {
      for (const want of req.topics!) {
        if (want.name === null || want.name === '') {
          const t = controller.topicsById.get(want.topicId)
          if (t && !describable.has(t.name)) topics.push(refused(null, t.id))
          else topics.push(t ? topicMetadata(cluster, t) : missingTopic(null, want.topicId, ErrorCodes.UNKNOWN_TOPIC_ID, version))
          continue
        }
        if (!describable.has(want.name)) {
          topics.push(refused(want.name, ZERO_UUID))
          continue
        }
        let t = controller.topics.get(want.name)
        if (!t && topicNameProblem(want.name)) {
          topics.push(missingTopic(want.name, ZERO_UUID, ErrorCodes.INVALID_TOPIC_EXCEPTION, version))
          continue
        }
        if (!t && autoCreate && !mayCreate(want.name)) {
          topics.push(refused(want.name, ZERO_UUID))
          continue
        }
        if (!t && autoCreate && want.name === OFFSETS_TOPIC) {
          // Created as the group coordinator's (its partitions, replication and configs), as Kafka's AutoTopicCreationManager does.
          t = ensureOffsetsTopic(cluster, `a Metadata request of client ${header.clientId}`) ?? undefined
          if (!t) {
            topics.push(missingTopic(want.name, ZERO_UUID, ErrorCodes.LEADER_NOT_AVAILABLE, version))
            continue
          }
        } else if (!t && autoCreate && controller.deletedRecently(want.name)) {
          // Deleted a moment ago: not recreated by a request that a Kafka broker would still have answered with the old topic.
          topics.push(missingTopic(want.name, ZERO_UUID, ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, version))
          continue
        } else if (!t && autoCreate && controller.liveBrokers().length > 0) {
          // Capped at the live brokers: an auto-created topic should not fail for a stopped one.
          const replicationFactor = Math.min(options.defaultReplicationFactor, controller.liveBrokers().length)
          try {
            t = controller.createTopic(want.name, { partitions: options.defaultPartitions, replicationFactor }) ?? undefined
            // Kafka's controller logs each topic it creates; an auto-created one also says who asked.
            if (t)
              cluster.problem(
                broker.id,
                `auto-created topic ${t.name} (${t.id}) for a Metadata request of client ${header.clientId}`,
                'info',
              )
          } catch (err) {
            if (!(err instanceof BrokerError)) throw err
            // Not created (its record not written): the topic is not there yet, as Kafka answers while it creates one.
            topics.push(missingTopic(want.name, ZERO_UUID, ErrorCodes.LEADER_NOT_AVAILABLE, version))
            continue
          }
        }
        topics.push(t ? topicMetadata(cluster, t) : missingTopic(want.name, ZERO_UUID, ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, version))
      }
    }
    if (req.includeTopicAuthorizedOperations)
      for (const t of topics)
        if (t.errorCode === ErrorCodes.NONE) t.topicAuthorizedOperations = authorizedOperations(ctx, AclResourceTypes.TOPIC, t.name!)
    const brokers = controller.liveBrokers()
    return {
      brokers: brokers.map((b) => ({ nodeId: b.id, host: b.host, port: b.port, rack: b.rack })),
      clusterId: controller.clusterId,
      controllerId: controller.activeController()?.id ?? -1,
      topics,
      // v8-10 only; from v11 DescribeCluster tells it.
      clusterAuthorizedOperations:
        req.includeClusterAuthorizedOperations && version <= 10 ? clusterAuthorizedOperations(ctx) : OPERATIONS_OMITTED,
    }
  },
  errorResponse: (req, code, { cluster, version }) => ({
    brokers: [],
    clusterId: cluster.controller.clusterId,
    controllerId: -1,
    topics: (req.topics ?? []).map((t) => missingTopic(t.name, t.topicId, code, version)),
  }),
})
