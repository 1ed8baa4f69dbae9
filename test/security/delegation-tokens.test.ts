// Delegation tokens (KIP-48, KIP-373) on real Kafka 4.4 and on the embedded
// broker, configured by the same Kafka names, with the same assertions:
// wafka's admin creates, describes, renews and expires them; a client
// authenticates with one over SCRAM (tokenAuth, Kafka's tokenauth=true) as
// its owner; an expired or expired-at-once token is refused; Kafka's
// refusals: tokens disabled, asked over PLAINTEXT, TLS without a client
// certificate or a token's own connection, ACLs (CREATE_TOKENS and
// DESCRIBE_TOKENS on USER, DESCRIBE on DELEGATION_TOKEN), owner mismatch,
// not found, expired.
import { Buffer } from 'node:buffer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type AclEntry } from '../../src/admin/acls.js'
import { ConfigResourceTypes, type Admin } from '../../src/admin/admin.js'
import type { DelegationToken } from '../../src/admin/delegation-tokens.js'
import { AuthenticationError, KafkaError } from '../../src/errors.js'
import { Kafka, type KafkaConfig } from '../../src/kafka.js'
import { ScramClient } from '../../src/net/sasl/scram.js'
import { Metadata } from '../../src/protocol/messages/Metadata.js'
import { SaslAuthenticate } from '../../src/protocol/messages/SaslAuthenticate.js'
import { SaslHandshake } from '../../src/protocol/messages/SaslHandshake.js'
import { RawClient } from '../broker/raw-client.js'
import { requireSecuredEmbedded, startSecuredEmbedded } from './secured-embedded.js'
import { AUTHORIZER, requireSecuredKafka, startSecuredKafka, USERS, type SecuredTarget } from './secured-kafka.js'

/** Tokens on, with an expiry check every second so an expired token goes within the test. */
const TOKENS: Readonly<Record<string, string>> = {
  'delegation.token.secret.key': 'wafka-test-secret',
  'delegation.token.expiry.check.interval.ms': '1000',
}

const targets: Array<[string, boolean, (config: Record<string, string>) => Promise<SecuredTarget>]> = [
  ['real Kafka', requireSecuredKafka(), (config) => startSecuredKafka({ config })],
  ['the embedded broker', requireSecuredEmbedded(), (config) => startSecuredEmbedded({ config })],
]

/** Polls `done` (every 100 ms) until it holds: ACLs and the expiry check take effect a moment after the call. */
async function eventually(done: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The call's Kafka error name (it must fail). */
async function errorOf(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn()
  } catch (err) {
    expect(err).toBeInstanceOf(KafkaError)
    expect((err as KafkaError).retriable).toBe(false)
    return (err as KafkaError).type
  }
  throw new Error('expected the call to fail')
}

