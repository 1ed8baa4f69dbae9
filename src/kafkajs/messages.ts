import type { Buffer } from 'node:buffer'
import type { Batch as EngineBatch } from '../consumer/batch.js'
import type { KafkaMessage as EngineMessage } from '../consumer/message.js'

export type IHeaders = Record<string, Buffer | string | (Buffer | string)[] | undefined>

interface MessageFields {
  key: Buffer | null
  value: Buffer | null
  timestamp: string
  attributes: number
  offset: string
}

/** A v0/v1 message (KafkaJS's MessageSetEntry): a size, no headers. wafka delivers v2 records. */
export interface MessageSetEntry extends MessageFields {
  size: number
  headers?: never
}

/** A v2 record (KafkaJS's RecordBatchEntry), with the fields KafkaJS's runtime adds and its types do not name. */
export interface RecordBatchEntry extends MessageFields {
  headers: IHeaders
  size?: never
  magicByte?: number
  isControlRecord?: boolean
  batchContext?: BatchContext
}

/**
 * A consumed message as KafkaJS gives it: a plain object, so spreading or JSON keeps every field.
 * KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s KafkaMessage (a class reading in place).
 */
export type KafkaMessage = MessageSetEntry | RecordBatchEntry

export interface BatchContext {
  firstOffset: string
  firstTimestamp: string
  partitionLeaderEpoch: number
  inTransaction: boolean
  isControlBatch: boolean
  lastOffsetDelta: number
  producerId: string
  producerEpoch: number
  firstSequence: number
  maxTimestamp: string
  timestampType: number
  magicByte: number
}

const contexts = new WeakMap<object, BatchContext>()

function batchContext(m: EngineMessage): BatchContext {
  const b = m.batch
  let c = contexts.get(b)
  if (!c) {
    c = {
      firstOffset: String(b.baseOffset),
      firstTimestamp: String(b.baseTimestamp),
      partitionLeaderEpoch: b.partitionLeaderEpoch,
      inTransaction: b.isTransactional,
      isControlBatch: b.isControl,
      lastOffsetDelta: b.lastOffsetDelta,
      producerId: String(b.producerId),
      producerEpoch: b.producerEpoch,
      firstSequence: b.baseSequence,
      maxTimestamp: String(b.maxTimestamp),
      timestampType: b.timestampType === 'LogAppendTime' ? 1 : 0,
      magicByte: b.magic,
    }
    contexts.set(b, c)
  }
  return c
}

export function plainMessage(m: EngineMessage): RecordBatchEntry {
  const key = m.key as Buffer | null
  const value = m.value as Buffer | null
  const headers = (m.headers ?? {}) as IHeaders
  return {
    magicByte: m.batch.magic,
    attributes: m.attributes,
    timestamp: m.timestamp,
    offset: m.offset,
    key,
    value,
    headers,
    isControlRecord: false,
    batchContext: batchContext(m),
  }
}

/**
 * A batch as KafkaJS gives it to eachBatch.
 * KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s Batch.
 */
export interface Batch {
  topic: string
  partition: number
  highWatermark: string
  messages: KafkaMessage[]
  /** KafkaJS's runtime has these two; its types do not. */
  fetchedOffset?: string
  messagesWithinOffset?: KafkaMessage[]
  isEmpty(): boolean
  firstOffset(): string | null
  lastOffset(): string
  offsetLag(): string
  offsetLagLow(): string
}

export function plainBatch(b: EngineBatch): Batch {
  const messages = b.messages.map(plainMessage)
  return {
    topic: b.topic,
    partition: b.partition,
    highWatermark: b.highWatermark,
    messages,
    // The engine fetched from the first message it delivers (earlier records of a compressed batch are dropped).
    fetchedOffset: b.firstOffset() ?? b.highWatermark,
    messagesWithinOffset: messages,
    isEmpty: () => b.isEmpty(),
    firstOffset: () => b.firstOffset(),
    lastOffset: () => b.lastOffset(),
    offsetLag: () => b.offsetLag(),
    offsetLagLow: () => b.offsetLagLow(),
  }
}

/** KafkaJS's `{ topics: [{ topic, partitions: [{ partition, offset }] }] }` from a flat list. */
export function byTopic<T extends { topic: string; partition: number }>(list: T[]) {
  const topics = new Map<string, Array<Omit<T, 'topic'>>>()
  for (const { topic, ...rest } of list) {
    let ps = topics.get(topic)
    if (!ps) topics.set(topic, (ps = []))
    ps.push(rest)
  }
  return { topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })) }
}
