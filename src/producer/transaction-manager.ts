import type { Answered, ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { KafkaError, WafkaError, kafkaError } from '../errors.js'
import type { ApiSpec, Input } from '../protocol/api.js'
import { AddOffsetsToTxn, AddPartitionsToTxn, EndTxn, TxnOffsetCommit } from '../protocol/messages/index.js'
import { TRANSACTION_V1_MAX } from '../protocol/versions-in-use.js'
import type { PartitionQueue } from './accumulator.js'
import type { ProducerIdentity } from './producer-identity.js'
import { PRODUCER_FATAL } from '../error-policy.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import type { TxnOffsetCommitRequest } from '../protocol/messages/index.js'

type State = 'ready' | 'in-transaction' | 'ending' | 'fatal'

/**
 * One transaction at a time: partitions are registered with the transaction
 * coordinator (AddPartitionsToTxn) before their first batch is sent, consumer
 * offsets join through AddOffsetsToTxn + TxnOffsetCommit, and EndTxn commits
 * or aborts. A fencing error (another producer took the transactionalId)
 * makes the producer unusable, as in Java.
 */
export class TransactionManager {
  state: State = 'ready'
  private fatalError: Error | undefined
  private readonly inTxn = new Set<string>()
  private readonly pending = new Map<string, PartitionQueue>()
  private adding: Promise<void> | undefined

  constructor(
    private readonly cluster: ClusterClient,
    private readonly identity: ProducerIdentity,
  ) {}

  private get transactionalId(): string {
    return this.identity.transactionalId!
  }

  check(): void {
    if (this.state === 'fatal') throw this.fatalError!
  }

  fatal(err: Error): void {
    this.state = 'fatal'
    this.fatalError = err
  }

  begin(): void {
    this.check()
    if (this.state !== 'ready') throw new WafkaError('a transaction is already open: commit or abort it first')
    this.state = 'in-transaction'
  }

  /** Records may only be sent inside a transaction. */
  requireOpen(): void {
    this.check()
    if (this.state !== 'in-transaction')
      throw new WafkaError(
        'a transactional producer sends inside a transaction: const txn = await producer.transaction(); await txn.send(...)',
      )
  }

  added(q: PartitionQueue): boolean {
    return this.inTxn.has(q.key)
  }

  /** Registers the partition (batched with others waiting) with the coordinator. */
  add(q: PartitionQueue): Promise<void> {
    if (this.inTxn.has(q.key)) return Promise.resolve()
    this.pending.set(q.key, q)
    this.adding ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.addPending())
      .finally(() => {
        this.adding = undefined
      })
    return this.adding
  }

  private async addPending(): Promise<void> {
    const queues = [...this.pending.values()]
    this.pending.clear()
    const topics = new Map<string, number[]>()
    for (const q of queues) topics.set(q.topic, [...(topics.get(q.topic) ?? []), q.partition])
    await this.toCoordinator(
      AddPartitionsToTxn,
      () => ({
        v3AndBelowTransactionalId: this.transactionalId,
        v3AndBelowProducerId: this.identity.producerId,
        v3AndBelowProducerEpoch: this.identity.producerEpoch,
        v3AndBelowTopics: [...topics].map(([name, partitions]) => ({ name, partitions })),
      }),
      (res) => {
        for (const t of res.resultsByTopicV3AndBelow) {
          for (const p of t.resultsByPartition) {
            if (p.partitionErrorCode !== 0) throw this.error(p.partitionErrorCode, 'AddPartitionsToTxn', `${t.name}-${p.partitionIndex}`)
          }
        }
      },
      3, // v4+ is the brokers' own batch form; clients speak up to v3.
    )
    for (const q of queues) this.inTxn.add(q.key)
  }

  async sendOffsets(
    groupId: string,
    topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string | number | bigint; metadata?: string | null }> }>,
    consumer?: { generationId?: number; memberId?: string; groupInstanceId?: string | null },
  ): Promise<void> {
    this.requireOpen()
    await this.toCoordinator(
      AddOffsetsToTxn,
      () => ({
        transactionalId: this.transactionalId,
        producerId: this.identity.producerId,
        producerEpoch: this.identity.producerEpoch,
        groupId,
      }),
      (res) => {
        if (res.errorCode !== 0) throw this.error(res.errorCode, 'AddOffsetsToTxn', `group ${groupId}`)
      },
    )
    await this.cluster.request(
      TxnOffsetCommit,
      (v) => ({
        transactionalId: this.transactionalId,
        groupId,
        producerId: this.identity.producerId,
        producerEpoch: this.identity.producerEpoch,
        // The consumer's generation (v3+, KIP-447) lets the coordinator fence a zombie's offsets; older brokers cannot.
        ...(v >= 3 && consumer
          ? ({
              generationIdOrMemberEpoch: consumer.generationId ?? -1,
              memberId: consumer.memberId ?? '',
              groupInstanceId: consumer.groupInstanceId ?? null,
            } satisfies Partial<TxnOffsetCommitRequest>)
          : {}),
        topics: topics.map((t) => ({
          name: t.topic,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partition,
            committedOffset: BigInt(p.offset),
            committedMetadata: p.metadata ?? null,
          })),
        })),
      }),
      Routes.group(groupId),
      {
        maxVersion: TRANSACTION_V1_MAX.TxnOffsetCommit,
        check: (res) => {
          for (const t of res.topics)
            for (const p of t.partitions)
              if (p.errorCode !== 0) throw this.error(p.errorCode, 'TxnOffsetCommit', `group ${groupId} ${t.name}-${p.partitionIndex}`)
        },
      },
    )
  }

  /** Ends the open transaction (after the caller flushed its records). */
  async end(commit: boolean): Promise<void> {
    this.check()
    if (this.state !== 'in-transaction') throw new WafkaError('no transaction is open')
    this.state = 'ending'
    try {
      if (this.inTxn.size > 0 || commit) {
        await this.toCoordinator(
          EndTxn,
          () => ({
            transactionalId: this.transactionalId,
            producerId: this.identity.producerId,
            producerEpoch: this.identity.producerEpoch,
            committed: commit,
          }),
          (res) => {
            if (res.errorCode !== 0) throw this.error(res.errorCode, 'EndTxn', commit ? 'commit' : 'abort')
          },
          TRANSACTION_V1_MAX.EndTxn,
        )
      }
      this.inTxn.clear()
      this.state = 'ready'
    } catch (err) {
      if (this.state === 'ending') this.state = 'in-transaction'
      throw err
    }
  }

  private error(code: number, api: string, detail: string): KafkaError {
    const err = kafkaError(code, { api, detail: `transactionalId ${this.transactionalId}, ${detail}` })
    // Another producer with this transactionalId has taken over: nothing more may be sent.
    if (PRODUCER_FATAL.has(code)) this.fatal(err)
    if (code === ErrorCodes.CONCURRENT_TRANSACTIONS) return new KafkaError(err.message, { code, type: err.type, retriable: true })
    return err
  }

  /** A request to the transaction coordinator; each attempt first checks that no fencing error ended the producer. */
  private async toCoordinator<Req, Res>(
    api: ApiSpec<Req, Res>,
    body: () => Input<Req>,
    check: (res: Res, from: Answered) => void,
    maxVersion?: number,
  ): Promise<void> {
    await this.cluster.request(
      api,
      () => {
        this.check()
        return body()
      },
      Routes.transaction(this.transactionalId),
      { maxVersion, check },
    )
  }
}
