// The embedded broker's authorizer on the wire: turned on by Kafka's names
// (authorizer.class.name, super.users), ACLs made through wafka's admin kept
// in the metadata log across a restart with a data dir, then applied to a
// principal that is no longer a super user (a PLAINTEXT client is
// User:ANONYMOUS): Metadata hides the topics it may not DESCRIBE when
// listing all and refuses them by name (whether they exist or not), the
// authorized-operations bitfields of Metadata and DescribeCluster, CreateTopics
// and DescribeAcls refused. Without an authorizer the ACL APIs answer
// SECURITY_DISABLED and every operation is authorized.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from '../../src/admin/acls.js'
import { Kafka } from '../../src/kafka.js'
import { ZERO_UUID } from '../../src/protocol/api.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { CreateTopics, DescribeAcls, DescribeCluster, DescribeGroups, Metadata, OffsetCommit } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { groupCoordinator } from './support.js'

const AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'
const bit = (...ops: number[]) => ops.reduce((b, op) => b | (1 << op), 0)
const TOPIC_OPS = bit(3, 4, 5, 8, 6, 7, 10, 11)

const dirs: string[] = []
const clusters: RunningCluster[] = []
afterAll(async () => {
  for (const c of clusters) await c.stop()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

async function raw(c: RunningCluster): Promise<RawClient> {
  return RawClient.open(c.bootstrapServers.split(',')[0])
}

const allAcls = {
  resourceTypeFilter: 1,
  resourceNameFilter: null,
  patternTypeFilter: 1,
  principalFilter: null,
  hostFilter: null,
  operation: 1,
  permissionType: 1,
}

describe('the embedded broker with authorizer.class.name', () => {
  it('ACLs made by a super user survive a restart and then bind User:ANONYMOUS, no longer a super user', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wafka-acls-'))
    dirs.push(dataDir)
    const topics = ['visible', 'hidden', 'ord-eu'].map((name) => ({ name, partitions: 1 }))
    const first = await startCluster({ dataDir, topics, config: { 'authorizer.class.name': AUTHORIZER, 'super.users': 'User:ANONYMOUS' } })
    const admin = new Kafka({ brokers: first.bootstrapServers.split(','), clientId: 'acl-admin' }).admin()
    await admin.connect()
    const entry = (resourceName: string, operation: number, over = {}) => ({
      resourceType: AclResourceTypes.TOPIC,
      resourceName,
      resourcePatternType: ResourcePatternTypes.LITERAL,
      principal: 'User:ANONYMOUS',
      host: '*',
      operation,
      permissionType: AclPermissionTypes.ALLOW,
      ...over,
    })
    await admin.createAcls({
      acl: [
        entry('visible', AclOperationTypes.READ),
        entry('ord', AclOperationTypes.WRITE, { resourcePatternType: ResourcePatternTypes.PREFIXED }),
        entry('ord-eu', AclOperationTypes.WRITE, { permissionType: AclPermissionTypes.DENY }),
        // Allowed on the cluster, but not DESCRIBE: its authorized operations are not told.
        entry('kafka-cluster', AclOperationTypes.IDEMPOTENT_WRITE, { resourceType: AclResourceTypes.CLUSTER }),
      ],
    })
    expect((await admin.describeAcls({})).resources).toHaveLength(4)
    await admin.disconnect()
    await first.stop()

    const again = await startCluster({ dataDir, config: { 'authorizer.class.name': AUTHORIZER } })
    clusters.push(again)
    const client = await raw(again)
    try {
      const all = await client.request(Metadata, 12, {
        topics: null,
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: true,
      })
      expect(all.topics.map((t) => [t.name, t.topicAuthorizedOperations]).sort()).toEqual([
        // WRITE allowed by prefix implies DESCRIBE; the literal DENY of WRITE does not deny DESCRIBE.
        ['ord-eu', bit(AclOperationTypes.DESCRIBE)],
        ['visible', bit(AclOperationTypes.READ, AclOperationTypes.DESCRIBE)],
      ])
      const named = await client.request(Metadata, 12, {
        topics: [
          { name: 'hidden', topicId: ZERO_UUID },
          { name: 'no-such-topic', topicId: ZERO_UUID },
        ],
        allowAutoTopicCreation: true,
        includeTopicAuthorizedOperations: false,
      })
      expect(named.topics.map((t) => [t.name, t.errorCode])).toEqual([
        ['hidden', ErrorCodes.TOPIC_AUTHORIZATION_FAILED],
        ['no-such-topic', ErrorCodes.TOPIC_AUTHORIZATION_FAILED],
      ])
      const described = await client.request(DescribeCluster, 1, {
        includeClusterAuthorizedOperations: true,
        endpointType: 1,
        includeFencedBrokers: false,
      })
      // IDEMPOTENT_WRITE is allowed, but without DESCRIBE on the cluster Kafka answers 0.
      expect(described.clusterAuthorizedOperations).toBe(0)
      const created = await client.request(CreateTopics, 7, {
        topics: [{ name: 'mine', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 5000,
        validateOnly: false,
      })
      expect(created.topics[0].errorCode).toBe(ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
      const acls = await client.request(DescribeAcls, 3, allAcls)
      expect(acls.errorCode).toBe(ErrorCodes.CLUSTER_AUTHORIZATION_FAILED)
    } finally {
      client.close()
    }
  })

  it('without an authorizer: the ACL APIs answer SECURITY_DISABLED, every supported operation is authorized (topic, group, cluster)', async () => {
    const c = await startCluster({ topics: [{ name: 'open', partitions: 1 }] })
    clusters.push(c)
    const client = await raw(c)
    try {
      expect((await client.request(DescribeAcls, 3, allAcls)).errorCode).toBe(ErrorCodes.SECURITY_DISABLED)
      const meta = await client.request(Metadata, 12, {
        topics: [{ name: 'open', topicId: ZERO_UUID }],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: true,
      })
      expect(meta.topics[0].topicAuthorizedOperations).toBe(TOPIC_OPS)
      // Not asked: Kafka's "omitted" value.
      const plain = await client.request(Metadata, 12, {
        topics: [{ name: 'open', topicId: ZERO_UUID }],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      })
      expect(plain.topics[0].topicAuthorizedOperations).toBe(-2147483648)
      expect(await groupCoordinator(client, 'grp')).toBe(0)
      await client.request(OffsetCommit, 8, {
        groupId: 'grp',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics: [{ name: 'open', partitions: [{ partitionIndex: 0, committedOffset: 0n }] }],
      })
      const groups = await client.request(DescribeGroups, 5, { groups: ['grp'], includeAuthorizedOperations: true })
      expect(groups.groups[0]).toMatchObject({ errorCode: 0, authorizedOperations: bit(3, 8, 6, 10, 11) })
      const cluster = await client.request(DescribeCluster, 1, { includeClusterAuthorizedOperations: true, endpointType: 1 })
      expect(cluster.clusterAuthorizedOperations).toBe(bit(5, 9, 10, 11, 12, 7, 8))
    } finally {
      client.close()
    }
  })
})
