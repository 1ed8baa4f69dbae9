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
import { StorageError } from '../storage/disk-io.js'
import { CorruptBatchError } from '../storage/segment.js'

type PartitionResponse = Input<ListOffsetsResponseListOffsetsPartitionResponse>

const LATEST = -1n
const EARLIEST = -2n
const MAX_TIMESTAMP = -3n
const EARLIEST_LOCAL = -4n
const LATEST_TIERED = -5n
const EARLIEST_PENDING_UPLOAD = -6n

/** The first version that may ask for each special timestamp (Kafka's ListOffsetsRequest: older versions get UNSUPPORTED_VERSION for it). */
const SINCE_VERSION = new Map<bigint, number>([
  [LATEST, 0],
  [EARLIEST, 0],
  [MAX_TIMESTAMP, 7],
  [EARLIEST_LOCAL, 8],
  [LATEST_TIERED, 9],
  [EARLIEST_PENDING_UPLOAD, 11],
])

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
  maxVersion: ListOffsets.maxVersion,
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
            // A special timestamp the version does not know (or none Kafka knows) is refused for its partition.
            if (ts < 0n && !(version >= (SINCE_VERSION.get(ts) ?? Infinity)))
              return failed(lp.partitionIndex, ErrorCodes.UNSUPPORTED_VERSION)
            if (ts === LATEST) return at(req.isolationLevel === 1 ? log.lastStableOffset : log.highWatermark)
            if (ts === EARLIEST || ts === EARLIEST_LOCAL) return at(log.logStartOffset)
            // No tiered storage: nothing tiered, nothing pending upload (Kafka's answer for a log without remote storage).
            if (ts === LATEST_TIERED || ts === EARLIEST_PENDING_UPLOAD) return { ...at(-1), leaderEpoch: -1 }
            let found: { offset: number; timestamp: number } | null
            try {
              found = ts === MAX_TIMESTAMP ? log.maxTimestamp() : log.offsetForTimestamp(Number(ts))
            } catch (err) {
              if (!(err instanceof StorageError)) throw err
              // As Fetch: no offset read from a corrupt batch; said at ERROR once per place, the client's retries at DEBUG.
              const repeated = err instanceof CorruptBatchError && err.repeated
              const where = `${lt.name}-${lp.partitionIndex}`
              cluster.problem(broker.id, `ListOffsets of ${where}: ${err.message}`, repeated ? 'debug' : 'error')
              return failed(lp.partitionIndex, ErrorCodes.KAFKA_STORAGE_ERROR)
            }
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
