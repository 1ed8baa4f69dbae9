import { ConfigError } from '../../errors.js'
import { RETRY_INSTEAD } from '../../cluster/options.js'
import {
  checkKeys,
  countOption as count,
  msOption as ms,
  numberOption,
  oneOf,
  valueOption as value,
  type Alias,
  type OptionSpec,
} from '../../config/option.js'

export type AcknowledgementMode = 'implicit' | 'explicit'
export type ShareAcquireMode = 'batch_optimized' | 'record_limit'

/**
 * The options of `kafka.shareConsumer({...})`. The JSDoc of each property in SHARE_CONSUMER_OPTIONS (below) is written from
 * that table by `npm run generate:readme`: edit the table, not the comment.
 */
export interface ShareConsumerConfig {
  /** The share group to join (required). Java: `group.id`. */
  groupId?: string
  /**
   * `'implicit'`: a delivered batch is accepted when its handler returns (or the next one is asked for); `'explicit'`: each record is
   * acknowledged with `acknowledge()`. Default: `"implicit"`. Java: `share.acknowledgement.mode`.
   */
  acknowledgementMode?: AcknowledgementMode
  /**
   * The most records one fetch asks the broker to acquire for this member (a limit the broker may pass to the end of a record batch: see
   * shareAcquireMode). Default: `500` (1–2147483647). Java: `max.poll.records`.
   */
  maxPollRecords?: number
  /**
   * `'batch_optimized'`: the broker may acquire past maxPollRecords to the end of a record batch; `'record_limit'`: never more than
   * maxPollRecords (KIP-1206, ShareFetch v2). Default: `"batch_optimized"`. Java: `share.acquire.mode`.
   */
  shareAcquireMode?: ShareAcquireMode
  /** A fetch waits for this many bytes (or maxWaitTimeInMs). Default: `1` (0–2147483647). Java: `fetch.min.bytes`. */
  minBytes?: number
  /** Bytes a fetch response may carry. Default: `52428800` (1–2147483647). Java: `fetch.max.bytes`. */
  maxBytes?: number
  /** How long a fetch waits for minBytes. Default: `500` (0–2147483647). Java: `fetch.max.wait.ms`. */
  maxWaitTimeInMs?: number
  /** Verify each batch's CRC. Default: `true`. Java: `check.crcs`. */
  checkCrcs?: boolean
  /** The rack this member runs in, told to the group coordinator. Java: `client.rack`. */
  rackId?: string
  /**
   * How long a request may wait for its response (a fetch: plus maxWaitTimeInMs). Default: `30000` (1–2147483647). Java:
   * `request.timeout.ms`.
   */
  requestTimeoutMs?: number
  /** The first backoff between retries. Default: `100` (0–2147483647). Java: `retry.backoff.ms`. */
  retryBackoffMs?: number
  /** The largest backoff between retries. Default: `1000` (0–2147483647). Java: `retry.backoff.max.ms`. */
  retryBackoffMaxMs?: number
}

/**
 * Every option of `kafka.shareConsumer({...})`: default, meaning, range and
 * the Java client's name (KafkaShareConsumer's). The resolver takes its
 * defaults from here, checkKeys() refuses a key not here, and the README's
 * reference and ShareConsumerConfig's JSDoc are generated from it.
 */
export const SHARE_CONSUMER_OPTIONS = {
  groupId: value(undefined, 'The share group to join (required).', 'group.id'),
  acknowledgementMode: value(
    'implicit',
    "`'implicit'`: a delivered batch is accepted when its handler returns (or the next one is asked for); `'explicit'`: each record is acknowledged with `acknowledge()`.",
    'share.acknowledgement.mode',
  ),
  maxPollRecords: count(
    500,
    'The most records one fetch asks the broker to acquire for this member (a limit the broker may pass to the end of a record batch: see shareAcquireMode).',
    'max.poll.records',
  ),
  shareAcquireMode: value(
    'batch_optimized',
    "`'batch_optimized'`: the broker may acquire past maxPollRecords to the end of a record batch; `'record_limit'`: never more than maxPollRecords (KIP-1206, ShareFetch v2).",
    'share.acquire.mode',
  ),
  minBytes: count(1, 'A fetch waits for this many bytes (or maxWaitTimeInMs).', 'fetch.min.bytes', 0),
  maxBytes: count(52_428_800, 'Bytes a fetch response may carry.', 'fetch.max.bytes'),
  maxWaitTimeInMs: ms(500, 'How long a fetch waits for minBytes.', 'fetch.max.wait.ms'),
  checkCrcs: value(true, "Verify each batch's CRC.", 'check.crcs'),
  rackId: value(undefined, 'The rack this member runs in, told to the group coordinator.', 'client.rack'),
  requestTimeoutMs: ms(30_000, 'How long a request may wait for its response (a fetch: plus maxWaitTimeInMs).', 'request.timeout.ms', 1),
  retryBackoffMs: ms(100, 'The first backoff between retries.', 'retry.backoff.ms'),
  retryBackoffMaxMs: ms(1000, 'The largest backoff between retries.', 'retry.backoff.max.ms'),
} as const satisfies Record<keyof ShareConsumerConfig, OptionSpec>

