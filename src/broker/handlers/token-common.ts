import type { RequestContext } from '../handler.js'
import type { TokenPrincipal } from '../metadata-records.js'
import { principalOf, tokenAuthenticated } from '../principal.js'

/**
 * Whether the connection may ask for delegation tokens, as Kafka's
 * allowTokenRequests: not one that authenticated with a token (a token
 * must not beget tokens), not PLAINTEXT, not TLS without a client
 * certificate (User:ANONYMOUS).
 */
export function tokenRequestsAllowed(ctx: RequestContext): boolean {
  const { connection, cluster } = ctx
  if (tokenAuthenticated(connection)) return false
  if (cluster.options.sasl) return true
  return cluster.tls !== null && connection.tlsUser != null
}

/** The request's principal as tokens name principals. */
export function requestPrincipal(ctx: RequestContext): TokenPrincipal {
  const p = principalOf(ctx.connection)
  return { type: p.type, name: p.name }
}
