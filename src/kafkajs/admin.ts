import { Admin as EngineAdmin, type TopicConfig } from '../admin/admin.js'
import type { Logger } from '../logger.js'
import { KafkaJSNonRetriableError, translated } from './errors.js'
import { AdminEvents, Instrumentation, type InstrumentationEvent, type RemoveInstrumentationEventListener } from './events.js'
import type { RetryOptions } from './retry.js'
import type { Connector } from './kafka.js'

/** KafkaJS's name for a topic to create. */
export type ITopicConfig = TopicConfig

/** The offsets KafkaJS's resolveOffsets replaces: Kafka's ListOffsets timestamps for the end and the start. */
const LATEST_OFFSET = '-1'
const EARLIEST_OFFSET = '-2'

export interface AdminConfig {
  retry?: RetryOptions
}

/** What KafkaJS's admin has beyond the engine's calls (which it shares, with KafkaJS's errors). */
export interface AdminExtras {
  readonly events: typeof AdminEvents
  connect(): Promise<void>
  disconnect(): Promise<void>
  on(eventName: string, listener: (event: InstrumentationEvent) => void): RemoveInstrumentationEventListener
  logger(): Logger
  /** KafkaJS's name for deleteRecords. */
  deleteTopicRecords(options: { topic: string; partitions: Array<{ partition: number; offset: string }> }): Promise<void>
  /** The engine's fetchOffsets plus KafkaJS's `resolveOffsets`: -1 (none committed) and -2 read as the partition's end and start. */
  fetchOffsets(options: { groupId: string; topics?: string[]; resolveOffsets?: boolean }): ReturnType<EngineAdmin['fetchOffsets']>
}

type EngineCalls = Omit<EngineAdmin, 'connect' | 'disconnect' | 'fetchOffsets'>
export type Admin = EngineCalls & AdminExtras

/**
 * KafkaJS's admin: every engine call (their shapes are KafkaJS's) with its
 * rejections as KafkaJS's error classes, plus connect under the retry
 * policy, events, logger() and KafkaJS's names.
 */
export function createAdmin(connector: Connector, log: Logger): Admin {
  const instrumentation = new Instrumentation('admin', AdminEvents)
  let inner: EngineAdmin | undefined
  const connected = (): EngineAdmin => {
    if (!inner) throw new KafkaJSNonRetriableError('The admin is not connected: call admin.connect() first')
    return inner
  }
  const extras: AdminExtras = {
    events: AdminEvents,
    async connect() {
      await connector.connect(async () => {
        const engine = (await connector.engine(instrumentation.requests(AdminEvents))).admin()
        try {
          await engine.connect()
        } catch (err) {
          await engine.disconnect().catch(() => {})
          throw err
        }
        const previous = inner
        inner = engine
        await previous?.disconnect().catch(() => {})
      })
      instrumentation.emit(AdminEvents.CONNECT)
    },
    async disconnect() {
      const engine = inner
      inner = undefined
      await translated(async () => engine?.disconnect())
      instrumentation.emit(AdminEvents.DISCONNECT)
    },
    on: (eventName, listener) => instrumentation.on(eventName, listener),
    logger: () => log.namespace('Admin'),
    async deleteTopicRecords({ topic, partitions }) {
      if (!topic || typeof topic !== 'string') throw new KafkaJSNonRetriableError(`Invalid topic "${topic}"`)
      if (!Array.isArray(partitions) || partitions.length === 0) throw new KafkaJSNonRetriableError(`Invalid partitions`)
      await translated(() => connected().deleteRecords({ topic, partitions }))
    },
    async fetchOffsets({ resolveOffsets = false, ...options }) {
      return translated(async () => {
        const admin = connected()
        const committed = await admin.fetchOffsets(options)
        if (!resolveOffsets) return committed
        return Promise.all(
          committed.map(async ({ topic, partitions }) => {
            const ends = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, o]))
            const resolve = (partition: number, offset: string) =>
              offset === LATEST_OFFSET
                ? (ends.get(partition)?.high ?? offset)
                : offset === EARLIEST_OFFSET
                  ? (ends.get(partition)?.low ?? offset)
                  : offset
            return { topic, partitions: partitions.map((p) => ({ ...p, offset: resolve(p.partition, p.offset) })) }
          }),
        )
      })
    },
  }
  return new Proxy(extras as Admin, {
    get(target, name, receiver) {
      if (Object.hasOwn(target, name)) return Reflect.get(target, name, receiver)
      // Only the engine's own calls: not `then` (an admin is not a promise), not Object's methods.
      const method = Object.hasOwn(EngineAdmin.prototype, name)
        ? (EngineAdmin.prototype as unknown as Record<PropertyKey, unknown>)[name]
        : undefined
      if (typeof method !== 'function' || name === 'constructor') return undefined
      return (...args: unknown[]) => translated(async () => (method as (...a: unknown[]) => unknown).apply(connected(), args))
    },
  })
}