/** Names that mean something else for a share consumer: what to do instead. */
export const SHARE_CONSUMER_ALIASES: Record<string, Alias> = {
  autoCommit: { instead: 'a share consumer acknowledges records instead of committing offsets: see acknowledgementMode' },
  autoOffsetReset: {
    instead: "where a share group starts is the group's config share.auto.offset.reset (admin.alterConfigs on the group)",
  },
  groupInstanceId: { instead: 'share groups have no static membership' },
  sessionTimeoutMs: { instead: "a share group's session timeout is the broker's group.share.session.timeout.ms" },
  heartbeatIntervalMs: { instead: 'the coordinator tells a share-group member its heartbeat interval' },
  isolationLevel: { instead: "a share group's isolation level is the group's config share.isolation.level" },
  requestTimeout: { use: 'requestTimeoutMs' },
  retry: { instead: RETRY_INSTEAD },
}

export interface ResolvedShareConsumerConfig {
  groupId: string
  acknowledgementMode: AcknowledgementMode
  maxPollRecords: number
  shareAcquireMode: ShareAcquireMode
  minBytes: number
  maxBytes: number
  maxWaitTimeInMs: number
  checkCrcs: boolean
  rackId: string | null
  requestTimeoutMs: number
  retryBackoffMs: number
  retryBackoffMaxMs: number
}

/** KafkaShareConsumer's defaults, checked as Java checks them. */
export function resolveShareConsumerConfig(given: ShareConsumerConfig): ResolvedShareConsumerConfig {
  const config = checkKeys('shareConsumer', given, SHARE_CONSUMER_OPTIONS, SHARE_CONSUMER_ALIASES)
  if (typeof config.groupId !== 'string' || config.groupId === '')
    throw new ConfigError('shareConsumer needs a groupId (a non-empty string)')
  if (config.rackId !== undefined && (typeof config.rackId !== 'string' || config.rackId === ''))
    throw new ConfigError('rackId must be a non-empty string')
  const n = (name: keyof typeof SHARE_CONSUMER_OPTIONS, v: unknown) => numberOption(SHARE_CONSUMER_OPTIONS, name, v)
  return {
    groupId: config.groupId,
    acknowledgementMode: oneOf(
      'acknowledgementMode',
      config.acknowledgementMode,
      ['implicit', 'explicit'],
      SHARE_CONSUMER_OPTIONS.acknowledgementMode.default,
    ),
    maxPollRecords: n('maxPollRecords', config.maxPollRecords),
    shareAcquireMode: oneOf(
      'shareAcquireMode',
      config.shareAcquireMode,
      ['batch_optimized', 'record_limit'],
      SHARE_CONSUMER_OPTIONS.shareAcquireMode.default,
    ),
    minBytes: n('minBytes', config.minBytes),
    maxBytes: n('maxBytes', config.maxBytes),
    maxWaitTimeInMs: n('maxWaitTimeInMs', config.maxWaitTimeInMs),
    checkCrcs: config.checkCrcs ?? SHARE_CONSUMER_OPTIONS.checkCrcs.default,
    rackId: config.rackId ?? null,
    requestTimeoutMs: n('requestTimeoutMs', config.requestTimeoutMs),
    retryBackoffMs: n('retryBackoffMs', config.retryBackoffMs),
    retryBackoffMaxMs: n('retryBackoffMaxMs', config.retryBackoffMaxMs),
  }
}
