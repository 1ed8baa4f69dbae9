import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  OffsetCommit,
  type OffsetCommitRequest,
  type OffsetCommitRequestTopic,
  type OffsetCommitResponse,
} from '../../protocol/messages/OffsetCommit.js'
import { defineHandler } from '../handler.js'
import { groupForCommit } from '../groups/offset-commit-checks.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'

/** Kafka's offset.metadata.max.bytes. */
const MAX_METADATA_CHARS = 4096

/**
 * OffsetCommit: a member commits in its generation (member epoch); a client
 * outside group management (generation -1) commits to an empty or new group
 * (src/broker/groups/offset-commit-checks.ts). v10 names topics by id: an
 * id the metadata does not know is UNKNOWN_TOPIC_ID. As Kafka's KafkaApis,
 * the topics' own errors (unknown, unauthorized) are answered before the
 * coordinator's, which the others get.
 */
export const offsetCommitHandler = defineHandler<OffsetCommitRequest, OffsetCommitResponse>({
  spec: OffsetCommit,
  minVersion: Math.max(2, OffsetCommit.minVersion),
  maxVersion: OffsetCommit.maxVersion,
  handle(req, ctx) {
    const byId = ctx.version >= 10
    const answer = (t: OffsetCommitRequestTopic, code: (partitionIndex: number) => number) => ({
      name: t.name,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code(p.partitionIndex) })),
    })
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return { topics: req.topics.map((t) => answer(t, () => refused)) }
    const { groups, controller } = ctx.cluster
    // By id (v10): the name the metadata has for it, '' when it has none.
    const topics = byId ? req.topics.map((t) => ({ ...t, name: controller.topicsById.get(t.topicId)?.name ?? '' })) : req.topics
    const readable = allowedNames(
      ctx,
      AclOperationTypes.READ,
      AclResourceTypes.TOPIC,
      topics.filter((t) => !byId || t.name !== '').map((t) => t.name),
    )
    const topicError = (t: OffsetCommitRequestTopic, partitionIndex: number): number | null => {
      if (byId && t.name === '') return ErrorCodes.UNKNOWN_TOPIC_ID
      if (!readable.has(t.name)) return ErrorCodes.TOPIC_AUTHORIZATION_FAILED
      if (!controller.topics.get(t.name)?.partitions[partitionIndex]) return ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION
      return null
    }
    const valid = topics
      .map((t) => ({ ...t, partitions: t.partitions.filter((p) => topicError(t, p.partitionIndex) === null) }))
      .filter((t) => t.partitions.length > 0)
    const { group, error } = valid.length
      ? groupForCommit(groups, { ...req, topics: valid }, false, ctx.version)
      : { group: null, error: null }
    const now = Date.now()
    const answered = topics.map((t) => {
      const metadataOf = new Map(t.partitions.map((p) => [p.partitionIndex, p]))
      const own = (p: { partitionIndex: number }) => topicError(t, p.partitionIndex) !== null
      // Kafka's order: the partitions refused on their own first, then the coordinator's.
      const ordered = { ...t, partitions: [...t.partitions.filter(own), ...t.partitions.filter((p) => !own(p))] }
      return {
        early: t.partitions.some(own),
        topic: answer(ordered, (partitionIndex) => {
          const early = topicError(t, partitionIndex)
          if (early !== null) return early
          if (error !== null) return error
          const p = metadataOf.get(partitionIndex)!
          if ((p.committedMetadata?.length ?? 0) > MAX_METADATA_CHARS) return ErrorCodes.OFFSET_METADATA_TOO_LARGE
          group!.commit(t.name, partitionIndex, {
            offset: p.committedOffset,
            leaderEpoch: p.committedLeaderEpoch,
            metadata: p.committedMetadata,
            commitTimestamp: now,
          })
          return ErrorCodes.NONE
        }),
      }
    })
    // And topics with a partition refused on its own before those the coordinator alone answers.
    return { topics: [...answered.filter((a) => a.early), ...answered.filter((a) => !a.early)].map((a) => a.topic) }
  },
  errorResponse: (req, code) => ({
    topics: req.topics.map((t) => ({
      name: t.name,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
    })),
  }),
})
