import { ErrorCodes } from '../../protocol/error-codes.js'
import { DeleteRecords, type DeleteRecordsRequest, type DeleteRecordsResponse } from '../../protocol/messages/DeleteRecords.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'
import { StorageError } from '../storage/disk-io.js'

/** DeleteRecords: the log start moves up to the offset asked (-1: the high watermark); batches wholly below it go. */
export const deleteRecordsHandler = defineHandler<DeleteRecordsRequest, DeleteRecordsResponse>({
  spec: DeleteRecords,
  minVersion: DeleteRecords.minVersion,
  maxVersion: DeleteRecords.maxVersion,
  handle(req, ctx) {
    const { cluster, broker } = ctx
    const deletable = allowedNames(
      ctx,
      AclOperationTypes.DELETE,
      AclResourceTypes.TOPIC,
      req.topics.map((t) => t.name),
    )
    return {
      topics: req.topics.map((dt) => {
        const t = cluster.controller.topics.get(dt.name)
        return {
          name: dt.name,
          partitions: dt.partitions.map((dp) => {
            const fail = (errorCode: number) => ({ partitionIndex: dp.partitionIndex, lowWatermark: -1n, errorCode })
            if (!deletable.has(dt.name)) return fail(ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
            if (!t) return fail(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)
            const led = cluster.leaderReplica(broker, t, dp.partitionIndex)
            if (typeof led === 'number') return fail(led)
            const log = led.replica.log
            const to = dp.offset === -1n ? log.highWatermark : Number(dp.offset)
            if (to < 0 || to > log.highWatermark) return fail(ErrorCodes.OFFSET_OUT_OF_RANGE)
            try {
              return { partitionIndex: dp.partitionIndex, lowWatermark: BigInt(log.deleteBefore(to)), errorCode: ErrorCodes.NONE }
            } catch (err) {
              // The log start checkpoint not written: the start stays where it was.
              if (!(err instanceof StorageError)) throw err
              cluster.problem(broker.id, `DeleteRecords of ${dt.name}-${dp.partitionIndex}: ${err.message}`, 'error')
              return fail(ErrorCodes.KAFKA_STORAGE_ERROR)
            }
          }),
        }
      }),
    }
  },
  errorResponse: (req, code) => ({
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: code })),
    })),
  }),
})
