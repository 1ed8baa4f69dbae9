import { ZERO_UUID } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  DescribeTopicPartitions,
  type DescribeTopicPartitionsRequest,
  type DescribeTopicPartitionsResponse,
  type DescribeTopicPartitionsResponseTopic,
} from '../../protocol/messages/DescribeTopicPartitions.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames, authorizedOperations } from '../auth/authorizer.js'
import { OPERATIONS_OMITTED, topicMetadata } from './metadata.js'

/**
 * DescribeTopicPartitions (KIP-966): the topics asked for (none: every
 * topic), sorted by name, with each partition's leader, epoch, replicas,
 * ISR and offline replicas as Metadata has them; at most
 * responsePartitionLimit partitions from the cursor on, and a next cursor
 * when more remain. No eligible leader replicas: empty lists, as Kafka
 * sends without ELR (the Java admin client reads them without a null check).
 */
export const describeTopicPartitionsHandler = defineHandler<DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse>({
  spec: DescribeTopicPartitions,
  minVersion: DescribeTopicPartitions.minVersion,
  maxVersion: DescribeTopicPartitions.maxVersion,
  handle(req, ctx) {
    const { cluster } = ctx
    const { controller } = cluster
    // Topics the principal may not DESCRIBE: refused by name, left out of "all" (as Kafka's).
    const asked = req.topics.length ? [...new Set(req.topics.map((t) => t.name))] : [...controller.topics.keys()]
    const describable = allowedNames(ctx, AclOperationTypes.DESCRIBE, AclResourceTypes.TOPIC, asked)
    const names = (req.topics.length ? asked : asked.filter((n) => describable.has(n))).sort()
    const cursor = req.cursor
    let left = req.responsePartitionLimit > 0 ? req.responsePartitionLimit : 2000
    const topics: DescribeTopicPartitionsResponseTopic[] = []
    let nextCursor: { topicName: string; partitionIndex: number } | null = null
    for (const name of names) {
      if (cursor && name < cursor.topicName) continue
      const t = controller.topics.get(name)
      if (!t || !describable.has(name)) {
        topics.push({
          errorCode: describable.has(name) ? ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION : ErrorCodes.TOPIC_AUTHORIZATION_FAILED,
          name,
          topicId: ZERO_UUID,
          isInternal: false,
          partitions: [],
          topicAuthorizedOperations: OPERATIONS_OMITTED,
        })
        continue
      }
      if (left === 0) {
        nextCursor = { topicName: name, partitionIndex: 0 }
        break
      }
      const md = topicMetadata(cluster, t)
      const from = cursor && name === cursor.topicName ? cursor.partitionIndex : 0
      const all = md.partitions.filter((p) => p.partitionIndex >= from)
      const partitions = all.slice(0, left).map((p) => ({ ...p, eligibleLeaderReplicas: [], lastKnownElr: [] }))
      left -= partitions.length
      topics.push({ ...md, partitions, topicAuthorizedOperations: authorizedOperations(ctx, AclResourceTypes.TOPIC, name) })
      if (partitions.length < all.length) {
        nextCursor = { topicName: name, partitionIndex: all[partitions.length].partitionIndex }
        break
      }
    }
    return { topics, nextCursor }
  },
  errorResponse: (req, code) => ({
    topics: req.topics.map((t) => ({
      errorCode: code,
      name: t.name,
      topicId: ZERO_UUID,
      isInternal: false,
      partitions: [],
      topicAuthorizedOperations: OPERATIONS_OMITTED,
    })),
    nextCursor: null,
  }),
})
