import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  AddPartitionsToTxn,
  type AddPartitionsToTxnRequest,
  type AddPartitionsToTxnResponse,
} from '../../protocol/messages/AddPartitionsToTxn.js'
import { defineHandler } from '../handler.js'
import { CLUSTER_NAME, AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { requireAllowed, requireTransactionalId, unwritableTxnPartitions } from '../auth/authorizer.js'

type TopicResults = { name: string; results: { partition: number; errorCode: number }[] }[]

const byTopic = (results: TopicResults) =>
  results.map((t) => ({
    name: t.name,
    resultsByPartition: t.results.map((r) => ({ partitionIndex: r.partition, partitionErrorCode: r.errorCode })),
  }))

const allFailed = (topics: { name: string; partitions: number[] }[], code: number): TopicResults =>
  topics.map((t) => ({ name: t.name, results: t.partitions.map((partition) => ({ partition, errorCode: code })) }))

/**
 * AddPartitionsToTxn: v0-3 from clients (one transaction); v4+ are Kafka's
 * brokers' batched requests (KIP-890), each transaction added to or, with
 * VerifyOnly, asked whether its partitions are in it. The embedded brokers
 * ask their coordinator in process, so these come only from outside.
 */
export const addPartitionsToTxnHandler = defineHandler<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse>({
  spec: AddPartitionsToTxn,
  minVersion: AddPartitionsToTxn.minVersion,
  maxVersion: AddPartitionsToTxn.maxVersion,
  async handle(req, ctx) {
    const { cluster, broker, version } = ctx
    const { transactions } = cluster
    const answer = async (
      transactionalId: string,
      producerId: bigint,
      epoch: number,
      topics: { name: string; partitions: number[] }[],
      verifyOnly: boolean,
    ): Promise<TopicResults> => {
      if (transactions.coordinatorFor(transactionalId) !== broker.id) return allFailed(topics, ErrorCodes.NOT_COORDINATOR)
      if (verifyOnly) return transactions.verifyPartitions(transactionalId, producerId, epoch, topics)
      const added = transactions.addPartitions(transactionalId, producerId, epoch, topics)
      if (added.some((t) => t.results.some((r) => r.errorCode !== ErrorCodes.NONE))) return added
      // Answered once its state is held by the ISR of its partition of __transaction_state.
      return allFailed(topics, await transactions.written(transactionalId))
    }
    if (version < 4) {
      // A client's (one transaction): WRITE on its transactional id and on every topic (Kafka's checks).
      const topics = req.v3AndBelowTopics
      requireTransactionalId(ctx, req.v3AndBelowTransactionalId)
      return {
        resultsByTopicV3AndBelow: byTopic(
          unwritableTxnPartitions(ctx, topics) ??
            (await answer(req.v3AndBelowTransactionalId, req.v3AndBelowProducerId, req.v3AndBelowProducerEpoch, topics, false)),
        ),
      }
    }
    // v4+ is a broker's: CLUSTER_ACTION, as Kafka checks it.
    requireAllowed(ctx, AclOperationTypes.CLUSTER_ACTION, AclResourceTypes.CLUSTER, CLUSTER_NAME, ErrorCodes.CLUSTER_AUTHORIZATION_FAILED)
    return {
      errorCode: ErrorCodes.NONE,
      resultsByTransaction: await Promise.all(
        req.transactions.map(async (t) => ({
          transactionalId: t.transactionalId,
          topicResults: byTopic(await answer(t.transactionalId, t.producerId, t.producerEpoch, t.topics, t.verifyOnly)),
        })),
      ),
    }
  },
  errorResponse: (req, code) => ({
    errorCode: code,
    resultsByTopicV3AndBelow: byTopic(allFailed(req.v3AndBelowTopics, code)),
    resultsByTransaction: req.transactions.map((t) => ({
      transactionalId: t.transactionalId,
      topicResults: byTopic(allFailed(t.topics, code)),
    })),
  }),
})
