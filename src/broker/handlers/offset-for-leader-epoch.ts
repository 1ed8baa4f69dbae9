import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  OffsetForLeaderEpoch,
  type OffsetForLeaderEpochRequest,
  type OffsetForLeaderEpochResponse,
} from '../../protocol/messages/OffsetForLeaderEpoch.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed, allowedNames } from '../auth/authorizer.js'

/** OffsetForLeaderEpoch from consumers (KIP-320): where an epoch ends in the leader's log. */
export const offsetForLeaderEpochHandler = defineHandler<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse>({
  spec: OffsetForLeaderEpoch,
  minVersion: OffsetForLeaderEpoch.minVersion,
  maxVersion: OffsetForLeaderEpoch.maxVersion,
  handle(req, ctx) {
    const { cluster, broker } = ctx
    // CLUSTER_ACTION (a follower) reads every topic; otherwise DESCRIBE on each (as Kafka's).
    const describable = allowed(ctx, AclOperationTypes.CLUSTER_ACTION)
      ? null
      : allowedNames(
          ctx,
          AclOperationTypes.DESCRIBE,
          AclResourceTypes.TOPIC,
          req.topics.map((t) => t.topic),
        )
    return {
      topics: req.topics.map((ft) => {
        const t = cluster.controller.topics.get(ft.topic)
        return {
          topic: ft.topic,
          partitions: ft.partitions.map((fp) => {
            const fail = (errorCode: number) => ({ errorCode, partition: fp.partition, leaderEpoch: -1, endOffset: -1n })
            if (describable && !describable.has(ft.topic)) return fail(ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
            if (!t) return fail(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)
            const led = cluster.leaderReplica(broker, t, fp.partition)
            if (typeof led === 'number') return fail(led)
            const { p, replica } = led
            if (fp.currentLeaderEpoch >= 0 && fp.currentLeaderEpoch !== p.leaderEpoch) {
              return fail(fp.currentLeaderEpoch < p.leaderEpoch ? ErrorCodes.FENCED_LEADER_EPOCH : ErrorCodes.UNKNOWN_LEADER_EPOCH)
            }
            const end = replica.log.endOffsetFor(fp.leaderEpoch, p.leaderEpoch)
            return { errorCode: ErrorCodes.NONE, partition: fp.partition, leaderEpoch: end.leaderEpoch, endOffset: BigInt(end.endOffset) }
          }),
        }
      }),
    }
  },
  errorResponse: (req, code) => ({
    topics: req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => ({ errorCode: code, partition: p.partition, leaderEpoch: -1, endOffset: -1n })),
    })),
  }),
})
