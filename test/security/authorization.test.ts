// Authorization with StandardAuthorizer, on real Kafka and on the embedded
// broker (authorizer.class.name, super.users: the same Kafka names) with the
// same assertions: refusals are typed, non-retriable and immediate on the
// call that hit them; ACLs made through wafka's admin then let the user in.
// SCRAM users made through wafka's admin can authenticate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type AclEntry } from '../../src/admin/acls.js'
import type { Admin } from '../../src/admin/admin.js'
import { AuthenticationError, AuthorizationError } from '../../src/errors.js'
import { Kafka, type KafkaConfig } from '../../src/kafka.js'
import { ConfigResourceTypes } from '../../src/index.js'
import { until } from '../kafka/support.js'
import { requireSecuredEmbedded, startSecuredEmbedded } from './secured-embedded.js'
import { AUTHORIZER, requireSecuredKafka, startSecuredKafka, USERS, type SecuredTarget } from './secured-kafka.js'

const AT_ONCE_MS = 5000

const targets: Array<[string, boolean, () => Promise<SecuredTarget>]> = [
  ['real Kafka', requireSecuredKafka(), () => startSecuredKafka()],
  ['the embedded broker', requireSecuredEmbedded(), () => startSecuredEmbedded({ config: { ...AUTHORIZER } })],
]

