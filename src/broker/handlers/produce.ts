import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  Produce,
  type ProduceRequest,
  type ProduceResponse,
  type ProduceResponsePartitionProduceResponse,
} from '../../protocol/messages/Produce.js'
import type { Input } from '../../protocol/api.js'
import { CLOSE_CONNECTION, defineHandler, NO_RESPONSE } from '../handler.js'
import { validateProducedBatch } from '../record-batch.js'
import { appendForm } from '../append-format.js'
import { isCompacted, requireKeys } from '../log-cleaner.js'
import { topicConfig } from '../topic-configs.js'
import { isInternalTopic } from '../topic-names.js'
import { StorageError } from '../storage/disk-io.js'
import { awaitIsr, type IsrWait } from '../isr-wait.js'
import { BrokerError } from '../broker-error.js'
import { isTransactionalBatch } from '../../codec/batch-header.js'
import { B_RECORDS } from '../../codec/layout.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed, allowedNames, AuthorizationRefused } from '../auth/authorizer.js'

type PartitionResponse = Input<ProduceResponsePartitionProduceResponse>

/** The client id Kafka's own admin tools write internal topics under (AdminUtils.ADMIN_CLIENT_ID). */
const ADMIN_CLIENT_ID = '__admin_client'

const failed = (index: number, errorCode: number, errorMessage: string | null = null): PartitionResponse => ({
  index,
  errorCode,
  baseOffset: -1n,
  logAppendTimeMs: -1n,
  logStartOffset: -1n,
  errorMessage,
})

/** An acks=all answer waiting for the ISR to hold its records. */
interface Pending extends IsrWait {
  res: PartitionResponse
}

/**
 * Produce: each partition's one batch validated (CRC, shape, size,
 * idempotent sequence), then stored with its offsets assigned: as received,
 * or in the topic's compression.type and message.timestamp.type (appendForm).
 * acks=all refuses with NOT_ENOUGH_REPLICAS while the ISR is smaller than
 * min.insync.replicas, and otherwise answers once every ISR member has the
 * batch (awaitIsr).
 */
