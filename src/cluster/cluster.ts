import { ConnectionError, KafkaError, TimeoutError, WafkaError, kafkaError } from '../errors.js'
import { validateSecurityOptions } from '../net/security-options.js'
import { backoffMs, sleep } from '../net/backoff.js'
import { Connection, type RequestOptions } from '../net/connection.js'
import { definedOnly } from '../defined-only.js'
import { ZERO_UUID, type ApiSpec, type Input } from '../protocol/api.js'
import { FindCoordinator, Metadata } from '../protocol/messages/index.js'
import { bootstrapIndex, bootstrapNodeId, isBootstrapNodeId, parseBootstrap, type BrokerAddress } from './broker-address.js'
import { MetadataCache } from './metadata.js'
import { BrokerHealth } from './broker-health.js'
import { retryPolicy, withRetry, type RetryPolicy } from './retry.js'
import type { Answered, Body, ConsumerCluster, Exchange, Lane, RouteOptions, TopicPartition } from './client.js'
import { coordinatorOf, defaultRoute, type CoordinatorType, type Route } from './route.js'
import { COORDINATOR_MOVED, STALE_METADATA } from '../error-policy.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { KAFKA_OPTIONS, type ClusterOptions } from './options.js'
import { createLogger, describeError, type Logger } from '../logger.js'
import type { MetadataRequest } from '../protocol/messages/index.js'

export type { ClusterOptions } from './options.js'

export type { CoordinatorType, Route } from './route.js'
export type { Lane } from './client.js'

/**
 * The client's view of the cluster: a connection per broker, opened on
 * demand with backoff after failures; metadata (brokers, leaders) refreshed
 * on an interval, on demand and after errors that say it is stale;
 * coordinators looked up and cached; and a retry policy bounded by a deadline.
 */
export class Cluster implements ConsumerCluster {
  readonly metadata = new MetadataCache()
  /** The client's logger (Kafka's, namespaced by each part through log()). */
  readonly logger: Logger
  private readonly loggers = new Map<string, Logger>()
  readonly options: ClusterOptions &
    Required<
      Pick<
        ClusterOptions,
        'retryBackoffMs' | 'retryBackoffMaxMs' | 'reconnectBackoffMs' | 'reconnectBackoffMaxMs' | 'metadataMaxAgeMs' | 'defaultApiTimeoutMs'
      >
    >
  private readonly bootstrap: BrokerAddress[]
  private readonly connections = new Map<string, Promise<Connection>>()
  /** The connections of `connections` that are open now (not those still being opened). */
  private readonly opened = new Map<string, Connection>()
  private readonly failures = new Map<number, { count: number; retryAt: number }>()
  private readonly coordinators = new Map<string, number>()
  /** Topics the client uses: the ones each refresh asks about. */
  private readonly interest = new Set<string>()
  private refreshing: Promise<void> | undefined
  private refreshTimer: ReturnType<typeof setInterval> | undefined
  private closed = false
  /** Aborted by disconnect(): every retry, wait and connection attempt of this client ends at once. */
  private readonly stopper = new AbortController()
  /**
   * One controller per pending call, aborted by disconnect() in turn: each
   * call's waits listen on its own signal, so a hundred concurrent calls do
   * not put a hundred listeners on the client's one.
   */
  private readonly scopes = new Set<AbortController>()
  /** Attempts waiting on a partition's leader, told after each metadata refresh (see untilLeaderMoves). */
  private readonly leaderWatchers = new Set<() => void>()
  /** Logs a broker lost (WARN), refusing us (ERROR) and back (INFO), once each. */
  private readonly health: BrokerHealth

