import { EventEmitter } from 'node:events'
import { ConsumerEvents as EngineConsumerEvents } from '../consumer/consumer.js'
import { KafkaJSNonRetriableError } from './errors.js'
import type { RequestListener } from '../net/connection.js'

/** KafkaJS's instrumentation event shape. */
export interface InstrumentationEvent<T = any> {
  /** A number counting up, as KafkaJS's runtime gives it (KafkaJS's types say string). */
  id: number | string
  type: string
  timestamp: number
  payload: T
}

/** Removes the listener `on()` added (T: the event's name, as KafkaJS's type carries it). */
export type RemoveInstrumentationEventListener<T = string> = () => void

const network = (prefix: string) => ({
  REQUEST: `${prefix}.network.request`,
  REQUEST_TIMEOUT: `${prefix}.network.request_timeout`,
  REQUEST_QUEUE_SIZE: `${prefix}.network.request_queue_size`,
})

export const ProducerEvents = { CONNECT: 'producer.connect', DISCONNECT: 'producer.disconnect', ...network('producer') } as const
export type ProducerEvents = typeof ProducerEvents
export const AdminEvents = { CONNECT: 'admin.connect', DISCONNECT: 'admin.disconnect', ...network('admin') } as const
export type AdminEvents = typeof AdminEvents
/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s ConsumerEvents. */
export const ConsumerEvents = {
  HEARTBEAT: EngineConsumerEvents.HEARTBEAT,
  COMMIT_OFFSETS: EngineConsumerEvents.COMMIT_OFFSETS,
  GROUP_JOIN: EngineConsumerEvents.GROUP_JOIN,
  FETCH_START: EngineConsumerEvents.FETCH_START,
  FETCH: EngineConsumerEvents.FETCH,
  START_BATCH_PROCESS: EngineConsumerEvents.START_BATCH_PROCESS,
  END_BATCH_PROCESS: EngineConsumerEvents.END_BATCH_PROCESS,
  CONNECT: EngineConsumerEvents.CONNECT,
  DISCONNECT: EngineConsumerEvents.DISCONNECT,
  STOP: EngineConsumerEvents.STOP,
  CRASH: EngineConsumerEvents.CRASH,
  REBALANCING: EngineConsumerEvents.REBALANCING,
  RECEIVED_UNSUBSCRIBED_TOPICS: 'consumer.received_unsubscribed_topics',
  ...network('consumer'),
} as const
export type ConsumerEvents = typeof ConsumerEvents

// The events' payloads, as KafkaJS's types name them.
export type ConnectEvent = InstrumentationEvent<null>
export type DisconnectEvent = InstrumentationEvent<null>
interface RequestPayload {
  apiKey: number
  apiName: string
  apiVersion: number
  broker: string
  clientId: string
  correlationId: number
  createdAt: number
  pendingDuration: number
  sentAt: number
}
export type RequestEvent = InstrumentationEvent<RequestPayload & { duration: number; size: number }>
export type RequestTimeoutEvent = InstrumentationEvent<RequestPayload>
export type RequestQueueSizeEvent = InstrumentationEvent<{ broker: string; clientId: string; queueSize: number }>

/** A member's assignment in a GROUP_JOIN event: partitions by topic. */
export interface IMemberAssignment {
  [key: string]: number[]
}
interface GroupMemberPayload {
  groupId: string
  memberId: string
}
export type ConsumerHeartbeatEvent = InstrumentationEvent<GroupMemberPayload & { groupGenerationId: number }>
export type ConsumerCommitOffsetsEvent = InstrumentationEvent<
  GroupMemberPayload & {
    groupGenerationId: number
    topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>
  }
>
export type ConsumerGroupJoinEvent = InstrumentationEvent<
  GroupMemberPayload & { duration: number; isLeader: boolean; leaderId: string; groupProtocol: string; memberAssignment: IMemberAssignment }
>
export type ConsumerFetchStartEvent = InstrumentationEvent<{ nodeId: number }>
export type ConsumerFetchEvent = InstrumentationEvent<{ numberOfBatches: number; duration: number; nodeId: number }>
interface BatchProcessPayload {
  topic: string
  partition: number
  highWatermark: string
  offsetLag: string
  offsetLagLow: string
  batchSize: number
  firstOffset: string
  lastOffset: string
}
export type ConsumerStartBatchProcessEvent = InstrumentationEvent<BatchProcessPayload>
export type ConsumerEndBatchProcessEvent = InstrumentationEvent<BatchProcessPayload & { duration: number }>
export type ConsumerCrashEvent = InstrumentationEvent<{ error: Error; groupId: string; restart: boolean }>
export type ConsumerRebalancingEvent = InstrumentationEvent<GroupMemberPayload>
/** KafkaJS's name, misspelling included. */
export type ConsumerReceivedUnsubcribedTopicsEvent = InstrumentationEvent<
  GroupMemberPayload & { generationId: number; assignedTopics: string[]; topicsSubscribed: string[]; topicsNotSubscribed: string[] }
>

/**
 * A client's instrumentation events as KafkaJS delivers them: `on(name,
 * listener)` refuses a name the client does not have (as KafkaJS does) and
 * returns the function that removes the listener.
 */
export class Instrumentation {
  private readonly emitter = new EventEmitter()
  private nextId = 0
  private readonly known: Set<string>

  constructor(
    private readonly client: string,
    events: Record<string, string>,
  ) {
    this.known = new Set(Object.values(events))
  }

  on(type: string, listener: (event: InstrumentationEvent) => void): RemoveInstrumentationEventListener {
    if (!this.known.has(type))
      throw new KafkaJSNonRetriableError(`Event name should be one of ${this.client}.events, got ${JSON.stringify(type)}`)
    this.emitter.on(type, listener)
    return () => void this.emitter.off(type, listener)
  }

  /** The engine's request listener, delivering KafkaJS's REQUEST, REQUEST_TIMEOUT and REQUEST_QUEUE_SIZE to this client's listeners. */
  requests(events: ReturnType<typeof network>): RequestListener {
    return (event) => {
      const name = event.type === 'request' ? events.REQUEST : event.type === 'timeout' ? events.REQUEST_TIMEOUT : events.REQUEST_QUEUE_SIZE
      if (this.emitter.listenerCount(name) === 0) return
      const { type: _type, ...payload } = event
      // KafkaJS's REQUEST has no throttle time (wafka's own onRequest and DEBUG log carry it).
      if (event.type === 'request') delete (payload as { throttleTimeMs?: number }).throttleTimeMs
      this.emit(name, payload)
    }
  }

  emit(type: string, payload: unknown = null, at = Date.now()): void {
    if (this.emitter.listenerCount(type) === 0) return
    const event: InstrumentationEvent = { id: this.nextId++, type, timestamp: at, payload }
    for (const l of this.emitter.listeners(type)) {
      // A listener that throws or rejects must not break the client (KafkaJS logs and goes on).
      Promise.resolve()
        .then(() => (l as (e: InstrumentationEvent) => unknown)(event))
        .catch(() => {})
    }
  }
}
