import type { ApiSpec } from './api.js'

/**
 * The codecs know every version in the spec; a few newer versions change
 * what the caller must do, not just the bytes (topic ids in place of names,
 * KIP-890's second transaction protocol). Until the caller does it, the
 * newest version wafka sends is capped here, in one place, with the reason;
 * where some callers do it and others not, each caller that does not passes
 * the cap below as its maxVersion.
 */
const CAPS: Readonly<Record<string, { max: number; why: string }>> = {}

/**
 * OffsetCommit and OffsetFetch v10 name topics by id alone (KIP-848). As
 * the Java client, a KIP-848 consumer sends v10 when it has every topic's
 * id (Java's forTopicIdsOrNames); the classic consumer, the admin calls and
 * a request for a topic without a known id keep to these, by name.
 */
export const TOPIC_NAMES_MAX: Readonly<Record<'OffsetCommit' | 'OffsetFetch', number>> = { OffsetCommit: 9, OffsetFetch: 9 }

/**
 * Transactions follow the first transaction protocol (TV1: partitions added
 * with AddPartitionsToTxn, no epoch bump at EndTxn), which every broker since
 * 0.11 serves. Later versions of these APIs ask the broker for TV2 (KIP-890),
 * as the Java client does only when the broker's transaction.version is 2.
 */
export const TRANSACTION_V1_MAX: Readonly<Record<string, number>> = { Produce: 11, EndTxn: 4, TxnOffsetCommit: 4 }

/** The newest version of `api` wafka's callers implement. */
export function newestInUse(api: ApiSpec<any, any>): number {
  return Math.min(api.maxVersion, CAPS[api.name]?.max ?? Infinity)
}
