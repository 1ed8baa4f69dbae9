import type { Logger } from '../logger.js'
import type { Connection } from '../net/connection.js'
import type { ApiSpec, Input } from '../protocol/api.js'
import type { MetadataCache, TopicInfo } from './metadata.js'
import type { Route } from './route.js'

/** A partition of a topic: what a leader leads. */
export interface TopicPartition {
  readonly topic: string
  readonly partition: number
}

/**
 * Which socket to a broker a request uses. A broker answers one request at a
 * time per connection, so group coordination (a JoinGroup may wait minutes,
 * heartbeats must not wait behind a long-polling Fetch) gets its own, as in
 * the Java client.
 */
export type Lane = 'data' | 'group'

/** Where an answer came from: the version both sides spoke and the broker. */
export interface Answered {
  version: number
  nodeId: number | undefined
  /** The broker's name for error messages ("broker 2 (host:port)"). */
  broker: string
}

export interface Exchange<Res> extends Answered {
  res: Res
}

export interface RouteOptions<Res> {
  /** The newest version to negotiate, when the caller implements less than the codec knows. */
  maxVersion?: number
  /** How long the broker may take to answer this one request (default: requestTimeoutMs). */
  timeoutMs?: number
  lane?: Lane
  /**
   * How long the call may go on retrying, in ms (default: defaultApiTimeoutMs);
   * 0 is one attempt (for callers with their own loop, such as a group's join).
   */
  retryMs?: number
  /**
   * Throws the error an answer carries (a top-level or per-item code): it is
   * then retried, or not, as a failure to send would be, and a "coordinator
   * moved" or "stale metadata" code forgets what it says is stale.
   */
  check?: (res: Res, from: Answered) => void
  /**
   * The partitions a request is for as their leader (a leader route's own
   * is watched too): when a metadata refresh shows one of them led
   * elsewhere before the answer comes, the attempt ends (retriably) so the
   * caller's retry goes to the new leader. A sharded request names its
   * shard's partitions here.
   */
  leaderOf?: readonly TopicPartition[]
}

/** A request body, or a function of the version the connection negotiated (fields exist only in some versions). */
export type Body<Req> = Input<Req> | ((version: number) => Input<Req>)

/**
 * What Admin, the producer's transaction manager and identity, and the
 * consumer's group coordinator need of the cluster (franz-go's Requestor,
 * with the cluster's view beside it): tests fake this, not Cluster.
 */
export interface ClusterClient {
  /** What the cluster last said: brokers, controller, topics' partitions and leaders. */
  readonly metadata: MetadataCache
  /** Aborts when the client disconnects; its reason is the error pending calls end with. */
  readonly signal: AbortSignal
  log(namespace: string): Logger
  connect(): Promise<void>
  disconnect(): Promise<void>

  /**
   * Sends `body` where `route` says (default: the API's route when it needs
   * no key), retrying retriable failures with backoff until `retryMs` runs
   * out: a coordinator that moved is found again, stale metadata is
   * refreshed, and a timeout or broken connection counts as a broker that
   * may lead no more.
   */
  request<Req, Res>(api: ApiSpec<Req, Res>, body: Body<Req>, route?: Route, options?: RouteOptions<Res>): Promise<Exchange<Res>>
  /** Whether the broker `route` leads to speaks `api` at all. */
  supports(api: ApiSpec, route?: Route): Promise<boolean>
  /** Forgets where `route` led: its coordinator is looked up again (leaders follow metadata). */
  invalidate(route: Route): void
  /** Closes the connection `route` leads to on `lane` (its pending requests fail), e.g. a JoinGroup held for a rebalance. */
  closeRoute(route: Route, lane?: Lane): Promise<void>
  /** Retries a call of several requests under the same policy as request()'s. */
  retry<T>(attempt: (n: number) => Promise<T>, timeoutMs?: number): Promise<T>

  /** Refreshes metadata for `topics` (default: those in use; 'all': every topic). */
  refreshMetadata(topics?: string[] | 'all', options?: { allowAutoTopicCreation?: boolean }): Promise<void>
  /** The topics' metadata, fetched when not cached. */
  topicMetadata(topics: string[], options?: { allowAutoTopicCreation?: boolean }): Promise<TopicInfo[]>
  /** The node id leading a partition. */
  leaderFor(topic: string, partition: number): Promise<number>
}

/** A broker connection as the per-leader pipelines use it: its name, negotiated versions, and requests at a version. */
export type LeaderConnection = Pick<Connection, 'name' | 'versionFor' | 'supports' | 'request'>

/**
 * What the per-leader pipelines (the producer's sender, the consumer's
 * fetcher) need beyond ClusterClient: they gather many partitions into one
 * request per leader and keep per-broker state (fetch sessions, in-flight
 * Produce), so they hold the leader's connection rather than a route, and
 * after a failure let the cluster forget what it says is stale.
 */
export interface LeaderConnections extends ClusterClient {
  /**
   * The open connection to a broker, opened when needed (with reconnect
   * backoff after failures). `leaderOf`: the partitions it is wanted for as
   * their leader; if metadata shows them led elsewhere while it is still
   * being opened, it fails (retriably) so they go to the new leader.
   */
  connection(nodeId: number, lane?: 'data', leaderOf?: readonly TopicPartition[]): Promise<LeaderConnection>
  /** One request to a broker by node id, at the version its connection negotiated; no retry. */
  send<Req, Res>(nodeId: number, api: ApiSpec<Req, Res>, body: Body<Req>): Promise<Res>
  /** Forgets what `err` says is stale (metadata, coordinators), before a retry. */
  afterError(err: unknown): Promise<void>
}

/** What a consumer needs besides: its topics watched by every metadata refresh, and the calls' retry budget. */
export interface ConsumerCluster extends LeaderConnections {
  readonly options: { readonly defaultApiTimeoutMs: number }
  /** Adds topics to those each metadata refresh asks about. */
  use(topics: Iterable<string>): void
}
