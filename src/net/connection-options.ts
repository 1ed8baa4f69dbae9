import type * as tls from 'node:tls'
import { msOption as ms, countOption as count, valueOption as value, type OptionSpec } from '../config/option.js'
import type { SaslOption } from './sasl/types.js'
import type { Logger } from '../logger.js'
import type { SocketFactory } from './socket-factory.js'

/**
 * What a connection takes. The JSDoc of each property in CONNECTION_OPTIONS (below) is written from that
 * table by `npm run generate:readme`: edit the table, not the comment.
 */
export interface ConnectionOptions {
  host: string
  port: number
  /** The broker's node id, when known: only for messages. */
  nodeId?: number
  /** Sent with every request; brokers log and quota by it. Default: `"wafka"`. Java: `client.id`. */
  clientId?: string | null
  /** How long a TCP (and TLS) connect may take. Default: `10000` (1–2147483647). Java: `socket.connection.setup.timeout.ms`. */
  connectTimeoutMs?: number
  /** How long a request may wait for its response. Default: `30000` (1–2147483647). Java: `request.timeout.ms`. */
  requestTimeoutMs?: number
  /**
   * Requests written to one connection before their responses arrive. Default: `5` (1–2147483647). Java:
   * `max.in.flight.requests.per.connection`.
   */
  maxInFlight?: number
  /** A response frame larger than this is a protocol error, not an allocation. Default: `104857600` (1–2147483647). */
  maxResponseBytes?: number
  /** An idle connection is closed after this long. Default: `540000` (1–2147483647). Java: `connections.max.idle.ms`. */
  idleTimeoutMs?: number
  /** `true`, or node:tls options (`ca`, `cert`, `key`, `servername`, ...); an unknown key is refused. */
  tls?: boolean | tls.ConnectionOptions
  /** KafkaJS's name for `tls`. */
  ssl?: boolean | tls.ConnectionOptions
  /** `{ mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512' | 'oauthbearer' | 'aws', ... }` (see Security). */
  sasl?: SaslOption
  /**
   * KafkaJS's `({ host, port, ssl, onConnect }) => socket`: makes each connection's socket (a proxy, a tunnel); default node:net /
   * node:tls.
   */
  socketFactory?: SocketFactory
  /** The bound on one whole SASL authentication. Default: `10000` (1–2147483647). */
  authenticationTimeoutMs?: number
  /** Re-authenticate this long before the broker's session ends (KIP-368). Default: `10000` (0–2147483647). */
  reauthenticationThresholdMs?: number
  /** Called once when the connection closes, with the reason if it failed. */
  onClose?: (error?: Error) => void
  /** Where connection, negotiation and close decisions are logged (DEBUG). */
  logger?: Logger
  /** Aborting it (the client disconnecting) closes the connection, even while it is being opened. */
  signal?: AbortSignal
  /**
   * `(event) => void`, told of each request answered (`request`, with its timing and the broker's `throttleTimeMs`) or timed out
   * (`timeout`), and of requests queueing (`queueSize`).
   */
  onRequest?: RequestListener
}

/** What KafkaJS's network instrumentation events carry; `broker` is `host:port`, times are epoch ms. */
export interface RequestTiming {
  broker: string
  clientId: string | null
  correlationId: number
  apiName: string
  apiKey: number
  apiVersion: number
  createdAt: number
  sentAt: number
  pendingDuration: number
}

export type RequestEvent =
  | ({
      type: 'request'
      size: number
      duration: number
      /** The broker's throttle_time_ms (quota, KIP-219): 0 when not throttled or the API has no such field. */
      throttleTimeMs: number
    } & RequestTiming)
  | ({ type: 'timeout' } & RequestTiming)
  | { type: 'queueSize'; broker: string; clientId: string | null; queueSize: number }

/** Called synchronously on the connection's path: what it throws is dropped. Nothing is built when it is not set. */
export type RequestListener = (event: RequestEvent) => void

/** Set by the cluster for each connection it opens, never by the user: no table entry. */
export type PerConnection = 'host' | 'port' | 'nodeId' | 'onClose' | 'logger' | 'signal'

/**
 * The user's options of one connection: default, meaning, range and the Java
 * client's name. The Kafka options table (cluster/options.ts) takes these in;
 * the JSDoc of ConnectionOptions above is written from it (npm run generate:readme).
 */
export const CONNECTION_OPTIONS = {
  clientId: value('wafka', 'Sent with every request; brokers log and quota by it.', 'client.id'),
  connectTimeoutMs: ms(10_000, 'How long a TCP (and TLS) connect may take.', 'socket.connection.setup.timeout.ms', 1),
  requestTimeoutMs: ms(30_000, 'How long a request may wait for its response.', 'request.timeout.ms', 1),
  maxInFlight: count(5, 'Requests written to one connection before their responses arrive.', 'max.in.flight.requests.per.connection'),
  maxResponseBytes: count(100 * 1024 * 1024, 'A response frame larger than this is a protocol error, not an allocation.'),
  idleTimeoutMs: ms(540_000, 'An idle connection is closed after this long.', 'connections.max.idle.ms', 1),
  tls: value(undefined, '`true`, or node:tls options (`ca`, `cert`, `key`, `servername`, ...); an unknown key is refused.'),
  ssl: value(undefined, "KafkaJS's name for `tls`."),
  sasl: value(undefined, "`{ mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512' | 'oauthbearer' | 'aws', ... }` (see Security)."),
  socketFactory: value(
    undefined,
    "KafkaJS's `({ host, port, ssl, onConnect }) => socket`: makes each connection's socket (a proxy, a tunnel); default node:net / node:tls.",
  ),
  authenticationTimeoutMs: ms(10_000, 'The bound on one whole SASL authentication.', undefined, 1),
  reauthenticationThresholdMs: ms(10_000, "Re-authenticate this long before the broker's session ends (KIP-368)."),
  onRequest: value(
    undefined,
    "`(event) => void`, told of each request answered (`request`, with its timing and the broker's `throttleTimeMs`) or timed out (`timeout`), and of requests queueing (`queueSize`).",
  ),
} as const satisfies Record<Exclude<keyof ConnectionOptions, PerConnection>, OptionSpec>

const C = CONNECTION_OPTIONS
/** What a connection uses for an option not given. */
export const CONNECTION_DEFAULTS = {
  clientId: C.clientId.default,
  connectTimeoutMs: C.connectTimeoutMs.default as number,
  requestTimeoutMs: C.requestTimeoutMs.default as number,
  maxInFlight: C.maxInFlight.default as number,
  maxResponseBytes: C.maxResponseBytes.default as number,
  idleTimeoutMs: C.idleTimeoutMs.default as number,
  authenticationTimeoutMs: C.authenticationTimeoutMs.default as number,
  reauthenticationThresholdMs: C.reauthenticationThresholdMs.default as number,
}
