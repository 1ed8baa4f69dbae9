import type { Input } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  ListOffsets,
  type ListOffsetsRequest,
  type ListOffsetsResponse,
  type ListOffsetsResponseListOffsetsPartitionResponse,
} from '../../protocol/messages/ListOffsets.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'

type PartitionResponse = Input<ListOffsetsResponseListOffsetsPartitionResponse>

const LATEST = -1n
const EARLIEST = -2n
const MAX_TIMESTAMP = -3n
const EARLIEST_LOCAL = -4n
const LATEST_TIERED = -5n

const failed = (partitionIndex: number, errorCode: number): PartitionResponse => ({
  partitionIndex,
  errorCode,
  timestamp: -1n,
  offset: -1n,
  leaderEpoch: -1,
})

/** ListOffsets: earliest, latest (the high watermark), max timestamp, and the first offset at or after a timestamp. */
export const listOffsetsHandler = defineHandler<ListOffsetsRequest, ListOffsetsResponse>({
  spec: ListOffsets,
  minVersion: Math.max(1, ListOffsets.minVersion),
  // v11 lists the earliest offset pending upload to tiered storage (KIP-1023).
  maxVersion: 10,
  handle(req, ctx) {
    const { cluster, broker, version } = ctx
    const describable = allowedNames(
      ctx,
      AclOperationTypes.DESCRIBE,
      AclResourceTypes.TOPIC,
      req.topics.map((t) => t.name),
    )
    return {
      topics: req.topics.map((lt) => {
        const t = cluster.controller.topics.get(lt.name)
        return {
          name: lt.name,
          partitions: lt.partitions.map((lp): PartitionResponse => {
            if (!describable.has(lt.name)) return failed(lp.partitionIndex, ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
            if (!t) return failed(lp.partitionIndex, ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)
            const led = cluster.leaderReplica(broker, t, lp.partitionIndex)
            if (typeof led === 'number') return failed(lp.partitionIndex, led)
            const { p, replica } = led
            if (lp.currentLeaderEpoch >= 0 && lp.currentLeaderEpoch !== p.leaderEpoch) {
              return failed(
                lp.partitionIndex,
                lp.currentLeaderEpoch < p.leaderEpoch ? ErrorCodes.FENCED_LEADER_EPOCH : ErrorCodes.UNKNOWN_LEADER_EPOCH,
              )
            }
            const log = replica.log
            const at = (offset: number, timestamp = -1) => ({
              partitionIndex: lp.partitionIndex,
              errorCode: ErrorCodes.NONE,
              timestamp: BigInt(timestamp),
              offset: BigInt(offset),
              // Only v4+ carry it.
              leaderEpoch: version >= 4 ? p.leaderEpoch : -1,
            })
            const ts = lp.timestamp
            if (ts === LATEST) return at(req.isolationLevel === 1 ? log.lastStableOffset : log.highWatermark)
            if (ts === EARLIEST || ts === EARLIEST_LOCAL) return at(log.logStartOffset)
            if (ts === LATEST_TIERED) return { ...at(-1), leaderEpoch: -1 }
            const found = ts === MAX_TIMESTAMP ? log.maxTimestamp() : ts >= 0n ? log.offsetForTimestamp(Number(ts)) : null
            if (ts < 0n && ts !== MAX_TIMESTAMP) return failed(lp.partitionIndex, ErrorCodes.UNSUPPORTED_VERSION)
            return found ? at(found.offset, found.timestamp) : { ...at(-1), leaderEpoch: -1 }
          }),
        }
      }),
    }
  },
  errorResponse: (req, code) => ({
    topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => failed(p.partitionIndex, code)) })),
  }),
})
