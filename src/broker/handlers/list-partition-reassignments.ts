import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  ListPartitionReassignments,
  type ListPartitionReassignmentsRequest,
  type ListPartitionReassignmentsResponse,
} from '../../protocol/messages/ListPartitionReassignments.js'
import type { TopicImage } from '../controller.js'
import { defineHandler } from '../handler.js'

/**
 * ListPartitionReassignments: the reassignments in progress, each
 * partition's replicas and those being added and removed; null topics asks
 * for every one. As Kafka's controller, unknown topics and partitions, and
 * partitions not being reassigned, are left out rather than refused.
 */
export const listPartitionReassignmentsHandler = defineHandler<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse>({
  spec: ListPartitionReassignments,
  minVersion: ListPartitionReassignments.minVersion,
  maxVersion: ListPartitionReassignments.maxVersion,
  handle(req, { cluster }) {
    const { controller } = cluster
    const asked: Array<[TopicImage | undefined, number[]]> = req.topics
      ? req.topics.map((t) => [controller.topics.get(t.name), t.partitionIndexes])
      : [...controller.topics.values()].map((t) => [t, t.partitions.map((p) => p.partition)])
    const topics = asked
      .map(([t, indexes]) => ({
        name: t?.name ?? '',
        partitions: indexes.flatMap((i) => {
          const p = t?.partitions[i]
          if (!p || (!p.adding.length && !p.removing.length)) return []
          return [{ partitionIndex: i, replicas: [...p.replicas], addingReplicas: [...p.adding], removingReplicas: [...p.removing] }]
        }),
      }))
      .filter((t) => t.partitions.length > 0)
    return { errorCode: ErrorCodes.NONE, errorMessage: null, topics }
  },
  errorResponse: (_req, code) => ({ errorCode: code, errorMessage: null, topics: [] }),
})
