import type { TracingChannel } from 'node:diagnostics_channel'
import { optionalBuiltin } from '../node-builtins.js'
import { channelNames } from './channel-names.js'

export { channelNames } from './channel-names.js'

/**
 * wafka's diagnostics_channel tracing channels (the README's Observability
 * section lists them): what APM tools and `wafka/otel` subscribe to. Each
 * is a TracingChannel, so a subscriber sees `start` (synchronously, before
 * the work begins: a send's messages can still take headers), `end`, then
 * `asyncStart` and `asyncEnd` when the work settles, with `error` before
 * them when it failed; the context object is the same in all five and
 * gathers the outcome (`result`, `error`, and each channel's own fields).
 *
 * Nothing is built when nobody subscribes: a call site asks `active` first
 * and only then makes its context. Where the runtime has no
 * diagnostics_channel, or one without tracingChannel, `active` is false.
 */
export class Tracing<C extends object> {
  /** undefined: not looked up yet (or the runtime cannot say yet); null: this runtime has no tracing channels. */
  private channel: TracingChannel<unknown, C> | null | undefined

  constructor(readonly name: string) {}

  /** True when anyone subscribes to any of the five events (Bun's TracingChannel has no hasSubscribers of its own). */
  get active(): boolean {
    const c = this.channel ?? this.lookup()
    return (
      c !== null &&
      (c.start.hasSubscribers || c.end.hasSubscribers || c.asyncStart.hasSubscribers || c.asyncEnd.hasSubscribers || c.error.hasSubscribers)
    )
  }

  /** Runs `fn` traced with `context`; call it only when `active` said true. */
  trace<T>(fn: () => Promise<T>, context: C): Promise<T> {
    return this.channel!.tracePromise(fn, context as C & object)
  }

  private lookup(): TracingChannel<unknown, C> | null {
    const dc = optionalBuiltin('node:diagnostics_channel')
    if (dc === undefined) return null // not known before preloadBuiltins on a runtime without getBuiltinModule: asked again next time
    this.channel = typeof dc?.tracingChannel === 'function' ? (dc.tracingChannel(this.name) as TracingChannel<unknown, C>) : null
    return this.channel
  }
}

/** A partition, as the contexts name one. */
export interface ChannelPartition {
  topic: string
  partition: number
}

/** `wafka:request`: one request to a broker, from the call to its answer (or failure). */
export interface RequestContext {
  apiName: string
  apiKey: number
  /** -1 until the version is chosen (a broker that speaks no version of the API fails the call before). */
  apiVersion: number
  /** host:port */
  broker: string
  /** The broker's node id; undefined for a bootstrap connection. */
  nodeId: number | undefined
  clientId: string | null
  /** Epoch ms of the call. */
  createdAt: number
  /** Set when the request is written. */
  correlationId?: number
  sentAt?: number
  /** ms the request waited in the connection's queue before it was written. */
  pendingDuration?: number
  /** Bytes of the request frame. */
  requestSize?: number
  /** Bytes of the response frame (as the `request` event's `size`). */
  size?: number
  /** ms from writing to the answer. */
  duration?: number
  /** The broker's throttle_time_ms (KIP-219); 0 when not throttled. */
  throttleTimeMs?: number
  result?: unknown
  error?: unknown
}

/** A message as a send gives it; `headers` (an object, or [name, value] pairs) may be added to in `start`. */
export interface ChannelSendMessage {
  key?: unknown
  value: unknown
  partition?: number
  headers?: Record<string, unknown> | ReadonlyArray<readonly [string, unknown]>
}

/** `wafka:producer:send`: one send() or sendBatch() (in a transaction too), until its records are acknowledged. */
export interface SendContext {
  /** The send's messages by topic, the caller's own objects: a subscriber may set headers in `start` (they are read after it). */
  topicMessages: Array<{ topic: string; messages: ChannelSendMessage[] }>
  /** The transactional id, or null. */
  transactionalId: string | null
  /** The cluster id the brokers' metadata gave, or null. */
  clusterId: string | null
  /** Per partition: `{ topicName, partition, baseOffset, ... }`, as send() resolves. */
  result?: unknown
  error?: unknown
}

/** `wafka:producer:produce`: one Produce request to one broker, carrying one batch per partition. */
export interface ProduceContext {
  nodeId: number
  acks: number
  batches: Array<ChannelPartition & { records: number; bytes: number }>
  /** The request's failure, or the first partition's error (retried or not: the batch's send() says how it ended). */
  error?: unknown
}

/** A consumed message, as eachMessage receives it. */
export interface ChannelMessage {
  offset: string
  key: unknown
  value: unknown
  timestamp: string
  headers?: Record<string, unknown>
}

/** `wafka:consumer:process`: one message handed to eachMessage, until the handler settles. */
export interface ProcessContext extends ChannelPartition {
  groupId: string | null
  /** The cluster id the brokers' metadata gave, or null. */
  clusterId: string | null
  message: ChannelMessage
  error?: unknown
}

/** `wafka:consumer:batch`: one batch handed to eachBatch, until the handler settles. */
export interface BatchContext extends ChannelPartition {
  groupId: string | null
  /** The cluster id the brokers' metadata gave, or null. */
  clusterId: string | null
  highWatermark: string
  /** The batch's messages (eachBatch's `batch.messages`). */
  messages: ChannelMessage[]
  error?: unknown
}

/** `wafka:consumer:commit`: one offset commit to the group coordinator. */
export interface CommitContext {
  groupId: string
  memberId: string | undefined
  /** Each partition's next offset to consume. */
  offsets: Array<ChannelPartition & { offset: string }>
  error?: unknown
}

/**
 * `wafka:consumer:rebalance`: one change of this member's assignment. Classic
 * groups: one round (revoke when eager, JoinGroup, SyncGroup, the handlers);
 * KIP-848 groups: one new assignment reconciled (revoke, then assign).
 */
export interface RebalanceContext {
  groupId: string
  /** 'classic' or 'consumer' (KIP-848). */
  protocol: 'classic' | 'consumer'
  memberId: string
  /** Why the classic round began. */
  reason?: string
  /** Once joined: the generation (classic) or member epoch (KIP-848). */
  generationId?: number
  memberEpoch?: number
  isLeader?: boolean
  /** Once settled: partitions this member gained and gave up. */
  assigned?: ChannelPartition[]
  revoked?: ChannelPartition[]
  error?: unknown
}

/** The channels, by what they trace. */
export const channels = {
  request: new Tracing<RequestContext>(channelNames.request),
  send: new Tracing<SendContext>(channelNames.send),
  produce: new Tracing<ProduceContext>(channelNames.produce),
  process: new Tracing<ProcessContext>(channelNames.process),
  batch: new Tracing<BatchContext>(channelNames.batch),
  commit: new Tracing<CommitContext>(channelNames.commit),
  rebalance: new Tracing<RebalanceContext>(channelNames.rebalance),
} as const
