import { ErrorCodes } from '../../protocol/error-codes.js'
import { BrokerError } from '../broker-error.js'
import type { Controller } from '../controller.js'
import type { RequestContext } from '../handler.js'
import type { QuotaClient, QuotaWindows } from './client-quotas.js'
import { clientOf, quotaFor } from './client-quotas.js'

/** A client's rates idle this long are dropped (Kafka expires its quota sensors after an hour). */
const IDLE_BUCKET_MS = 3_600_000
/** Buckets kept before idle ones are looked for. */
const BUCKETS_BEFORE_PURGE = 1000
/** Kafka's message for THROTTLING_QUOTA_EXCEEDED: the client is told none (Kafka's ApiError drops a message that is the error's own). */
const EXCEEDED = 'The throttling quota has been exceeded.'

/**
 * A token bucket (Kafka's TokenBucket stat): refilled at the quota per
 * second up to a burst of samples × window × quota, spent by each mutation,
 * and exhausted while below zero. Unlike a sampled rate it comes back as
 * soon as the debt is paid: a burst of B over the bucket waits B / quota.
 */
class TokenBucket {
  private tokens: number
  private updatedMs: number
  lastRecordMs: number

  constructor(burst: number, now: number) {
    this.tokens = burst
    this.updatedMs = now
    this.lastRecordMs = now
  }

  /** The tokens left at `now`, after refilling at `quota` per second up to `burst`. */
  measure(quota: number, burst: number, now: number): number {
    this.tokens = Math.min(burst, this.tokens + (quota * Math.max(0, now - this.updatedMs)) / 1000)
    this.updatedMs = Math.max(this.updatedMs, now)
    return this.tokens
  }

  spend(permits: number, quota: number, burst: number, now: number): number {
    this.lastRecordMs = now
    this.tokens = Math.min(burst, this.measure(quota, burst, now) - permits)
    return this.tokens
  }
}

/**
 * One request's controller mutation quota (KIP-599), as Kafka's
 * ControllerMutationQuota: each topic's partitions created, added or deleted
 * are spent from the client's bucket. Strict (CreateTopics v6+,
 * CreatePartitions v3+, DeleteTopics v5+, whose clients know
 * THROTTLING_QUOTA_EXCEEDED): a mutation is refused with it while the
 * bucket is below zero, and one is let through whole, however large, while
 * it is not. Permissive (older versions): every mutation is let through and
 * the request is throttled once the bucket is below zero.
 */
export interface MutationQuota {
  /** Spends `partitions` for one topic; throws BrokerError(THROTTLING_QUOTA_EXCEEDED) when strict and exhausted. */
  record(partitions: number): void
  /** The throttle the request's answer carries, in ms: the last violation's, less the time since. */
  throttleTimeMs(): number
}

const UNBOUNDED: MutationQuota = { record: () => {}, throttleTimeMs: () => 0 }

/**
 * The controller's mutation quotas (Kafka's ControllerMutationQuotaManager):
 * one token bucket per quota entity, by the controller_mutation_rate
 * quotas' precedence (user, client id, their defaults), over
 * controller.quota.window.num × controller.quota.window.size.seconds of burst.
 * One controller serves every virtual broker, so one set of buckets.
 */
export class ControllerMutationQuotas {
  private readonly buckets = new Map<string, TokenBucket>()

  constructor(
    private readonly controller: () => Controller,
    private readonly windows: QuotaWindows,
  ) {}

  /** The request's quota: strict from `strictSince` on, permissive below; unbounded when the client has none. */
  forRequest(client: QuotaClient, version: number, strictSince: number): MutationQuota {
    const quota = quotaFor(this.controller(), 'controller_mutation_rate', client)
    if (!quota) return UNBOUNDED
    const strict = version >= strictSince
    const burst = this.windows.samples * (this.windows.windowMs / 1000) * quota.limit
    let throttleMs = 0
    let recordedMs = 0
    // Time for the bucket to climb back to zero from `tokens`, as Kafka's throttleTimeMs.
    const violated = (tokens: number, now: number) => {
      throttleMs = Math.round((-tokens / quota.limit) * 1000)
      recordedMs = now
    }
    return {
      record: (partitions) => {
        const now = Date.now()
        const bucket = this.bucket(quota.rate, burst, now)
        if (strict) {
          const tokens = bucket.measure(quota.limit, burst, now)
          if (tokens < 0) {
            violated(tokens, now)
            throw new BrokerError(ErrorCodes.THROTTLING_QUOTA_EXCEEDED, EXCEEDED, { clientMessage: null })
          }
          bucket.spend(partitions, quota.limit, burst, now)
        } else {
          const tokens = bucket.spend(partitions, quota.limit, burst, now)
          if (tokens < 0) violated(tokens, now)
        }
      },
      throttleTimeMs: () => Math.max(0, Math.min(2_147_483_647, throttleMs - (Date.now() - recordedMs))),
    }
  }

  private bucket(id: string, burst: number, now: number): TokenBucket {
    let bucket = this.buckets.get(id)
    if (!bucket) {
      if (this.buckets.size >= BUCKETS_BEFORE_PURGE)
        for (const [k, b] of this.buckets) if (now - b.lastRecordMs > IDLE_BUCKET_MS) this.buckets.delete(k)
      bucket = new TokenBucket(burst, now)
      this.buckets.set(id, bucket)
    }
    return bucket
  }
}

/** A mutating request's quota (strict from `strictSince`); another virtual broker's request has none. */
export function mutationQuotaOf(ctx: RequestContext, strictSince: number): MutationQuota {
  if (ctx.connection.internal) return UNBOUNDED
  return ctx.cluster.mutationQuotas.forRequest(clientOf(ctx), ctx.version, strictSince)
}
