import type { Controller } from '../controller.js'
import { quotaEntityKey } from '../controller.js'
import { IP } from './client-quota-admin.js'
import type { QuotaWindows } from './client-quotas.js'
import { SampledRate } from './sampled-rate.js'

/** An address's rate idle this long is dropped (Kafka expires an IP's connection-rate sensor after an hour). */
const IDLE_RATE_MS = 3_600_000
/** Rates kept before idle ones are looked for. */
const RATES_BEFORE_PURGE = 1000
/** Kafka's "no limit" for both rates (QuotaConfig.IP_CONNECTION_RATE_DEFAULT, max.connection.creation.rate's default). */
const UNLIMITED = 2_147_483_647

/** An IPv4 address as Node reports it on a dual-stack socket (::ffff:a.b.c.d) is that IPv4 address, as Java's InetAddress reads it. */
export function plainIp(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address
}

/**
 * Connection creation rates (KIP-612), as Kafka's ConnectionQuotas measures
 * them for one broker's listener: the broker-wide max.connection.creation.rate
 * and each address's connection_creation_rate (an `ip` client quota, its own
 * or the default ip entity's), each a rate over quota.window.num windows of
 * quota.window.size.seconds; a throttle is (rate - limit) / limit × window,
 * at most one window.
 */
export class ConnectionQuotas {
  private readonly broker: SampledRate
  private readonly perIp = new Map<string, SampledRate>()

  constructor(
    private readonly controller: () => Controller,
    private readonly windows: QuotaWindows,
    /** max.connection.creation.rate in force (dynamic: read at each connection). */
    private readonly brokerLimit: () => number,
  ) {
    this.broker = new SampledRate(windows.samples, windows.windowMs)
  }

  /**
   * A new connection counted against the broker-wide rate: how long the
   * listener waits before it takes this connection and the ones after it
   * (Kafka's acceptor blocks; nothing is refused).
   */
  acceptDelayMs(now = Date.now()): number {
    return this.throttle(this.broker, this.brokerLimit(), now)
  }

  /**
   * The connection counted against its address's connection_creation_rate:
   * 0 to take it, else how long to hold it before closing it unserved
   * (Kafka's delayed close). A throttled connection is taken back from both
   * rates, as it is not made.
   */
  ipThrottleMs(address: string, now = Date.now()): number {
    const ip = plainIp(address)
    const limit = this.ipLimit(ip)
    if (limit === null) return 0
    const rate = this.ipRate(ip, now)
    const ms = this.throttle(rate, limit, now)
    if (ms > 0) {
      rate.record(-1, now)
      this.broker.record(-1, now)
    }
    return ms
  }

  /** The address's connection_creation_rate: its own ip quota, else the default ip entity's; null: none. */
  private ipLimit(ip: string): number | null {
    const quotas = this.controller().clientQuotas
    if (!quotas.size) return null
    const of = (name: string | null) => quotas.get(quotaEntityKey([{ type: IP, name }]))?.values.get('connection_creation_rate')
    const limit = of(ip) ?? of(null)
    return limit === undefined || limit >= UNLIMITED ? null : limit
  }

  private throttle(rate: SampledRate, limit: number, now: number): number {
    rate.record(1, now)
    if (limit >= UNLIMITED) return 0
    const measured = rate.measure(now)
    if (measured <= limit) return 0
    const ms = limit > 0 ? Math.round(((measured - limit) / limit) * rate.windowSize(now)) : Infinity
    return Math.min(ms, this.windows.windowMs)
  }

  private ipRate(ip: string, now: number): SampledRate {
    let rate = this.perIp.get(ip)
    if (!rate) {
      if (this.perIp.size >= RATES_BEFORE_PURGE)
        for (const [k, r] of this.perIp) if (now - r.lastRecordMs > IDLE_RATE_MS) this.perIp.delete(k)
      rate = new SampledRate(this.windows.samples, this.windows.windowMs)
      this.perIp.set(ip, rate)
    }
    return rate
  }
}
