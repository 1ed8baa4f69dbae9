import type { ClientConnection } from './listener.js'

/** Kafka's KafkaPrincipal: a type (always User here) and a name. */
export interface KafkaPrincipal {
  readonly type: 'User'
  readonly name: string
}

/** Kafka's principal for a connection that did not authenticate (PLAINTEXT, or TLS without a client certificate). */
export const ANONYMOUS: KafkaPrincipal = Object.freeze({ type: 'User', name: 'ANONYMOUS' })

/**
 * Who a connection is, as Kafka's DefaultKafkaPrincipalBuilder says: the
 * SASL user once authenticated (`User:alice`), else the name
 * ssl.principal.mapping.rules made of its TLS client certificate's subject
 * (`User:CN=app,OU=billing` with the default rules), else User:ANONYMOUS.
 * The one place quotas, ACLs and logs learn a connection's principal.
 * In-process peers (`connection.internal`, other virtual brokers) are
 * ANONYMOUS here: callers that trust them check `internal`.
 */
export function principalOf(connection: ClientConnection): KafkaPrincipal {
  const user = connection.sasl?.user ?? connection.tlsUser
  return user == null ? ANONYMOUS : { type: 'User', name: user }
}

/** Whether the connection authenticated with a delegation token (KafkaPrincipal.tokenAuthenticated). */
export function tokenAuthenticated(connection: ClientConnection): boolean {
  return connection.sasl?.tokenAuthenticated === true
}

/** `User:name`, as ACLs and Kafka's tools write a principal. */
export function principalString(principal: KafkaPrincipal): string {
  return `${principal.type}:${principal.name}`
}

/** The client's address as Kafka's ACL hosts name it (an IPv4 client on a dual-stack socket without its ::ffff: prefix). */
export function hostOf(connection: ClientConnection): string {
  const address = connection.remoteAddress
  return address.startsWith('::ffff:') ? address.slice(7) : address
}
