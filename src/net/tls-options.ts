import type * as tls from 'node:tls'
import { ConfigError } from '../errors.js'
import { checkKeys, type OptionSpec } from '../config/option.js'

const opt = (doc: string): OptionSpec => ({ doc })

/**
 * The keys `tls` (KafkaJS: `ssl`) takes: node:tls.connect()'s own options
 * (ConnectionOptions, with SecureContextOptions and CommonConnectionOptions)
 * and the node:net socket options it passes on, so a misspelt one
 * (`rejectUnauthorised`) is refused, naming the right one, instead of being
 * ignored by node:tls. Values are node's to check (and may be secrets:
 * never shown).
 */
export const TLS_OPTIONS = {
  // Trust and identity
  ca: opt('Certificate authorities to trust (PEM), instead of the system store.'),
  cert: opt('The client certificate chain (PEM), with key.'),
  key: opt("The client certificate's private key (PEM)."),
  passphrase: opt('The passphrase of key or pfx.'),
  pfx: opt('A PKCS#12 bundle of key and certificate.'),
  crl: opt('Certificate revocation lists (PEM).'),
  servername: opt("The host name the broker's certificate must name (SNI); default: the broker's host."),
  rejectUnauthorized: opt('false accepts a certificate that cannot be verified (for tests only); default true.'),
  checkServerIdentity: opt('(hostname, cert) => Error | undefined: replaces the host name check.'),
  allowPartialTrustChain: opt('Trust an intermediate certificate in ca as an anchor.'),
  // Protocol and ciphers
  minVersion: opt("The oldest TLS version: 'TLSv1.2', 'TLSv1.3'."),
  maxVersion: opt('The newest TLS version.'),
  secureProtocol: opt('The legacy OpenSSL method name (prefer minVersion / maxVersion).'),
  ciphers: opt('The OpenSSL cipher list.'),
  sigalgs: opt('The signature algorithms offered.'),
  ecdhCurve: opt('The ECDH curves offered.'),
  dhparam: opt('Diffie-Hellman parameters.'),
  honorCipherOrder: opt("Prefer the server's cipher order."),
  secureOptions: opt('OpenSSL SSL_OP_* flags.'),
  minDHSize: opt('The smallest DH parameter size accepted, in bits.'),
  ALPNProtocols: opt('Protocols offered by ALPN.'),
  ALPNCallback: opt('Server-side ALPN selection (node:tls accepts it here too).'),
  // Sessions and engines
  secureContext: opt('A context from tls.createSecureContext(), instead of the options above.'),
  session: opt('A TLS session to resume.'),
  sessionIdContext: opt('Server-side session id context (node:tls accepts it here too).'),
  sessionTimeout: opt('Server-side session timeout (node:tls accepts it here too).'),
  ticketKeys: opt('Server-side ticket keys (node:tls accepts it here too).'),
  clientCertEngine: opt('An OpenSSL engine for the client certificate.'),
  privateKeyEngine: opt('An OpenSSL engine for the private key.'),
  privateKeyIdentifier: opt("The private key's identifier in privateKeyEngine."),
  pskCallback: opt('Pre-shared key identity callback.'),
  requestCert: opt('Server-side: ask for a client certificate (node:tls accepts it here too).'),
  SNICallback: opt('Server-side SNI callback (node:tls accepts it here too).'),
  enableTrace: opt('Log the TLS handshake to stderr (debugging).'),
  // node:net socket options tls.connect passes on
  timeout: opt('An idle socket timeout, in ms (wafka has its own: idleTimeoutMs).'),
  lookup: opt('A DNS lookup function.'),
  family: opt('IP family: 4 or 6.'),
  hints: opt('getaddrinfo hints.'),
  localAddress: opt('The local address to connect from.'),
  localPort: opt('The local port to connect from.'),
  keepAlive: opt('Enable TCP keep-alive.'),
  keepAliveInitialDelay: opt('The first keep-alive probe after this many ms idle.'),
  noDelay: opt("Disable Nagle's algorithm (wafka sets it anyway)."),
  autoSelectFamily: opt('Happy eyeballs: try IPv4 and IPv6.'),
  autoSelectFamilyAttemptTimeout: opt('How long each address family is tried first, in ms.'),
} as const satisfies Record<TlsConnectKey, OptionSpec> & Record<string, OptionSpec>

/** Set by wafka for each broker it connects to: a value here would send every connection to one place. */
const PER_BROKER = ['host', 'port', 'path', 'socket'] as const

/** Every option node:tls.connect() declares (a new one in @types/node fails to compile until it is in the table). */
type TlsConnectKey = Exclude<keyof tls.ConnectionOptions, (typeof PER_BROKER)[number]>

/** Refuses a key of a `tls` / `ssl` object that node:tls does not know (naming the nearest), or one wafka sets per broker. */
export function checkTlsKeys(name: 'tls' | 'ssl', options: object): void {
  for (const key of PER_BROKER)
    if (Object.hasOwn(options, key))
      throw new ConfigError(
        `${name}.${key} is set for each broker from brokers and the cluster's metadata: remove it (${name}.servername names the host the certificate must name)`,
      )
  checkKeys(name, options, TLS_OPTIONS)
}
