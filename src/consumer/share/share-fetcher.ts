import type { Buffer } from 'node:buffer'
import type { ConsumerCluster } from '../../cluster/client.js'
import { decodeRecordSet } from '../../codec/batch-decoder.js'
import { recordOffset } from '../../codec/record.js'
import { loadZstd, zstdReady } from '../../codec/compression.js'
import { ConnectionError, CorruptRecordError, KafkaError, WafkaError, kafkaError } from '../../errors.js'
import { AUTHORIZATION, SHARE_SESSION_LOST, STALE_METADATA } from '../../error-policy.js'
import { describeError, type Logger } from '../../logger.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { ShareAcknowledge, ShareFetch } from '../../protocol/messages/index.js'
import type { TopicPartition } from '../partition-state.js'
import { dataBatches } from '../read-committed.js'
import { holdsZstd } from '../record-set-end.js'
import { AcknowledgeTypes, type PartitionAcknowledgements, type PendingAcknowledgements } from './acknowledgements.js'
import type { ResolvedShareConsumerConfig } from './config.js'
import { ShareMessage, type ShareDelivery } from './share-message.js'
import { CLOSE_EPOCH, ShareSession } from './share-session.js'

/** What became of acknowledgements sent for one partition: `error` null when the broker applied them all. */
export interface AcknowledgementResult {
  topic: string
  partition: number
  /** How many offsets were acknowledged (gaps included). */
  count: number
  error: WafkaError | null
}

const ACQUIRE_MODES = { batch_optimized: 0, record_limit: 1 } as const

interface TopicIdPartition extends TopicPartition {
  topicId: string
}

/**
 * The share consumer's network side: one ShareFetch per leader of the
 * assigned partitions in each round, carrying the acknowledgements of what
 * that broker's session acquired before (piggy-backed, as Java's
 * ShareConsumeRequestManager does), and ShareAcknowledge where there is
 * nothing to fetch (commitSync/commitAsync, partitions no longer assigned,
 * close). Records come back as ShareMessages with their delivery counts;
 * acquired offsets with no record (control records) are acknowledged as gaps.
 */
export class ShareFetcher {
  private readonly sessions = new Map<number, ShareSession>()
  /** The acquisition lock duration the brokers last told (Java's acquisitionLockTimeoutMs()); undefined before any said. */
  lockTimeoutMs: number | undefined

  constructor(
    private readonly cluster: ConsumerCluster,
    private readonly config: ResolvedShareConsumerConfig,
    private readonly memberId: () => string,
    private readonly pending: PendingAcknowledgements,
    private readonly onAcknowledged: (results: AcknowledgementResult[]) => void,
    private readonly onFatal: (err: Error) => void,
    /** What became of renewals (KIP-1222): `ok`, the records' locks started again and they are still this member's. */
    private readonly onRenewed: (topic: string, partition: number, offsets: bigint[], ok: boolean) => void = () => {},
  ) {}

  private get log(): Logger {
    return this.cluster.log('Fetcher')
  }

  private session(nodeId: number): ShareSession {
    let s = this.sessions.get(nodeId)
    if (s === undefined) this.sessions.set(nodeId, (s = new ShareSession(nodeId)))
    return s
  }

