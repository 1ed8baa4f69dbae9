import type { AutoCommitOptions } from '../consumer/commit-scheduler.js'
import type { Handlers } from '../consumer/delivery-runner.js'
import type { SubscribeOptions } from '../consumer/subscription-state.js'
import type { ProducerRecord } from '../producer/producer.js'
import { MAX_INT32, type Alias, type OptionSpec, type ValueKind } from './option.js'

/**
 * The options objects of each call (send, sendBatch, subscribe, run,
 * commitOffsets, seek, pause/resume, assign): what each key means and what
 * its value must be, checked by checkOptions() as the client options are by
 * their tables in defaults.ts; `satisfies` ties each table to its type.
 */

const spec = (kind: ValueKind, doc: string, extra: Partial<OptionSpec> = {}): OptionSpec => ({ kind, doc, ...extra })

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
} as const satisfies Record<'topicMessages' | keyof typeof SEND_COMMON, OptionSpec>

export const TOPIC_MESSAGES_OPTIONS = {
  topic: spec('string', 'The topic to write to.'),
  messages: spec('array', 'The messages.'),
} as const satisfies Record<'topic' | 'messages', OptionSpec>

/** KafkaJS's send options wafka takes elsewhere. */
export const SEND_ALIASES: Record<string, Alias> = {
  timeout: { instead: 'the broker-side timeout of a send is requestTimeoutMs on producer({...})' },
}

export const SUBSCRIBE_OPTIONS = {
  topics: spec('array', 'Topic names and RegExps.'),
  topic: spec('any', 'One topic name or RegExp.'),
  fromBeginning: spec('boolean', "Where to start without a committed offset: `true` 'earliest', `false` 'latest'."),
} as const satisfies Record<keyof SubscribeOptions, OptionSpec>

export const RUN_OPTIONS = {
  eachMessage: spec('function', 'Called for each message, in order per partition.'),
  eachBatch: spec('function', 'Called for each fetched batch of a partition.'),
  partitionsConsumedConcurrently: spec('integer', 'How many partitions user code processes at once.', { min: 1, max: MAX_INT32 }),
  eachBatchAutoResolve: spec('boolean', 'eachBatch: the whole batch counts as processed when it returns.'),
  autoCommit: spec('boolean', "Commit processed offsets automatically (default: the consumer's autoCommit)."),
  autoCommitInterval: spec('number', 'ms between automatic commits; null: none on a timer.', { min: 1, max: MAX_INT32, nullable: true }),
  autoCommitThreshold: spec('integer', 'Also commit after this many processed messages.', { min: 1, max: MAX_INT32, nullable: true }),
} as const satisfies Record<keyof Handlers | keyof AutoCommitOptions, OptionSpec>

/** One entry of commitOffsets([...]). */
export const COMMIT_OFFSET_OPTIONS = {
  topic: spec('string', 'The topic.'),
  partition: spec('integer', 'The partition.', { min: 0, max: MAX_INT32 }),
  offset: spec('offset', 'The next offset to consume (what was processed + 1).'),
  metadata: spec('string', 'Stored with the offset.', { nullable: true }),
} as const satisfies Record<'topic' | 'partition' | 'offset' | 'metadata', OptionSpec>

export const SEEK_OPTIONS = {
  topic: spec('string', 'The topic.'),
  partition: spec('integer', 'The partition.', { min: 0, max: MAX_INT32 }),
  offset: spec('any', 'The offset to consume next (>= 0).'),
} as const satisfies Record<'topic' | 'partition' | 'offset', OptionSpec>

/** One entry of pause([...]) or resume([...]). */
export const PAUSE_OPTIONS = {
  topic: spec('string', 'The topic.'),
  partitions: spec('array', 'Its partitions (default: all of them).'),
} as const satisfies Record<'topic' | 'partitions', OptionSpec>

/** One entry of assign([...]). */
export const ASSIGN_OPTIONS = {
  topic: spec('string', 'The topic.'),
  partitions: spec('array', 'Its partitions.'),
} as const satisfies Record<'topic' | 'partitions', OptionSpec>
