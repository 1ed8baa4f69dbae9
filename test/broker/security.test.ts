// Security on the embedded broker's side: TLS listeners (and mutual TLS),
// SASL PLAIN and SCRAM-SHA-256/512 served as Kafka serves them (the state
// machine of its SaslServerAuthenticator, its error codes and messages, its
// closes), and KIP-368 re-authentication with connections.max.reauth.ms. The
// state machine is checked request by request on the embedded broker and on
// real Kafka with the same assertions; wafka's client, kcat and the Java
// client run on secured embedded clusters; test/security runs its suites on
// both targets too (secured-embedded.ts).
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { brokerCommand } from '../../src/broker/command.js'
import { startCluster, type RunningCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { AuthenticationError, TlsError, type WafkaError } from '../../src/errors.js'
import { Kafka, type KafkaConfig } from '../../src/kafka.js'
import { Connection } from '../../src/net/connection.js'
import { ScramClient } from '../../src/net/sasl/scram.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { ApiVersions } from '../../src/protocol/messages/ApiVersions.js'
import { Metadata } from '../../src/protocol/messages/Metadata.js'
import { SaslAuthenticate } from '../../src/protocol/messages/SaslAuthenticate.js'
import { SaslHandshake } from '../../src/protocol/messages/SaslHandshake.js'
import { Kafka as KafkaJS, logLevel as kafkajsLogLevel } from 'kafkajs'
import { Producer as PlatformaticProducer, stringSerializers } from '@platformatic/kafka'
import { requirePeers } from '../peers/available.js'
import { javaGroupMember, javaProduce } from '../peers/java-client.js'
import { requireKafka, runJava, spawnJava, type KafkaCluster } from '../peers/kafka.js'
import { kcatConsume, kcatProduce } from '../peers/kcat.js'
import { makeCerts, type TestCerts } from '../security/certs.js'
import { requireSecuredKafka, startSecuredKafka, unsecuredJwt, USERS as KAFKA_USERS } from '../security/secured-kafka.js'
import { roundTrip } from '../security/support.js'
import { Prng } from '../../bench/support/prng.js'
import { mutate } from './mutate.js'
import { RawClient } from './raw-client.js'
import { keepLog, serveBroker, until } from './support.js'

const USERS = { alice: 'alice-Pa55word!', bob: 'bob:with:colons' }

/** openssl makes the certificates (as for the real-Kafka security suite); under CI its absence fails the file. */
function requireOpenssl(): boolean {
  if (spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0) return true
  const message = 'openssl is not installed (apt-get install -y openssl): the TLS tests make their certificates with it'
  if (process.env.CI) throw new Error(message)
  console.warn(`${message}; skipping`)
  return false
}

describe.skipIf(!requireOpenssl())('security on the embedded broker', () => {
  let certs: TestCerts
  let tls: { cert: string; key: string }
  let cluster: RunningCluster | undefined
  let problems: string[] = []
  beforeAll(() => {
    certs = makeCerts()
    const read = (f: string) => readFileSync(join(certs.dir, f), 'utf8')
    tls = { cert: read('broker.pem') + read('ca.pem'), key: read('broker.key') }
  })
  afterAll(() => certs?.remove())
  afterEach(async () => {
    if (process.env.DEBUG_PROBLEMS) console.log(problems.join('\n'))
    vi.restoreAllMocks()
    await cluster?.stop()
    cluster = undefined
  })

  const start = async (options: StartClusterOptions) => {
    problems = []
    cluster = await startCluster({ brokers: 3, ...keepLog(problems), ...options })
    return cluster
  }
  const brokers = () => cluster!.bootstrapServers.split(',')
  const alice = (mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512') => ({ mechanism, username: 'alice', password: USERS.alice })

  describe('wafka produces and consumes (every codec, a group, admin) on a secured 3-broker cluster', () => {
    const cases: Array<[string, () => StartClusterOptions, () => Omit<KafkaConfig, 'clientId'>]> = [
      ['SSL', () => ({ ssl: tls }), () => ({ brokers: brokers(), ssl: { ca: [certs.ca] } })],
      [
        'SSL with a required client certificate (mTLS)',
        () => ({ ssl: { ...tls, ca: certs.ca } }),
        () => ({ brokers: brokers(), ssl: { ca: [certs.ca], cert: certs.clientCert, key: certs.clientKey } }),
      ],
      ['SASL_PLAINTEXT PLAIN', () => ({ sasl: { users: USERS } }), () => ({ brokers: brokers(), sasl: alice('plain') })],
      ['SASL_PLAINTEXT SCRAM-SHA-256', () => ({ sasl: { users: USERS } }), () => ({ brokers: brokers(), sasl: alice('scram-sha-256') })],
      ['SASL_PLAINTEXT SCRAM-SHA-512', () => ({ sasl: { users: USERS } }), () => ({ brokers: brokers(), sasl: alice('scram-sha-512') })],
      [
        'SASL_SSL SCRAM-SHA-512 (a password with colons)',
        () => ({ ssl: tls, sasl: { users: USERS } }),
        () => ({ brokers: brokers(), ssl: { ca: [certs.ca] }, sasl: { mechanism: 'scram-sha-512', username: 'bob', password: USERS.bob } }),
      ],
      [
        'SASL_SSL PLAIN by host name (SNI, hostname verification against DNS:localhost)',
        () => ({ ssl: tls, sasl: { users: USERS, mechanisms: ['PLAIN'] } }),
        () => ({ brokers: brokers().map((b) => b.replace('127.0.0.1', 'localhost')), ssl: { ca: [certs.ca] }, sasl: alice('plain') }),
      ],
    ]
    // The TLS and SASL_SSL cases again with the listeners' sockets in the network thread (its TLS, mTLS principal, SNI).
    const threaded = cases
      .filter(([name]) => /^SSL|SASL_SSL/.test(name))
      .map(([name, options, config]): (typeof cases)[number] => [
        `${name}, network thread`,
        () => ({ ...options(), networkThread: true }),
        config,
      ])
    ;[...cases, ...threaded].forEach(([name, options, config], i) => {
      it(name, async () => {
        await start({ ...options(), autoCreateTopics: false })
        await roundTrip(config() as KafkaConfig, `secured-${i}`)
        // Replication between the brokers went on under the secured listeners: every replica caught up.
        const admin = new Kafka({ clientId: 'isr', ...config() } as KafkaConfig).admin()
        await admin.connect()
        const md = await admin.fetchTopicMetadata({ topics: [`secured-${i}`] })
        await admin.disconnect()
        const parts = md.topics[0].partitions
        expect(new Set(parts.map((p: any) => p.leader)).size, 'leaders on more than one broker').toBeGreaterThan(1)
        for (const p of parts) expect([...p.isr].sort()).toEqual([0, 1, 2])
        expect(problems.filter((p) => /replica fetching/.test(p))).toEqual([])
      })
    })
  })

  /** Runs `fn`, returning its error and how many connections it opened. */
  async function failure(fn: () => Promise<unknown>) {
    const open = vi.spyOn(Connection, 'open')
    const error = await fn().then(
      () => undefined,
      (err) => err as WafkaError,
    )
    const attempts = open.mock.calls.length
    open.mockRestore()
    return { error: error as WafkaError, attempts }
  }

  it("wrong password (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and an unknown user: AuthenticationError with the broker's message, one attempt, no password anywhere", async () => {
    await start({ sasl: { users: USERS } })
    const wrong = 'Not-Alices-Pa55word'
    for (const [sasl, brokerMessage] of [
      [{ mechanism: 'plain', username: 'alice', password: wrong }, /^Authentication failed: Invalid username or password$/],
      [{ mechanism: 'scram-sha-256', username: 'alice', password: wrong }, /invalid credentials with SASL mechanism SCRAM-SHA-256/],
      [{ mechanism: 'scram-sha-512', username: 'alice', password: wrong }, /invalid credentials with SASL mechanism SCRAM-SHA-512/],
      [{ mechanism: 'scram-sha-512', username: 'nobody', password: wrong }, /invalid credentials with SASL mechanism SCRAM-SHA-512/],
    ] as const) {
      const kafka = new Kafka({ clientId: 'wrong', brokers: brokers(), sasl, authenticationTimeoutMs: 5000 } as KafkaConfig)
      const admin = kafka.admin()
      const { error, attempts } = await failure(() => admin.connect())
      expect(error).toBeInstanceOf(AuthenticationError)
      const e = error as AuthenticationError
      expect(e.type).toBe('SASL_AUTHENTICATION_FAILED')
      expect(e.retriable).toBe(false)
      expect(e.mechanism).toBe(sasl.mechanism.toUpperCase())
      expect(e.brokerMessage).toMatch(brokerMessage)
      expect(attempts).toBe(1)
      const shown = inspect(e, { depth: 10 }) + JSON.stringify(e) + String(e.stack)
      expect(shown).not.toContain(wrong)
      expect(shown).not.toContain(USERS.alice)
      await admin.disconnect()
    }
    // The broker reported each refusal, without the passwords.
    expect(problems.filter((p) => /authentication failed/.test(p))).toHaveLength(4)
    for (const p of problems) {
      expect(p).not.toContain(wrong)
      expect(p).not.toContain(USERS.alice)
    }
  })

  it('a mechanism the broker does not enable: UNSUPPORTED_SASL_MECHANISM listing those it does', async () => {
    await start({ sasl: { users: USERS, mechanisms: ['SCRAM-SHA-512'] } })
    const { error, attempts } = await failure(() =>
      new Kafka({ clientId: 'mech', brokers: brokers(), sasl: alice('plain') } as KafkaConfig).admin().connect(),
    )
    expect(error).toBeInstanceOf(AuthenticationError)
    expect((error as AuthenticationError).type).toBe('UNSUPPORTED_SASL_MECHANISM')
    expect(error.message).toMatch(/SCRAM-SHA-512/)
    expect(attempts).toBe(1)
  })

  it('mTLS: a client without a certificate, or with one from another CA, is refused with a TlsError', async () => {
    await start({ ssl: { ...tls, ca: certs.ca } })
    const { error } = await failure(() =>
      new Kafka({ clientId: 'no-cert', brokers: brokers(), ssl: { ca: [certs.ca] }, authenticationTimeoutMs: 5000 } as KafkaConfig)
        .admin()
        .connect(),
    )
    expect(error, String(error)).toBeInstanceOf(TlsError)
    expect((error as TlsError).reason).toBe('client-certificate-rejected')
    expect(error.retriable).toBe(false)
    expect(problems.join('\n')).toMatch(/TLS handshake failed|certificate/i)
    // And a client that does not speak TLS at all gets nothing served.
    const raw = await RawClient.open(brokers()[0])
    raw.write(RawClient.frame(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' }))
    expect(await raw.readFrame(5000)).toBeNull()
  })

  /** A SASL_PLAINTEXT listener to hold to Kafka's state machine: the embedded broker's, or real Kafka's (the reference). */
  interface SaslTarget {
    bootstrap: string
    users: { alice: string; bob: string }
    mechanisms: string[]
    /** What the broker reported (the embedded broker's log); null where it cannot be read. */
    problems: string[] | null
    stop(): Promise<void>
  }
  /** The embedded broker's SASL listener, its sockets served in this thread or by its network thread. */
  const embeddedSasl =
    (networkThread: boolean) =>
    async (reauthMs: number): Promise<SaslTarget> => {
      const problems: string[] = []
      // OAUTHBEARER with Kafka's default (unsecured) validator, as secured-kafka.ts configures Kafka.
      const mechanisms = ['OAUTHBEARER', 'PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const
      const c = await startCluster({
        sasl: { users: USERS, mechanisms: [...mechanisms] },
        connectionsMaxReauthMs: reauthMs,
        networkThread,
        ...keepLog(problems),
      })
      return { bootstrap: c.bootstrapServers, users: USERS, mechanisms: [...mechanisms], problems, stop: () => c.stop() }
    }
  const saslTargets: Array<[string, () => boolean, (reauthMs: number) => Promise<SaslTarget>]> = [
    ['the embedded broker', () => true, embeddedSasl(false)],
    // Its network thread answers a connection's first ApiVersions itself: the state machine must count it.
    ['the embedded broker with its network thread', () => true, embeddedSasl(true)],
    [
      'real Kafka',
      () => requireSecuredKafka(),
      async (reauthMs) => {
        const k = await startSecuredKafka({ config: reauthMs ? { 'connections.max.reauth.ms': String(reauthMs) } : {} })
        return {
          bootstrap: k.listener('SASL')[0],
          users: KAFKA_USERS,
          mechanisms: ['OAUTHBEARER', 'PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'],
          problems: null,
          stop: () => k.stop(),
        }
      },
    ],
  ]

  for (const [target, available, open] of saslTargets)
    describe.skipIf(!available())(`the SASL state machine, request by request, on ${target} (the same answers and closes)`, () => {
      let t: SaslTarget
      beforeAll(async () => {
        t = await open(0)
      })
      afterAll(async () => {
        await t?.stop()
      })
      const reported = (pattern: RegExp) => t.problems === null || pattern.test(t.problems.join('\n'))
      const metadata = (raw: RawClient, topics: { name: string }[] | null = null) =>
        raw.request(Metadata, 12, { topics, allowAutoTopicCreation: false })
      const authenticatePlain = async (raw: RawClient, on = t, user: 'alice' | 'bob' = 'alice') => {
        const hs = await raw.request(SaslHandshake, 1, { mechanism: 'PLAIN' })
        expect(hs.errorCode).toBe(ErrorCodes.NONE)
        expect(hs.mechanisms.sort()).toEqual(on.mechanisms)
        return raw.request(SaslAuthenticate, 2, { authBytes: Buffer.from(`\0${user}\0${on.users[user]}`) })
      }

      it('before authentication only ApiVersions (once) and SaslHandshake are served; anything else closes the connection unanswered', async () => {
        let raw = await RawClient.open(t.bootstrap)
        const versions = await raw.request(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' })
        expect(versions.errorCode).toBe(0)
        expect(versions.apiKeys.map((k) => k.apiKey)).toEqual(expect.arrayContaining([17, 36]))
        raw.write(RawClient.frame(Metadata, 12, { topics: null, allowAutoTopicCreation: false }))
        expect(await raw.readFrame()).toBeNull()
        raw = await RawClient.open(t.bootstrap)
        raw.write(RawClient.frame(SaslAuthenticate, 2, { authBytes: Buffer.from(`\0alice\0${t.users.alice}`) }))
        expect(await raw.readFrame()).toBeNull()
        raw = await RawClient.open(t.bootstrap)
        await raw.request(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' })
        raw.write(RawClient.frame(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' }))
        expect(await raw.readFrame()).toBeNull()
        expect(reported(/Metadata before SASL authentication/)).toBe(true)
        expect(reported(/SaslAuthenticate before SASL authentication/)).toBe(true)
      })

      it('before authentication a request may be at most 512 KiB (sasl.server.max.receive.size); after it, socket.request.max.bytes', async () => {
        // A Metadata request of about 600 KB: 20,000 topic names.
        const big = Array.from({ length: 20_000 }, (_, i) => ({ name: `unknown-topic-${String(i).padStart(8, '0')}` }))
        expect(RawClient.frame(Metadata, 12, { topics: big, allowAutoTopicCreation: false }).length).toBeGreaterThan(524_288)
        let raw = await RawClient.open(t.bootstrap)
        raw.write(RawClient.frame(Metadata, 12, { topics: big, allowAutoTopicCreation: false }))
        expect(await raw.readFrame()).toBeNull()
        expect(reported(/past the 524288-byte limit \(sasl\.server\.max\.receive\.size\)/)).toBe(true)
        raw = await RawClient.open(t.bootstrap)
        expect((await authenticatePlain(raw)).errorCode).toBe(0)
        expect((await metadata(raw, big)).topics).toHaveLength(20_000)
        raw.close()
      })

      it('an unknown mechanism: UNSUPPORTED_SASL_MECHANISM listing the enabled ones, then the close', async () => {
        const raw = await RawClient.open(t.bootstrap)
        const hs = await raw.request(SaslHandshake, 1, { mechanism: 'GSSAPI' })
        expect(hs.errorCode).toBe(ErrorCodes.UNSUPPORTED_SASL_MECHANISM)
        expect(hs.mechanisms.sort()).toEqual(t.mechanisms)
        await raw.whenClosed
      })

      it('SCRAM-SHA-256 over raw SaslAuthenticate: the server proves the password (its signature checks); a tampered nonce is refused with the generic message', async () => {
        const exchange = async (tamper: boolean) => {
          const raw = await RawClient.open(t.bootstrap)
          expect((await raw.request(SaslHandshake, 1, { mechanism: 'SCRAM-SHA-256' })).errorCode).toBe(0)
          const client = new ScramClient('sha256', 'alice', t.users.alice)
          const first = await raw.request(SaslAuthenticate, 2, { authBytes: Buffer.from(client.firstMessage()) })
          expect(first.errorCode).toBe(0)
          expect(first.authBytes.toString()).toMatch(/^r=[^,]+,s=[A-Za-z0-9+/=]+,i=(\d+)$/)
          expect(Number(/i=(\d+)/.exec(first.authBytes.toString())![1])).toBeGreaterThanOrEqual(4096)
          let final = await client.finalMessage(first.authBytes.toString())
          if (tamper) final = final.replace(',r=', ',r=x')
          const res = await raw.request(SaslAuthenticate, 2, { authBytes: Buffer.from(final) })
          return { raw, res, client }
        }
        const ok = await exchange(false)
        expect(ok.res.errorCode).toBe(0)
        ok.client.verify(ok.res.authBytes.toString())
        expect((await metadata(ok.raw)).brokers).toHaveLength(1)
        ok.raw.close()
        const bad = await exchange(true)
        expect(bad.res.errorCode).toBe(ErrorCodes.SASL_AUTHENTICATION_FAILED)
        expect(bad.res.errorMessage).toBe(
          'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256',
        )
        await bad.raw.whenClosed
      })

      it('after the handshake, another request gets its own error answer with ILLEGAL_SASL_STATE, then the close; once authenticated, SaslHandshake and SaslAuthenticate get ILLEGAL_SASL_STATE', async () => {
        let raw = await RawClient.open(t.bootstrap)
        expect((await raw.request(SaslHandshake, 1, { mechanism: 'SCRAM-SHA-256' })).errorCode).toBe(0)
        const md = await metadata(raw, [{ name: 'some-topic' }])
        expect(md.topics.map((x) => [x.name, x.errorCode])).toEqual([['some-topic', ErrorCodes.ILLEGAL_SASL_STATE]])
        await raw.whenClosed
        raw = await RawClient.open(t.bootstrap)
        const auth = await authenticatePlain(raw)
        expect(auth.errorCode).toBe(0)
        expect(auth.sessionLifetimeMs).toBe(0n)
        expect((await raw.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(ErrorCodes.ILLEGAL_SASL_STATE)
        const again = await raw.request(SaslAuthenticate, 2, { authBytes: Buffer.from('x') })
        expect(again.errorCode).toBe(ErrorCodes.ILLEGAL_SASL_STATE)
        // Still served.
        expect((await metadata(raw)).brokers).toHaveLength(1)
        raw.close()
      })

      it('a wrong password: SASL_AUTHENTICATION_FAILED with a message, then the close; SaslHandshake v0 takes raw tokens', async () => {
        let raw = await RawClient.open(t.bootstrap)
        await raw.request(SaslHandshake, 1, { mechanism: 'PLAIN' })
        const res = await raw.request(SaslAuthenticate, 1, { authBytes: Buffer.from('\0alice\0wrong') })
        expect(res.errorCode).toBe(ErrorCodes.SASL_AUTHENTICATION_FAILED)
        expect(res.errorMessage).toBe('Authentication failed: Invalid username or password')
        await raw.whenClosed
        // v0: after the handshake the token goes bare (size-prefixed), the answer too; then Kafka requests are served.
        raw = await RawClient.open(t.bootstrap)
        expect((await raw.request(SaslHandshake, 0, { mechanism: 'PLAIN' })).errorCode).toBe(0)
        const token = Buffer.from(`\0alice\0${t.users.alice}`)
        const frame = Buffer.alloc(4 + token.length)
        frame.writeInt32BE(token.length, 0)
        token.copy(frame, 4)
        raw.write(frame)
        expect((await raw.readFrame())?.length).toBe(0)
        expect((await metadata(raw)).brokers).toHaveLength(1)
        raw.close()
      })

      /** An OAUTHBEARER initial response (RFC 7628) carrying `token`, with an authzid and extensions when given. */
      const bearer = (token: string, authzid = '', extensions = '') =>
        Buffer.from(`n,${authzid ? `a=${authzid}` : ''},\x01auth=Bearer ${token}${extensions}\x01\x01`)
      const jws = (header: object, claims: object) =>
        `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`
      const seconds = (ms: number) => Math.floor((Date.now() + ms) / 1000)
      const authenticateBearer = async (authBytes: Buffer, on = t) => {
        const raw = await RawClient.open(on.bootstrap)
        expect((await raw.request(SaslHandshake, 1, { mechanism: 'OAUTHBEARER' })).errorCode).toBe(0)
        return { raw, res: await raw.request(SaslAuthenticate, 2, { authBytes }) }
      }

      it("OAUTHBEARER with Kafka's unsecured validator: a good token (with extensions) is served; a refused one gets RFC 7628's error challenge, then fails at the client's %x01; an authzid that is not the token's principal, or a malformed response, fails at once", async () => {
        const good = await authenticateBearer(bearer(unsecuredJwt('alice'), 'alice', '\x01traceId=abc123'))
        expect(good.res.errorCode).toBe(0)
        expect(good.res.authBytes.length).toBe(0)
        expect((await metadata(good.raw)).brokers).toHaveLength(1)
        good.raw.close()
        for (const token of [
          unsecuredJwt('alice', -600_000),
          jws({ alg: 'HS256' }, { sub: 'alice', exp: seconds(60_000) }),
          jws({ alg: 'none' }, { exp: seconds(60_000) }),
          jws({ alg: 'none' }, { sub: 'alice' }),
          `${unsecuredJwt('alice')}c2ln`,
        ]) {
          const refused = await authenticateBearer(bearer(token))
          expect(refused.res.errorCode, token).toBe(0)
          expect(refused.res.authBytes.toString()).toBe('{"status":"invalid_token"}')
          const ack = await refused.raw.request(SaslAuthenticate, 2, { authBytes: Buffer.from('\x01') })
          expect(ack.errorCode).toBe(ErrorCodes.SASL_AUTHENTICATION_FAILED)
          expect(ack.errorMessage).toBe('{"status":"invalid_token"}')
          await refused.raw.whenClosed
        }
        const other = await authenticateBearer(bearer(unsecuredJwt('alice'), 'bob'))
        expect(other.res.errorCode).toBe(ErrorCodes.SASL_AUTHENTICATION_FAILED)
        expect(other.res.errorMessage).toBe(
          "Authentication failed: Client requested an authorization id (bob) that is different from the token's principal name (alice)",
        )
        await other.raw.whenClosed
        const malformed = await authenticateBearer(Buffer.from('n,,\x01nothing\x01\x01'))
        expect(malformed.res.errorCode).toBe(ErrorCodes.SASL_AUTHENTICATION_FAILED)
        expect(malformed.res.errorMessage).toBe(
          'Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER',
        )
        await malformed.raw.whenClosed
      })

      it('connections.max.reauth.ms: the session lifetime is sent, a request on an expired session closes the connection, a re-authentication renews it (at most once a second, same user)', async () => {
        const r = await open(1200)
        try {
          let raw = await RawClient.open(r.bootstrap)
          expect((await authenticatePlain(raw, r)).sessionLifetimeMs).toBe(1200n)
          await metadata(raw)
          await new Promise((res) => setTimeout(res, 1400))
          raw.write(RawClient.frame(Metadata, 12, { topics: null, allowAutoTopicCreation: false }, 99))
          expect(await raw.readFrame()).toBeNull()
          expect(r.problems === null || /expired SASL session/.test(r.problems.join('\n'))).toBe(true)
          // Re-authenticating before the end keeps the connection past several lifetimes.
          raw = await RawClient.open(r.bootstrap)
          await authenticatePlain(raw, r)
          for (let i = 0; i < 3; i++) {
            await new Promise((res) => setTimeout(res, 1000))
            expect((await authenticatePlain(raw, r)).sessionLifetimeMs).toBe(1200n)
            await metadata(raw)
          }
          // Less than a second after the last one, a handshake is no re-authentication: ILLEGAL_SASL_STATE.
          expect((await raw.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(ErrorCodes.ILLEGAL_SASL_STATE)
          await new Promise((res) => setTimeout(res, 1000))
          // Another user cannot take over the connection.
          expect((await raw.request(SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode).toBe(0)
          const bob = await raw.request(SaslAuthenticate, 2, { authBytes: Buffer.from(`\0bob\0${r.users.bob}`) })
          expect(bob.errorCode).toBe(ErrorCodes.SASL_AUTHENTICATION_FAILED)
          expect(bob.errorMessage).toMatch(/^Cannot change principals during re-authentication from User\.alice: User\.bob$/)
          await raw.whenClosed
          // OAUTHBEARER: the session ends when the token does, if that is sooner (KIP-368).
          const soon = await authenticateBearer(bearer(jws({ alg: 'none' }, { sub: 'alice', exp: (Date.now() + 800) / 1000 })), r)
          expect(soon.res.errorCode).toBe(0)
          expect(Number(soon.res.sessionLifetimeMs)).toBeGreaterThan(0)
          expect(Number(soon.res.sessionLifetimeMs)).toBeLessThanOrEqual(800)
          soon.raw.close()
          const later = await authenticateBearer(bearer(unsecuredJwt('alice')), r)
          expect(later.res.sessionLifetimeMs).toBe(1200n)
          later.raw.close()
        } finally {
          await r.stop()
        }
      }, 60_000)
    })

  it('SASL fuzz: mutated handshakes, tokens and raw v0 tokens for 3 s; the broker stays up and authenticates a good client after every round', async () => {
    await start({ brokers: 1, sasl: { users: USERS }, maxRequestBytes: 1 << 20 })
    const seed = Number(process.env.WAFKA_BROKER_FUZZ_SEED ?? Date.now() % 1_000_000)
    const rng = new Prng(seed)
    const scramFirst = new ScramClient('sha512', 'alice', USERS.alice).firstMessage()
    const rawToken = (t: string) => {
      const b = Buffer.from(t)
      const f = Buffer.alloc(4 + b.length)
      f.writeInt32BE(b.length, 0)
      b.copy(f, 4)
      return f
    }
    // Conversations: each step a frame, sent as is or mutated.
    const conversations: Buffer[][] = [
      [
        RawClient.frame(SaslHandshake, 1, { mechanism: 'PLAIN' }),
        RawClient.frame(SaslAuthenticate, 2, { authBytes: Buffer.from(`a\0alice\0x`) }),
      ],
      [
        RawClient.frame(SaslHandshake, 1, { mechanism: 'SCRAM-SHA-512' }),
        RawClient.frame(SaslAuthenticate, 2, { authBytes: Buffer.from(scramFirst) }),
        RawClient.frame(SaslAuthenticate, 2, { authBytes: Buffer.from('c=biws,r=abc,p=AAAA') }),
      ],
      [RawClient.frame(SaslHandshake, 0, { mechanism: 'SCRAM-SHA-256' }), rawToken(scramFirst), rawToken('c=biws,r=x,p=AAAA')],
      [
        RawClient.frame(ApiVersions, 3, { clientSoftwareName: 'f', clientSoftwareVersion: '1' }),
        RawClient.frame(SaslHandshake, 1, { mechanism: 'PLAIN' }),
      ],
    ]
    let sent = 0
    const deadline = Date.now() + 3000
    while (Date.now() < deadline) {
      const c = await RawClient.open(brokers()[0])
      for (const frame of rng.pick(conversations)) {
        if (c.closed) break
        c.write(rng.between(0, 2) === 0 ? frame : mutate(rng, frame))
        sent++
        await c.readFrame(100).catch(() => undefined)
      }
      c.close()
      const good = await RawClient.open(brokers()[0])
      const hs = await good.request(SaslHandshake, 1, { mechanism: 'PLAIN' })
      expect(hs.errorCode).toBe(0)
      const auth = await good.request(SaslAuthenticate, 2, { authBytes: Buffer.from(`\0alice\0${USERS.alice}`) })
      expect(auth.errorCode, `seed ${seed}`).toBe(0)
      expect((await good.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false })).brokers).toHaveLength(1)
      good.close()
    }
    console.log(`SASL fuzz (seed ${seed}): ${sent} frames, ${problems.length} refusals reported`)
    expect(sent).toBeGreaterThan(50)
    expect(problems.length).toBeGreaterThan(0)
    // Refusals only: nothing failed inside the broker, no answer failed to encode.
    expect(
      problems.filter((p) => /request failed: |could not encode/.test(p)),
      `seed ${seed}`,
    ).toEqual([])
  }, 30_000)

  it('re-authentication: a producer and a consumer keep going across many short sessions on the same connections, nothing lost', async () => {
    // wafka re-authenticates half-way through a session, and Kafka refuses re-authentications less than 1 s apart: sessions of 2.5 s.
    const SESSION_MS = 2500
    const RUN_MS = 10_000
    await start({ sasl: { users: USERS }, connectionsMaxReauthMs: SESSION_MS, topics: [{ name: 'reauth', partitions: 3 }] })
    let asked = 0
    const kafka = new Kafka({
      clientId: 'reauth',
      brokers: brokers(),
      // A function: asked on every (re-)authentication, which counts them.
      sasl: async () => (asked++, alice('scram-sha-256')),
    } as KafkaConfig)
    const producer = kafka.producer({ idempotent: true })
    const consumer = kafka.consumer({ groupId: 'reauth', maxWaitTimeInMs: 200, heartbeatIntervalMs: 500 })
    const read: string[] = []
    await producer.connect()
    await consumer.connect()
    await consumer.subscribe({ topics: ['reauth'], fromBeginning: true })
    await consumer.run({ eachMessage: async ({ message }) => void read.push(message.value!.toString()) })
    // Warm: a message to each partition, so every connection the run needs is open (leaders are on all three brokers).
    const warm = [0, 1, 2].map((partition) => ({ partition, value: `warm-${partition}` }))
    await producer.send({ topic: 'reauth', messages: warm })
    await until(
      () => read.length >= warm.length,
      20_000,
      () => 'nothing consumed',
    )
    const opens = vi.spyOn(Connection, 'open')
    const before = asked
    const sent = warm.map((m) => m.value)
    const errors: unknown[] = []
    const deadline = Date.now() + RUN_MS
    for (let i = 0; Date.now() < deadline; i++) {
      const value = `m-${i}`
      sent.push(value)
      await producer.send({ topic: 'reauth', messages: [{ key: `k${i % 5}`, value }] }).catch((err) => errors.push(err))
      await new Promise((r) => setTimeout(r, 20))
    }
    await until(
      () => read.length >= sent.length,
      20_000,
      () => `read ${read.length} of ${sent.length}`,
    )
    const reconnects = opens.mock.calls.length
    await producer.disconnect()
    await consumer.disconnect()
    expect(errors).toEqual([])
    expect([...read].sort()).toEqual([...sent].sort())
    expect(reconnects, 'no connection was opened again').toBe(0)
    // Several connections (producer, consumer, coordinator), each re-authenticated every ~SESSION_MS.
    expect(asked - before).toBeGreaterThanOrEqual(Math.floor(RUN_MS / SESSION_MS))
    expect(problems.filter((p) => /expired|failed/.test(p))).toEqual([])
    console.log(`re-authentications in ${RUN_MS} ms of ${SESSION_MS} ms sessions: ${asked - before}; messages ${sent.length}`)
  }, 60_000)

  it('KafkaJS (SASL_SSL SCRAM-SHA-256) and @platformatic/kafka (SASL_SSL SCRAM-SHA-512, the newest protocol versions): produce, consume in a group', async () => {
    await start({ ssl: tls, sasl: { users: USERS }, topics: [{ name: 'others', partitions: 3 }] })
    const sent = Array.from({ length: 60 }, (_, i) => `other-${i}`)
    const kjs = new KafkaJS({
      clientId: 'kafkajs-sec',
      brokers: brokers(),
      ssl: { ca: [certs.ca] },
      sasl: { mechanism: 'scram-sha-256', username: 'alice', password: USERS.alice },
      logLevel: kafkajsLogLevel.NOTHING,
    })
    const kp = kjs.producer()
    await kp.connect()
    await kp.send({ topic: 'others', messages: sent.slice(0, 30).map((value, i) => ({ key: `k${i}`, value })) })
    await kp.disconnect()
    const pp = new PlatformaticProducer({
      clientId: 'pk-sec',
      bootstrapBrokers: brokers(),
      tls: { ca: certs.ca },
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'alice', password: USERS.alice },
      serializers: stringSerializers,
    } as any)
    try {
      await pp.send({ messages: sent.slice(30).map((value, i) => ({ topic: 'others', key: `p${i}`, value })) })
    } finally {
      await pp.close()
    }
    const read: string[] = []
    const kc = kjs.consumer({ groupId: 'kafkajs-sec', maxWaitTimeInMs: 200 })
    await kc.connect()
    try {
      await kc.subscribe({ topics: ['others'], fromBeginning: true })
      await kc.run({ eachMessage: async ({ message }) => void read.push(message.value!.toString()) })
      await until(
        () => read.length >= sent.length,
        30_000,
        () => `KafkaJS read ${read.length} of ${sent.length}`,
      )
    } finally {
      await kc.disconnect()
    }
    expect(read.sort()).toEqual([...sent].sort())
    // And with a wrong password KafkaJS gets its authentication error, with the broker's message.
    const wrong = new KafkaJS({
      clientId: 'kafkajs-wrong',
      brokers: brokers(),
      ssl: { ca: [certs.ca] },
      sasl: { mechanism: 'scram-sha-512', username: 'alice', password: 'wrong-password' },
      logLevel: kafkajsLogLevel.NOTHING,
      retry: { retries: 0 },
    }).admin()
    const error = await wrong.connect().catch((e: Error) => e)
    expect(String((error as Error).message)).toMatch(/SASL SCRAM SHA512 authentication failed.*invalid credentials/i)
  }, 60_000)

  const kcatPeers = requirePeers({ builds: [], kcat: true })
  it.skipIf(!kcatPeers)(
    'kcat (librdkafka 2.0.2) over SASL_SSL with SCRAM-SHA-256 and SCRAM-SHA-512: produces and consumes',
    async () => {
      await start({ ssl: tls, sasl: { users: USERS }, topics: [{ name: 'kcat-sec', partitions: 3 }] })
      for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512']) {
        const config = {
          'security.protocol': 'SASL_SSL',
          'sasl.mechanisms': mechanism,
          'sasl.username': 'alice',
          'sasl.password': USERS.alice,
          'ssl.ca.location': certs.truststore,
        }
        const messages = Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `${mechanism}-${i}` }))
        await kcatProduce(cluster!.bootstrapServers, 'kcat-sec', messages, { config, compression: 'lz4' })
        const got = await kcatConsume(cluster!.bootstrapServers, 'kcat-sec', { config })
        const values = got.map((m) => m.value?.toString()).filter((v) => v?.startsWith(mechanism))
        expect(values.sort()).toEqual(messages.map((m) => m.value).sort())
      }
      // And with a wrong password kcat gets nothing.
      await expect(
        kcatConsume(cluster!.bootstrapServers, 'kcat-sec', {
          config: {
            'security.protocol': 'SASL_SSL',
            'sasl.mechanisms': 'SCRAM-SHA-512',
            'sasl.username': 'alice',
            'sasl.password': 'wrong',
            'ssl.ca.location': certs.truststore,
          },
          timeoutMs: 5000,
        }),
      ).rejects.toThrow()
      expect(problems.join('\n')).toMatch(/SCRAM-SHA-512 authentication failed/)
    },
    90_000,
  )

  it.skipIf(!requireKafka())(
    'the Java client (kafka-clients 4.4) over SASL_SSL SCRAM-SHA-512: its producer writes; its group consumer reads for several 3 s sessions, re-authenticating',
    async () => {
      await start({ ssl: tls, sasl: { users: USERS }, connectionsMaxReauthMs: 3000, topics: [{ name: 'java-sec', partitions: 3 }] })
      const props = {
        'security.protocol': 'SASL_SSL',
        'sasl.mechanism': 'SCRAM-SHA-512',
        'sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="${USERS.alice}";`,
        'ssl.truststore.type': 'PEM',
        'ssl.truststore.location': certs.truststore,
      }
      const java = { bootstrap: cluster!.bootstrapServers, runJava, spawnJava } as unknown as KafkaCluster
      const records = Array.from({ length: 100 }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`java-${i}`) }))
      const results = await javaProduce(java, 'java-sec', records, { ...props, acks: 'all', 'enable.idempotence': true })
      expect(results.filter((r) => 'error' in r)).toEqual([])
      const member = javaGroupMember(java, 'java-sec', 'java-sec', { props: { ...props, 'auto.offset.reset': 'earliest' } })
      try {
        await member.waitFor((e) => e.event === 'record', 60_000)
        // wafka writes for 10 s (three sessions and more) while the Java member fetches and commits on the same connections.
        const producer = new Kafka({
          clientId: 'to-java',
          brokers: brokers(),
          ssl: { ca: [certs.ca] },
          sasl: alice('plain'),
        } as KafkaConfig).producer()
        await producer.connect()
        const later: string[] = []
        for (let i = 0, end = Date.now() + 10_000; Date.now() < end; i++) {
          later.push(`wafka-${i}`)
          await producer.send({ topic: 'java-sec', messages: [{ key: `w${i}`, value: `wafka-${i}` }] })
          await new Promise((r) => setTimeout(r, 100))
        }
        await producer.disconnect()
        await until(
          () => member.records().length >= records.length + later.length,
          30_000,
          () => `the Java member read ${member.records().length} of ${records.length + later.length}`,
        )
        const values = member.records().map((r) => r.value!.toString())
        expect([...new Set(values)].sort()).toEqual([...records.map((r) => r.value.toString()), ...later].sort())
      } finally {
        await member.stop()
      }
      // Had the Java client not re-authenticated, its requests after a session's end would have closed its connections.
      expect(
        problems.filter((p) => /authentication failed|expired/.test(p)),
        problems.join('\n'),
      ).toEqual([])
    },
    120_000,
  )

  it('wafka broker --tls-cert --tls-key --tls-ca --sasl-users: SASL_SSL with client certificates, from files; a bad users file names the line, not its content', async () => {
    const file = (name: string, text: string) => (writeFileSync(join(certs.dir, name), text), join(certs.dir, name))
    const users = file('users.txt', `# test users\nalice:${USERS.alice}\n\nbob:${USERS.bob}\n`)
    const args = ['--port', '0', '--brokers', '2', '--tls-cert', file('cert.pem', tls.cert), '--tls-key', file('key.pem', tls.key)]
    const broker = await serveBroker([...args, '--tls-ca', certs.truststore, '--sasl-users', users, '--sasl-mechanisms', 'SCRAM-SHA-512'])
    const { lines, bootstrap } = broker
    try {
      expect(lines[0]).toBe('wafka broker: starting 2 broker(s)')
      expect(lines[1]).toMatch(/2 broker\(s\) serving SASL_SSL; client certificates required; SASL SCRAM-SHA-512; bootstrap servers/)
      const ssl = { ca: [certs.ca], cert: certs.clientCert, key: certs.clientKey }
      const kafka = new Kafka({
        clientId: 'cli',
        brokers: bootstrap,
        ssl,
        sasl: { mechanism: 'scram-sha-512', username: 'bob', password: USERS.bob },
      } as KafkaConfig)
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({ topic: 'cli-secured', messages: [{ value: 'over SASL_SSL' }] })
      await producer.disconnect()
      // PLAIN is not enabled; without a client certificate the TLS handshake is refused.
      const plain = await new Kafka({ clientId: 'cli', brokers: bootstrap, ssl, sasl: alice('plain') } as KafkaConfig)
        .admin()
        .connect()
        .catch((e) => e)
      expect((plain as AuthenticationError).type).toBe('UNSUPPORTED_SASL_MECHANISM')
      const noCert = await new Kafka({
        clientId: 'cli',
        brokers: bootstrap,
        ssl: { ca: [certs.ca] },
        sasl: alice('scram-sha-512'),
      } as KafkaConfig)
        .admin()
        .connect()
        .catch((e) => e)
      expect(noCert).toBeInstanceOf(TlsError)
      // The broker says so (its network thread reports it a moment after the client has its error).
      await until(
        () => lines.some((l) => /TLS handshake failed/.test(l)),
        10_000,
        () => lines.join('\n'),
      )
    } finally {
      expect(await broker.stop()).toBe(0)
    }
    expect(lines.at(-1)).toBe('wafka broker: SIGTERM, stopping')
    expect(lines.join('\n')).not.toContain(USERS.bob)
    const bad = file('bad-users.txt', `alice:${USERS.alice}\nsecret-without-a-colon\n`)
    const error = await brokerCommand(['--port', '0', '--sasl-users', bad], () => {}).catch((e) => e)
    expect(error.message).toBe(`${bad} line 2: expected user:password (a user name, a colon, a non-empty password)`)
    expect(error.message).not.toContain('secret')
  })
})
