import { logLevel as levels, type LogLevel } from '../logger.js'
import type { Logger as EngineLogger } from '../logger.js'

/**
 * KafkaJS's logLevel is an enum: a value and a type of one name.
 * KafkaJS 2.2.4-compatible: the same values as `wafka`'s logLevel.
 */
export const logLevel = levels
/** Exported as LogLevel too: the same levels as `wafka`'s LogLevel. */
export type logLevel = LogLevel

/** What a log entry carries (KafkaJS's shape: a message, a timestamp and the caller's extra fields). */
export interface LoggerEntryContent {
  readonly timestamp: string
  readonly message: string
  [key: string]: any
}

/** KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s LogEntry. */
export interface LogEntry {
  namespace: string
  level: logLevel
  label: string
  log: LoggerEntryContent
}

/** Exported as LogCreator too: KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s LogCreator. */
export type logCreator = (logLevel: logLevel) => (entry: LogEntry) => void

/**
 * KafkaJS's logger, as kafka.logger() and each client's logger() give it.
 * KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s Logger.
 */
export interface Logger {
  info: (message: string, extra?: object) => void
  error: (message: string, extra?: object) => void
  warn: (message: string, extra?: object) => void
  debug: (message: string, extra?: object) => void
  namespace: (namespace: string, logLevel?: logLevel) => Logger
  setLogLevel: (logLevel: logLevel) => void
}

/** The engine's logger as KafkaJS's type: it takes any object as `extra` (its fields go into the entry). */
export const kafkajsLogger = (logger: EngineLogger): Logger => logger as unknown as Logger
