import type { Buffer } from 'node:buffer'
import type { Input } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { Fetch, type FetchRequest, type FetchResponse, type FetchResponsePartitionData } from '../../protocol/messages/Fetch.js'
import type { VirtualBroker } from '../broker.js'
import type { EmbeddedCluster } from '../cluster.js'
import type { ClientConnection } from '../listener.js'
import type { PartitionLog } from '../partition-log.js'
import { defineHandler, type RequestContext } from '../handler.js'

type PartitionData = Input<FetchResponsePartitionData>

const READ_COMMITTED = 1

function failed(partitionIndex: number, errorCode: number): PartitionData {
  return { partitionIndex, errorCode, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n, records: null }
}

interface Pass {
  responses: { topic: string; topicId: string; partitions: PartitionData[] }[]
  bytes: number
  errors: boolean
  logs: PartitionLog[]
  leaders: Set<number>
}

/** One pass over the requested partitions: what can be answered now. */
function readOnce(req: FetchRequest, cluster: EmbeddedCluster, broker: VirtualBroker, version: number): Pass {
  const byId = version >= 13
  const pass: Pass = { responses: [], bytes: 0, errors: false, logs: [], leaders: new Set() }
  let room = req.maxBytes
  for (const ft of req.topics) {
    const t = byId ? cluster.controller.topicsById.get(ft.topicId) : cluster.controller.topics.get(ft.topic)
    const partitions = ft.partitions.map((fp): PartitionData => {
      if (!t) return failed(fp.partition, byId ? ErrorCodes.UNKNOWN_TOPIC_ID : ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)
      const led = cluster.leaderReplica(broker, t, fp.partition)
      const p = t.partitions[fp.partition]
      // v12+ tell the client where the leader is.
      const currentLeader = version >= 12 ? { leaderId: p?.leader ?? -1, leaderEpoch: p?.leaderEpoch ?? -1 } : undefined
      if (typeof led === 'number') {
        if (p && p.leader >= 0) pass.leaders.add(p.leader)
        return { ...failed(fp.partition, led), currentLeader }
      }
      if (fp.currentLeaderEpoch >= 0 && fp.currentLeaderEpoch !== p.leaderEpoch) {
        return { ...failed(fp.partition, fp.currentLeaderEpoch < p.leaderEpoch ? ErrorCodes.FENCED_LEADER_EPOCH : ErrorCodes.UNKNOWN_LEADER_EPOCH), currentLeader }
      }
      const log = led.replica.log
      pass.logs.push(log)
      const offset = Number(fp.fetchOffset)
      const committedOnly = req.isolationLevel === READ_COMMITTED
      const lso = log.lastStableOffset
      const upTo = committedOnly ? lso : log.highWatermark
      const common = {
        partitionIndex: fp.partition,
        highWatermark: BigInt(log.highWatermark),
        lastStableOffset: BigInt(lso),
        logStartOffset: BigInt(log.logStartOffset),
        abortedTransactions: committedOnly
          ? log.abortedBetween(offset, upTo).map((a) => ({ producerId: a.producerId, firstOffset: BigInt(a.firstOffset) }))
          : null,
      }
      if (offset < log.logStartOffset || offset > log.logEndOffset) {
        return { ...common, errorCode: ErrorCodes.OFFSET_OUT_OF_RANGE, records: null }
      }
      let chunks: Buffer[] = []
      // KIP-74: the first batch goes out whole even past the limits, so a consumer always progresses.
      const limit = Math.min(fp.partitionMaxBytes, room)
      if (limit > 0 || pass.bytes === 0) {
        const read = log.read(offset, Math.max(limit, 1), upTo)
        if (pass.bytes === 0 || read.bytes <= limit) {
          chunks = read.chunks
          pass.bytes += read.bytes
          room -= read.bytes
        }
      }
      return { ...common, errorCode: ErrorCodes.NONE, records: chunks }
    })
    if (partitions.some((p) => p.errorCode)) pass.errors = true
    pass.responses.push({ topic: byId ? '' : ft.topic, topicId: t?.id ?? ft.topicId, partitions })
  }
  return pass
}

/** Waits until one of `logs` gets an append, `ms` pass, the client goes away or the broker stops. */
function waitForData(broker: VirtualBroker, connection: ClientConnection, logs: PartitionLog[], ms: number): Promise<void> {
  return new Promise((resolve) => {
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      for (const cancel of cancels) cancel()
      broker.waits.delete(finish)
      resolve()
    }
    const timer = setTimeout(finish, ms)
    const cancels = logs.map((l) => l.onAppend(finish))
    broker.waits.add(finish)
    cancels.push(connection.onClose(finish))
  })
}

/**
 * Fetch: stored batch bytes as they are, up to the high watermark, within
 * maxBytes and each partition's limit; a long poll (maxWaitMs) until
 * minBytes are there, woken by an append. read_committed reads up to the
 * last stable offset, with the aborted transactions in what it reads. No
 * fetch sessions are created
 * (sessionId 0 in every answer, which clients take as "fetch in full").
 */
export const fetchHandler = defineHandler<FetchRequest, FetchResponse>({
  spec: Fetch,
  minVersion: 4,
  maxVersion: Fetch.maxVersion,
  async handle(req, ctx: RequestContext) {
    const { cluster, broker, version } = ctx
    if (req.sessionId !== 0 || req.sessionEpoch > 0) {
      return { errorCode: ErrorCodes.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [] }
    }
    const deadline = Date.now() + req.maxWaitMs
    for (;;) {
      const pass = readOnce(req, cluster, broker, version)
      const left = deadline - Date.now()
      if (pass.bytes >= req.minBytes || pass.errors || left <= 0 || !broker.running || pass.logs.length === 0 || ctx.connection.isClosed) {
        const nodeEndpoints = [...pass.leaders].flatMap((id) => {
          const b = cluster.controller.brokers.get(id)
          return b ? [{ nodeId: b.id, host: b.host, port: b.port, rack: b.rack }] : []
        })
        return { errorCode: ErrorCodes.NONE, sessionId: 0, responses: pass.responses, ...(version >= 16 ? { nodeEndpoints } : {}) }
      }
      await waitForData(broker, ctx.connection, pass.logs, left)
    }
  },
  errorResponse: (req, code, { version }) => ({
    errorCode: code,
    sessionId: 0,
    responses: req.topics.map((t) => ({ topic: version >= 13 ? '' : t.topic, topicId: t.topicId, partitions: t.partitions.map((p) => failed(p.partition, code)) })),
  }),
})
