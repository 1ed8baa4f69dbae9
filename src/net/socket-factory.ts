import type * as net from 'node:net'
import type * as tls from 'node:tls'

/** What a socket factory is given for one broker connection (KafkaJS's shape). */
export interface SocketFactoryArgs {
  host: string
  port: number
  /** The TLS options (`{}` for `tls: true`); undefined without TLS. */
  ssl: tls.ConnectionOptions | undefined
  /** Call once the socket is connected (after the TLS handshake, for TLS): the connection then speaks. */
  onConnect: () => void
}

/**
 * KafkaJS's socketFactory: makes each broker connection's socket (through a
 * proxy, a tunnel, a custom TLS setup). Default: node:net, or node:tls when
 * TLS is on.
 */
export type SocketFactory = (args: SocketFactoryArgs) => net.Socket
