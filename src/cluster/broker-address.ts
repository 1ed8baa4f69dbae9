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
