/**
 * KafkaJS's logging shape: levels by number, a `logCreator(level)` that
 * returns the function each entry goes to, and loggers with a namespace.
 * The default writes WARN and above to stderr as one line of JSON.
 * Entries carry what was decided and why (broker, api, error message),
 * never a secret: options are not logged, errors are by their message.
 */
export const logLevel = { NOTHING: 0, ERROR: 1, WARN: 2, INFO: 4, DEBUG: 5 } as const
export type LogLevel = (typeof logLevel)[keyof typeof logLevel]

export interface LogEntry {
  namespace: string
  level: LogLevel
  label: 'ERROR' | 'WARN' | 'INFO' | 'DEBUG'
  log: { timestamp: string; logger: 'wafka'; message: string; [extra: string]: unknown }
}

export type LogCreator = (level: LogLevel) => (entry: LogEntry) => void

export interface Logger {
  error(message: string, extra?: Record<string, unknown>): void
  warn(message: string, extra?: Record<string, unknown>): void
  info(message: string, extra?: Record<string, unknown>): void
  debug(message: string, extra?: Record<string, unknown>): void
  /** A logger whose entries carry `namespace` (e.g. 'Consumer', 'Connection'). */
  namespace(namespace: string): Logger
  setLogLevel(level: LogLevel): void
  /**
   * A rejection handler for work whose failure is not the caller's (a
   * background metadata refresh, a best-effort leave): it logs `what` with
   * the error at `level` (DEBUG unless said) instead of dropping it.
   */
  caught(what: string, level?: 'warn' | 'info' | 'debug', extra?: Record<string, unknown>): (err: unknown) => void
}

const LABELS = { [logLevel.ERROR]: 'ERROR', [logLevel.WARN]: 'WARN', [logLevel.INFO]: 'INFO', [logLevel.DEBUG]: 'DEBUG' } as const

/** One JSON line a entry on stderr (Node, Deno and Bun all have console.error writing there). */
export const jsonLogCreator: LogCreator =
  () =>
  ({ namespace, label, log }) => {
    const { timestamp, logger, message, ...extra } = log
    console.error(
      JSON.stringify({ level: label, timestamp, logger, namespace, message, ...extra }, (_k, v) =>
        typeof v === 'bigint' ? v.toString() : v,
      ),
    )
  }

/** What an error says, for a log entry: its class, message and Kafka code (never its cause chain's objects). */
export function describeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { error: String(err) }
  const code = (err as { code?: unknown }).code
  return { error: err.message, errorName: err.name, ...(typeof code === 'number' ? { errorCode: code } : {}) }
}

export function isLogLevel(value: unknown): value is LogLevel {
  return value === 0 || value === 1 || value === 2 || value === 4 || value === 5
}

export function createLogger(options: { logLevel?: LogLevel; logCreator?: LogCreator } = {}): Logger {
  const state = { level: options.logLevel ?? logLevel.WARN }
  const sink = (options.logCreator ?? jsonLogCreator)(state.level)
  const make = (namespace: string): Logger => {
    const write = (level: LogLevel, message: string, extra?: Record<string, unknown>): void => {
      if (level > state.level || state.level === logLevel.NOTHING) return
      try {
        sink({
          namespace,
          level,
          label: LABELS[level as keyof typeof LABELS],
          log: { timestamp: new Date().toISOString(), logger: 'wafka', message, ...extra },
        })
      } catch {
        // A failing user log creator must not break the client; there is nowhere left to report it.
      }
    }
    return {
      error: (m, e) => write(logLevel.ERROR, m, e),
      warn: (m, e) => write(logLevel.WARN, m, e),
      info: (m, e) => write(logLevel.INFO, m, e),
      debug: (m, e) => write(logLevel.DEBUG, m, e),
      namespace: (name) => make(namespace ? `${namespace}.${name}` : name),
      setLogLevel: (level) => {
        state.level = level
      },
      caught:
        (what, level = 'debug', extra) =>
        (err) =>
          write(level === 'warn' ? logLevel.WARN : level === 'info' ? logLevel.INFO : logLevel.DEBUG, what, {
            ...extra,
            ...describeError(err),
          }),
    }
  }
  return make('')
}

/** A logger that writes nothing: for pieces built outside a client (tests, the codec). */
export const silentLogger: Logger = createLogger({ logLevel: logLevel.NOTHING })
