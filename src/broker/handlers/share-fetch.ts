import type { Buffer } from 'node:buffer'
import type { Input } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  ShareFetch,
  type ShareFetchRequest,
  type ShareFetchResponse,
  type ShareFetchResponsePartitionData,
} from '../../protocol/messages/ShareFetch.js'
import { defineHandler, type RequestContext } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed, allowedNames } from '../auth/authorizer.js'
import { groupConfig } from '../dynamic-configs.js'
import type { PartitionLog } from '../partition-log.js'
import { SHARE_FINAL_EPOCH, SHARE_INITIAL_EPOCH, partitionKey, type ShareSession } from '../share/share-sessions.js'
import { StorageError } from '../storage/disk-io.js'
import { CorruptBatchError } from '../storage/segment.js'
import { acknowledge, continuedSession, currentLeader, ledLog, toAckBatches } from './share-common.js'

type PartitionData = Input<ShareFetchResponsePartitionData>

/** share.acquire.mode on the wire (KIP-1206): 0 batch_optimized (whole batches), 1 record_limit. */
const BATCH_OPTIMIZED = 0

function top(errorCode: number, errorMessage: string | null = null) {
  return { errorCode, errorMessage, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] }
}

function answer(ctx: RequestContext, topicId: string, partitionIndex: number): PartitionData {
  return {
    partitionIndex,
    errorCode: ErrorCodes.NONE,
    errorMessage: null,
    acknowledgeErrorCode: ErrorCodes.NONE,
    acknowledgeErrorMessage: null,
    currentLeader: currentLeader(ctx, topicId, partitionIndex),
    records: [] as Buffer[],
    acquiredRecords: [],
  }
}

/** Waits until a log's high watermark moves, records are released, the connection closes, or `ms` pass. */
function waitForRecords(ctx: RequestContext, logs: PartitionLog[], ms: number): Promise<void> {
  return new Promise((resolve) => {
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      for (const cancel of cancels) cancel()
      ctx.broker.waits.delete(finish)
      resolve()
    }
    const timer = setTimeout(finish, ms)
    const cancels = logs.map((l) => l.onHighWatermark(finish))
    cancels.push(ctx.cluster.groups.shares.onAvailable(finish))
    cancels.push(ctx.connection.onClose(finish))
    ctx.broker.waits.add(finish)
  })
}

/**
 * ShareFetch (KIP-932): within the member's share session (opened at epoch
 * 0, each request at the next epoch, closed at -1), applies the
 * acknowledgements it carries, then acquires records of the session's
 * partitions for the member — released ones first, then new ones — and
 * answers them with their delivery counts; a long poll (maxWaitMs) while
 * there is nothing to acquire, woken by an append or a release.
 */
