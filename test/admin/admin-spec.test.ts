import { describe, expect, it } from 'vitest'
import { Admin, ConfigResourceTypes } from '../../src/admin/admin.js'
import { Routes } from '../../src/cluster/route.js'
import type { ApiSpec } from '../../src/protocol/api.js'
import { ScriptedCluster } from '../support/scripted-cluster.js'

/**
 * The admin calls no librdkafka mock serves (CreateTopics, DeleteTopics, ...),
 * checked against the spec: every request body the Admin builds must encode at
 * every version of its API (fields outside a version must stay at their
 * defaults, as the Java writer insists), and answers decoded by the generated
 * codecs must map to KafkaJS-shaped results, and each request goes where its
 * API's route says. The Admin sees only the ClusterClient seam, which
 * ScriptedCluster answers.
 */
function scriptedAdmin(answer: (api: ApiSpec, request: any) => any) {
  const cluster = new ScriptedCluster(answer)
  return { admin: new Admin(cluster), sent: cluster.sent }
}

describe('admin requests against the spec', () => {
  it('createTopics: every version encodes; already-existing topics are not an error', async () => {
    const { admin, sent } = scriptedAdmin((_api, req) => ({
      topics: req.topics.map((t: any) => ({ name: t.name, errorCode: t.name === 'old' ? 36 : 0 })),
    }))
    const created = await admin.createTopics({
      waitForLeaders: false,
      topics: [
        { topic: 'new', numPartitions: 6, replicationFactor: 3, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] },
        { topic: 'old', replicaAssignment: [{ partition: 0, replicas: [1, 2] }] },
      ],
    })
    expect(created).toBe(true)
    const [{ requests, route }] = sent
    expect(route).toEqual(Routes.controller())
    expect(requests.size).toBe(6) // v2-v7 (Kafka 4 removed v0-1)
    for (const req of requests.values()) {
      expect(req.topics[0]).toMatchObject({
        name: 'new',
        numPartitions: 6,
        replicationFactor: 3,
        configs: [{ name: 'cleanup.policy', value: 'compact' }],
      })
      expect(req.topics[1]).toMatchObject({
        name: 'old',
        numPartitions: -1,
        replicationFactor: -1,
        assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }],
      })
    }
  })

  it('createTopics reports a failure with its code and the broker message', async () => {
    const { admin } = scriptedAdmin(() => ({
      topics: [{ name: 'bad', errorCode: 37, errorMessage: 'Number of partitions must be larger than 0.' }],
    }))
    await expect(admin.createTopics({ topics: [{ topic: 'bad', numPartitions: 0 }] })).rejects.toMatchObject({
      name: 'KafkaError',
      type: 'INVALID_PARTITIONS',
      message: expect.stringMatching(/topic bad: Number of partitions/),
    })
  })

  it('deleteTopics uses names before v6 and topic states from v6', async () => {
    const { admin, sent } = scriptedAdmin(() => ({ responses: [{ name: 'gone', errorCode: 0 }] }))
    await admin.deleteTopics({ topics: ['gone'] })
    const { requests } = sent[0]
    expect(requests.get(5).topicNames).toEqual(['gone'])
    expect(requests.get(6).topics.map((t: any) => t.name)).toEqual(['gone'])
  })

  it('createPartitions and deleteRecords', async () => {
    const { admin, sent } = scriptedAdmin((api, req) =>
      api.name === 'CreatePartitions'
        ? { results: [{ name: 't', errorCode: 0 }] }
        : {
            topics: req.topics.map((t: any) => ({
              name: t.name,
              partitions: t.partitions.map((p: any) => ({ partitionIndex: p.partitionIndex, lowWatermark: p.offset, errorCode: 0 })),
            })),
          },
    )
    await admin.createPartitions({ topicPartitions: [{ topic: 't', count: 8, assignments: [[1, 2]] }] })
    expect(sent[0].requests.get(0).topics).toEqual([
      expect.objectContaining({ name: 't', count: 8, assignments: [expect.objectContaining({ brokerIds: [1, 2] })] }),
    ])
    const low = await admin.deleteRecords({
      topic: 't',
      partitions: [
        { partition: 0, offset: '5' },
        { partition: 1, offset: 9 },
      ],
    })
    expect(low).toEqual([
      { partition: 0, lowWatermark: '5' },
      { partition: 1, lowWatermark: '9' },
    ])
    // One request per leader (partition 0 on broker 1, partition 1 on broker 2), each routed by its partition's leader.
    expect(sent.filter((s) => s.api.name === 'DeleteRecords').map((s) => s.route)).toEqual([Routes.leader('t', 0), Routes.leader('t', 1)])
  })

  it('describeConfigs and incremental alterConfigs', async () => {
    const { admin, sent } = scriptedAdmin((api) =>
      api.name === 'DescribeConfigs'
        ? {
            results: [
              {
                errorCode: 0,
                resourceType: 2,
                resourceName: 't',
                configs: [{ name: 'retention.ms', value: '1000', readOnly: false, configSource: 1, isSensitive: false }],
              },
            ],
          }
        : { responses: [{ errorCode: 0, resourceType: 2, resourceName: 't' }] },
    )
    const described = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 't', configNames: ['retention.ms'] }],
    })
    expect(described.resources[0].configEntries[0]).toMatchObject({ configName: 'retention.ms', configValue: '1000', isDefault: false })
    expect(sent[0].requests.size).toBe(4) // v1-v4
    await admin.alterConfigs({
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: 't',
          configEntries: [
            { name: 'retention.ms', value: '5' },
            { name: 'x', operation: 'DELETE' },
          ],
        },
      ],
    })
    expect(sent[1].requests.get(1).resources[0].configs).toEqual([
      expect.objectContaining({ name: 'retention.ms', configOperation: 0, value: '5' }),
      expect.objectContaining({ name: 'x', configOperation: 1, value: null }),
    ])
  })

  it('listGroups, describeGroups and deleteGroups', async () => {
    const { admin, sent } = scriptedAdmin((api) => {
      if (api.name === 'ListGroups') return { errorCode: 0, groups: [{ groupId: 'g', protocolType: 'consumer', groupState: 'Stable' }] }
      if (api.name === 'DescribeGroups') {
        return {
          groups: [
            {
              errorCode: 0,
              groupId: 'g',
              groupState: 'Stable',
              protocolType: 'consumer',
              protocolData: 'range',
              members: [
                {
                  memberId: 'm1',
                  clientId: 'c',
                  clientHost: '/1.2.3.4',
                  memberMetadata: Buffer.from([1]),
                  memberAssignment: Buffer.from([2]),
                },
              ],
            },
          ],
        }
      }
      return { results: [{ groupId: 'g', errorCode: 0 }] }
    })
    const listed = await admin.listGroups()
    expect(listed.groups).toEqual([
      { groupId: 'g', protocolType: 'consumer', groupState: 'Stable' },
      { groupId: 'g', protocolType: 'consumer', groupState: 'Stable' },
    ]) // one answer per broker: two brokers here
    const { groups } = await admin.describeGroups(['g'])
    expect(groups[0]).toMatchObject({
      groupId: 'g',
      state: 'Stable',
      protocol: 'range',
      members: [{ memberId: 'm1', clientHost: '/1.2.3.4' }],
    })
    expect(await admin.deleteGroups(['g'])).toEqual([{ groupId: 'g', errorCode: 0 }])
    expect(sent.map((s) => [s.api.name, s.route])).toEqual([
      ['ListGroups', Routes.node(1)],
      ['ListGroups', Routes.node(2)],
      ['DescribeGroups', Routes.group('g')],
      ['DeleteGroups', Routes.group('g')],
    ])
  })
})
