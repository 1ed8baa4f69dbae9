import { TlsError, type TlsFailure } from '../errors.js'

/** OpenSSL / Node error codes by what they mean for the user. */
const CAUSES: Array<[TlsFailure, RegExp, string]> = [
  [
    'hostname-mismatch',
    /ERR_TLS_CERT_ALTNAME_INVALID|HOSTNAME_MISMATCH/,
    'its certificate does not name this host (hostname verification); connect by a name the certificate has, or set ssl.servername',
  ],
  [
    'expired-certificate',
    /CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ALERT_CERTIFICATE_EXPIRED/,
    'its certificate has expired or is not yet valid',
  ],
  [
    'client-certificate-rejected',
    /CERTIFICATE_REQUIRED|ALERT_BAD_CERTIFICATE|ALERT_UNKNOWN_CA|ALERT_CERTIFICATE_UNKNOWN|ALERT_HANDSHAKE_FAILURE|ALERT_ACCESS_DENIED/,
    'the broker refused the TLS handshake: it requires a client certificate it trusts (ssl.cert and ssl.key), or accepts none of our TLS parameters',
  ],
  [
    'untrusted-certificate',
    /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT|CERT_UNTRUSTED|CERT_SIGNATURE_FAILURE|CERT_CHAIN_TOO_LONG|INVALID_CA|UnknownIssuer|unknown certificate|self.signed/i,
    'its certificate is not signed by a CA we trust (give ssl.ca)',
  ],
  [
    'not-tls',
    /WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|UNKNOWN_PROTOCOL|RECORD_LAYER_FAILURE/,
    'it does not speak TLS on this port (a PLAINTEXT or SASL_PLAINTEXT listener?)',
  ],
  // As the Java client, a handshake the broker hangs up on is an authentication failure, not a retriable one.
  [
    'handshake-failed',
    /before secure TLS connection was established/,
    'the broker closed the connection during the TLS handshake (is this port a PLAINTEXT or SASL_PLAINTEXT listener?)',
  ],
]

/**
 * A TlsError for a socket error that is a TLS failure trying again will not
 * fix, naming the cause; undefined for anything else (a refused or reset
 * connection stays a retriable ConnectionError).
 */
export function tlsError(err: Error & { code?: string }, broker: string): TlsError | undefined {
  const text = `${err.code ?? ''} ${err.message}`
  for (const [reason, pattern, explanation] of CAUSES) {
    if (pattern.test(text)) {
      return new TlsError(`TLS connection to ${broker} failed: ${explanation} (${err.code ?? err.message})`, {
        reason,
        code: err.code,
        cause: err,
      })
    }
  }
  return undefined
}
