import type { Buffer } from 'node:buffer'
import { decodeData, encodeData, TransactionLogKey, TransactionLogValue } from '../../protocol/messages/index.js'

/** Kafka's TransactionState, in the order of its ids (TransactionStatus in the record). */
export const TXN_STATES = [
  'Empty',
  'Ongoing',
  'PrepareCommit',
  'PrepareAbort',
  'CompleteCommit',
  'CompleteAbort',
  'Dead',
  'PrepareEpochFence',
] as const
export type TxnStatus = (typeof TXN_STATES)[number]

/** What a record of __transaction_state says of one transactional id (Kafka's TransactionLogValue). */
export interface TxnRecord {
  producerId: bigint
  previousProducerId: bigint
  nextProducerId: bigint
  producerEpoch: number
  timeoutMs: number
  state: TxnStatus
  partitions: { topic: string; partition: number }[]
  lastUpdate: number
  startedAt: number
  /** 2 when the client speaks the second transaction protocol (KIP-890), else 0. */
  clientTransactionVersion: number
}

/**
 * A record as Kafka's TransactionLog writes it: the key (version 0, the
 * transactional id), the value at `valueVersion` (1, flexible, once
 * transaction.version is 1 or more; else 0); partitions null when Empty.
 */
/** The record key of a transactional id (its tombstone's too). */
export function txnKey(transactionalId: string): Buffer {
  return encodeData(TransactionLogKey, 0, { transactionalId })
}

export function txnRecord(transactionalId: string, r: TxnRecord, valueVersion: number): { key: Buffer; value: Buffer } {
  const byTopic = new Map<string, number[]>()
  for (const { topic, partition } of r.partitions) {
    let ids = byTopic.get(topic)
    if (!ids) byTopic.set(topic, (ids = []))
    ids.push(partition)
  }
  return {
    key: txnKey(transactionalId),
    value: encodeData(TransactionLogValue, valueVersion, {
      producerId: r.producerId,
      previousProducerId: r.previousProducerId,
      nextProducerId: r.nextProducerId,
      producerEpoch: r.producerEpoch,
      transactionTimeoutMs: r.timeoutMs,
      transactionStatus: TXN_STATES.indexOf(r.state),
      transactionPartitions: r.state === 'Empty' ? null : [...byTopic].map(([topic, partitionIds]) => ({ topic, partitionIds })),
      transactionLastUpdateTimestampMs: BigInt(r.lastUpdate),
      transactionStartTimestampMs: BigInt(r.startedAt),
      clientTransactionVersion: r.clientTransactionVersion,
    }),
  }
}

/** A record read back: its transactional id and what it says (null: a tombstone). Throws on a record it cannot read. */
export function readTxnRecord(key: Buffer, value: Buffer | null): { transactionalId: string; record: TxnRecord | null } {
  const { transactionalId } = decodeData(TransactionLogKey, key).value
  if (value === null) return { transactionalId, record: null }
  const v = decodeData(TransactionLogValue, value).value
  const state = TXN_STATES[v.transactionStatus]
  if (state === undefined) throw new Error(`transactional id ${transactionalId}: unknown transaction status ${v.transactionStatus}`)
  return {
    transactionalId,
    record: {
      producerId: v.producerId,
      previousProducerId: v.previousProducerId,
      nextProducerId: v.nextProducerId,
      producerEpoch: v.producerEpoch,
      timeoutMs: v.transactionTimeoutMs,
      state,
      partitions:
        state === 'Empty'
          ? []
          : (v.transactionPartitions ?? []).flatMap((t) => t.partitionIds.map((partition) => ({ topic: t.topic, partition }))),
      lastUpdate: Number(v.transactionLastUpdateTimestampMs),
      startedAt: Number(v.transactionStartTimestampMs),
      clientTransactionVersion: v.clientTransactionVersion,
    },
  }
}
