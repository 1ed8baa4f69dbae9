import type { AutoCommitOptions } from './commit-scheduler.js'
import type { Handlers } from './delivery-runner.js'
import type { SubscribeOptions } from './subscription-state.js'
import { INT32_MAX } from '../int32.js'
import { callOption as spec, type OptionSpec } from '../config/option.js'

/**
 * The options objects of the consumer's calls (subscribe, run,
 * commitOffsets, seek, pause/resume, assign): what each key means and what
 * its value must be, checked by checkOptions() as the consumer's options are
 * by CONSUMER_OPTIONS; `satisfies` ties each table to its type.
 */

export const SUBSCRIBE_OPTIONS = {
  topics: spec('array', 'Topic names and RegExps.'),
  topic: spec('any', 'One topic name or RegExp.'),
  fromBeginning: spec('boolean', "Where to start without a committed offset: `true` 'earliest', `false` 'latest'."),
} as const satisfies Record<keyof SubscribeOptions, OptionSpec>

export const RUN_OPTIONS = {
  eachMessage: spec('function', 'Called for each message, in order per partition.'),
  eachBatch: spec('function', 'Called for each fetched batch of a partition.'),
  partitionsConsumedConcurrently: spec('integer', 'How many partitions user code processes at once.', { min: 1, max: INT32_MAX }),
  eachBatchAutoResolve: spec('boolean', 'eachBatch: the whole batch counts as processed when it returns.'),
  autoCommit: spec('boolean', "Commit processed offsets automatically (default: the consumer's autoCommit)."),
  autoCommitInterval: spec('number', 'ms between automatic commits; null: none on a timer.', { min: 1, max: INT32_MAX, nullable: true }),
  autoCommitThreshold: spec('integer', 'Also commit after this many processed messages.', { min: 1, max: INT32_MAX, nullable: true }),
} as const satisfies Record<keyof Handlers | keyof AutoCommitOptions, OptionSpec>

/** One entry of commitOffsets([...]). */
export const COMMIT_OFFSET_OPTIONS = {
  topic: spec('string', 'The topic.'),
  partition: spec('integer', 'The partition.', { min: 0, max: INT32_MAX }),
  offset: spec('offset', 'The next offset to consume (what was processed + 1).'),
  metadata: spec('string', 'Stored with the offset.', { nullable: true }),
} as const satisfies Record<'topic' | 'partition' | 'offset' | 'metadata', OptionSpec>

export const SEEK_OPTIONS = {
  topic: spec('string', 'The topic.'),
  partition: spec('integer', 'The partition.', { min: 0, max: INT32_MAX }),
  offset: spec('any', 'The offset to consume next (>= 0).'),
} as const satisfies Record<'topic' | 'partition' | 'offset', OptionSpec>

/** One entry of pause([...]) or resume([...]). */
export const PAUSE_OPTIONS = {
  topic: spec('string', 'The topic.'),
  partitions: spec('array', 'Its partitions (default: all of them).'),
} as const satisfies Record<'topic' | 'partitions', OptionSpec>

export interface DisconnectOptions {
  /** Send a leave request (default); false: the group keeps the member until its session times out. */
  leaveGroup?: boolean
}

export const DISCONNECT_OPTIONS = {
  leaveGroup: spec('boolean', 'Leave the group (default true); false: the group keeps the member until its session times out.'),
} as const satisfies Record<keyof DisconnectOptions, OptionSpec>

/** One entry of assign([...]). */
export const ASSIGN_OPTIONS = {
  topic: spec('string', 'The topic.'),
  partitions: spec('array', 'Its partitions.'),
} as const satisfies Record<'topic' | 'partitions', OptionSpec>
