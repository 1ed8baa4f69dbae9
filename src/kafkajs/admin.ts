import { Admin as EngineAdmin, type TopicConfig } from '../admin/admin.js'
import type { Logger } from '../logger.js'
import { KafkaJSNonRetriableError, translated } from './errors.js'
import { AdminEvents, Instrumentation, type InstrumentationEvent, type RemoveInstrumentationEventListener } from './events.js'
import { retryBudgetMs, type RetryOptions } from './retry.js'
import type { Connector } from './kafka.js'
import { adminError, kafkaJSAdminCalls } from './admin-calls.js'

/** KafkaJS's name for a topic to create. */
export type ITopicConfig = TopicConfig

export interface AdminConfig {
  retry?: RetryOptions
}

type KafkaJSCalls = ReturnType<typeof kafkaJSAdminCalls>

/** What KafkaJS's admin has beyond its calls. */
export interface AdminExtras {
  readonly events: typeof AdminEvents
  connect(): Promise<void>
  disconnect(): Promise<void>
  on(eventName: string, listener: (event: InstrumentationEvent) => void): RemoveInstrumentationEventListener
  logger(): Logger
}

/** The engine's calls KafkaJS does not have (electLeaders, SCRAM credentials, …), kept as wafka's. */
type EngineCalls = Omit<EngineAdmin, 'connect' | 'disconnect' | keyof KafkaJSCalls>
export type Admin = EngineCalls & KafkaJSCalls & AdminExtras

/**
 * KafkaJS's admin: KafkaJS's calls with its argument checks, result shapes
 * and errors (admin-calls.ts), connect under the retry policy, events,
 * logger(); the engine's other calls with their rejections as KafkaJS's classes.
 */
export function createAdmin(connector: Connector, log: Logger): Admin {
  const instrumentation = new Instrumentation('admin', AdminEvents)
  let inner: EngineAdmin | undefined
  const connected = (): EngineAdmin => {
    if (!inner) throw new KafkaJSNonRetriableError('The admin is not connected: call admin.connect() first')
    return inner
  }
  const logger = () => log.namespace('Admin')
  const extras: AdminExtras = {
    events: AdminEvents,
    async connect() {
      await connector.connect(async () => {
        // The engine retries what it may for as long as this admin's retry policy waits in all, not a
        // request timeout more: with `retries: 0` a call is one attempt, and a refusal KafkaJS does
        // not retry (a missing topic's configs) comes back at once, as KafkaJS's does.
        const kafka = await connector.engine(instrumentation.requests(AdminEvents))
        const engine = kafka.admin({ defaultApiTimeoutMs: Math.max(1, retryBudgetMs(connector.retry)) })
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
    logger,
  }
  const calls = { ...extras, ...kafkaJSAdminCalls(connected, connector.retry, logger) }
  return new Proxy(calls as Admin, {
    get(target, name, receiver) {
      if (Object.hasOwn(target, name)) return Reflect.get(target, name, receiver)
      // Only the engine's own calls: not `then` (an admin is not a promise), not Object's methods.
      const method = Object.hasOwn(EngineAdmin.prototype, name)
        ? (EngineAdmin.prototype as unknown as Record<PropertyKey, unknown>)[name]
        : undefined
      if (typeof method !== 'function' || name === 'constructor') return undefined
      return async (...args: unknown[]) => {
        try {
          return await (method as (...a: unknown[]) => unknown).apply(connected(), args)
        } catch (err) {
          throw adminError(err)
        }
      }
    },
  })
}
