import { AuthenticationError, ConnectionError, KafkaError, TlsError, UnsupportedApiError } from '../errors.js'
import { describeError, type Logger } from '../logger.js'

/**
 * Says when a broker is lost and when it comes back, once each (KafkaJS logs
 * an ERROR per failed attempt; Java a WARN per disconnect): a broker that
 * stays unreachable is one WARN, then DEBUG per further failure, and INFO
 * when a connection opens again. A broker that refuses us (credentials, an
 * untrusted certificate, no API version in common) is one ERROR: trying
 * again will not change its answer. Keyed by address, so the bootstrap
 * entry and the node id of the same broker are one broker. Entries carry the
 * broker's name and the error's message, never options (so no secrets).
 */
export class BrokerHealth {
  private readonly down = new Map<string, { since: number; failures: number; refused: boolean }>()

  constructor(private readonly log: Logger) {}

  /** A connection to `address` closed with `err`, or could not be opened (`wasOpen` false). */
  failed(address: string, broker: string, err: Error, wasOpen: boolean): void {
    const refused = isRefusal(err)
    const state = this.down.get(address)
    if (state && state.refused === refused) {
      state.failures++
      this.log.debug(`${broker} is still ${refused ? 'refusing us' : 'unreachable'}`, {
        broker,
        failures: state.failures,
        ...describeError(err),
      })
      return
    }
    this.down.set(address, { since: state?.since ?? Date.now(), failures: (state?.failures ?? 0) + 1, refused })
    if (refused) this.log.error(`${broker} refused the connection`, { broker, ...describeError(err) })
    else this.log.warn(wasOpen ? `lost the connection to ${broker}` : `cannot reach ${broker}`, { broker, ...describeError(err) })
  }

  /** A connection to `address` opened: if it was down, it is back. */
  connected(address: string, broker: string): void {
    const state = this.down.get(address)
    if (!state) return
    this.down.delete(address)
    this.log.info(`${broker} is reachable again`, { broker, downMs: Date.now() - state.since, failures: state.failures })
  }
}

/** An answer that trying again will not change, as opposed to a broker that is away or a connection that broke. */
function isRefusal(err: Error): boolean {
  const cause = err instanceof ConnectionError && err.cause instanceof Error ? err.cause : err
  return (
    cause instanceof AuthenticationError ||
    cause instanceof TlsError ||
    cause instanceof UnsupportedApiError ||
    (cause instanceof KafkaError && !cause.retriable)
  )
}
