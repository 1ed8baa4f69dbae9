import { describe, expect, it } from 'vitest'
import { ConnectionError, TlsError } from '../../src/errors.js'
import { tlsError } from '../../src/net/tls-errors.js'

const err = (code: string | undefined, message: string) => Object.assign(new Error(message), code ? { code } : {})

describe('TLS failures by cause', () => {
  it('names the cause of each certificate failure Node reports, and is not retriable', () => {
    const cases: Array<[string | undefined, string, string]> = [
      ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate', 'untrusted-certificate'],
      ['SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain', 'untrusted-certificate'],
      ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate', 'untrusted-certificate'],
      ['ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames", 'hostname-mismatch'],
      ['CERT_HAS_EXPIRED', 'certificate has expired', 'expired-certificate'],
      ['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'tlsv13 alert certificate required', 'client-certificate-rejected'],
      ['ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'sslv3 alert bad certificate', 'client-certificate-rejected'],
      ['ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number', 'not-tls'],
      ['ECONNRESET', 'Client network socket disconnected before secure TLS connection was established', 'handshake-failed'],
    ]
    for (const [code, message, reason] of cases) {
      const e = tlsError(err(code, message), 'broker 1 (h:9093)')
      expect(e, code).toBeInstanceOf(TlsError)
      // Not a ConnectionError, which callers retry.
      expect(e).not.toBeInstanceOf(ConnectionError)
      expect(e!.reason).toBe(reason)
      expect(e!.retriable).toBe(false)
      expect(e!.message).toContain('broker 1 (h:9093)')
    }
  })

  it('leaves other socket errors to be retried', () => {
    expect(tlsError(err('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9093'), 'b')).toBeUndefined()
    expect(tlsError(err('ECONNRESET', 'read ECONNRESET'), 'b')).toBeUndefined()
    expect(tlsError(err('ETIMEDOUT', 'timed out'), 'b')).toBeUndefined()
  })
})
