import type { CompressionType } from '../codec/compression.js'
import type { Bytes, HeadersInput } from '../codec/types.js'
import { callOption as spec, type Alias, type OptionSpec } from '../config/option.js'
import type { Acks } from './config.js'

export interface Message {
  key?: Bytes
  value: Bytes
  headers?: HeadersInput
  /** A fixed partition; otherwise the partitioner picks one. */
  partition?: number
  /** Milliseconds since the epoch (number, numeric string, bigint or Date); default: when send() was called. */
  timestamp?: number | string | bigint | Date
}

export interface ProducerRecord {
  topic: string
  messages: Message[]
  acks?: Acks
  compression?: CompressionType
}

export interface SendBatch {
  topicMessages: Array<{ topic: string; messages: Message[] }>
  acks?: Acks
  compression?: CompressionType
}

/**
 * The options objects of send() and sendBatch(): what each key means and what
 * its value must be, checked by checkOptions() at each call as the producer's
 * options are by PRODUCER_OPTIONS; `satisfies` ties each table to its type.
 */
const SEND_COMMON = {
  acks: spec('any', "`'all'` (-1), `1` or `0`: this send's acks (default: the producer's)."),
  compression: spec('any', "This send's codec: `'none'`, `'gzip'`, `'snappy'`, `'lz4'` or `'zstd'` (default: the producer's)."),
}

export const SEND_OPTIONS = {
  topic: spec('string', 'The topic to write to.'),
  messages: spec('array', 'The messages: `{ key?, value, headers?, partition?, timestamp? }`.'),
  ...SEND_COMMON,
} as const satisfies Record<keyof ProducerRecord, OptionSpec>

export const SEND_BATCH_OPTIONS = {
  topicMessages: spec('array', 'One `{ topic, messages }` a topic.'),
  ...SEND_COMMON,
} as const satisfies Record<keyof SendBatch, OptionSpec>

export const TOPIC_MESSAGES_OPTIONS = {
  topic: spec('string', 'The topic to write to.'),
  messages: spec('array', 'The messages.'),
} as const satisfies Record<keyof SendBatch['topicMessages'][number], OptionSpec>

/** KafkaJS's send options wafka takes elsewhere. */
export const SEND_ALIASES: Record<string, Alias> = {
  timeout: { instead: 'the broker-side timeout of a send is requestTimeoutMs on producer({...})' },
}
