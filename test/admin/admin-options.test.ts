import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { Admin, ConfigResourceTypes } from '../../src/admin/admin.js'
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes } from '../../src/admin/acls.js'
import { ConfigError } from '../../src/errors.js'
import { ScriptedCluster } from '../support/scripted-cluster.js'

/**
 * Admin's per-call options are checked from their tables (src/admin/options.ts)
 * before anything is sent: an unknown key (a KafkaJS spelling, a typo) names
 * the nearest valid one, a wrong-typed value names the option, and a valid
 * call reaches the ClusterClient seam (ScriptedCluster) unchanged.
 */
function scripted(answer: (api: { name: string }, request: any) => any = () => ({})) {
  const cluster = new ScriptedCluster(answer)
  return { admin: new Admin(cluster), sent: cluster.sent }
}

const rejection = async (p: Promise<unknown>): Promise<string> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(ConfigError)
  return (err as Error).message
}

describe('admin per-call options', () => {
  it('refuse an unknown key with the nearest valid one, before any request', async () => {
    const { admin, sent } = scripted()
    const cases: Array<[Promise<unknown>, RegExp]> = [
      [
        admin.createTopics({ topics: [], waitForLeader: true } as never),
        /^unknown createTopics\(\) option waitForLeader: did you mean waitForLeaders\?/,
      ],
      [
        admin.createTopics({ topics: [{ topic: 't', numPartition: 3 }] } as never),
        /^unknown createTopics\(\) topics entry option numPartition: did you mean numPartitions\?/,
      ],
      [admin.deleteTopics({ topics: ['t'], timeOut: 5 } as never), /^unknown deleteTopics\(\) option timeOut: did you mean timeout\?/],
      [admin.createPartitions({ topicPartitions: [{ topic: 't', cout: 3 }] } as never), /did you mean count\?/],
      [admin.fetchTopicMetadata({ topic: ['t'] } as never), /^unknown fetchTopicMetadata\(\) option topic: did you mean topics\?/],
      [admin.describeConfigs({ resources: [], includeSynonym: true } as never), /did you mean includeSynonyms\?/],
      [
        admin.alterConfigs({ resources: [{ type: 2, name: 't', configEntries: [{ name: 'x', value: '1', op: 'SET' }] }] } as never),
        /^unknown alterConfigs\(\) t configEntries entry option op/,
      ],
      [admin.electLeaders({ electiontype: 'UNCLEAN' } as never), /did you mean electionType\?/],
      [admin.listPartitionReassignments({ topic: [] } as never), /did you mean topics\?/],
      [admin.fetchOffsets({ groupID: 'g' } as never), /^unknown fetchOffsets\(\) option groupID: did you mean groupId\?/],
      [admin.setOffsets({ groupId: 'g', topic: 't', partition: [] } as never), /did you mean partitions\?/],
      [admin.resetOffsets({ groupId: 'g', topic: 't', earlier: true } as never), /did you mean earliest\?/],
      [admin.deleteRecords({ topic: 't', partitions: [], timout: 1 } as never), /did you mean timeout\?/],
      [admin.createAcls({ acls: [] } as never), /^unknown createAcls\(\) option acls: did you mean acl\?/],
      [admin.describeAcls({ resourcetype: 2 } as never), /did you mean resourceType\?/],
      [
        admin.deleteAcls({ filters: [{ principle: 'User:a' }] } as never),
        /^unknown deleteAcls\(\) filters entry option principle: did you mean principal\?/,
      ],
      [admin.describeUserScramCredentials({ user: ['a'] } as never), /did you mean users\?/],
      [
        admin.alterUserScramCredentials({
          upsertions: [{ user: 'a', mechanism: 'SCRAM-SHA-256', password: 'pw', iteration: 4096 }],
        } as never),
        /did you mean iterations\?/,
      ],
      // Java's CreateDelegationTokenOptions spells it maxlifeTimeMs.
      [
        admin.createDelegationToken({ maxlifeTimeMs: 1000 } as never),
        /^unknown createDelegationToken\(\) option maxlifeTimeMs: did you mean maxLifetimeMs\?/,
      ],
      [admin.renewDelegationToken(Buffer.alloc(64), { renewPeriodMs: 1 } as never), /did you mean renewTimePeriodMs\?/],
      [admin.expireDelegationToken(Buffer.alloc(64), { expiryTimePeriod: 1 } as never), /did you mean expiryTimePeriodMs\?/],
      [admin.describeDelegationToken({ owner: ['User:a'] } as never), /did you mean owners\?/],
    ]
    cases.push([
      admin.fetchOffsets({ groupId: 'g', resolveOffsets: true } as never),
      /^fetchOffsets\(\) option resolveOffsets \(KafkaJS\) is not supported: .*fetchTopicOffsets/,
    ])
    for (const [call, message] of cases) expect(await rejection(call)).toMatch(message)
    expect(sent).toEqual([])
  })

  it('refuse a wrong-typed value naming the option (never showing a password)', async () => {
    const { admin, sent } = scripted()
    expect(await rejection(admin.createTopics({ topics: 't' } as never))).toMatch(
      /^createTopics\(\) option topics must be an array, not "t"$/,
    )
    expect(await rejection(admin.createTopics({ topics: [{ topic: 't', numPartitions: '3' }] } as never))).toMatch(
      /^createTopics\(\) topics entry option numPartitions must be an integer from -1 to 2147483647, not "3"$/,
    )
    expect(await rejection(admin.deleteTopics({ topics: ['t'], timeout: '5s' } as never))).toMatch(
      /^deleteTopics\(\) option timeout must be an integer/,
    )
    expect(await rejection(admin.createPartitions({ topicPartitions: [], validateOnly: 'yes' } as never))).toMatch(
      /^createPartitions\(\) option validateOnly must be true or false/,
    )
    expect(await rejection(admin.fetchOffsets({ groupId: 7 } as never))).toMatch(
      /^fetchOffsets\(\) option groupId must be a string, not 7$/,
    )
    expect(await rejection(admin.resetOffsets({ groupId: 'g', topic: 't', earliest: 1 } as never))).toMatch(
      /option earliest must be true or false/,
    )
    expect(await rejection(admin.describeAcls({ resourceType: 'TOPIC' } as never))).toMatch(
      /^describeAcls\(\) option resourceType must be an integer/,
    )
    // Positional arguments, checked the same way.
    expect(await rejection(admin.fetchTopicOffsets(undefined as never))).toMatch(/^fetchTopicOffsets\(\) needs its topic argument$/)
    expect(await rejection(admin.fetchTopicOffsets({ topic: 't' } as never))).toMatch(
      /^fetchTopicOffsets\(\) argument topic must be a string, not \{"topic":"t"\}$/,
    )
    expect(await rejection(admin.fetchTopicOffsetsByTimestamp('t', '2024-01-01' as never))).toMatch(
      /^fetchTopicOffsetsByTimestamp\(\) argument timestamp must be an integer/,
    )
    expect(await rejection(admin.describeGroups('g' as never))).toMatch(/^describeGroups\(\) argument groupIds must be an array, not "g"$/)
    expect(await rejection(admin.deleteGroups(['g', 7] as never))).toMatch(
      /^deleteGroups\(\) argument groupIds\[1\] must be a string, not 7$/,
    )
    const secret = 'hunter2-secret'
    const message = await rejection(
      admin.alterUserScramCredentials({
        upsertions: [{ user: 'a', mechanism: 'SCRAM-SHA-256', password: secret, iterations: 'many' }],
      } as never),
    )
    expect(message).toMatch(/upsertions entry option iterations must be an integer from 4096 to 16384/)
    expect(message).not.toContain(secret)
    expect(await rejection(admin.createDelegationToken({ owner: 'alice' }))).toMatch(
      /^createDelegationToken\(\) owner must be a principal 'Type:name'/,
    )
    expect(await rejection(admin.createDelegationToken({ renewers: ['User:bob', 'carol'] }))).toMatch(/renewers entry must be a principal/)
    expect(await rejection(admin.createDelegationToken({ maxLifetimeMs: 1.5 }))).toMatch(/option maxLifetimeMs must be an integer/)
    expect(await rejection(admin.renewDelegationToken('hmac' as never))).toMatch(/^renewDelegationToken\(\) takes the token's HMAC/)
    expect(await rejection(admin.expireDelegationToken(Buffer.alloc(0)))).toMatch(/^expireDelegationToken\(\) takes the token's HMAC/)
    expect(sent).toEqual([])
  })

  it('pass valid calls through to the cluster', async () => {
    const { admin, sent } = scripted((api, req) => {
      if (api.name === 'CreateTopics') return { topics: req.topics.map((t: any) => ({ name: t.name, errorCode: 0 })) }
      if (api.name === 'DescribeConfigs') return { results: [{ resourceType: 2, resourceName: 't', errorCode: 0, configs: [] }] }
      if (api.name === 'DescribeAcls') return { errorCode: 0, resources: [] }
      return {}
    })
    expect(
      await admin.createTopics({
        topics: [{ topic: 't', numPartitions: 3, replicationFactor: -1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
        validateOnly: false,
        waitForLeaders: false,
        timeout: 1000,
      }),
    ).toBe(true)
    const { resources } = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 't', configNames: null }],
      includeSynonyms: false,
    })
    expect(resources[0].resourceName).toBe('t')
    await admin.describeAcls({
      resourceType: AclResourceTypes.TOPIC,
      resourceName: null,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    })
    expect(sent.map((s) => s.api.name)).toEqual(['CreateTopics', 'DescribeConfigs', 'DescribeAcls'])
  })
})
