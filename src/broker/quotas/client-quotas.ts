import { quotaEntityKey, type Controller } from '../controller.js'
import type { RequestContext } from '../handler.js'
import { ANONYMOUS, principalOf } from '../principal.js'
import { CLIENT_ID, USER } from './client-quota-admin.js'
import { SampledRate } from './sampled-rate.js'

/** A client's rates idle this long are dropped (Kafka expires its quota sensors after an hour). */
const IDLE_SENSOR_MS = 3_600_000
/** Rates kept before idle ones are looked for. */
const SENSORS_BEFORE_PURGE = 1000

export interface QuotaWindows {
  /** quota.window.num */
  samples: number
  /** quota.window.size.seconds, in ms */
  windowMs: number
}

/** Who a request is from, as quotas see it: the principal's name (principal.ts: SASL user, TLS certificate's, or ANONYMOUS) and the client id. */
export interface QuotaClient {
  /** null: ANONYMOUS */
  user: string | null
  clientId: string | null
}

/**
 * One kind of quota on one broker (Kafka's ClientQuotaManager for one key):
 * the limit a client has, by Kafka's precedence of entities, and the rate
 * it is measured against. Clients under one quota entity share one rate (a
 * user's quota is the user's, whatever its client ids); a default gives
 * each user or client id its own.
 */
export class ClientQuotaManager {
  private readonly rates = new Map<string, SampledRate>()

  constructor(
    private readonly key: string,
    private readonly controller: () => Controller,
    private readonly windows: QuotaWindows,
    /** The longest throttle (request_percentage's: one window); null: as long as the rate needs. */
    private readonly maxThrottleMs: number | null,
  ) {}

  /** The quota that applies to the client and the id of the rate its clients share (quotaFor); null: none. */
  limitFor(client: QuotaClient): { limit: number; rate: string } | null {
    return quotaFor(this.controller(), this.key, client)
  }

  /**
   * Records `value` for the client at `now` and returns how long it must be
   * throttled, in ms (0: within its quota): Kafka's
   * (rate - quota) / quota × the measured window, rounded, capped at
   * maxThrottleMs. What is recorded stays recorded (Produce's bytes are
   * appended throttled or not); unrecord() takes it back.
   */
  record(client: QuotaClient, value: number, now = Date.now()): number {
    const quota = this.limitFor(client)
    if (!quota) return 0
    const rate = this.rate(quota.rate, now)
    rate.record(value, now)
    const measured = rate.measure(now)
    if (measured <= quota.limit) return 0
    // A quota of 0 lets nothing through: the longest throttle there is.
    const ms = quota.limit > 0 ? Math.round(((measured - quota.limit) / quota.limit) * rate.windowSize(now)) : Infinity
    return Math.min(ms, this.maxThrottleMs ?? Infinity, 2_147_483_647)
  }

  /** Takes back a value recorded (a throttled Fetch is answered empty, its bytes never sent). */
  unrecord(client: QuotaClient, value: number, now = Date.now()): void {
    const quota = this.limitFor(client)
    if (quota) this.rates.get(quota.rate)?.record(-value, now)
  }

  private rate(id: string, now: number): SampledRate {
    let rate = this.rates.get(id)
    if (!rate) {
      if (this.rates.size >= SENSORS_BEFORE_PURGE)
        for (const [k, r] of this.rates) if (now - r.lastRecordMs > IDLE_SENSOR_MS) this.rates.delete(k)
      rate = new SampledRate(this.windows.samples, this.windows.windowMs)
      this.rates.set(id, rate)
    }
    return rate
  }
}

/**
 * A broker's three client quotas (KIP-13, KIP-124): the bytes clients
 * produce, the bytes they fetch, and the share of the broker's time their
 * requests take (request_percentage: a percentage of one request thread's
 * time, per second).
 */
export class BrokerQuotas {
  readonly produce: ClientQuotaManager
  readonly fetch: ClientQuotaManager
  readonly request: ClientQuotaManager

