import { Buffer } from 'node:buffer'
import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  Produce,
  type ProduceRequest,
  type ProduceResponse,
  type ProduceResponsePartitionProduceResponse,
} from '../../protocol/messages/Produce.js'
import type { Input } from '../../protocol/api.js'
import { CLOSE_CONNECTION, defineHandler, NO_RESPONSE } from '../handler.js'
import { BatchError, validateProducedBatch } from '../record-batch.js'
import { topicConfig } from '../topic-configs.js'

type PartitionResponse = Input<ProduceResponsePartitionProduceResponse>

const failed = (index: number, errorCode: number, errorMessage: string | null = null): PartitionResponse => ({
  index,
  errorCode,
  baseOffset: -1n,
  logAppendTimeMs: -1n,
  logStartOffset: -1n,
  errorMessage,
})

/**
 * Produce: each partition's one batch validated (CRC, shape, size,
 * idempotent sequence), then stored as received with its offsets assigned.
 * acks=all waits for the ISR, which is the leader alone for now, so every
 * ack is immediate; min.insync.replicas above the ISR size is refused.
 */
export const produceHandler = defineHandler<ProduceRequest, ProduceResponse>({
  spec: Produce,
  minVersion: 3,
  maxVersion: Produce.maxVersion,
  handle(req, { cluster, broker, version }) {
    const { controller } = cluster
    let anyError = false
    const leaders = new Set<number>()
    const byId = version >= 13
    const responses = req.topicData.map((td) => {
      const t = byId ? controller.topicsById.get(td.topicId) : controller.topics.get(td.name)
      return {
        name: td.name,
        topicId: td.topicId,
        partitionResponses: td.partitionData.map((pd): PartitionResponse => {
          const res = ((): PartitionResponse => {
            if (req.acks !== 0 && req.acks !== 1 && req.acks !== -1) return failed(pd.index, ErrorCodes.INVALID_REQUIRED_ACKS)
            if (!t) return failed(pd.index, byId ? ErrorCodes.UNKNOWN_TOPIC_ID : ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)
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
              const header = validateProducedBatch(pd.records, Number(topicConfig(t, 'max.message.bytes')))
              if (header.transactional) {
                const refused = cluster.transactions.produceCheck(header.producerId, header.producerEpoch, t.name, pd.index)
                if (refused !== null) return failed(pd.index, refused)
              }
              const duplicateOf = replica.producers.check(header)
              if (duplicateOf !== null) {
                // Kafka answers a retried batch it already has with the offset it got the first time.
                return {
                  index: pd.index,
                  errorCode: ErrorCodes.NONE,
                  baseOffset: BigInt(duplicateOf),
                  logAppendTimeMs: -1n,
                  logStartOffset: BigInt(replica.log.logStartOffset),
                }
              }
              // A copy of its own: the request's buffer belongs to the socket.
              const baseOffset = replica.log.append(Buffer.from(pd.records!), header, p.leaderEpoch)
              replica.producers.update(header, baseOffset)
              return {
                index: pd.index,
                errorCode: ErrorCodes.NONE,
                baseOffset: BigInt(baseOffset),
                logAppendTimeMs: -1n,
                logStartOffset: BigInt(replica.log.logStartOffset),
              }
            } catch (err) {
              if (err instanceof BatchError) return failed(pd.index, err.code, err.message)
              throw err
            }
          })()
          if (res.errorCode) anyError = true
          return res
        }),
      }
    })
    if (req.acks === 0) return anyError ? CLOSE_CONNECTION : NO_RESPONSE
    const nodeEndpoints = [...leaders].flatMap((id) => {
      const b = controller.brokers.get(id)
      return b ? [{ nodeId: b.id, host: b.host, port: b.port, rack: b.rack }] : []
    })
    return version >= 10 ? { responses, nodeEndpoints } : { responses }
  },
  errorResponse: (req, code) => ({
    responses: req.topicData.map((td) => ({
      name: td.name,
      topicId: td.topicId,
      partitionResponses: td.partitionData.map((pd) => failed(pd.index, code)),
    })),
  }),
})