describe.each(targets)('delegation tokens against %s', (_target, available, start) => {
  if (!available) return void it.skip('needs its peer')
  let k: SecuredTarget
  let alice: Admin
  const clients: Admin[] = []
  const scram = (
    username: string,
    password: string,
    extra: Partial<KafkaConfig> = {},
    mechanism: 'scram-sha-256' | 'scram-sha-512' = 'scram-sha-512',
  ) =>
    new Kafka({
      clientId: `tokens-${username.slice(0, 8)}`,
      brokers: k.listener('SASL'),
      sasl: { mechanism, username, password, ...extra },
    })
  /** An admin connected with the token (SCRAM, tokenAuth). */
  const withToken = async (t: DelegationToken, mechanism: 'scram-sha-256' | 'scram-sha-512' = 'scram-sha-512') => {
    const a = scram(t.tokenInfo.tokenId, t.hmac.toString('base64'), { tokenAuth: true }, mechanism).admin()
    clients.push(a)
    await a.connect()
    return a
  }
  /**
   * Resolves once the broker describes the token: Kafka's controller makes
   * it and the brokers learn it from the metadata log a moment later, so a
   * token is neither described nor usable at once there.
   */
  const published = async (t: DelegationToken) => {
    let found: DelegationToken | undefined
    await eventually(
      async () => !!(found = (await alice.describeDelegationToken()).find((d) => d.tokenInfo.tokenId === t.tokenInfo.tokenId)),
      10_000,
      `token ${t.tokenInfo.tokenId} described`,
    )
    return found!
  }
  const bobAdmin = async () => {
    const a = scram('bob', USERS.bob).admin()
    clients.push(a)
    await a.connect()
    return a
  }
  const acl = (resourceType: number, resourceName: string, operation: number, principal = 'User:bob'): AclEntry => ({
    resourceType,
    resourceName,
    resourcePatternType: ResourcePatternTypes.LITERAL,
    principal,
    host: '*',
    operation,
    permissionType: AclPermissionTypes.ALLOW,
  })

  beforeAll(async () => {
    k = await start({ ...AUTHORIZER, ...TOKENS })
    alice = scram('alice', USERS.alice).admin()
    await alice.connect()
    await alice.createTopics({ topics: [{ topic: 'tokens', numPartitions: 1 }] })
  })
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.disconnect()))
    await alice?.disconnect()
    await k?.stop()
  })

  it('creates a token for its caller: Kafka caps its expiry and max, describe shows it with its HMAC; it authenticates over SCRAM-SHA-256 and -512 as its owner', async () => {
    const before = Date.now()
    const t = await alice.createDelegationToken({ maxLifetimeMs: 3_600_000, renewers: ['User:bob'] })
    expect(t.tokenInfo.owner).toBe('User:alice')
    expect(t.tokenInfo.tokenRequester).toBe('User:alice')
    expect(t.tokenInfo.renewers).toEqual(['User:bob'])
    expect(t.tokenInfo.issueTimestamp).toBeGreaterThanOrEqual(before - 1000)
    expect(t.tokenInfo.maxTimestamp - t.tokenInfo.issueTimestamp).toBe(3_600_000)
    // delegation.token.expiry.time.ms's default (1 day) is past the max: the expiry is the max.
    expect(t.tokenInfo.expiryTimestamp).toBe(t.tokenInfo.maxTimestamp)
    expect(t.hmac.length).toBe(64) // HmacSHA512

    const described = await published(t)
    expect(described.tokenInfo).toEqual(t.tokenInfo)
    expect(described.hmac.equals(t.hmac)).toBe(true)

    for (const mechanism of ['scram-sha-256', 'scram-sha-512'] as const) {
      const a = await withToken(t, mechanism)
      // alice is a super user: as her, the token's connection sees the topic.
      expect(await a.listTopics()).toContain('tokens')
    }
  })

  it("lifetimes are the broker's: delegation.token.max.lifetime.ms (7 days) caps the max asked, delegation.token.expiry.time.ms (1 day) the first expiry", async () => {
    const DAY = 86_400_000
    const plain = await alice.createDelegationToken()
    expect(plain.tokenInfo.maxTimestamp - plain.tokenInfo.issueTimestamp).toBe(7 * DAY)
    expect(plain.tokenInfo.expiryTimestamp - plain.tokenInfo.issueTimestamp).toBe(DAY)
    const long = await alice.createDelegationToken({ maxLifetimeMs: 30 * DAY })
    expect(long.tokenInfo.maxTimestamp - long.tokenInfo.issueTimestamp).toBe(7 * DAY)
    await published(long)
    // A renewal past expiry.time.ms is cut to it.
    const before = Date.now()
    const renewed = await alice.renewDelegationToken(long.hmac, { renewTimePeriodMs: 3 * DAY })
    expect(renewed).toBeGreaterThanOrEqual(before + DAY - 1000)
    expect(renewed).toBeLessThanOrEqual(Date.now() + DAY)
    await alice.expireDelegationToken(plain.hmac)
    await alice.expireDelegationToken(long.hmac)
  })

  it("a token's connection is its owner's principal (ACLs bind it) and may not ask for tokens", async () => {
    const t = await alice.createDelegationToken({ owner: 'User:bob' })
    expect(t.tokenInfo.owner).toBe('User:bob')
    expect(t.tokenInfo.tokenRequester).toBe('User:alice')
    await published(t)
    const kafka = scram(t.tokenInfo.tokenId, t.hmac.toString('base64'), { tokenAuth: true })
    const producer = kafka.producer({ idempotent: false })
    expect(await errorOf(() => producer.send({ topic: 'tokens', messages: [{ value: 'no acl' }] }))).toBe('TOPIC_AUTHORIZATION_FAILED')
    await alice.createAcls({
      acl: [
        acl(AclResourceTypes.TOPIC, 'tokens', AclOperationTypes.WRITE),
        acl(AclResourceTypes.TOPIC, 'tokens', AclOperationTypes.DESCRIBE),
      ],
    })
    await eventually(
      () =>
        producer.send({ topic: 'tokens', messages: [{ value: 'as bob' }] }).then(
          () => true,
          () => false,
        ),
      10_000,
      "bob's token producing once bob may write",
    )
    await producer.disconnect()
    const a = await withToken(t)
    expect(await errorOf(() => a.createDelegationToken())).toBe('DELEGATION_TOKEN_REQUEST_NOT_ALLOWED')
    expect(await errorOf(() => a.describeDelegationToken())).toBe('DELEGATION_TOKEN_REQUEST_NOT_ALLOWED')
    expect(await errorOf(() => a.renewDelegationToken(t.hmac))).toBe('DELEGATION_TOKEN_REQUEST_NOT_ALLOWED')
    expect(await errorOf(() => a.expireDelegationToken(t.hmac))).toBe('DELEGATION_TOKEN_REQUEST_NOT_ALLOWED')
  })

  it("a token's session lasts until the token expires (session_lifetime_ms, without connections.max.reauth.ms): a request after it closes the connection", async () => {
    const t = await alice.createDelegationToken({ maxLifetimeMs: 2500 })
    await published(t)
    const raw = await RawClient.open(k.listener('SASL')[0])
    try {
      expect((await raw.request(SaslHandshake, 1, { mechanism: 'SCRAM-SHA-512' })).errorCode).toBe(0)
      const client = new ScramClient('sha512', t.tokenInfo.tokenId, t.hmac.toString('base64'), undefined, undefined, { tokenauth: 'true' })
      const first = await raw.request(SaslAuthenticate, 2, { authBytes: Buffer.from(client.firstMessage()) })
      expect(first.errorCode).toBe(0)
      const final = await raw.request(SaslAuthenticate, 2, {
        authBytes: Buffer.from(await client.finalMessage(first.authBytes.toString())),
      })
      expect(final.errorCode).toBe(0)
      client.verify(final.authBytes.toString())
      const lifetime = Number(final.sessionLifetimeMs)
      expect(lifetime).toBeGreaterThan(0)
      expect(lifetime).toBeLessThanOrEqual(t.tokenInfo.expiryTimestamp - t.tokenInfo.issueTimestamp)
      expect((await raw.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false })).brokers).toHaveLength(1)
      await new Promise((r) => setTimeout(r, lifetime + 300))
      await expect(raw.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false }, 10_000)).rejects.toThrow(
        /closed the connection/,
      )
    } finally {
      raw.close()
    }
  })

  it('renews by the owner or a renewer, never past the max; anyone else: DELEGATION_TOKEN_OWNER_MISMATCH; an unknown HMAC: DELEGATION_TOKEN_NOT_FOUND', async () => {
    const t = await alice.createDelegationToken({ maxLifetimeMs: 600_000, renewers: ['User:bob'] })
    const mine = await alice.createDelegationToken()
    await published(t)
    await published(mine)
    const bob = await bobAdmin()
    const now = Date.now()
    const renewed = await alice.renewDelegationToken(t.hmac, { renewTimePeriodMs: 60_000 })
    expect(renewed).toBeGreaterThanOrEqual(now + 59_000)
    expect(renewed).toBeLessThan(t.tokenInfo.maxTimestamp)
    // A renewer may; past the max is cut at the max.
    expect(await bob.renewDelegationToken(t.hmac, { renewTimePeriodMs: 3_600_000 })).toBe(t.tokenInfo.maxTimestamp)
    await eventually(
      async () =>
        (await alice.describeDelegationToken({ owners: ['User:alice'] })).find((d) => d.tokenInfo.tokenId === t.tokenInfo.tokenId)
          ?.tokenInfo.expiryTimestamp === t.tokenInfo.maxTimestamp,
      10_000,
      'the renewal described',
    )
    expect(await errorOf(() => bob.renewDelegationToken(mine.hmac))).toBe('DELEGATION_TOKEN_OWNER_MISMATCH')
    expect(await errorOf(() => bob.expireDelegationToken(mine.hmac))).toBe('DELEGATION_TOKEN_OWNER_MISMATCH')
    expect(await errorOf(() => alice.renewDelegationToken(Buffer.alloc(64, 7)))).toBe('DELEGATION_TOKEN_NOT_FOUND')
  })

  it('expired at once (the default period): gone from describe, refused at authentication, not found to renew', async () => {
    const t = await alice.createDelegationToken()
    await published(t)
    await withToken(t) // it works before
    const at = await alice.expireDelegationToken(t.hmac)
    expect(Math.abs(at - Date.now())).toBeLessThan(60_000)
    await eventually(
      async () => !(await alice.describeDelegationToken()).some((d) => d.tokenInfo.tokenId === t.tokenInfo.tokenId),
      10_000,
      'the expired token gone',
    )
    await expect(withToken(t)).rejects.toBeInstanceOf(AuthenticationError)
    expect(await errorOf(() => alice.renewDelegationToken(t.hmac))).toBe('DELEGATION_TOKEN_NOT_FOUND')
  })

  it('past its max lifetime: DELEGATION_TOKEN_EXPIRED to renew, then removed by the expiry check and refused at authentication', async () => {
    const t = await alice.createDelegationToken({ maxLifetimeMs: 1500 })
    expect(t.tokenInfo.maxTimestamp - t.tokenInfo.issueTimestamp).toBe(1500)
    let renewal = ''
    await eventually(
      async () => (renewal = await errorOf(() => alice.renewDelegationToken(t.hmac)).catch(() => 'NONE')) !== 'NONE',
      10_000,
      'the renewal refused',
    )
    expect(['DELEGATION_TOKEN_EXPIRED', 'DELEGATION_TOKEN_NOT_FOUND']).toContain(renewal)
    await eventually(
      async () => !(await alice.describeDelegationToken()).some((d) => d.tokenInfo.tokenId === t.tokenInfo.tokenId),
      15_000,
      'the expired token removed',
    )
    await expect(withToken(t)).rejects.toBeInstanceOf(AuthenticationError)
  })

  it("ACLs: another owner needs CREATE_TOKENS on the USER; seeing others' tokens needs DESCRIBE_TOKENS on its owner or DESCRIBE on the token", async () => {
    const bob = await bobAdmin()
    expect(await errorOf(() => bob.createDelegationToken({ owner: 'User:alice' }))).toBe('DELEGATION_TOKEN_AUTHORIZATION_FAILED')
    const own = await bob.createDelegationToken() // for himself: no ACL needed
    expect(own.tokenInfo.owner).toBe('User:bob')
    await alice.createAcls({ acl: [acl(AclResourceTypes.USER, 'User:carol', AclOperationTypes.CREATE_TOKENS)] })
    await eventually(
      () =>
        bob.createDelegationToken({ owner: 'User:carol' }).then(
          () => true,
          () => false,
        ),
      10_000,
      "bob making carol's token",
    )

    const dave1 = await alice.createDelegationToken({ owner: 'User:dave' })
    const dave2 = await alice.createDelegationToken({ owner: 'User:dave' })
    const seen = async () => (await bob.describeDelegationToken({ owners: ['User:dave'] })).map((d) => d.tokenInfo.tokenId).sort()
    expect(await seen()).toEqual([])
    await alice.createAcls({ acl: [acl(AclResourceTypes.DELEGATION_TOKEN, dave1.tokenInfo.tokenId, AclOperationTypes.DESCRIBE)] })
    await eventually(async () => (await seen()).length === 1, 10_000, "one of dave's tokens seen")
    expect(await seen()).toEqual([dave1.tokenInfo.tokenId])
    await alice.createAcls({ acl: [acl(AclResourceTypes.USER, 'User:dave', AclOperationTypes.DESCRIBE_TOKENS)] })
    await eventually(async () => (await seen()).length === 2, 10_000, "both of dave's tokens seen")
    expect(await seen()).toEqual([dave1.tokenInfo.tokenId, dave2.tokenInfo.tokenId].sort())
    // An empty owner list describes nothing.
    expect(await bob.describeDelegationToken({ owners: [] })).toEqual([])
  })

  it("DescribeConfigs reports delegation.token.secret.key sensitive, without its value, and the lifetimes Kafka's defaults", async () => {
    const { brokers } = await alice.describeCluster()
    const { resources } = await alice.describeConfigs({
      resources: [
        {
          type: ConfigResourceTypes.BROKER,
          name: String(brokers[0].nodeId),
          configNames: ['delegation.token.secret.key', 'delegation.token.max.lifetime.ms', 'delegation.token.expiry.time.ms'],
        },
      ],
      includeSynonyms: false,
    })
    const byName = new Map(resources[0].configEntries.map((e) => [e.configName, e]))
    expect(byName.get('delegation.token.secret.key')).toMatchObject({ configValue: null, isSensitive: true })
    expect(byName.get('delegation.token.max.lifetime.ms')).toMatchObject({ configValue: '604800000', isSensitive: false })
    expect(byName.get('delegation.token.expiry.time.ms')).toMatchObject({ configValue: '86400000', isSensitive: false })
    expect(JSON.stringify(resources)).not.toContain(TOKENS['delegation.token.secret.key'])
  })

  it('asked over PLAINTEXT or TLS without a client certificate: DELEGATION_TOKEN_REQUEST_NOT_ALLOWED', async () => {
    for (const config of [{ brokers: k.listener('RIG') }, { brokers: k.listener('SSL'), ssl: { ca: k.certs.ca } }] as KafkaConfig[]) {
      const a = new Kafka({ clientId: 'tokens-unauthenticated', ...config }).admin()
      clients.push(a)
      await a.connect()
      expect(await errorOf(() => a.createDelegationToken())).toBe('DELEGATION_TOKEN_REQUEST_NOT_ALLOWED')
      expect(await errorOf(() => a.describeDelegationToken())).toBe('DELEGATION_TOKEN_REQUEST_NOT_ALLOWED')
      expect(await errorOf(() => a.renewDelegationToken(Buffer.alloc(64, 1)))).toBe('DELEGATION_TOKEN_REQUEST_NOT_ALLOWED')
      expect(await errorOf(() => a.expireDelegationToken(Buffer.alloc(64, 1)))).toBe('DELEGATION_TOKEN_REQUEST_NOT_ALLOWED')
    }
  })
})

