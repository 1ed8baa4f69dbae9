import { ErrorCodes } from '../../protocol/error-codes.js'
import { ZERO_UUID } from '../../protocol/api.js'
import {
  DescribeShareGroupOffsets,
  type DescribeShareGroupOffsetsRequest,
  type DescribeShareGroupOffsetsResponse,
  type DescribeShareGroupOffsetsResponsePartition,
} from '../../protocol/messages/DescribeShareGroupOffsets.js'
import { defineHandler, type RequestContext } from '../handler.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'

const UNINITIALIZED = -1n

/**
 * DescribeShareGroupOffsets (KIP-932): each share partition's start offset
 * (SPSO) and, from v1, its lag — the records below the high watermark not
 * yet delivered for good (HWM − SPSO − those acknowledged or archived past
 * the SPSO). Without share state (or for a topic not known) the start offset
 * is -1 (and the lag -1), as Kafka answers absence rather than an error —
 * a group not known too. With no topics
 * named, every share partition the group has, leaving out topics the
 * principal may not DESCRIBE; named topics it may not describe are
 * TOPIC_AUTHORIZATION_FAILED.
 */
export const describeShareGroupOffsetsHandler = defineHandler<DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse>({
  spec: DescribeShareGroupOffsets,
  minVersion: DescribeShareGroupOffsets.minVersion,
  maxVersion: DescribeShareGroupOffsets.maxVersion,
  handle(req, ctx) {
    const { controller, groups } = ctx.cluster
    return {
      throttleTimeMs: 0,
      groups: req.groups.map(({ groupId, topics }) => {
        const refused = coordinatorError(ctx, groupId, AclOperationTypes.DESCRIBE)
        if (refused !== null) return { groupId, topics: [], errorCode: refused, errorMessage: null }
        const partitionOf = (topicId: string, partitionIndex: number): DescribeShareGroupOffsetsResponsePartition => {
          const s = groups.shares.summary(groupId, topicId, partitionIndex)
          if (!s) return { partitionIndex, startOffset: UNINITIALIZED, leaderEpoch: 0, lag: -1n, errorCode: 0, errorMessage: null }
          const hw = highWatermark(ctx, topicId, partitionIndex)
          return {
            partitionIndex,
            startOffset: BigInt(s.startOffset),
            leaderEpoch: controller.topicsById.get(topicId)?.partitions[partitionIndex]?.leaderEpoch ?? -1,
            lag: hw === null ? -1n : BigInt(Math.max(0, hw - s.startOffset - s.deliveryComplete)),
            errorCode: 0,
            errorMessage: null,
          }
        }
        if (topics === null) {
          const initialized = [...groups.shares.initialized(groupId)].flatMap(([topicId, partitions]) => {
            const name = controller.topicsById.get(topicId)?.name
            return name === undefined ? [] : [{ topicId, name, partitions }]
          })
          const describable = allowedNames(
            ctx,
            AclOperationTypes.DESCRIBE,
            AclResourceTypes.TOPIC,
            initialized.map((t) => t.name),
          )
          return {
            groupId,
            topics: initialized
              .filter((t) => describable.has(t.name))
              .map((t) => ({ topicName: t.name, topicId: t.topicId, partitions: t.partitions.map((p) => partitionOf(t.topicId, p)) })),
            errorCode: 0,
            errorMessage: null,
          }
        }
        const describable = allowedNames(
          ctx,
          AclOperationTypes.DESCRIBE,
          AclResourceTypes.TOPIC,
          topics.map((t) => t.topicName),
        )
        // Described topics first, then those refused, as Kafka's KafkaApis appends them.
        const ordered = [...topics.filter((t) => describable.has(t.topicName)), ...topics.filter((t) => !describable.has(t.topicName))]
        return {
          groupId,
          topics: ordered.map((t) => {
            const known = controller.topics.get(t.topicName)
            if (!describable.has(t.topicName))
              return {
                topicName: t.topicName,
                topicId: ZERO_UUID,
                partitions: t.partitions.map((partitionIndex) => ({
                  partitionIndex,
                  startOffset: UNINITIALIZED,
                  leaderEpoch: 0,
                  lag: -1n,
                  errorCode: ErrorCodes.TOPIC_AUTHORIZATION_FAILED,
                  errorMessage: 'Topic authorization failed.',
                })),
              }
            if (!known)
              return {
                topicName: t.topicName,
                topicId: ZERO_UUID,
                partitions: t.partitions.map((partitionIndex) => ({
                  partitionIndex,
                  startOffset: UNINITIALIZED,
                  leaderEpoch: 0,
                  lag: -1n,
                  errorCode: 0,
                  errorMessage: null,
                })),
              }
            return { topicName: t.topicName, topicId: known.id, partitions: t.partitions.map((p) => partitionOf(known.id, p)) }
          }),
          errorCode: 0,
          errorMessage: null,
        }
      }),
    }
  },
  errorResponse: (req, code) => ({
    throttleTimeMs: 0,
    groups: req.groups.map((g) => ({ groupId: g.groupId, topics: [], errorCode: code, errorMessage: null })),
  }),
})

/** The partition's high watermark on its leader; null when it has none now. */
function highWatermark(ctx: RequestContext, topicId: string, partition: number): number | null {
  const t = ctx.cluster.controller.topicsById.get(topicId)
  const leader = t?.partitions[partition] ? ctx.cluster.brokers.get(t.partitions[partition].leader) : undefined
  if (!t || !leader) return null
  const led = ctx.cluster.leaderReplica(leader, t, partition)
  return typeof led === 'number' ? null : led.replica.log.highWatermark
}
