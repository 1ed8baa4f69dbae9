// OAUTHBEARER on the embedded broker with signed tokens: Kafka's
// OAuthBearerValidatorCallbackHandler checks (a key of the JWKS, exp and iat
// required, issuer and audience when configured, clock skew), the JWKS
// served over HTTP or read from a file. The unsecured validator (Kafka's
// default) is held to real Kafka in security.test.ts's SASL state machine.
import { createServer, type Server } from 'node:http'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { Metadata } from '../../src/protocol/messages/Metadata.js'
import { SaslAuthenticate } from '../../src/protocol/messages/SaslAuthenticate.js'
import { SaslHandshake } from '../../src/protocol/messages/SaslHandshake.js'
import { roundTrip } from '../security/support.js'
import { unsecuredJwt } from '../security/secured-kafka.js'
import { RawClient } from './raw-client.js'

const ISSUER = 'https://issuer.test'
const AUDIENCE = 'kafka'

interface Key {
  kid: string
  alg: string
  privateKey: KeyLike
  jwk: JWK
}

async function key(kid: string, alg: 'RS256' | 'ES256'): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg)
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

function sign(k: Key, claims: Record<string, unknown>, options: { expiresInS?: number; issuer?: string; audience?: string } = {}) {
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT(claims)
    .setProtectedHeader({ alg: k.alg, kid: k.kid })
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresInS ?? 3600))
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .sign(k.privateKey)
}