  constructor(options: ClusterOptions, logger?: Logger) {
    this.logger = logger ?? createLogger(options)
    this.health = new BrokerHealth(this.log('Connection'))
    this.bootstrap = parseBootstrap(options.brokers)
    validateSecurityOptions(options)
    this.options = {
      retryBackoffMs: KAFKA_OPTIONS.retryBackoffMs.default,
      retryBackoffMaxMs: KAFKA_OPTIONS.retryBackoffMaxMs.default,
      reconnectBackoffMs: KAFKA_OPTIONS.reconnectBackoffMs.default,
      reconnectBackoffMaxMs: KAFKA_OPTIONS.reconnectBackoffMaxMs.default,
      metadataMaxAgeMs: KAFKA_OPTIONS.metadataMaxAgeMs.default,
      defaultApiTimeoutMs: KAFKA_OPTIONS.defaultApiTimeoutMs.default,
      ...definedOnly(options),
    } as Cluster['options']
  }
  /** Each open connection's requests in flight and queued (statisticsIntervalMs' per-broker figures). */
  connectionLoad(): Array<{ broker: string; inFlight: number; waiting: number }> {
    return [...this.opened.values()].map((c) => ({ broker: c.address, inFlight: c.inFlightCount, waiting: c.waitingCount }))
  }

  /** Bootstraps: the first broker that answers gives the cluster's metadata. */
  async connect(): Promise<void> {
    await this.refreshMetadata()
    this.refreshTimer ??= setInterval(
      () => {
        if (Date.now() - this.metadata.updatedAt >= this.options.metadataMaxAgeMs)
          this.refreshMetadata().catch(
            this.log('Cluster').caught('periodic metadata refresh failed; the next use or interval tries again', 'info'),
          )
      },
      Math.min(this.options.metadataMaxAgeMs, 60_000),
    )
    this.refreshTimer.unref?.()
  }

  /** Aborts when the client disconnects; its reason is the non-retriable error pending calls end with. */
  get signal(): AbortSignal {
    return this.stopper.signal
  }

  /** Ends every pending call now (non-retriably), closes every connection, and leaves no timer behind. */
  async disconnect(): Promise<void> {
    this.closed = true
    if (!this.stopper.signal.aborted) this.stopper.abort(new ConnectionError('the client is disconnected', { retriable: false }))
    for (const scope of this.scopes) scope.abort(this.signal.reason)
    this.scopes.clear()
    clearInterval(this.refreshTimer)
    const open = [...this.connections.values()]
    this.connections.clear()
    this.opened.clear()
    // A connection that never opened has nothing to close (its opener got the error).
    await Promise.all(
      open.map((c) =>
        c.then(
          (conn) => conn.close(),
          () => {},
        ),
      ),
    )
  }

  /** A retry policy whose deadline is `timeoutMs` (default: defaultApiTimeoutMs) from now. */
  policy(timeoutMs = this.options.defaultApiTimeoutMs): RetryPolicy {
    return retryPolicy(this.options, Date.now() + timeoutMs, this.signal)
  }

  /** Retries retriable failures, refreshing metadata or coordinators when an error says they are stale. */
  retry<T>(attempt: (n: number) => Promise<T>, timeoutMs?: number, route?: Route): Promise<T> {
    return this.scoped((signal) =>
      withRetry({ ...this.policy(timeoutMs), signal }, attempt, (err) => this.afterError(err, route), this.log('Retry')),
    )
  }

