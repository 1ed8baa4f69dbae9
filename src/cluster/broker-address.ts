import { ConfigError } from '../errors.js'

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
