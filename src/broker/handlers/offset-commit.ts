import { ErrorCodes } from '../../protocol/error-codes.js'
import { OffsetCommit, type OffsetCommitRequest, type OffsetCommitResponse } from '../../protocol/messages/OffsetCommit.js'
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
 * (src/broker/groups/offset-commit-checks.ts).
 */
export const offsetCommitHandler = defineHandler<OffsetCommitRequest, OffsetCommitResponse>({
  spec: OffsetCommit,
  minVersion: Math.max(2, OffsetCommit.minVersion),
  // v10 names topics by id.
  maxVersion: 9,
  handle(req, ctx) {
    const all = (code: number) => ({
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
      })),
    })
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return all(refused)
    const { groups, controller } = ctx.cluster
    const { group, error } = groupForCommit(groups, req, false, ctx.version)
    if (error !== null) return all(error)
    const now = Date.now()
    const readable = allowedNames(
      ctx,
      AclOperationTypes.READ,
      AclResourceTypes.TOPIC,
      req.topics.map((t) => t.name),
    )
    return {
      topics: req.topics.map((t) => {
        const topic = controller.topics.get(t.name)
        return {
          name: t.name,
          partitions: t.partitions.map((p) => {
            if (!readable.has(t.name)) return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.TOPIC_AUTHORIZATION_FAILED }
            if (!topic || !topic.partitions[p.partitionIndex])
              return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION }
            if ((p.committedMetadata?.length ?? 0) > MAX_METADATA_CHARS)
              return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.OFFSET_METADATA_TOO_LARGE }
            group.commit(t.name, p.partitionIndex, {
              offset: p.committedOffset,
              leaderEpoch: p.committedLeaderEpoch,
              metadata: p.committedMetadata,
              commitTimestamp: now,
            })
            return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.NONE }
          }),
        }
      }),
    }
  },
  errorResponse: (req, code) => ({
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
    })),
  }),
})