  /** Runs `fn` with a signal of its own that disconnect() aborts (see `scopes`). */
  private async scoped<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.signal.aborted) throw this.signal.reason
    const scope = new AbortController()
    this.scopes.add(scope)
    try {
      return await fn(scope.signal)
    } finally {
      this.scopes.delete(scope)
    }
  }

  /** The logger for one part of the client ('Connection', 'Consumer', ...). */
  log(namespace: string): Logger {
    let logger = this.loggers.get(namespace)
    if (!logger) this.loggers.set(namespace, (logger = this.logger.namespace(namespace)))
    return logger
  }

  /**
   * Forgets what `err` says is stale, before a retry. A timeout (connect or
   * request) counts as a broken connection: the broker may be powered off,
   * and may not lead any more. With the failed request's route, only its
   * coordinator is forgotten (request() did so already); without, every one.
   */
  async afterError(err: unknown, route?: Route): Promise<void> {
    if (route === undefined && KafkaError.is(err, COORDINATOR_MOVED)) this.coordinators.clear()
    if (err instanceof ConnectionError || err instanceof TimeoutError || KafkaError.is(err, STALE_METADATA)) {
      this.log('Cluster').debug('refreshing metadata: the error says it is stale', describeError(err))
      await this.refreshMetadata().catch(this.log('Cluster').caught('metadata refresh after an error failed; the retry finds out'))
    }
  }

  /** Adds topics to those each metadata refresh asks about. */
  use(topics: Iterable<string>): void {
    for (const t of topics) this.interest.add(t)
  }

  /**
   * Refreshes metadata for `topics` (default: every topic of interest; 'all'
   * for every topic in the cluster). Concurrent callers share one request.
   */
  refreshMetadata(topics?: string[] | 'all', options: { allowAutoTopicCreation?: boolean } = {}): Promise<void> {
    if (topics !== undefined && topics !== 'all') this.use(topics)
    if (topics === undefined && !this.refreshing) {
      this.refreshing = this.fetchMetadata(this.interest.size === 0 ? [] : [...this.interest], options).finally(() => {
        this.refreshing = undefined
      })
      return this.refreshing
    }
    if (topics === undefined) return this.refreshing!
    return this.fetchMetadata(topics === 'all' ? 'all' : topics, options)
  }

  private async fetchMetadata(topics: string[] | 'all', options: { allowAutoTopicCreation?: boolean }): Promise<void> {
    const conn = await this.anyConnection()
    const version = conn.versionFor(Metadata)
    // Every topic: v0 asks with an empty list, v1+ with null. No topic at all
    // (just brokers and controller): v0 cannot say so, so it asks for every one.
    const everything = topics === 'all' || (topics.length === 0 && version === 0)
    const list = everything ? (version === 0 ? [] : null) : (topics as string[]).map((name) => ({ topicId: ZERO_UUID, name }))
    const res = await conn.request(Metadata, metadataRequest(list, options.allowAutoTopicCreation ?? false, version))
    // v13+: an error for the whole request (e.g. REBOOTSTRAP_REQUIRED) instead of a partial answer.
    if (res.errorCode) throw kafkaError(res.errorCode, { api: 'Metadata', broker: conn.name })
    this.metadata.apply(res, everything)
    for (const watcher of this.leaderWatchers) watcher()
    this.log('Cluster').debug('metadata refreshed', {
      broker: conn.name,
      brokers: res.brokers.length,
      topics: res.topics.length,
      controller: res.controllerId,
    })
  }

  /** Ensures metadata for these topics is cached (fetching it if not) and returns it. */
  async topicMetadata(topics: string[], options: { allowAutoTopicCreation?: boolean } = {}) {
    const missing = topics.filter((t) => !this.metadata.topics.has(t) || this.metadata.topics.get(t)!.errorCode !== 0)
    if (missing.length > 0) await this.refreshMetadata(topics, options)
    return topics.map((t) => {
      const info = this.metadata.topics.get(t)
      if (!info) throw kafkaError(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, { api: 'Metadata', detail: `topic ${t}` })
      if (info.errorCode !== 0) throw kafkaError(info.errorCode, { api: 'Metadata', detail: `topic ${t}` })
      return info
    })
  }

  /** The node id leading a partition, from cached metadata (refreshed if missing). */
  async leaderFor(topic: string, partition: number): Promise<number> {
    const [info] = await this.topicMetadata([topic])
    const p = info.partitions.find((x) => x.partition === partition)
    if (!p)
      throw kafkaError(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, {
        api: 'Metadata',
        detail: `${topic}-${partition} does not exist (${info.partitions.length} partitions)`,
      })
    if (p.leader < 0 || p.errorCode === ErrorCodes.LEADER_NOT_AVAILABLE)
      throw kafkaError(ErrorCodes.LEADER_NOT_AVAILABLE, { api: 'Metadata', detail: `${topic}-${partition}` })
    return p.leader
  }

  /**
   * The open connection to a broker, opening one if needed (with reconnect
   * backoff after failures). With `leaderOf`, the partitions a request for
   * it is about: if a metadata refresh shows them led elsewhere while the
   * connection is still being opened (nothing sent yet), it fails at once,
   * retriably, so the request goes to the new leader.
   */
  connection(nodeId: number, lane: Lane = 'data', leaderOf?: readonly TopicPartition[]): Promise<Connection> {
    const key = lane === 'data' ? String(nodeId) : `${nodeId}/${lane}`
    const open = this.opened.get(key)
    if (leaderOf === undefined || open?.isOpen) return this.openConnection(nodeId, lane, key)
    return this.untilLeaderMoves(this.openConnection(nodeId, lane, key), nodeId, leaderOf, `connecting to broker ${nodeId}`)
  }

  private async openConnection(nodeId: number, lane: Lane, key: string): Promise<Connection> {
    if (this.closed) throw this.signal.reason
    const existing = this.connections.get(key)
    if (existing) {
      // A connection being opened for someone else: its failure is ours too (not a second attempt of our own).
      const conn = await existing
      if (conn.isOpen) return conn
      if (this.connections.get(key) === existing) this.connections.delete(key)
    }
    const address = isBootstrapNodeId(nodeId) ? this.bootstrap[bootstrapIndex(nodeId)] : this.metadata.brokers.get(nodeId)
    if (!address) throw new ConnectionError(`broker ${nodeId} is not in the cluster metadata`, { retriable: true })
    const failure = this.failures.get(nodeId)
    if (failure && Date.now() < failure.retryAt) await this.scoped((signal) => sleep(failure.retryAt - Date.now(), signal))
    const where = `${address.host}:${address.port}`
    const name = isBootstrapNodeId(nodeId) ? where : `broker ${nodeId} (${where})`
    let wasOpen = false
    const opening = Connection.open({
      ...this.options,
      signal: this.signal,
      host: address.host,
      port: address.port,
      nodeId: isBootstrapNodeId(nodeId) ? undefined : nodeId,
      logger: this.log('Connection'),
      onClose: (error) => {
        if (this.connections.get(key) === opening) this.connections.delete(key)
        if (this.opened.get(key)?.isOpen === false) this.opened.delete(key)
        // Closed without an error: idle, or by us. After disconnect(), nothing is lost.
        if (error && !this.closed) this.health.failed(where, name, error, wasOpen)
      },
    })
    this.connections.set(key, opening)
    try {
      const conn = await opening
      wasOpen = true
      if (conn.isOpen && this.connections.get(key) === opening) this.opened.set(key, conn)
      this.failures.delete(nodeId)
      this.health.connected(where, name)
      return conn
    } catch (err) {
      if (this.connections.get(key) === opening) this.connections.delete(key)
      if (this.closed) throw this.signal.reason
      const count = (failure?.count ?? 0) + 1
      this.failures.set(nodeId, {
        count,
        retryAt: Date.now() + backoffMs(count - 1, this.options.reconnectBackoffMs, this.options.reconnectBackoffMaxMs),
      })
      throw err
    }
  }

  /** Closes one connection (its pending requests fail), e.g. to abandon a JoinGroup that waits on a rebalance. */
  async closeConnection(nodeId: number, lane: Lane = 'data'): Promise<void> {
    const key = lane === 'data' ? String(nodeId) : `${nodeId}/${lane}`
    const pending = this.connections.get(key)
    this.connections.delete(key)
    this.opened.delete(key)
    // As in disconnect(): one that never opened has nothing to close.
    await pending?.then(
      (conn) => conn.close(),
      () => {},
    )
  }

  /**
   * Some broker: an open connection if there is one, else each known broker
   * (those that failed lately last, then each bootstrap address) in turn
   * until one answers. Connections still being opened are not waited for:
   * one may be to a powered-off host.
   */
  async anyConnection(): Promise<Connection> {
    for (const [key, conn] of this.opened) {
      if (key.includes('/')) continue // never behind a group request
      if (conn.isOpen) return conn
    }
    const failedAt = (id: number) => this.failures.get(id)?.retryAt ?? 0
    const candidates = [
      ...shuffle([...this.metadata.brokers.keys()]).sort((a, b) => failedAt(a) - failedAt(b)),
      ...this.bootstrap.map((_, i) => bootstrapNodeId(i)),
    ]
    let last: unknown
    let retriable = false
    for (const nodeId of candidates) {
      try {
        return await this.connection(nodeId)
      } catch (err) {
        if (this.closed) throw this.signal.reason
        // Bad credentials or an untrusted certificate fail alike everywhere: say so, at once.
        if (err instanceof WafkaError && !err.retriable) throw err
        last = err
        retriable ||= err instanceof WafkaError && err.retriable
      }
    }
    // Retriable only when some broker may answer later (not when each refused us for good).
    throw new ConnectionError(
      `no broker answered (tried ${candidates.length}: ${this.bootstrap.map((b) => `${b.host}:${b.port}`).join(', ')}): ${(last as Error)?.message}`,
      { cause: last, retriable },
    )
  }

  /**
   * The routing seam: sends `body` to where `route` leads (resolved again for
   * each attempt), and retries retriable failures until `retryMs` passes.
   * One policy for every caller: a failure forgets the route's coordinator
   * when it says the coordinator moved or its broker is unreachable, and
   * before the next attempt stale metadata is refreshed (afterError).
   */
  async request<Req, Res>(
    api: ApiSpec<Req, Res>,
    body: Body<Req>,
    route: Route = defaultRoute(api),
    options: RouteOptions<Res> = {},
  ): Promise<Exchange<Res>> {
    return this.retry(
      async () => {
        try {
          const partitions = leadersOf(route, options.leaderOf)
          const conn = await this.connectionFor(route, options.lane, partitions)
          const version = conn.versionFor(api, options.maxVersion)
          const input = typeof body === 'function' ? (body as (v: number) => Input<Req>)(version) : body
          const pending = conn.request(api, input, { version, timeoutMs: options.timeoutMs })
          const res =
            partitions === undefined || conn.nodeId === undefined
              ? await pending
              : await this.untilLeaderMoves(pending, conn.nodeId, partitions, `${api.name} waited on ${conn.name}`)
          const from: Answered = { version, nodeId: conn.nodeId, broker: conn.name }
          options.check?.(res, from)
          return { res, ...from }
        } catch (err) {
          this.forget(route, err)
          throw err
        }
      },
      options.retryMs,
      route,
    )
  }

  /**
   * `pending`, unless a metadata refresh shows one of `partitions` led by
   * another broker than `from` first: then it fails at once (retriably) and
   * the retry goes to the new leader, rather than waiting out a broker that
   * may never answer. What was pending goes on: a request already written
   * cannot be taken back, so if the old broker never answers, it alone
   * times out (and closes its connection).
   */
  private untilLeaderMoves<T>(pending: Promise<T>, from: number, partitions: readonly TopicPartition[], waiting: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        for (const { topic, partition } of partitions) {
          const leader = this.metadata.partition(topic, partition)?.leader ?? -1
          // No leader (an election in progress) is nowhere better to go: keep waiting.
          if (leader < 0 || leader === from) continue
          this.leaderWatchers.delete(check)
          pending.catch(this.log('Cluster').caught(`left behind after the leader moved (${waiting}): it failed`))
          this.log('Cluster').debug('leader moved while a request waited: retrying at the new leader', {
            topic,
            partition,
            from,
            to: leader,
          })
          reject(
            new WafkaError(`${topic}-${partition} moved from broker ${from} to broker ${leader} while ${waiting}`, { retriable: true }),
          )
          return
        }
      }
      this.leaderWatchers.add(check)
      pending.then(
        (value) => {
          this.leaderWatchers.delete(check)
          resolve(value)
        },
        (err) => {
          this.leaderWatchers.delete(check)
          reject(err)
        },
      )
    })
  }

  /** Forgets the coordinator a route leads to when `err` says it moved, or its broker may be gone. */
  private forget(route: Route, err: unknown): void {
    if (!coordinatorOf(route)) return
    if (err instanceof ConnectionError || err instanceof TimeoutError || KafkaError.is(err, COORDINATOR_MOVED)) this.invalidate(route)
  }

  /** Forgets where a route led (its coordinator is looked up again); leaders follow metadata. */
  invalidate(route: Route): void {
    const coordinator = coordinatorOf(route)
    if (coordinator) this.invalidateCoordinator(coordinator.type, coordinator.key)
  }

  async supports(api: ApiSpec, route: Route = defaultRoute(api)): Promise<boolean> {
    return (await this.connectionFor(route)).supports(api)
  }

  async closeRoute(route: Route, lane: Lane = 'data'): Promise<void> {
    const node = await this.nodeFor(route)
    if (node !== undefined) await this.closeConnection(node, lane)
  }

  /** The connection a route leads to now. Any broker: the connection found (its node id may be a bootstrap address's). */
  private async connectionFor(route: Route, lane?: Lane, leaderOf?: readonly TopicPartition[]): Promise<Connection> {
    const node = await this.nodeFor(route)
    return node === undefined ? this.anyConnection() : this.connection(node, lane, leaderOf)
  }

  /** The node id a route leads to now; undefined for any broker (and for the controller when the cluster names none). */
  private async nodeFor(route: Route): Promise<number | undefined> {
    switch (route.kind) {
      case 'any':
        return undefined
      case 'node':
        return route.nodeId
      case 'leader':
        return this.leaderFor(route.topic, route.partition)
      case 'controller':
        if (this.metadata.controllerId < 0) await this.refreshMetadata()
        return this.metadata.controllerId >= 0 ? this.metadata.controllerId : undefined
      case 'group':
        return this.coordinator('group', route.groupId)
      case 'transaction':
        return this.coordinator('transaction', route.transactionalId)
    }
  }

  /**
   * Sends a request to a broker by node id. `body` may be a function of the
   * version the connection negotiated: fields exist only in some versions.
   */
  async send<Req, Res>(
    nodeId: number,
    api: ApiSpec<Req, Res>,
    body: Input<Req> | ((version: number) => Input<Req>),
    options: RequestOptions & { lane?: Lane } = {},
  ): Promise<Res> {
    const conn = await this.connection(nodeId, options.lane)
    const version = options.version ?? conn.versionFor(api, options.maxVersion)
    return conn.request(api, typeof body === 'function' ? (body as (v: number) => Input<Req>)(version) : body, { ...options, version })
  }

  /** The node id of the group or transaction coordinator for `key`, cached until an error says otherwise. */
  async coordinator(type: CoordinatorType, key: string): Promise<number> {
    const cacheKey = `${type}:${key}`
    const cached = this.coordinators.get(cacheKey)
    if (cached !== undefined && this.metadata.brokers.has(cached)) return cached
    const conn = await this.anyConnection()
    const version = conn.versionFor(FindCoordinator)
    const keyType = type === 'group' ? 0 : 1
    // v4+ batches keys. keyType exists from v1: the encoder refuses a transaction key on v0, which knows only groups.
    const res = await conn.request(FindCoordinator, version >= 4 ? { keyType, coordinatorKeys: [key] } : { key, keyType }, { version })
    // v4+ answers per key in `coordinators`; older versions at the top level.
    const answer = version >= 4 ? res.coordinators[0] : res
    if (answer.errorCode !== 0) throw kafkaError(answer.errorCode, { api: 'FindCoordinator', broker: conn.name, detail: `${type} ${key}` })
    if (!this.metadata.brokers.has(answer.nodeId)) {
      this.metadata.brokers.set(answer.nodeId, { nodeId: answer.nodeId, host: answer.host, port: answer.port, rack: null })
    }
    this.coordinators.set(cacheKey, answer.nodeId)
    this.log('Cluster').debug('found coordinator', { type, key, nodeId: answer.nodeId })
    return answer.nodeId
  }

  invalidateCoordinator(type: CoordinatorType, key: string): void {
    this.coordinators.delete(`${type}:${key}`)
  }
}

export function metadataRequest(topics: Array<{ topicId: string; name: string }> | null, allowAutoTopicCreation: boolean, version: number) {
  // Before v4 brokers always auto-create (if configured to): the field cannot be sent.
  return { topics, ...(version >= 4 ? ({ allowAutoTopicCreation } satisfies Partial<MetadataRequest>) : {}) }
}

/** The partitions whose leader a request waits on: a leader route's own, and those the caller names. */
function leadersOf(route: Route, named: RouteOptions<unknown>['leaderOf']): readonly TopicPartition[] | undefined {
  if (route.kind !== 'leader') return named
  return named ? [route, ...named] : [route]
}

function shuffle<T>(xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[xs[i], xs[j]] = [xs[j], xs[i]]
  }
  return xs
}