export const produceHandler = defineHandler<ProduceRequest, ProduceResponse>({
  spec: Produce,
  minVersion: 3,
  maxVersion: Produce.maxVersion,
  async handle(req, ctx) {
    const { cluster, broker, version } = ctx
    const { controller } = cluster
    let anyError = false
    const leaders = new Set<number>()
    const pending: Pending[] = []
    const byId = version >= 13
    // Transactional batches need WRITE on their transactional id (the whole request refused), each topic WRITE.
    // (A record set too short for a batch header is not transactional: its partition is refused CORRUPT_MESSAGE below.)
    const transactional = req.topicData.some((td) =>
      td.partitionData.some((pd) => pd.records && pd.records.length >= B_RECORDS && isTransactionalBatch(pd.records)),
    )
    if (
      transactional &&
      (req.transactionalId === null || !allowed(ctx, AclOperationTypes.WRITE, AclResourceTypes.TRANSACTIONAL_ID, req.transactionalId))
    )
      // A refusal (answered, told at INFO), not a failure: also for transactional batches without a transactional id, as Kafka.
      throw new AuthorizationRefused(ErrorCodes.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, 'Transactional Id authorization failed.')
    const topicOf = (td: ProduceRequest['topicData'][number]) =>
      byId ? controller.topicsById.get(td.topicId) : controller.topics.get(td.name)
    const writable = allowedNames(
      ctx,
      AclOperationTypes.WRITE,
      AclResourceTypes.TOPIC,
      req.topicData.map((td) => topicOf(td)?.name ?? td.name),
    )
    const responses = req.topicData.map((td) => {
      const t = topicOf(td)
      const refused = !(byId && !t) && !writable.has(t?.name ?? td.name)
      return {
        name: td.name,
        topicId: td.topicId,
        partitionResponses: td.partitionData.map((pd): PartitionResponse => {
          const res = ((): PartitionResponse => {
            if (refused) return failed(pd.index, ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
            if (req.acks !== 0 && req.acks !== 1 && req.acks !== -1) return failed(pd.index, ErrorCodes.INVALID_REQUIRED_ACKS)
            if (!t) return failed(pd.index, byId ? ErrorCodes.UNKNOWN_TOPIC_ID : ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)
            // Kafka's ReplicaManager: only its own admin client id may write to an internal topic.
            if (isInternalTopic(t.name) && ctx.header.clientId !== ADMIN_CLIENT_ID)
              return failed(pd.index, ErrorCodes.INVALID_TOPIC_EXCEPTION, `Cannot append to internal topic ${t.name}`)
            const led = cluster.leaderReplica(broker, t, pd.index)
            if (typeof led === 'number') {
              const p = t.partitions[pd.index]
              if (p && p.leader >= 0) leaders.add(p.leader)
              // v10+ tell the client where the leader is (KIP-951).
              return version >= 10
                ? { ...failed(pd.index, led), currentLeader: { leaderId: p?.leader ?? -1, leaderEpoch: p?.leaderEpoch ?? -1 } }
                : failed(pd.index, led)
            }
            const { p, replica } = led
            const minIsr = Number(topicConfig(t, 'min.insync.replicas'))
            if (req.acks === -1 && p.isr.length < minIsr) {
              return failed(
                pd.index,
                ErrorCodes.NOT_ENOUGH_REPLICAS,
                `the ISR has ${p.isr.length} replicas, fewer than min.insync.replicas (${minIsr})`,
              )
            }
            try {
              const maxMessageBytes = Number(topicConfig(t, 'max.message.bytes'))
              const header = validateProducedBatch(pd.records, maxMessageBytes)
              if (isCompacted(t)) requireKeys(pd.records!, t.name, pd.index)
              if (header.transactional) {
                // v12+: the second transaction protocol (KIP-890), the partition added to the transaction by its first batch.
                const refused =
                  version >= 12
                    ? cluster.transactions.addOnProduce(req.transactionalId, header.producerId, header.producerEpoch, t.name, pd.index)
                    : cluster.transactions.produceCheck(header.producerId, header.producerEpoch, t.name, pd.index)
                if (refused === ErrorCodes.NOT_ENOUGH_REPLICAS)
                  return failed(
                    pd.index,
                    refused,
                    'Unable to verify the partition has been added to the transaction. Underlying error: CONCURRENT_TRANSACTIONS',
                  )
                if (refused !== null) return failed(pd.index, refused)
              }
              const duplicateOf = replica.producers.check(header)
              // Kafka answers a retried batch it already has with the offset it got the first time.
              let baseOffset = duplicateOf
              let logAppendTime = -1
              if (baseOffset === null) {
                // In the topic's codec and timestamp type, in a copy of its own.
                const form = appendForm(pd.records!, header, t, maxMessageBytes)
                baseOffset = replica.log.append(form.bytes, form.header, p.leaderEpoch)
                replica.producers.update(header, baseOffset)
                logAppendTime = form.logAppendTime
              }
              const res: PartitionResponse = {
                index: pd.index,
                errorCode: ErrorCodes.NONE,
                baseOffset: BigInt(baseOffset),
                logAppendTimeMs: BigInt(logAppendTime),
                logStartOffset: BigInt(replica.log.logStartOffset),
              }
              const end = baseOffset + header.lastOffsetDelta + 1
              if (req.acks === -1 && replica.log.highWatermark < end) pending.push({ res, t, p, log: replica.log, end, minIsr })
              return res
            } catch (err) {
              if (!(err instanceof BrokerError)) throw err
              // A disk failure: nothing of the batch was kept; the partition goes on serving reads (and appends once the disk takes them).
              if (err instanceof StorageError) cluster.problem(broker.id, `produce to ${t.name}-${pd.index}: ${err.message}`, 'error')
              return { ...failed(pd.index, err.code, err.message), recordErrors: err.recordErrors }
            }
          })()
          if (res.errorCode) anyError = true
          return res
        }),
      }
    })
    if (pending.length) {
      const deadline = Date.now() + Math.max(0, req.timeoutMs)
      await Promise.all(
        pending.map(async (w) => {
          const code = await awaitIsr(broker, cluster, w, deadline)
          if (code !== ErrorCodes.NONE) Object.assign(w.res, failed(w.p.partition, code))
        }),
      )
    }
    // Appended, then throttled (KIP-219): the answer says for how long; acks=0's connection is muted all the same.
    const throttleTimeMs = broker.quotas.produced(ctx)
    if (req.acks === 0) {
      ctx.connection.throttle(throttleTimeMs)
      return anyError ? CLOSE_CONNECTION : NO_RESPONSE
    }
    const nodeEndpoints = [...leaders].flatMap((id) => {
      const b = controller.brokers.get(id)
      return b ? [{ nodeId: b.id, host: b.host, port: b.port, rack: b.rack }] : []
    })
    return version >= 10 ? { responses, nodeEndpoints, throttleTimeMs } : { responses, throttleTimeMs }
  },
  // acks=0 has no response to carry the error: the connection closes, as Kafka's does.
  errorResponse: (req, code) =>
    req.acks === 0
      ? CLOSE_CONNECTION
      : {
          responses: req.topicData.map((td) => ({
            name: td.name,
            topicId: td.topicId,
            partitionResponses: td.partitionData.map((pd) => failed(pd.index, code)),
          })),
        },
})
