// Java's Suppressed and Suppressed.BufferConfig, what KTable.suppress()
// takes: hold each key's latest update back until its window closes
// (untilWindowCloses: emitted once, tombstones dropped) or until
// `timeToWaitMs` of record time has passed since it was first buffered
// (untilTimeLimit: tombstones emitted too), in a buffer bounded by records
// and bytes or not at all. A strict buffer stops the application when full
// (shutDownWhenFull); an eager one emits the oldest entries early
// (emitEarlyWhenFull). The buffer is always logged to its changelog: a
// config that turns logging off or gives it topic configs is refused.
import { ConfigError } from '../errors.js'
import type { Windowed } from './windowed-serdes.js'

/** Java's BufferFullStrategy. */
export type BufferFullStrategy = 'EMIT' | 'SHUT_DOWN'

const UNBOUNDED = Number.POSITIVE_INFINITY

function checkLimit(what: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new ConfigError(`BufferConfig: ${what} must be an integer >= 0, got ${n}`)
}

export class BufferConfig {
  /** @internal (the static methods make them) */
  constructor(
    /** Buffered keys allowed (Infinity: unbounded). */
    readonly maxRecords: number,
    /** Buffered bytes allowed, counted as Java estimates them (Infinity: unbounded). */
    readonly maxBytes: number,
    readonly bufferFullStrategy: BufferFullStrategy,
  ) {}

  /** No limit (strict: untilWindowCloses takes it). */
  static unbounded(): BufferConfig {
    return bufferConfig(UNBOUNDED, UNBOUNDED, 'SHUT_DOWN')
  }

  /** At most `recordLimit` keys; emits the oldest early when full (Java's EagerBufferConfig). */
  static maxRecords(recordLimit: number): BufferConfig {
    checkLimit('the record limit', recordLimit)
    return bufferConfig(recordLimit, UNBOUNDED, 'EMIT')
  }

  /** At most `byteLimit` bytes; emits the oldest early when full. */
  static maxBytes(byteLimit: number): BufferConfig {
    checkLimit('the byte limit', byteLimit)
    return bufferConfig(UNBOUNDED, byteLimit, 'EMIT')
  }

  withMaxRecords(recordLimit: number): BufferConfig {
    checkLimit('the record limit', recordLimit)
    return bufferConfig(recordLimit, this.maxBytes, this.bufferFullStrategy)
  }

  withMaxBytes(byteLimit: number): BufferConfig {
    checkLimit('the byte limit', byteLimit)
    return bufferConfig(this.maxRecords, byteLimit, this.bufferFullStrategy)
  }

  /** When full, the application stops with a StreamsError (Java's StrictBufferConfig). */
  shutDownWhenFull(): BufferConfig {
    return bufferConfig(this.maxRecords, this.maxBytes, 'SHUT_DOWN')
  }

  /** When full, the oldest entries are emitted before their time. */
  emitEarlyWhenFull(): BufferConfig {
    return bufferConfig(this.maxRecords, this.maxBytes, 'EMIT')
  }

  withLoggingDisabled(): never {
    throw new ConfigError('BufferConfig.withLoggingDisabled() is not supported: every wafka/streams store is logged to its changelog')
  }

  withLoggingEnabled(config: Record<string, string> = {}): BufferConfig {
    if (Object.keys(config).length > 0)
      throw new ConfigError('BufferConfig.withLoggingEnabled(config): topic configs for the buffer changelog are not supported; give none')
    return this
  }
}

export class Suppressed<K> {
  /** @internal (untilWindowCloses and untilTimeLimit make them) */
  constructor(
    /** The processor's name (the buffer is `<name>-store`), else generated. */
    readonly name: string | undefined,
    /** 'windowCloses': by window end, for the window's grace; 'timeLimit': by record time, for timeToWaitMs. */
    readonly until: 'windowCloses' | 'timeLimit',
    readonly timeToWaitMs: number,
    readonly bufferConfig: BufferConfig,
    /** @internal Types only. */
    readonly _key?: K,
  ) {}

  /**
   * Each window's final result only: its latest value, emitted once stream
   * time reaches the window's end plus its grace (tombstones dropped). Takes
   * a strict buffer: unbounded(), or a bounded one with shutDownWhenFull().
   */
  static untilWindowCloses(bufferConfig: BufferConfig): Suppressed<Windowed<any>> {
    if (!(bufferConfig instanceof BufferConfig)) throw new TypeError('untilWindowCloses() takes a BufferConfig')
    if (bufferConfig.bufferFullStrategy !== 'SHUT_DOWN')
      throw new ConfigError(
        'untilWindowCloses() takes a strict buffer (BufferConfig.unbounded(), or a bounded one with shutDownWhenFull()): emitting early would not be a final result',
      )
    return suppressed(undefined, 'windowCloses', 0, bufferConfig)
  }

  /** Each key's latest value, emitted once `timeToWaitMs` of stream time has passed since the key was buffered. */
  static untilTimeLimit<K>(timeToWaitMs: number, bufferConfig: BufferConfig): Suppressed<K> {
    if (!Number.isSafeInteger(timeToWaitMs) || timeToWaitMs < 0)
      throw new ConfigError(`untilTimeLimit: the time to wait must be an integer of milliseconds >= 0, got ${timeToWaitMs}`)
    if (!(bufferConfig instanceof BufferConfig)) throw new TypeError('untilTimeLimit() takes a BufferConfig')
    return suppressed<K>(undefined, 'timeLimit', timeToWaitMs, bufferConfig)
  }

  /** Names the processor `name` and its buffer `<name>-store` (changelog `<applicationId>-<name>-store-changelog`). */
  withName(name: string): Suppressed<K> {
    if (typeof name !== 'string' || name === '') throw new TypeError('withName() takes a non-empty name')
    return suppressed<K>(name, this.until, this.timeToWaitMs, this.bufferConfig)
  }
}

// The classes make their instances through these, outside their bodies: a
// class that names itself inside is bundled as \`class _Name\`, and its
// \`.name\` would not be its export's (test/built-names.test.ts).
function bufferConfig(maxRecords: number, maxBytes: number, strategy: BufferFullStrategy): BufferConfig {
  return new BufferConfig(maxRecords, maxBytes, strategy)
}

function suppressed<K>(
  name: string | undefined,
  until: 'windowCloses' | 'timeLimit',
  timeToWaitMs: number,
  config: BufferConfig,
): Suppressed<K> {
  return new Suppressed<K>(name, until, timeToWaitMs, config)
}