describe('OAUTHBEARER with signed tokens (a JWKS over HTTP, or from a file)', () => {
  let rsa: Key
  let ec: Key
  let stranger: Key
  let server: Server
  let dir: string
  const clusters: RunningCluster[] = []
  let jwksUrl = ''
  let fileUrl = ''
  let fetches = 0

  beforeAll(async () => {
    ;[rsa, ec, stranger] = await Promise.all([key('rsa-1', 'RS256'), key('ec-1', 'ES256'), key('rsa-1', 'RS256')])
    const jwks = JSON.stringify({ keys: [rsa.jwk, ec.jwk] })
    server = createServer((_req, res) => {
      fetches++
      res.writeHead(200, { 'content-type': 'application/json' }).end(jwks)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    jwksUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/jwks`
    dir = mkdtempSync(join(tmpdir(), 'wafka-jwks-'))
    writeFileSync(join(dir, 'jwks.json'), jwks)
    fileUrl = pathToFileURL(join(dir, 'jwks.json')).href
  })
  afterAll(async () => {
    await Promise.all(clusters.map((c) => c.stop()))
    await new Promise((resolve) => server?.close(resolve))
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  async function broker(url: string, reauthMs = 0): Promise<RunningCluster> {
    const c = await startCluster({
      sasl: {
        users: {},
        mechanisms: ['OAUTHBEARER'],
        oauthbearer: { jwks: { jwksUrl: url, expectedIssuer: ISSUER, expectedAudience: [AUDIENCE], clockSkewSeconds: 5 } },
      },
      connectionsMaxReauthMs: reauthMs,
    })
    clusters.push(c)
    return c
  }

  /** One SASL exchange by hand: the answer to the initial response, and to the %x01 that acknowledges an error challenge. */
  async function exchange(c: RunningCluster, token: string) {
    const raw = await RawClient.open(c.bootstrapServers)
    expect((await raw.request(SaslHandshake, 1, { mechanism: 'OAUTHBEARER' })).errorCode).toBe(0)
    const res = await raw.request(SaslAuthenticate, 2, { authBytes: Buffer.from(`n,,\x01auth=Bearer ${token}\x01\x01`) })
    if (res.errorCode !== 0 || res.authBytes.length === 0) return { raw, res, ack: null }
    const ack = await raw.request(SaslAuthenticate, 2, { authBytes: Buffer.from('\x01') })
    return { raw, res, ack }
  }

  it('a token signed by a key of the JWKS (RS256 or ES256) authenticates its sub; the session ends with the token (KIP-368)', async () => {
    const c = await broker(jwksUrl, 60_000)
    for (const k of [rsa, ec]) {
      const { raw, res, ack } = await exchange(c, await sign(k, { sub: 'alice' }, { expiresInS: 30 }))
      expect(res.errorCode).toBe(0)
      expect(ack).toBeNull()
      expect(Number(res.sessionLifetimeMs)).toBeGreaterThan(25_000)
      expect(Number(res.sessionLifetimeMs)).toBeLessThanOrEqual(30_000)
      expect((await raw.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false })).brokers).toHaveLength(1)
      raw.close()
    }
    // The wafka client end to end, its provider asked for each connection.
    let calls = 0
    await roundTrip(
      {
        brokers: c.bootstrapServers.split(','),
        sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => (calls++, { value: await sign(rsa, { sub: 'alice' }) }) },
      },
      'jwks-signed',
    )
    expect(calls).toBeGreaterThan(0)
    // The JWKS was fetched once and kept (sasl.oauthbearer.jwks.endpoint.refresh.ms: an hour).
    expect(fetches).toBe(1)
  })

  it('refused with invalid_token: another key under a known kid, the wrong issuer or audience, expired past the clock skew, no sub, an unsigned token', async () => {
    const c = await broker(jwksUrl)
    const refused = [
      await sign(stranger, { sub: 'alice' }),
      await sign(rsa, { sub: 'alice' }, { issuer: 'https://elsewhere.test' }),
      await sign(rsa, { sub: 'alice' }, { audience: 'not-kafka' }),
      await sign(rsa, { sub: 'alice' }, { expiresInS: -60 }),
      await sign(rsa, {}),
      unsecuredJwt('alice'),
    ]
    for (const token of refused) {
      const { raw, res, ack } = await exchange(c, token)
      expect(res.errorCode, token).toBe(0)
      expect(res.authBytes.toString()).toBe('{"status":"invalid_token"}')
      expect(ack?.errorCode).toBe(ErrorCodes.SASL_AUTHENTICATION_FAILED)
      expect(ack?.errorMessage).toBe('{"status":"invalid_token"}')
      await raw.whenClosed
    }
    // Within the 5 s skew an expired token still passes.
    const { raw, res } = await exchange(c, await sign(rsa, { sub: 'alice' }, { expiresInS: -2 }))
    expect(res.errorCode).toBe(0)
    expect(res.authBytes.length).toBe(0)
    raw.close()
  })

  it('a JWKS file (file: URL), as Kafka reads one', async () => {
    const c = await broker(fileUrl)
    const ok = await exchange(c, await sign(ec, { sub: 'bob' }))
    expect(ok.res.errorCode).toBe(0)
    expect(ok.ack).toBeNull()
    ok.raw.close()
    const bad = await exchange(c, await sign(stranger, { sub: 'bob' }))
    expect(bad.ack?.errorCode).toBe(ErrorCodes.SASL_AUTHENTICATION_FAILED)
  })

  it("configured with Kafka's names: the login module's unsecuredValidatorRequiredScope (insufficient_scope, as Kafka words it), and the JWKS validator by its callback handler and sasl.oauthbearer.*", async () => {
    const listener = { listeners: 'SASL_PLAINTEXT://127.0.0.1:0', 'sasl.enabled.mechanisms': 'OAUTHBEARER' }
    const unsecured = await startCluster({
      config: {
        ...listener,
        'listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config':
          'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker" unsecuredValidatorRequiredScope="kafka";',
      },
    })
    clusters.push(unsecured)
    const jws = (claims: object) =>
      `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`
    const exp = Math.floor(Date.now() / 1000) + 600
    const lacking = await exchange(unsecured, jws({ sub: 'alice', exp, scope: 'other' }))
    expect(lacking.res.authBytes.toString()).toBe('{"status":"insufficient_scope", "scope":"[kafka]"}')
    expect(lacking.ack?.errorCode).toBe(ErrorCodes.SASL_AUTHENTICATION_FAILED)
    const scoped = await exchange(unsecured, jws({ sub: 'alice', exp, scope: 'other kafka' }))
    expect(scoped.res.errorCode).toBe(0)
    expect(scoped.ack).toBeNull()
    scoped.raw.close()
    const signed = await startCluster({
      config: {
        ...listener,
        'listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class':
          'org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler',
        'sasl.oauthbearer.jwks.endpoint.url': fileUrl,
        'sasl.oauthbearer.expected.audience': AUDIENCE,
        'sasl.oauthbearer.expected.issuer': ISSUER,
      },
    })
    clusters.push(signed)
    const ok = await exchange(signed, await sign(rsa, { sub: 'alice' }))
    expect(ok.res.errorCode).toBe(0)
    expect(ok.ack).toBeNull()
    ok.raw.close()
    expect((await exchange(signed, await sign(rsa, { sub: 'alice' }, { audience: 'x' }))).ack?.errorCode).toBe(
      ErrorCodes.SASL_AUTHENTICATION_FAILED,
    )
    // sasl.oauthbearer.* without the validator that reads them would be settings silently unused: refused.
    await expect(startCluster({ config: { ...listener, 'sasl.oauthbearer.jwks.endpoint.url': fileUrl } })).rejects.toThrow(
      /sasl\.oauthbearer\.jwks\.endpoint\.url: sasl\.oauthbearer\.\* settings need listener\.name\.<listener>\.oauthbearer\.sasl\.server\.callback\.handler\.class=/,
    )
  })

  it('options checked at start: oauthbearer without OAUTHBEARER enabled, a bad URL, an unknown key', async () => {
    await expect(startCluster({ sasl: { users: { a: 'b' }, oauthbearer: { unsecured: {} } } })).rejects.toThrow(
      /sasl\.oauthbearer is set but sasl\.mechanisms does not enable OAUTHBEARER/,
    )
    await expect(
      startCluster({ sasl: { users: {}, mechanisms: ['OAUTHBEARER'], oauthbearer: { jwks: { jwksUrl: 'not a url' } } } }),
    ).rejects.toThrow(/jwksUrl is not a URL: not a url/)
    await expect(startCluster({ sasl: { users: { a: 'b' }, mechanismz: ['PLAIN'] } as never })).rejects.toThrow(
      /unknown sasl option mechanismz \(did you mean mechanisms\?\)/,
    )
  })
})
