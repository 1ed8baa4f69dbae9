import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  DescribeProducers,
  type DescribeProducersRequest,
  type DescribeProducersResponse,
} from '../../protocol/messages/DescribeProducers.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'

/**
 * DescribeProducers: the producers with state in each partition led here
 * (their epoch, last sequence and timestamp, and the first offset of a
 * transaction they have open), as Kafka's ProducerStateManager shows them
 * (`kafka-transactions.sh describe-producers`).
 */
export const describeProducersHandler = defineHandler<DescribeProducersRequest, DescribeProducersResponse>({
  spec: DescribeProducers,
  minVersion: DescribeProducers.minVersion,
  maxVersion: DescribeProducers.maxVersion,
  handle(req, ctx) {
    const { cluster, broker } = ctx
    const readable = allowedNames(
      ctx,
      AclOperationTypes.READ,
      AclResourceTypes.TOPIC,
      req.topics.map((t) => t.name),
    )
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((rt) => ({
        name: rt.name,
        partitions: rt.partitionIndexes.map((partitionIndex) => {
          if (!readable.has(rt.name)) return failed(partitionIndex, ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
          const t = cluster.controller.topics.get(rt.name)
          const led = t ? cluster.leaderReplica(broker, t, partitionIndex) : ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION
          if (typeof led === 'number') return failed(partitionIndex, led)
          const { log, producers } = led.replica
          const activeProducers = [...producers.all()].map(([producerId, entry]) => {
            const last = entry.batches.at(-1)
            return {
              producerId,
              producerEpoch: entry.epoch,
              lastSequence: last?.lastSeq ?? -1,
              lastTimestamp: BigInt(last?.timestamp ?? -1),
              coordinatorEpoch: -1,
              currentTxnStartOffset: BigInt(log.transactionFirstOffset(producerId)),
            }
          })
          return { partitionIndex, errorCode: ErrorCodes.NONE, errorMessage: null, activeProducers }
        }),
      })),
    }
  },
  errorResponse: (req, code) => ({
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => failed(p, code)) })),
  }),
})

function failed(partitionIndex: number, errorCode: number) {
  return { partitionIndex, errorCode, errorMessage: null, activeProducers: [] }
}
