// A streams group (KIP-1071) across a restart of the embedded broker on its
// data dir. The broker writes the group as Kafka 4.4's coordinator does, in
// StreamsGroup* records of __consumer_offsets (metadata, topology, members,
// target assignment, current assignments), and loads it back: the member's
// next heartbeat at its epoch is answered NONE at the same epoch (no
// UNKNOWN_MEMBER_ID, no rejoin), StreamsGroupDescribe shows the group as it
// was; Kafka's own DumpLogSegments --offsets-decoder reads every record,
// naming each streams record type. After the group is deleted, its records
// are tombstoned: a restart does not bring it back.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  CreateTopics,
  DeleteGroups,
  FindCoordinator,
  IncrementalAlterConfigs,
  StreamsGroupDescribe,
  StreamsGroupHeartbeat,
} from '../../src/protocol/messages/index.js'
import { requireKafka, runJava } from '../peers/kafka.js'
import { partitionOf } from '../kafka/offsets-topic-records.js'
import { RawClient } from './raw-client.js'

const PARTITIONS = 10
const GROUP = 'restart-app'
type Tasks = Array<{ subtopologyId: string; partitions: number[] }>

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

describe('a streams group across a restart of the embedded broker on its data', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wafka-streams-restart-'))
  let cluster: RunningCluster | undefined
  let client: RawClient | undefined
  afterAll(async () => {
    client?.close()
    await cluster?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const connect = async () => {
    client?.close()
    client = await RawClient.open(cluster!.bootstrapServers)
    for (let i = 0; i < 100; i++) {
      const c = await client.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [GROUP] })
      if (c.coordinators[0].errorCode === ErrorCodes.NONE) return client
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error('no coordinator')
  }
  const beat = (c: RawClient, memberEpoch: number, owned: Tasks) =>
    c.request(StreamsGroupHeartbeat, 1, {
      groupId: GROUP,
      memberId: 'm1',
      memberEpoch,
      endpointInformationEpoch: -1,
      rebalanceTimeoutMs: memberEpoch === 0 ? 60_000 : -1,
      topology:
        memberEpoch === 0
          ? {
              epoch: 0,
              subtopologies: [
                {
                  subtopologyId: '0',
                  sourceTopics: ['in'],
                  sourceTopicRegex: [],
                  stateChangelogTopics: [
                    {
                      name: `${GROUP}-store-changelog`,
                      partitions: 0,
                      replicationFactor: 0,
                      topicConfigs: [{ key: 'cleanup.policy', value: 'compact' }],
                    },
                  ],
                  repartitionSinkTopics: [],
                  repartitionSourceTopics: [],
                  copartitionGroups: [],
                },
              ],
            }
          : null,
      activeTasks: owned,
      standbyTasks: [],
      warmupTasks: [],
      processId: memberEpoch === 0 ? 'process-1' : null,
      userEndpoint: memberEpoch === 0 ? { host: 'localhost', port: 8080 } : null,
      clientTags: memberEpoch === 0 ? [{ key: 'zone', value: 'a' }] : null,
      shutdownApplication: false,
    })
  const describeGroup = async (c: RawClient) => {
    const g = (await c.request(StreamsGroupDescribe, 0, { groupIds: [GROUP], includeAuthorizedOperations: false })).groups[0]
    return { ...g, members: g.members.map((m) => ({ ...m, clientHost: '' })) }
  }

  it('the member heartbeats on at its epoch; the group is described as before; Kafka decodes its records', async () => {
    const port = await freePort()
    const options = { brokers: 1, dataDir, port, config: { 'offsets.topic.num.partitions': String(PARTITIONS) } }
    cluster = await startCluster(options)
    let c = await connect()
    await c.request(CreateTopics, 7, {
      topics: [{ name: 'in', numPartitions: 4, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 30_000,
      validateOnly: false,
    })
    await c.request(IncrementalAlterConfigs, 1, {
      resources: [
        {
          resourceType: 32,
          resourceName: GROUP,
          configs: [{ name: 'streams.initial.rebalance.delay.ms', configOperation: 0, value: '0' }],
        },
      ],
      validateOnly: false,
    })
    let r = await beat(c, 0, [])
    for (let i = 0; i < 40 && (r.activeTasks ?? []).length === 0; i++) {
      await new Promise((res) => setTimeout(res, 100))
      r = await beat(c, r.memberEpoch, [])
    }
    const owned = r.activeTasks!
    expect(owned).toEqual([{ subtopologyId: '0', partitions: [0, 1, 2, 3] }])
    const before = await describeGroup(c)
    expect(before.groupState).toBe('Stable')

    await cluster.stop()
    cluster = await startCluster(options)
    c = await connect()
    // Loaded: all but the topology's configured partition counts, which (as Kafka's) the next heartbeat computes again.
    const loaded = await describeGroup(c)
    expect({ ...loaded, topology: null }).toEqual({ ...before, topology: null })
    expect(loaded.topology?.epoch).toBe(0)
    const after = await beat(c, r.memberEpoch, owned)
    expect([after.errorCode, after.memberEpoch, after.activeTasks]).toEqual([ErrorCodes.NONE, r.memberEpoch, null])
    expect(await describeGroup(c)).toEqual(before)

    if (requireKafka()) {
      const dir = join(dataDir, 'broker-0', `__consumer_offsets-${partitionOf(GROUP, PARTITIONS)}`)
      const files = readdirSync(dir)
        .filter((f) => f.endsWith('.log'))
        .sort()
        .map((f) => join(dir, f))
      const dump = await runJava('org.apache.kafka.tools.DumpLogSegments', [
        '--files',
        files.join(','),
        '--deep-iteration',
        '--print-data-log',
        '--offsets-decoder',
      ])
      expect(dump.code, dump.stderr).toBe(0)
      expect(dump.stdout).not.toMatch(/invalid bytes|corrupt|Error|Exception|unknown/i)
      // Group metadata (17), members (19), target epoch (20) and members' targets (21), current assignments (22), topology (23).
      for (const type of [17, 19, 20, 21, 22, 23])
        expect(dump.stdout, `record type ${type}`).toMatch(
          new RegExp(`key: \\{"type":"${type}","data":\\{"groupId":"${GROUP}".*payload: \\{"version":"0","data":\\{`),
        )
      expect(dump.stdout).toMatch(new RegExp(`"data":\\{"epoch":${before.groupEpoch}[,}]`))
    }

    // Deleted (after it left): tombstones, so a restart does not bring it back.
    expect((await beat(c, -1, [])).errorCode).toBe(ErrorCodes.NONE)
    expect((await c.request(DeleteGroups, 2, { groupsNames: [GROUP] })).results[0].errorCode).toBe(ErrorCodes.NONE)
    await cluster.stop()
    cluster = await startCluster(options)
    c = await connect()
    expect((await describeGroup(c)).errorCode).toBe(ErrorCodes.GROUP_ID_NOT_FOUND)
  }, 120_000)
})