  /**
   * One round: a ShareFetch to each leader of `wanted` (and a ShareAcknowledge
   * to brokers holding only acknowledgements), resolving with what was acquired.
   * A broker that fails is logged and backed off by the caller's next round.
   */
  async fetch(wanted: TopicPartition[]): Promise<ShareDelivery[]> {
    const byNode = new Map<number, TopicIdPartition[]>()
    let unknown = false
    for (const p of wanted) {
      const topic = this.cluster.metadata.topics.get(p.topic)
      const leader = topic?.partitions[p.partition]?.leader ?? -1
      if (topic === undefined || leader < 0) {
        unknown = true
        continue
      }
      let list = byNode.get(leader)
      if (list === undefined) byNode.set(leader, (list = []))
      list.push({ ...p, topicId: topic.topicId })
    }
    if (unknown)
      await this.cluster.refreshMetadata().catch(this.log.caught('metadata refresh for share partitions without a leader failed'))
    const acks = this.groupAcks(this.pending.take())
    const nodes = new Set([...byNode.keys(), ...acks.keys(), ...[...this.sessions.values()].filter((s) => !s.isEmpty).map((s) => s.nodeId)])
    const out: ShareDelivery[] = []
    const settled = await Promise.allSettled(
      [...nodes].map(async (node) => {
        const s = this.session(node)
        const wantedHere = byNode.get(node) ?? []
        const nodeAcks = acks.get(node) ?? []
        const keys = new Set(wantedHere.map((p) => `${p.topic}\u0000${p.partition}`))
        // Renewals go by ShareAcknowledge: a renewing ShareFetch may ask for no records (KIP-1222).
        const renewing = nodeAcks.some((a) => a.renewed().length > 0)
        const acksElsewhere = nodeAcks.filter((a) => renewing || !keys.has(`${a.topic}\u0000${a.partition}`))
        const acksHere = nodeAcks.filter((a) => !renewing && keys.has(`${a.topic}\u0000${a.partition}`))
        await s.exclusive(async () => {
          if (acksElsewhere.length > 0) await this.acknowledgeIn(s, acksElsewhere, false)
          if (wantedHere.length === 0 && s.isEmpty) return
          out.push(...(await this.fetchFrom(s, wantedHere, acksHere)))
        })
      }),
    )
    // One broker failing does not lose what the others acquired for this member: those go to user code.
    const failed = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []))
    const fatal = failed.find((err) => !ShareFetcher.retriable(err))
    if (fatal !== undefined) {
      if (out.length === 0) throw fatal
      this.onFatal(fatal as Error)
    } else if (failed.length > 0 && out.length === 0) throw failed[0]
    return out
  }

  /** Sends every pending acknowledgement now by ShareAcknowledge (commitSync/commitAsync); resolves with what the brokers said. */
  async commit(): Promise<AcknowledgementResult[]> {
    const acks = this.groupAcks(this.pending.take())
    const results = await Promise.all(
      [...acks].map(([node, list]) => this.session(node).exclusive(() => this.acknowledgeIn(this.session(node), list, false))),
    )
    return results.flat()
  }

  /** Sends the last acknowledgements and closes every share session (ShareAcknowledge with epoch -1). */
  async close(): Promise<AcknowledgementResult[]> {
    const acks = this.groupAcks(this.pending.take())
    const nodes = new Set([...acks.keys(), ...[...this.sessions.values()].filter((s) => !s.opening).map((s) => s.nodeId)])
    const results = await Promise.all(
      [...nodes].map((node) => this.session(node).exclusive(() => this.acknowledgeIn(this.session(node), acks.get(node) ?? [], true))),
    )
    this.sessions.clear()
    return results.flat()
  }

  private groupAcks(list: PartitionAcknowledgements[]): Map<number, PartitionAcknowledgements[]> {
    const out = new Map<number, PartitionAcknowledgements[]>()
    for (const a of list) {
      let l = out.get(a.nodeId)
      if (l === undefined) out.set(a.nodeId, (l = []))
      l.push(a)
    }
    return out
  }

  private topicId(topic: string): string | undefined {
    return this.cluster.metadata.topics.get(topic)?.topicId
  }

  private topicName(topicId: string): string | undefined {
    for (const t of this.cluster.metadata.topics.values()) if (t.topicId === topicId) return t.name
    return undefined
  }

  /** Acknowledgements a session cannot carry (it is opening, or the request failed): reported as failed, their records come back when their locks expire. */
  private lost(acks: PartitionAcknowledgements[], error: WafkaError): AcknowledgementResult[] {
    const results = acks.map((a) => ({ topic: a.topic, partition: a.partition, count: a.size, error }))
    this.answered(acks, results)
    return results
  }

  /** What the brokers said of `acks` (one result each, in order) goes to the consumer, renewals on their own. */
  private answered(acks: PartitionAcknowledgements[], results: AcknowledgementResult[]): void {
    for (const [i, a] of acks.entries()) {
      const renewed = a.renewed()
      if (renewed.length > 0) this.onRenewed(a.topic, a.partition, renewed, results[i].error === null)
    }
    if (results.length > 0) this.onAcknowledged(results)
  }

  private async acknowledgeIn(s: ShareSession, acks: PartitionAcknowledgements[], closing: boolean): Promise<AcknowledgementResult[]> {
    if (s.opening) {
      // The broker refuses acknowledgements at epoch 0, and a session never opened needs no closing.
      return this.lost(acks, new WafkaError(`no share session with broker ${s.nodeId} to acknowledge in`, { retriable: false }))
    }
    const topics = this.ackTopics(acks)
    let res
    try {
      res = await this.cluster.send(s.nodeId, ShareAcknowledge, {
        groupId: this.groupId,
        memberId: this.memberId(),
        shareSessionEpoch: closing ? CLOSE_EPOCH : s.nextEpoch,
        isRenewAck: acks.some((a) => a.renewed().length > 0),
        topics,
      })
    } catch (err) {
      s.reset()
      return this.lost(acks, err instanceof WafkaError ? err : new WafkaError((err as Error).message, { cause: err }))
    }
    if (closing) s.reset()
    if (res.errorCode !== ErrorCodes.NONE) {
      if (SHARE_SESSION_LOST.has(res.errorCode)) s.reset()
      else if (!closing) s.answered()
      return this.lost(
        acks,
        kafkaError(res.errorCode, { api: 'ShareAcknowledge', broker: `broker ${s.nodeId}`, detail: res.errorMessage ?? undefined }),
      )
    }
    if (!closing) s.answered()
    if (res.acquisitionLockTimeoutMs > 0) this.lockTimeoutMs = res.acquisitionLockTimeoutMs
    const results: AcknowledgementResult[] = []
    const codes = new Map<string, { code: number; message: string | null }>()
    for (const t of res.responses) {
      const topic = this.topicName(t.topicId)
      for (const p of t.partitions) codes.set(`${topic}\u0000${p.partitionIndex}`, { code: p.errorCode, message: p.errorMessage })
    }
    for (const a of acks) {
      const c = codes.get(`${a.topic}\u0000${a.partition}`)
      results.push({
        topic: a.topic,
        partition: a.partition,
        count: a.size,
        error:
          c && c.code !== ErrorCodes.NONE
            ? kafkaError(c.code, {
                api: 'ShareAcknowledge',
                broker: `broker ${s.nodeId}`,
                detail: c.message ?? `${a.topic}-${a.partition}`,
              })
            : null,
      })
    }
    this.answered(acks, results)
    return results
  }

  private get groupId(): string {
    return this.config.groupId
  }

  private ackTopics(acks: PartitionAcknowledgements[]) {
    const byTopic = new Map<
      string,
      Array<{ partitionIndex: number; acknowledgementBatches: ReturnType<PartitionAcknowledgements['batches']> }>
    >()
    for (const a of acks) {
      const id = this.topicId(a.topic)
      if (id === undefined) continue
      let l = byTopic.get(id)
      if (l === undefined) byTopic.set(id, (l = []))
      l.push({ partitionIndex: a.partition, acknowledgementBatches: a.batches() })
    }
    return [...byTopic].map(([topicId, partitions]) => ({ topicId, partitions }))
  }

  private async fetchFrom(s: ShareSession, wanted: TopicIdPartition[], acks: PartitionAcknowledgements[]): Promise<ShareDelivery[]> {
    const opening = s.opening
    // Acknowledgements cannot open a session: those of a lost one are void.
    if (opening && acks.length > 0)
      this.lost(acks, new WafkaError(`the share session with broker ${s.nodeId} was lost`, { retriable: true }))
    const sent = opening ? [] : acks
    const { added, forgotten } = s.plan(wanted)
    const ackByKey = new Map(sent.map((a) => [`${a.topic}\u0000${a.partition}`, a]))
    const listed = new Map<string, { topicId: string; partition: number; acks?: PartitionAcknowledgements }>()
    for (const p of added) listed.set(`${p.topicId}:${p.partition}`, p)
    for (const p of wanted) {
      const a = ackByKey.get(`${p.topic}\u0000${p.partition}`)
      if (a) listed.set(`${p.topicId}:${p.partition}`, { topicId: p.topicId, partition: p.partition, acks: a })
    }
    const topics = new Map<
      string,
      Array<{ partitionIndex: number; acknowledgementBatches: ReturnType<PartitionAcknowledgements['batches']> }>
    >()
    for (const p of listed.values()) {
      let l = topics.get(p.topicId)
      if (l === undefined) topics.set(p.topicId, (l = []))
      l.push({ partitionIndex: p.partition, acknowledgementBatches: p.acks?.batches() ?? [] })
    }
    const forgottenByTopic = new Map<string, number[]>()
    for (const f of forgotten) {
      let l = forgottenByTopic.get(f.topicId)
      if (l === undefined) forgottenByTopic.set(f.topicId, (l = []))
      l.push(f.partition)
    }
    let res
    try {
      res = await this.cluster.send(s.nodeId, ShareFetch, {
        groupId: this.groupId,
        memberId: this.memberId(),
        shareSessionEpoch: s.nextEpoch,
        maxWaitMs: this.config.maxWaitTimeInMs,
        minBytes: this.config.minBytes,
        maxBytes: this.config.maxBytes,
        // As Java's: the record limit is max.poll.records, and so is the batch size the broker aims for.
        maxRecords: this.config.maxPollRecords,
        batchSize: this.config.maxPollRecords,
        shareAcquireMode: ACQUIRE_MODES[this.config.shareAcquireMode],
        topics: [...topics].map(([topicId, partitions]) => ({ topicId, partitions })),
        forgottenTopicsData: [...forgottenByTopic].map(([topicId, partitions]) => ({ topicId, partitions })),
      })
    } catch (err) {
      s.reset()
      this.lost(sent, err instanceof WafkaError ? err : new WafkaError((err as Error).message, { cause: err }))
      if (!(err instanceof ConnectionError || (err instanceof WafkaError && err.retriable))) throw err
      this.log.debug('share fetch failed: a new session next time, metadata refreshed', { nodeId: s.nodeId, ...describeError(err) })
      await this.cluster.refreshMetadata().catch(this.log.caught('metadata refresh after a failed share fetch failed'))
      throw err
    }
    if (res.errorCode !== ErrorCodes.NONE) {
      const error = kafkaError(res.errorCode, { api: 'ShareFetch', broker: `broker ${s.nodeId}`, detail: res.errorMessage ?? undefined })
      if (SHARE_SESSION_LOST.has(res.errorCode)) s.reset()
      else s.answered()
      this.lost(sent, error)
      if (AUTHORIZATION.has(res.errorCode)) this.onFatal(error)
      this.log.info('share fetch refused', { nodeId: s.nodeId, code: res.errorCode, error: error.message })
      if (SHARE_SESSION_LOST.has(res.errorCode)) return []
      throw error
    }
    s.answered()
    if (res.acquisitionLockTimeoutMs > 0) this.lockTimeoutMs = res.acquisitionLockTimeoutMs
    if (!zstdReady() && res.responses.some((t) => t.partitions.some((p) => p.records !== null && holdsZstd(p.records)))) await loadZstd()
    const out: ShareDelivery[] = []
    const results: AcknowledgementResult[] = []
    let refresh = false
    for (const t of res.responses) {
      const topic = this.topicName(t.topicId)
      if (topic === undefined) continue
      for (const p of t.partitions) {
        const a = ackByKey.get(`${topic}\u0000${p.partitionIndex}`)
        if (a)
          results.push({
            topic,
            partition: p.partitionIndex,
            count: a.size,
            error:
              p.acknowledgeErrorCode !== ErrorCodes.NONE
                ? kafkaError(p.acknowledgeErrorCode, {
                    api: 'ShareFetch',
                    broker: `broker ${s.nodeId}`,
                    detail: p.acknowledgeErrorMessage ?? `${topic}-${p.partitionIndex}`,
                  })
                : null,
          })
        if (p.errorCode !== ErrorCodes.NONE) {
          const error = kafkaError(p.errorCode, {
            api: 'ShareFetch',
            broker: `broker ${s.nodeId}`,
            detail: p.errorMessage ?? `${topic}-${p.partitionIndex}`,
          })
          if (STALE_METADATA.has(p.errorCode)) refresh = true
          else if (AUTHORIZATION.has(p.errorCode)) this.onFatal(error)
          else this.log.warn('share fetch partition error', { topic, partition: p.partitionIndex, error: error.message })
          continue
        }
        if (p.acquiredRecords.length === 0) continue
        const messages = this.acquired(topic, p.partitionIndex, s.nodeId, p.records, p.acquiredRecords)
        if (messages.length > 0) out.push({ topic, partition: p.partitionIndex, messages })
      }
    }
    if (results.length > 0) this.onAcknowledged(results)
    if (refresh) {
      this.log.debug('share fetch partition errors say metadata is stale: refreshing', { nodeId: s.nodeId })
      await this.cluster.refreshMetadata().catch(this.log.caught('metadata refresh after share fetch errors failed'))
    }
    return out
  }

  /** The acquired records of a partition's record set, with their delivery counts; acquired offsets without a record go back as gaps. */
  private acquired(
    topic: string,
    partition: number,
    nodeId: number,
    records: Buffer | null,
    ranges: Array<{ firstOffset: bigint; lastOffset: bigint; deliveryCount: number }>,
  ): ShareMessage[] {
    let batches
    try {
      batches =
        records === null || records.length === 0 ? [] : dataBatches(decodeRecordSet(records, { verifyCrc: this.config.checkCrcs }).batches)
    } catch (err) {
      // Nothing of it reaches user code: its records are released to be fetched again (by a client that can read them, or to the delivery limit).
      for (const r of ranges)
        for (let o = r.firstOffset; o <= r.lastOffset; o++) this.pending.add(topic, partition, nodeId, o, AcknowledgeTypes.RELEASE)
      const message = `${topic}-${partition}: ${(err as Error).message}`
      throw err instanceof CorruptRecordError
        ? new CorruptRecordError(err.reason, message, { cause: err })
        : new WafkaError(message, { cause: err })
    }
    const sorted = [...ranges].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1))
    const out: ShareMessage[] = []
    const seen = new Set<bigint>()
    let r = 0
    for (const b of batches) {
      for (let i = 0; i < b.count; i++) {
        const offset = recordOffset(b, i)
        while (r < sorted.length && sorted[r].lastOffset < offset) r++
        if (r === sorted.length) break
        if (offset < sorted[r].firstOffset) continue
        seen.add(offset)
        out.push(new ShareMessage(b, i, topic, partition, sorted[r].deliveryCount, nodeId))
      }
    }
    for (const range of sorted)
      for (let o = range.firstOffset; o <= range.lastOffset; o++)
        if (!seen.has(o)) this.pending.add(topic, partition, nodeId, o, AcknowledgeTypes.GAP)
    return out
  }

  /** Whether `err` is one a later round may get past (a broker down, a leader moved). */
  static retriable(err: unknown): boolean {
    return err instanceof ConnectionError || (err instanceof KafkaError && err.retriable) || (err instanceof WafkaError && err.retriable)
  }
}