  constructor(
    private readonly controller: () => Controller,
    private readonly windows: QuotaWindows,
  ) {
    this.produce = new ClientQuotaManager('producer_byte_rate', controller, windows, null)
    this.fetch = new ClientQuotaManager('consumer_byte_rate', controller, windows, null)
    this.request = new ClientQuotaManager('request_percentage', controller, windows, windows.windowMs)
  }

  /** Whether any quota is set: none, and nothing is measured (a request pays one size check). */
  get active(): boolean {
    return this.controller().clientQuotas.size > 0
  }

  /** Produce's request counted against producer_byte_rate (its size, as Kafka's): the throttle in ms. */
  produced(ctx: RequestContext): number {
    return this.active && !ctx.connection.internal ? this.produce.record(clientOf(ctx), ctx.size) : 0
  }

  /**
   * A consumer's fetch of `bytes`, taking `spentMs` of the broker's time:
   * both counted, against consumer_byte_rate and request_percentage (as
   * Kafka's handleFetchRequest, before it builds the answer), and the
   * longer throttle in ms. A fetch throttled by either is answered empty,
   * so its bytes are taken back (Kafka's unrecord): the client reads them
   * after the throttle. Marks the request's time as counted.
   */
  fetched(ctx: RequestContext, bytes: number, spentMs: number): number {
    ctx.requestTimeRecorded = true
    if (!this.active || ctx.connection.internal) return 0
    const client = clientOf(ctx)
    const ms = Math.max(this.spent(client, spentMs), this.fetch.record(client, bytes))
    if (ms > 0) this.fetch.unrecord(client, bytes)
    return ms
  }

  /**
   * The most a fetch may read: what the client's consumer_byte_rate lets
   * through over the quota's windows but one (Kafka's maxValueInQuotaWindow),
   * so a fetch is never over its quota by its size alone.
   */
  maxFetchBytes(ctx: RequestContext): number {
    const quota = this.active && !ctx.connection.internal ? this.fetch.limitFor(clientOf(ctx)) : null
    return quota ? quota.limit * (this.windows.samples - 1) * (this.windows.windowMs / 1000) : Infinity
  }

  /** Records `ms` of the broker's time spent on the client's request; the request throttle in ms. */
  spent(client: QuotaClient, ms: number, now = Date.now()): number {
    // Kafka's nanos × 100 / 1e9: a percentage of one thread over one second.
    return this.request.record(client, ms / 10, now)
  }
}

/**
 * The client's quota for `key` and the rate that measures it, most specific
 * entity first (Kafka's order): user+client-id, user+default client-id, user,
 * default user+client-id, default user+default client-id, default user,
 * client-id, default client-id. Clients under one quota entity share one
 * rate (a user's quota is the user's, whatever its client ids); a default
 * gives each user or client id its own. Null: no quota.
 */
export function quotaFor(controller: Controller, key: string, client: QuotaClient): { limit: number; rate: string } | null {
  const quotas = controller.clientQuotas
  if (!quotas.size) return null
  const user = client.user ?? ANONYMOUS.name
  const clientId = client.clientId ?? ''
  const get = (u: string | null | undefined, c: string | null | undefined): number | undefined => {
    const entity = []
    if (u !== undefined) entity.push({ type: USER, name: u })
    if (c !== undefined) entity.push({ type: CLIENT_ID, name: c })
    return quotas.get(quotaEntityKey(entity))?.values.get(key)
  }
  // Each level: the entity looked up (undefined: no such part, null: the default) and the rate its clients share.
  const levels: Array<[string | null | undefined, string | null | undefined, string, string]> = [
    [user, clientId, user, clientId],
    [user, null, user, clientId],
    [user, undefined, user, ''],
    [null, clientId, user, clientId],
    [null, null, user, clientId],
    [null, undefined, user, ''],
    [undefined, clientId, '', clientId],
    [undefined, null, '', clientId],
  ]
  for (const [u, c, rateUser, rateClient] of levels) {
    const limit = get(u, c)
    if (limit !== undefined) return { limit, rate: `${rateUser}\u0000${rateClient}` }
  }
  return null
}

/** A request's client: its connection's principal's name and its header's client id. */
export function clientOf(ctx: RequestContext): QuotaClient {
  return { user: principalOf(ctx.connection).name, clientId: ctx.header.clientId }
}