describe.each(targets)('delegation tokens disabled (no delegation.token.secret.key) against %s', (_target, available, start) => {
  if (!available) return void it.skip('needs its peer')
  let k: SecuredTarget
  let alice: Admin
  beforeAll(async () => {
    k = await start({})
    alice = new Kafka({
      clientId: 'tokens-disabled',
      brokers: k.listener('SASL'),
      sasl: { mechanism: 'scram-sha-512', username: 'alice', password: USERS.alice },
    }).admin()
    await alice.connect()
  })
  afterAll(async () => {
    await alice?.disconnect()
    await k?.stop()
  })

  it('every call: DELEGATION_TOKEN_AUTH_DISABLED', async () => {
    expect(await errorOf(() => alice.createDelegationToken())).toBe('DELEGATION_TOKEN_AUTH_DISABLED')
    expect(await errorOf(() => alice.describeDelegationToken())).toBe('DELEGATION_TOKEN_AUTH_DISABLED')
    expect(await errorOf(() => alice.renewDelegationToken(Buffer.alloc(64, 1)))).toBe('DELEGATION_TOKEN_AUTH_DISABLED')
    expect(await errorOf(() => alice.expireDelegationToken(Buffer.alloc(64, 1)))).toBe('DELEGATION_TOKEN_AUTH_DISABLED')
  })
})
