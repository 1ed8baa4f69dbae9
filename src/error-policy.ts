import { ErrorCodes as E } from './protocol/error-codes.js'

/**
 * What an error code means for the client's next step, in one place (as
 * franz-go's kerr keeps one value per code and kgo switches over them).
 * Callers ask `KafkaError.is(err, SET)` or `SET.has(code)`; nothing else
 * names a numeric code.
 */

/**
 * Errors after which cached leaders (or topic ids, or the controller) may be
 * stale: fresh metadata lets the request go on. One list for the cluster's
 * afterError and the fetcher's per-partition errors (Java's Fetcher and
 * Metadata treat the same codes as "refresh and retry").
 */
export const STALE_METADATA: ReadonlySet<number> = new Set([
  E.UNKNOWN_TOPIC_OR_PARTITION,
  E.LEADER_NOT_AVAILABLE,
  E.NOT_LEADER_OR_FOLLOWER,
  E.REPLICA_NOT_AVAILABLE,
  E.NOT_CONTROLLER,
  E.KAFKA_STORAGE_ERROR,
  E.FENCED_LEADER_EPOCH,
  E.UNKNOWN_LEADER_EPOCH,
  E.OFFSET_NOT_AVAILABLE,
  E.UNKNOWN_TOPIC_ID,
])

/** Errors after which the cached group or transaction coordinator is stale: find it again. */
export const COORDINATOR_MOVED: ReadonlySet<number> = new Set([
  E.COORDINATOR_LOAD_IN_PROGRESS,
  E.COORDINATOR_NOT_AVAILABLE,
  E.NOT_COORDINATOR,
])

/**
 * Errors saying a member's commit belongs to a generation (or epoch) the
 * group has moved past: the commit is lost, the member must rejoin first.
 */
export const COMMIT_FENCED: ReadonlySet<number> = new Set([
  E.ILLEGAL_GENERATION,
  E.UNKNOWN_MEMBER_ID,
  E.FENCED_INSTANCE_ID,
  E.FENCED_MEMBER_EPOCH,
  E.STALE_MEMBER_EPOCH,
])

/** Errors after which a classic-protocol member must join again: as a new member (UNKNOWN_MEMBER_ID) or in a new generation. */
export const REJOIN: ReadonlySet<number> = new Set([
  E.ILLEGAL_GENERATION,
  E.UNKNOWN_MEMBER_ID,
  E.REBALANCE_IN_PROGRESS,
  E.MEMBER_ID_REQUIRED,
])

/** Errors no rejoin can fix: the member is fenced, not allowed, or configured wrong for this group. */
export const GROUP_FATAL: ReadonlySet<number> = new Set([
  E.INCONSISTENT_GROUP_PROTOCOL,
  E.INVALID_GROUP_ID,
  E.INVALID_SESSION_TIMEOUT,
  E.GROUP_AUTHORIZATION_FAILED,
  E.GROUP_MAX_SIZE_REACHED,
  E.FENCED_INSTANCE_ID,
])

/** Errors after which a KIP-848 member must join again with epoch 0. */
export const REJOIN_CONSUMER_PROTOCOL: ReadonlySet<number> = new Set([E.UNKNOWN_MEMBER_ID, E.FENCED_MEMBER_EPOCH])

/** Errors after which a share-group member must join again with epoch 0 (its share sessions and acquired records are gone). */
export const REJOIN_SHARE_GROUP: ReadonlySet<number> = new Set([E.UNKNOWN_MEMBER_ID, E.FENCED_MEMBER_EPOCH])

/** Errors no heartbeat of a share-group member can fix, as Java's ShareHeartbeatRequestManager ends on them. */
export const SHARE_GROUP_FATAL: ReadonlySet<number> = new Set([
  E.GROUP_AUTHORIZATION_FAILED,
  E.TOPIC_AUTHORIZATION_FAILED,
  E.GROUP_MAX_SIZE_REACHED,
  E.INVALID_REQUEST,
  E.UNSUPPORTED_VERSION,
  E.GROUP_ID_NOT_FOUND,
  E.INCONSISTENT_GROUP_PROTOCOL,
])

/**
 * A share session the broker no longer knows (or has no room for): start a
 * new one with epoch 0. The acknowledgements that went with the lost one are
 * not applied; their records come back when their locks expire.
 */
export const SHARE_SESSION_LOST: ReadonlySet<number> = new Set([
  E.SHARE_SESSION_NOT_FOUND,
  E.INVALID_SHARE_SESSION_EPOCH,
  E.SHARE_SESSION_LIMIT_REACHED,
])

/** Errors that end a transactional producer: another instance took over, or it may not use its transactional id. */
export const PRODUCER_FATAL: ReadonlySet<number> = new Set([
  E.PRODUCER_FENCED,
  E.INVALID_PRODUCER_EPOCH,
  E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
])

/** Errors after which an idempotent producer's sequences are unknown to the broker: take a new epoch. */
export const SEQUENCE_LOST: ReadonlySet<number> = new Set([E.OUT_OF_ORDER_SEQUENCE_NUMBER, E.UNKNOWN_PRODUCER_ID, E.INVALID_PRODUCER_EPOCH])

/** A fetch session the broker no longer knows: start a new one, no backoff needed. */
export const FETCH_SESSION_LOST: ReadonlySet<number> = new Set([E.FETCH_SESSION_ID_NOT_FOUND, E.INVALID_FETCH_SESSION_EPOCH])

/** Codes that become an AuthenticationError. */
export const AUTHENTICATION: ReadonlySet<number> = new Set([
  E.UNSUPPORTED_SASL_MECHANISM,
  E.ILLEGAL_SASL_STATE,
  E.SASL_AUTHENTICATION_FAILED,
])

/** Codes that become an AuthorizationError. */
export const AUTHORIZATION: ReadonlySet<number> = new Set([
  E.TOPIC_AUTHORIZATION_FAILED,
  E.GROUP_AUTHORIZATION_FAILED,
  E.CLUSTER_AUTHORIZATION_FAILED,
  E.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
  E.DELEGATION_TOKEN_AUTHORIZATION_FAILED,
])