export const shareFetchHandler = defineHandler<ShareFetchRequest, ShareFetchResponse>({
  spec: ShareFetch,
  minVersion: ShareFetch.minVersion,
  maxVersion: ShareFetch.maxVersion,
  async handle(req, ctx) {
    const groupId = req.groupId ?? ''
    const memberId = req.memberId ?? ''
    if (!groupId) return top(ErrorCodes.INVALID_GROUP_ID)
    if (!memberId) return top(ErrorCodes.INVALID_REQUEST, 'Member id is required.')
    if (!allowed(ctx, AclOperationTypes.READ, AclResourceTypes.GROUP, groupId)) return top(ErrorCodes.GROUP_AUTHORIZATION_FAILED)
    // KIP-1222: a renewing ShareFetch only acknowledges (and renews), so it asks for nothing; Kafka refuses one that does.
    const renewing = ctx.version >= 2 && req.isRenewAck
    if (renewing) {
      const set = (['maxBytes', 'minBytes', 'maxRecords', 'maxWaitMs'] as const).filter((k) => req[k] !== 0)
      // Kafka answers without a message (it logs why); the embedded broker logs it as a client's mistake.
      if (set.length > 0) {
        ctx.cluster.problem(ctx.broker.id, `ShareFetch of group ${groupId}: ${set.join(', ')} must be 0 with IsRenewAck`, 'info')
        return top(ErrorCodes.INVALID_REQUEST)
      }
    }
    const shares = ctx.cluster.groups.shares
    const hasAcks = req.topics.some((t) => t.partitions.some((p) => p.acknowledgementBatches.length > 0))
    let session: ShareSession
    if (req.shareSessionEpoch === SHARE_INITIAL_EPOCH) {
      if (hasAcks) return top(ErrorCodes.INVALID_REQUEST, 'Acknowledge data present on initial fetch.')
      // A member opening a new session with this broker gives up what the old one held, as Kafka's cache replaces it.
      const old = shares.sessions.get(ctx.broker.id, groupId, memberId)
      if (old) shares.closeSession(old)
      session = shares.sessions.open(ctx.broker.id, groupId, memberId)
    } else {
      const s = continuedSession(ctx, groupId, memberId, req.shareSessionEpoch)
      if (typeof s === 'number') return top(s)
      session = s
    }
    const final = req.shareSessionEpoch === SHARE_FINAL_EPOCH
    for (const f of req.forgottenTopicsData) for (const p of f.partitions) session.partitions.delete(partitionKey(f.topicId, p))
    if (!final)
      for (const t of req.topics)
        for (const p of t.partitions)
          session.partitions.set(partitionKey(t.topicId, p.partitionIndex), { topicId: t.topicId, partition: p.partitionIndex })

    const { controller } = ctx.cluster
    const names = new Set<string>()
    for (const p of session.partitions.values()) names.add(controller.topicsById.get(p.topicId)?.name ?? '')
    for (const t of req.topics) names.add(controller.topicsById.get(t.topicId)?.name ?? '')
    const readableNames = allowedNames(ctx, AclOperationTypes.READ, AclResourceTypes.TOPIC, [...names])
    const readable = (topicId: string) => {
      const name = controller.topicsById.get(topicId)?.name
      return name === undefined || readableNames.has(name)
    }

    // Acknowledgements first (piggy-backed), each partition's outcome in its answer.
    const answers = new Map<string, { topicId: string; data: PartitionData }>()
    const entry = (topicId: string, partition: number) => {
      const k = partitionKey(topicId, partition)
      let a = answers.get(k)
      if (!a) answers.set(k, (a = { topicId, data: answer(ctx, topicId, partition) }))
      return a.data
    }
    for (const t of req.topics)
      for (const p of t.partitions) {
        if (p.acknowledgementBatches.length === 0) continue
        const { errorCode, errorMessage } = readable(t.topicId)
          ? acknowledge(ctx, groupId, memberId, t.topicId, p.partitionIndex, toAckBatches(p.acknowledgementBatches))
          : { errorCode: ErrorCodes.TOPIC_AUTHORIZATION_FAILED, errorMessage: null }
        const data = entry(t.topicId, p.partitionIndex)
        data.acknowledgeErrorCode = errorCode
        data.acknowledgeErrorMessage = errorMessage
      }
    const lockMs = Number(groupConfig(ctx.cluster, groupId, 'share.record.lock.duration.ms'))
    const respond = () => {
      const byTopic = new Map<string, PartitionData[]>()
      for (const { topicId, data } of answers.values()) {
        let l = byTopic.get(topicId)
        if (!l) byTopic.set(topicId, (l = []))
        l.push(data)
      }
      return {
        errorCode: ErrorCodes.NONE,
        errorMessage: null,
        acquisitionLockTimeoutMs: lockMs,
        responses: [...byTopic].map(([topicId, partitions]) => ({ topicId, partitions })),
        nodeEndpoints: [],
      }
    }
    if (final) {
      shares.closeSession(session)
      return respond()
    }
    if (renewing) return respond()

    const deadline = Date.now() + req.maxWaitMs
    const wholeBatches = ctx.version < 2 || req.shareAcquireMode === BATCH_OPTIMIZED
    for (;;) {
      let remaining = req.maxRecords > 0 ? req.maxRecords : Infinity
      let bytes = 0
      let errors = false
      let acquiredAny = false
      const logs: PartitionLog[] = []
      for (const p of session.partitions.values()) {
        if (!readable(p.topicId)) {
          entry(p.topicId, p.partition).errorCode = ErrorCodes.TOPIC_AUTHORIZATION_FAILED
          errors = true
          continue
        }
        const led = ledLog(ctx, p.topicId, p.partition)
        if (typeof led === 'number') {
          entry(p.topicId, p.partition).errorCode = led
          errors = true
          continue
        }
        logs.push(led.log)
        if (remaining <= 0 || bytes >= req.maxBytes) continue
        const sp = shares.partition(groupId, p.topicId, p.partition, led.log)
        // As Fetch: a read refused (a corrupt batch) is said at ERROR once per place, its repeats at DEBUG.
        const said = (err: StorageError) => {
          const repeated = err instanceof CorruptBatchError && err.repeated
          const name = controller.topicsById.get(p.topicId)?.name ?? p.topicId
          ctx.cluster.problem(ctx.broker.id, `share fetch from ${name}-${p.partition}: ${err.message}`, repeated ? 'debug' : 'error')
        }
        let got: ReturnType<typeof sp.acquire>
        try {
          got = sp.acquire(memberId, led.log, remaining, wholeBatches, req.maxBytes - bytes)
        } catch (err) {
          if (!(err instanceof StorageError)) throw err
          // This partition refused, nothing acquired; the others served.
          said(err)
          entry(p.topicId, p.partition).errorCode = ErrorCodes.KAFKA_STORAGE_ERROR
          errors = true
          continue
        }
        const { acquired, chunks } = got
        if (got.refused) said(got.refused)
        if (acquired.length === 0) continue
        acquiredAny = true
        const data = entry(p.topicId, p.partition)
        data.records = chunks
        data.acquiredRecords = acquired.map((a) => ({
          firstOffset: BigInt(a.firstOffset),
          lastOffset: BigInt(a.lastOffset),
          deliveryCount: a.deliveryCount,
        }))
        for (const a of acquired) remaining -= a.lastOffset - a.firstOffset + 1
        for (const c of chunks) bytes += c.length
      }
      const left = deadline - Date.now()
      if (acquiredAny || errors || left <= 0 || !ctx.broker.running || ctx.connection.isClosed || logs.length === 0) return respond()
      await waitForRecords(ctx, logs, left)
    }
  },
  errorResponse: (_req, code) => top(code),
})
