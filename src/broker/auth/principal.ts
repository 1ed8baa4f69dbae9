import type { ClientConnection } from '../listener.js'

/** Kafka's principal of a connection that did not authenticate (PLAINTEXT, or TLS without a client certificate). */
export const ANONYMOUS = 'User:ANONYMOUS'

/**
 * The principal a connection's requests are authorized as, Kafka's
 * `Type:name`: the SASL user (`User:<name>`), else User:ANONYMOUS. The one
 * place a connection's principal is made, so other ways to authenticate
 * (a TLS client certificate's mapped name) plug in here.
 */
export function principalOf(connection: ClientConnection): string {
  const user = connection.sasl?.user
  return user != null ? `User:${user}` : ANONYMOUS
}

/** The client's address as Kafka's ACL hosts name it (an IPv4 client on a dual-stack socket without its ::ffff: prefix). */
export function hostOf(connection: ClientConnection): string {
  const address = connection.remoteAddress
  return address.startsWith('::ffff:') ? address.slice(7) : address
}
