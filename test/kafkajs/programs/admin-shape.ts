// What an admin call gave, as plain data both clients can be compared on:
// its result, or its error with every field KafkaJS's admin errors carry
// (the aggregate's errors, the groups and partitions that failed, the cause,
// the retry count) and the KafkaJS classes it is an instance of.
import type { KafkaJSModule, ProgramEnv } from './program.js'

const CLASSES = [
  'KafkaJSError',
  'KafkaJSNonRetriableError',
  'KafkaJSProtocolError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSOffsetOutOfRange',
  'KafkaJSAggregateError',
  'KafkaJSCreateTopicError',
  'KafkaJSDeleteGroupsError',
  'KafkaJSDeleteTopicRecordsError',
  'KafkaJSBrokerNotFound',
  'KafkaJSAlterPartitionReassignmentsError',
  'KafkaJSServerDoesNotSupportApiKey',
] as const

type Fields = {
  name?: string
  type?: string
  retriable?: boolean
  topic?: string
  partition?: number
  errors?: unknown[]
  groups?: Array<{ groupId?: string; errorCode?: number; error?: unknown }>
  partitions?: Array<{ partition?: number; offset?: string; error?: unknown }>
  cause?: unknown
  retryCount?: number
}

/** An error as data: class, KafkaJS fields, nested errors (depth-bounded: a cause may point back). */
export function adminError(mod: KafkaJSModule, e: unknown, depth = 0): unknown {
  if (e == null || typeof e !== 'object') return e
  const err = e as Fields
  const shape: Record<string, unknown> = {
    name: err.name,
    type: err.type,
    retriable: err.retriable,
    instanceOf: CLASSES.filter((c) => {
      const cls = (mod as unknown as Record<string, unknown>)[c]
      return typeof cls === 'function' && e instanceof (cls as new () => unknown)
    }),
  }
  if (depth > 2) return shape
  if (err.topic !== undefined) shape.topic = err.topic
  if (err.partition !== undefined) shape.partition = err.partition
  if (err.retryCount !== undefined) shape.retryCount = err.retryCount
  if (Array.isArray(err.errors)) shape.errors = err.errors.map((x) => adminError(mod, x, depth + 1))
  if (Array.isArray(err.groups))
    shape.groups = err.groups.map((g) => ({ groupId: g.groupId, errorCode: g.errorCode, error: adminError(mod, g.error, depth + 1) }))
  if (Array.isArray(err.partitions))
    shape.partitions = err.partitions.map((p) => ({ partition: p.partition, offset: p.offset, error: adminError(mod, p.error, depth + 1) }))
  // KafkaJS's retrier keeps what failed as the cause, a KafkaJS error a program may read. (A wafka
  // error as the cause is the original of a translated one, which KafkaJS has no counterpart of.)
  const isKafkaJS = err.cause instanceof (mod.KafkaJSError as unknown as new () => unknown)
  if (isKafkaJS && err.cause !== e) shape.cause = adminError(mod, err.cause, depth + 1)
  return shape
}

/** The call's result (through `pick`), or its error as data. */
export async function outcome<T>(mod: KafkaJSModule, call: () => Promise<T>, pick: (r: T) => unknown = (r) => r): Promise<unknown> {
  try {
    return { result: pick(await call()) }
  } catch (e) {
    return { error: adminError(mod, e) }
  }
}

/** `value` with this run's names (`env.name(…)`, which say which client ran) made the same for both clients. */
export function sameNames<T>(value: T, env: ProgramEnv): T {
  return JSON.parse(JSON.stringify(value).replaceAll(env.name(''), '<run>-')) as T
}