describe.each(targets)('authorization and credential admin against %s', (_target, available, start) => {
  if (!available) return void it.skip('needs its peer')
  let k: SecuredTarget
  let admin: Admin
  const as = (
    username: string,
    password: string,
    mechanism: 'scram-sha-256' | 'scram-sha-512' = 'scram-sha-512',
    extra: Partial<KafkaConfig> = {},
  ) => new Kafka({ clientId: `authz-${username}`, brokers: k.listener('SASL'), sasl: { mechanism, username, password }, ...extra })
  const bob = () => as('bob', USERS.bob)

  beforeAll(async () => {
    k = await start()
    admin = as('alice', USERS.alice).admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'authz', numPartitions: 1 }] })
  })
  afterAll(async () => {
    await admin?.disconnect()
    await k?.stop()
  })

  /** The call's error: typed, not retriable, and fast (no retry loop until a timeout). */
  async function refused(fn: () => Promise<unknown>, type: string): Promise<AuthorizationError> {
    const started = Date.now()
    let error: unknown
    try {
      await fn()
    } catch (err) {
      error = err
    }
    expect(error, `expected ${type}`).toBeInstanceOf(AuthorizationError)
    const e = error as AuthorizationError
    expect(e.type, e.message).toBe(type)
    expect(e.retriable).toBe(false)
    expect(Date.now() - started).toBeLessThan(AT_ONCE_MS)
    return e
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

  it('producing: no ACL, then DESCRIBE only: TOPIC_AUTHORIZATION_FAILED at once; WRITE granted through admin.createAcls: the send succeeds', async () => {
    const producer = bob().producer({ idempotent: false })
    await refused(() => producer.send({ topic: 'authz', messages: [{ value: 'no acl' }] }), 'TOPIC_AUTHORIZATION_FAILED')
    await admin.createAcls({ acl: [acl(AclResourceTypes.TOPIC, 'authz', AclOperationTypes.DESCRIBE)] })
    await refused(() => producer.send({ topic: 'authz', messages: [{ value: 'describe only' }] }), 'TOPIC_AUTHORIZATION_FAILED')
    await admin.createAcls({ acl: [acl(AclResourceTypes.TOPIC, 'authz', AclOperationTypes.WRITE)] })
    const [meta] = await producer.send({ topic: 'authz', messages: [{ value: 'allowed' }] })
    expect(meta.errorCode).toBe(0)
    await producer.disconnect()
  })

  it('an idempotent producer without IDEMPOTENT_WRITE or WRITE anywhere: CLUSTER_AUTHORIZATION_FAILED at once', async () => {
    const carl = as('bob', USERS.bob)
    await admin.deleteAcls({ filters: [{ principal: 'User:bob', operation: AclOperationTypes.WRITE }] })
    const producer = carl.producer({ idempotent: true })
    const e = await refused(() => producer.send({ topic: 'authz', messages: [{ value: 'x' }] }), 'CLUSTER_AUTHORIZATION_FAILED')
    expect(e.message).toMatch(/CLUSTER_AUTHORIZATION_FAILED/)
    await producer.disconnect()
    await admin.createAcls({ acl: [acl(AclResourceTypes.TOPIC, 'authz', AclOperationTypes.WRITE)] })
  })

  it('a transactional producer without its transactional id: TRANSACTIONAL_ID_AUTHORIZATION_FAILED at once', async () => {
    const producer = bob().producer({ transactionalId: 'bob-tx' })
    await refused(async () => {
      await producer.connect()
      const tx = await producer.transaction()
      await tx.send({ topic: 'authz', messages: [{ value: 'tx' }] })
      await tx.commit()
    }, 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED')
    await producer.disconnect()
  })

  it('consuming: without READ on the group, GROUP_AUTHORIZATION_FAILED on join and on commit; with it, the messages arrive', async () => {
    await admin.createAcls({ acl: [acl(AclResourceTypes.TOPIC, 'authz', AclOperationTypes.READ)] })
    const client = bob()
    const consumer = client.consumer({ groupId: 'bob-group', maxWaitTimeInMs: 100 })
    await consumer.connect()
    await consumer.subscribe({ topics: ['authz'], fromBeginning: true })
    await refused(() => consumer.run({ eachMessage: async () => {} }), 'GROUP_AUTHORIZATION_FAILED')
    await consumer.disconnect()
    const bobAdmin = client.admin()
    await bobAdmin.connect()
    await refused(
      () => bobAdmin.setOffsets({ groupId: 'bob-group', topic: 'authz', partitions: [{ partition: 0, offset: 0 }] }),
      'GROUP_AUTHORIZATION_FAILED',
    )

    // Every group whose name starts with 'bob-'.
    await admin.createAcls({
      acl: [{ ...acl(AclResourceTypes.GROUP, 'bob-', AclOperationTypes.READ), resourcePatternType: ResourcePatternTypes.PREFIXED }],
    })
    const again = client.consumer({ groupId: 'bob-group', maxWaitTimeInMs: 100 })
    await again.connect()
    await again.subscribe({ topics: ['authz'], fromBeginning: true })
    const read: string[] = []
    await again.run({ eachMessage: async ({ message }) => void read.push(message.value!.toString()) })
    await until(
      'read',
      () => read,
      (r) => r.includes('allowed'),
      20_000,
    )
    await again.disconnect()
    await bobAdmin.setOffsets({ groupId: 'bob-group', topic: 'authz', partitions: [{ partition: 0, offset: 0 }] })
    await bobAdmin.disconnect()
  })

  it('share groups: without READ on the group, GROUP_AUTHORIZATION_FAILED at once; with READ on the group and the topic, the records are shared', async () => {
    // Not under the 'bob-' prefix the consuming test grants.
    const groupId = 'share-of-bob'
    await admin.createAcls({ acl: [acl(AclResourceTypes.TOPIC, 'authz', AclOperationTypes.READ)] })
    await admin.alterConfigs({
      resources: [
        { type: ConfigResourceTypes.GROUP, name: groupId, configEntries: [{ name: 'share.auto.offset.reset', value: 'earliest' }] },
      ],
    })
    const producer = as('alice', USERS.alice).producer({ idempotent: false })
    await producer.send({ topic: 'authz', messages: [{ value: 'shared' }] })
    await producer.disconnect()
    const client = bob()
    const denied = client.shareConsumer({ groupId, maxWaitTimeInMs: 100 })
    await denied.subscribe({ topics: ['authz'] })
    await refused(() => denied.run({ eachMessage: async () => {} }), 'GROUP_AUTHORIZATION_FAILED')
    await denied.disconnect()
    // DESCRIBE finds the coordinator; joining (ShareGroupHeartbeat) still needs READ.
    await admin.createAcls({ acl: [acl(AclResourceTypes.GROUP, groupId, AclOperationTypes.DESCRIBE)] })
    // An ACL reaches Kafka's authorizer a moment after createAcls answers: tried again (bounded) until FindCoordinator passes.
    let joinRefused: AuthorizationError | null = null
    for (let attempt = 0; attempt < 50 && !joinRefused?.message.includes('ShareGroupHeartbeat'); attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 100))
      const describing = client.shareConsumer({ groupId, maxWaitTimeInMs: 100 })
      await describing.subscribe({ topics: ['authz'] })
      joinRefused = await refused(() => describing.run({ eachMessage: async () => {} }), 'GROUP_AUTHORIZATION_FAILED')
      await describing.disconnect()
    }
    expect(joinRefused!.message).toContain('ShareGroupHeartbeat')

    await admin.createAcls({ acl: [acl(AclResourceTypes.GROUP, groupId, AclOperationTypes.READ)] })
    const read: string[] = []
    let member = client.shareConsumer({ groupId, maxWaitTimeInMs: 100 })
    // As above: until the READ grant has reached the authorizer (bounded).
    for (let attempt = 0; ; attempt++) {
      await member.subscribe({ topics: ['authz'] })
      try {
        await member.run({ eachMessage: async ({ message }) => void read.push(message.value!.toString()) })
        break
      } catch (err) {
        if (!(err instanceof AuthorizationError) || attempt >= 50) throw err
        await member.disconnect()
        await new Promise((r) => setTimeout(r, 100))
        member = client.shareConsumer({ groupId, maxWaitTimeInMs: 100 })
      }
    }
    await until(
      'read',
      () => read,
      (r) => r.includes('shared'),
      20_000,
    )
    await member.disconnect()
  })

  it('admin calls: creating a topic or describing ACLs without the right: the authorization error at once', async () => {
    const bobAdmin = bob().admin()
    await bobAdmin.connect()
    await refused(() => bobAdmin.createTopics({ topics: [{ topic: 'bobs-own' }] }), 'TOPIC_AUTHORIZATION_FAILED')
    await refused(() => bobAdmin.describeAcls({}), 'CLUSTER_AUTHORIZATION_FAILED')
    await bobAdmin.disconnect()
  })

  it('describeAcls lists what createAcls made; deleteAcls removes it, and the refusal comes back', async () => {
    const described = await admin.describeAcls({ principal: 'User:bob', resourceType: AclResourceTypes.TOPIC })
    const topicAcls = described.resources.find((r) => r.resourceName === 'authz' && r.resourceType === AclResourceTypes.TOPIC)!
    expect(topicAcls.resourcePatternType).toBe(ResourcePatternTypes.LITERAL)
    expect(topicAcls.acls.map((a) => a.operation).sort()).toEqual(
      [AclOperationTypes.READ, AclOperationTypes.WRITE, AclOperationTypes.DESCRIBE].sort(),
    )
    expect(topicAcls.acls.every((a) => a.principal === 'User:bob' && a.host === '*' && a.permissionType === AclPermissionTypes.ALLOW)).toBe(
      true,
    )
    const prefixed = await admin.describeAcls({ resourceType: AclResourceTypes.GROUP, resourcePatternType: ResourcePatternTypes.PREFIXED })
    expect(prefixed.resources.map((r) => r.resourceName)).toEqual(['bob-'])

    const deleted = await admin.deleteAcls({
      filters: [{ principal: 'User:bob', resourceType: AclResourceTypes.TOPIC, resourceName: 'authz', operation: AclOperationTypes.WRITE }],
    })
    expect(deleted.filterResponses[0].matchingAcls).toHaveLength(1)
    expect(deleted.filterResponses[0].matchingAcls[0]).toMatchObject({
      errorCode: 0,
      resourceName: 'authz',
      principal: 'User:bob',
      operation: AclOperationTypes.WRITE,
    })
    const producer = bob().producer({ idempotent: false })
    // StandardAuthorizer applies the deletion once the broker has the metadata record: allow it a moment.
    let last: unknown
    for (let i = 0; i < 20; i++) {
      try {
        await producer.send({ topic: 'authz', messages: [{ value: 'after delete' }] })
        await new Promise((r) => setTimeout(r, 100))
      } catch (err) {
        last = err
        break
      }
    }
    expect(last).toBeInstanceOf(AuthorizationError)
    expect((last as AuthorizationError).type).toBe('TOPIC_AUTHORIZATION_FAILED')
    await producer.disconnect()
  })

  it('a SCRAM user created through alterUserScramCredentials authenticates; its deleted credential no longer does', async () => {
    const password = 'carol-Pa55word'
    // Kafka alters one credential per user per request.
    await admin.alterUserScramCredentials({ upsertions: [{ user: 'carol', mechanism: 'SCRAM-SHA-256', password, iterations: 8192 }] })
    await admin.alterUserScramCredentials({ upsertions: [{ user: 'carol', mechanism: 'SCRAM-SHA-512', password }] })
    // Kafka's broker answers describe from its metadata image, which takes the controller's record a moment after
    // the alter returns: wait until it shows both (CI once read only the first).
    const described = await until(
      'carol has both credentials',
      () => admin.describeUserScramCredentials({ users: ['carol'] }),
      (d) => d[0]?.credentials.length === 2,
      10_000,
    )
    expect(described).toEqual([
      {
        user: 'carol',
        credentials: expect.arrayContaining([
          { mechanism: 'SCRAM-SHA-256', iterations: 8192 },
          { mechanism: 'SCRAM-SHA-512', iterations: 4096 },
        ]),
      },
    ])
    const all = await admin.describeUserScramCredentials()
    expect(all.map((u) => u.user).sort()).toEqual(['alice', 'bob', 'carol'])

    for (const mechanism of ['scram-sha-256', 'scram-sha-512'] as const) {
      const carolAdmin = as('carol', password, mechanism).admin()
      await carolAdmin.connect()
      expect((await carolAdmin.describeCluster()).brokers).toHaveLength(1)
      await carolAdmin.disconnect()
    }
    await admin.alterUserScramCredentials({ deletions: [{ user: 'carol', mechanism: 'SCRAM-SHA-256' }] })
    let error: unknown
    const gone = as('carol', password, 'scram-sha-256').admin()
    for (let i = 0; i < 20 && !error; i++) {
      try {
        await gone.connect()
        await gone.disconnect()
        await new Promise((r) => setTimeout(r, 100))
      } catch (err) {
        error = err
      }
    }
    expect(error).toBeInstanceOf(AuthenticationError)
    const still = as('carol', password, 'scram-sha-512').admin()
    await still.connect()
    await still.disconnect()
  })
})
