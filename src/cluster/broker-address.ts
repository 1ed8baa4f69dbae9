import { ConfigError } from '../errors.js'

/**
 * Before the first metadata, and whenever no known broker answers, the
 * client talks to the bootstrap addresses. They have no node id yet, so
 * each gets a pseudo one: the i-th address is -(i + 1), never a real id
 * (Kafka's are >= 0), as the Java client does.
 */
export function bootstrapNodeId(index: number): number {
  return -index - 1
}

export function isBootstrapNodeId(nodeId: number): boolean {
  return nodeId < 0
}

/** The index into the bootstrap list of a pseudo node id. */
export function bootstrapIndex(nodeId: number): number {
  return -nodeId - 1
}

export interface BrokerAddress {
  host: string
  port: number
}

/** Parses 'host:port', '[v6::addr]:port' or a bare host (port 9092, Kafka's default). */
export function parseBrokerAddress(text: string): BrokerAddress {
  const s = text.trim()
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(s)
  const m = v6 ?? /^([^:]+)(?::(\d+))?$/.exec(s)
  const port = m?.[2] === undefined ? 9092 : Number(m[2])
  if (!m || !m[1] || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ConfigError(`broker address ${JSON.stringify(text)} is not host:port (for example localhost:9092)`)
  }
  return { host: m[1], port }
}

/**
 * The bootstrap list: an array of addresses, or one comma-separated string
 * of them (Java's bootstrap.servers, the CLI's -b). Anything else is a
 * ConfigError saying what brokers must be.
 */
export function parseBootstrap(brokers: unknown): BrokerAddress[] {
  const list =
    typeof brokers === 'string'
      ? brokers
          .split(',')
          .map((b) => b.trim())
          .filter((b) => b !== '')
      : brokers
  if (!Array.isArray(list)) {
    const what = list === null ? 'null' : typeof list
    throw new ConfigError(`brokers must be an array of "host:port" strings (or one comma-separated string), not ${what}`)
  }
  if (list.length === 0) throw new ConfigError('no brokers given: pass brokers: ["host:port", ...]')
  return list.map((b, i) => {
    if (typeof b !== 'string') throw new ConfigError(`brokers[${i}] must be a "host:port" string, not ${b === null ? 'null' : typeof b}`)
    return parseBrokerAddress(b)
  })
}
