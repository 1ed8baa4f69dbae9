// The Java client (kafka-clients 4.4) beyond produce and consume, against the
// embedded broker: its AdminClient (topics, the cluster, consumer groups,
// deleteRecords) and its transactional producer (commit and abort, read back
// read_committed), each answer checked against what wafka's own admin and
// consumer see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { decodeAssignment } from '../../src/consumer/assignors/subscription.js'
import { Kafka, type Admin, type Consumer } from '../../src/index.js'
import { javaAdmin } from '../peers/java-admin.js'
import { javaConsume, javaGroupMember, type JavaGroupMember } from '../peers/java-client.js'
import { javaTransactions } from '../peers/java-txn.js'
import { javaPeer, requireKafka, type JavaPeer } from '../peers/kafka.js'
import { until } from './support.js'

describe.skipIf(!requireKafka())('the Java client: AdminClient and transactions against the embedded broker', () => {
  let cluster: RunningCluster
  let java: JavaPeer
  let kafka: Kafka
  let admin: Admin
  const consumers: Consumer[] = []
  const members: JavaGroupMember[] = []

  beforeAll(async () => {
    cluster = await startCluster({ brokers: 3 })
    java = javaPeer(cluster.bootstrapServers)
    kafka = new Kafka({ clientId: 'beside-java-admin', brokers: cluster.bootstrapServers.split(','), retryBackoffMs: 100 })
    admin = kafka.admin()
    await admin.connect()
  })
  afterAll(async () => {
    await Promise.allSettled([...consumers.map((c) => c.disconnect()), ...members.map((m) => m.kill())])
    await admin?.disconnect()
    await cluster?.stop()
  })

  it('topics and the cluster: create, list, describe, delete, as wafka sees them; the errors Java names', async () => {
    const [cluster1, created, again, listed, described, unknown, deleted, afterDelete] = await javaAdmin(java, [
      { op: 'describeCluster' },
      {
        op: 'createTopics',
        topics: [
          { name: 'ja-three', partitions: 3, replicationFactor: 2, configs: { 'retention.ms': '3600000' } },
          { name: 'ja-doomed', partitions: 1 },
        ],
      },
      { op: 'createTopics', topics: [{ name: 'ja-three', partitions: 3 }] },
      { op: 'listTopics' },
      { op: 'describeTopics', topics: ['ja-three'] },
      { op: 'describeTopics', topics: ['ja-never'] },
      { op: 'deleteTopics', topics: ['ja-doomed'] },
      { op: 'listTopics' },
    ])
    expect(cluster1.clusterId).toBe(cluster.clusterId)
    expect(cluster1.nodes.map((n: any) => [n.id, n.host, n.port]).sort()).toEqual(
      cluster.brokers.map((b) => [b.id, '127.0.0.1', b.port]).sort(),
    )
    expect((await admin.describeCluster()).controller).toBe(cluster1.controller)

    expect(created).toEqual({})
    expect(again.error).toBe('TopicExistsException')
    expect(listed.topics).toEqual(expect.arrayContaining(['ja-doomed', 'ja-three']))
    expect(unknown.error).toBe('UnknownTopicOrPartitionException')

    // Java's description of each partition is the one wafka's Metadata gives.
    const meta = (await admin.fetchTopicMetadata({ topics: ['ja-three'] })).topics[0].partitions
    expect(described.error, JSON.stringify(described)).toBeUndefined()
    expect(described.topics.map((t: any) => t.name)).toEqual(['ja-three'])
    expect(described.topics[0].partitions.map((p: any) => [p.partition, p.leader, p.replicas, [...p.isr].sort()])).toEqual(
      [...meta].sort((a, b) => a.partitionId - b.partitionId).map((p) => [p.partitionId, p.leader, p.replicas, [...p.isr].sort()]),
    )
    expect(described.topics[0].partitions.every((p: any) => p.replicas.length === 2)).toBe(true)
    const { resources } = await admin.describeConfigs({ resources: [{ type: 2, name: 'ja-three', configNames: ['retention.ms'] }] })
    expect(resources[0].configEntries.map((c) => c.configValue)).toEqual(['3600000'])

    expect(deleted).toEqual({})
    expect(afterDelete.topics).not.toContain('ja-doomed')
    expect(await admin.listTopics()).not.toContain('ja-doomed')
    expect(afterDelete.topics.filter((t: string) => t.startsWith('ja-'))).toEqual(
      (await admin.listTopics()).filter((t) => t.startsWith('ja-')).sort(),
    )
  })

  it("issue 31's admin APIs on a SASL cluster: createPartitions with assignments, group configs, SCRAM users Java makes (wafka authenticates as one)", async () => {
    const secured = await startCluster({
      brokers: 3,
      sasl: { users: { root: 'root-secret' } },
      topics: [{ name: 'ja-grow', partitions: 1, replicationFactor: 2 }],
    })
    try {
      const props = {
        'security.protocol': 'SASL_PLAINTEXT',
        'sasl.mechanism': 'SCRAM-SHA-512',
        'sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required username="root" password="root-secret";',
      }
      const [grown, badly, group, upserted, described, deletedSha256] = await javaAdmin(
        javaPeer(secured.bootstrapServers),
        [
          {
            op: 'createPartitions',
            topic: 'ja-grow',
            count: 3,
            assignments: [
              [2, 0],
              [1, 2],
            ],
          },
          { op: 'createPartitions', topic: 'ja-grow', count: 4, assignments: [[0, 9]] },
          { op: 'describeConfigs', type: 'GROUP', name: 'ja-group' },
          { op: 'upsertScram', user: 'jane', mechanism: 'SCRAM-SHA-512', password: 'jane-secret', iterations: 8192 },
          { op: 'describeScram' },
          { op: 'deleteScram', user: 'root', mechanism: 'SCRAM-SHA-256' },
        ],
        props,
      )
      expect(grown).toEqual({})
      expect(badly.error).toBe('InvalidReplicaAssignmentException')
      expect(group.configs).toMatchObject({ 'consumer.session.timeout.ms': '45000', 'consumer.heartbeat.interval.ms': '5000' })
      expect(upserted).toEqual({})
      expect(described.users).toEqual({
        jane: [['SCRAM-SHA-512', 8192]],
        root: [
          ['SCRAM-SHA-256', 4096],
          ['SCRAM-SHA-512', 4096],
        ],
      })
      expect(deletedSha256).toEqual({})
      // jane's credential, salted by Java's client, lets wafka's client in; the partitions are where Java asked.
      const jane = new Kafka({
        clientId: 'jane',
        brokers: secured.bootstrapServers.split(','),
        sasl: { mechanism: 'scram-sha-512', username: 'jane', password: 'jane-secret' },
        logLevel: 0,
      }).admin()
      await jane.connect()
      try {
        const partitions = (await jane.fetchTopicMetadata({ topics: ['ja-grow'] })).topics[0].partitions
        expect([...partitions].sort((a, b) => a.partitionId - b.partitionId).map((p) => p.replicas)).toEqual([
          expect.any(Array),
          [2, 0],
          [1, 2],
        ])
        expect(await jane.describeUserScramCredentials({ users: ['root'] })).toEqual([
          { user: 'root', credentials: [{ mechanism: 'SCRAM-SHA-512', iterations: 4096 }] },
        ])
      } finally {
        await jane.disconnect()
      }
    } finally {
      await secured.stop()
    }
  })

  it("deleteRecords moves the log start wafka's admin sees; listOffsets agrees; past the end is refused", async () => {
    await admin.createTopics({ topics: [{ topic: 'ja-records', numPartitions: 2 }] })
    const producer = kafka.producer()
    await producer.connect()
    try {
      await producer.send({ topic: 'ja-records', messages: Array.from({ length: 10 }, (_, i) => ({ value: `r${i}`, partition: 0 })) })
    } finally {
      await producer.disconnect()
    }
    const [low, earliest, latest, beyond] = await javaAdmin(java, [
      { op: 'deleteRecords', topic: 'ja-records', partition: 0, offset: 4 },
      { op: 'listOffsets', topic: 'ja-records', partition: 0, spec: 'earliest' },
      { op: 'listOffsets', topic: 'ja-records', partition: 0, spec: 'latest' },
      { op: 'deleteRecords', topic: 'ja-records', partition: 1, offset: 5 },
    ])
    expect(low).toEqual({ lowWatermark: 4 })
    expect([earliest.offset, latest.offset]).toEqual([4, 10])
    expect(beyond.error).toBe('OffsetOutOfRangeException')
    const offsets = await admin.fetchTopicOffsets('ja-records')
    expect(offsets.map((o) => [o.partition, o.low, o.high])).toEqual([
      [0, '4', '10'],
      [1, '0', '0'],
    ])
  })

  it("consumer groups: Java's list, describe and committed offsets of a wafka group and a Java group match wafka's admin", async () => {
    const topic = 'ja-grouped'
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] })
    const producer = kafka.producer()
    await producer.connect()
    try {
      await producer.send({ topic, messages: Array.from({ length: 40 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) })
    } finally {
      await producer.disconnect()
    }
    const consumer = kafka.consumer({ groupId: 'ja-wafka-group', maxWaitTimeInMs: 200 })
    consumers.push(consumer)
    let read = 0
    await consumer.connect()
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    await consumer.run({ eachMessage: async () => void read++ })
    const member = javaGroupMember(java, 'ja-java-group', topic, {
      props: { 'group.protocol': 'classic', 'auto.offset.reset': 'earliest' },
    })
    members.push(member)
    await until(
      () => read >= 40 && member.records().length >= 40,
      60_000,
      () => `wafka read ${read}, Java ${member.records().length} of 40`,
    )
    await member.waitFor((e) => e.event === 'committed')
    const groups = ['ja-java-group', 'ja-wafka-group']
    // wafka commits on its interval: wait (bounded) until both groups have committed everything.
    for (const g of groups)
      await until(
        async () =>
          (await admin.fetchOffsets({ groupId: g, topics: [topic] }))[0].partitions.reduce((n, p) => n + Number(p.offset), 0) === 40,
        30_000,
        () => `${g} committing all 40`,
      )

    const [list, describe, ...offsets] = await javaAdmin(java, [
      { op: 'listConsumerGroups' },
      { op: 'describeConsumerGroups', groups },
      ...groups.map((group) => ({ op: 'listConsumerGroupOffsets' as const, group })),
    ])
    const byWafka = await admin.listGroups()
    expect(list.groups.filter((g: any) => g.groupId.startsWith('ja-')).map((g: any) => g.groupId)).toEqual(groups)
    expect(
      byWafka.groups
        .filter((g) => g.groupId.startsWith('ja-'))
        .map((g) => g.groupId)
        .sort(),
    ).toEqual(groups)
    expect(list.groups.filter((g: any) => g.groupId.startsWith('ja-')).map((g: any) => g.state)).toEqual(['Stable', 'Stable'])

    const wafkaDescribed = (await admin.describeGroups(groups)).groups
    for (const [i, g] of describe.groups.entries()) {
      const w = wafkaDescribed.find((x) => x.groupId === g.groupId)!
      expect([g.groupId, g.state, g.type]).toEqual([groups[i], w.state, 'Classic'])
      expect(g.assignor).toBe(w.protocol)
      expect(g.members.map((m: any) => m.clientId)).toEqual(w.members.map((m) => m.clientId))
      // One member each, owning all four partitions, as wafka decodes the assignment too.
      expect(g.members[0].assignment).toEqual([0, 1, 2, 3].map((p) => [topic, p]))
      expect(
        decodeAssignment(w.members[0].memberAssignment).partitions.map((t) => ({ topic: t.topic, partitions: [...t.partitions].sort() })),
      ).toEqual([{ topic, partitions: [0, 1, 2, 3] }])
    }
    for (const [i, o] of offsets.entries()) {
      const w = (await admin.fetchOffsets({ groupId: groups[i], topics: [topic] }))[0].partitions
      expect(o.offsets).toEqual([...w].sort((a, b) => a.partition - b.partition).map((p) => [topic, p.partition, Number(p.offset)]))
    }
  }, 120_000)

  it("a KIP-848 group of two Java members: Java's describeConsumerGroups (ConsumerGroupDescribe) matches wafka's admin", async () => {
    const topic = 'ja-kip848'
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] })
    const group = 'ja-kip848-group'
    for (let i = 0; i < 2; i++) members.push(javaGroupMember(java, group, topic, { props: { 'group.protocol': 'consumer' } }))
    await until(
      async () => {
        // GROUP_ID_NOT_FOUND until the first member's heartbeat made it.
        const g = (await admin.describeGroups([group]).catch(() => null))?.groups[0]
        return g?.state === 'Stable' && g.members.length === 2 && g.members.every((m) => (m.assignment ?? []).length > 0)
      },
      60_000,
      () => 'a stable KIP-848 group of two',
    )
    const [list, described] = await javaAdmin(java, [{ op: 'listConsumerGroups' }, { op: 'describeConsumerGroups', groups: [group] }])
    expect(list.groups.find((g: any) => g.groupId === group)).toEqual({ groupId: group, state: 'Stable', type: 'Consumer' })
    const [w] = (await admin.describeGroups([group])).groups
    const [g] = described.groups
    expect([g.groupId, g.state, g.type, g.assignor]).toEqual([group, 'Stable', 'Consumer', w.protocol])
    const byClient = (ms: Array<{ clientId: string; assignment: Array<[string, number]> }>) =>
      ms.map((m) => [m.clientId, m.assignment.map(([, p]) => p)]).sort()
    expect(byClient(g.members)).toEqual(
      byClient(
        w.members.map((m) => ({
          clientId: m.clientId,
          assignment: m.assignment!.flatMap((t) => t.partitions.map((p) => [t.topic, p] as [string, number])),
        })),
      ),
    )
    // Between them, every partition once.
    expect(g.members.flatMap((m: any) => m.assignment.map(([, p]: [string, number]) => p)).sort()).toEqual([0, 1, 2, 3])
  }, 120_000)

  it('the transactional producer: committed records are read, aborted ones are not (Java and wafka, read_committed)', async () => {
    const topic = 'ja-txn'
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] })
    const send = (value: string, partition: number) => ({ op: 'send' as const, key: value, value, partition })
    const answers = await javaTransactions(java, topic, 'ja-tx', [
      { op: 'begin' },
      send('c1', 0),
      send('c2', 1),
      send('c3', 0),
      { op: 'commit' },
      { op: 'begin' },
      send('a1', 0),
      send('a2', 1),
      { op: 'abort' },
      { op: 'begin' },
      send('c4', 1),
      { op: 'commit' },
    ])
    expect(answers.filter((a) => 'error' in a)).toEqual([])

    const committed = ['c1', 'c2', 'c3', 'c4']
    const values = (rs: Array<{ value: Buffer | null }>) => rs.map((r) => r.value!.toString()).sort()
    const byJava = await javaConsume(java, topic, { props: { 'isolation.level': 'read_committed' }, timeoutMs: 20_000 })
    expect(values(byJava)).toEqual(committed)
    const uncommitted = await javaConsume(java, topic, { props: { 'isolation.level': 'read_uncommitted' }, timeoutMs: 20_000 })
    expect(values(uncommitted)).toEqual(['a1', 'a2', ...committed].sort())

    const high = (await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, o.high])
    // Partition 0: c1 c3 commit a1 abort (5); partition 1: c2 commit a2 abort c4 commit (6).
    expect(high).toEqual([
      [0, '5'],
      [1, '6'],
    ])

    const got: string[] = []
    const reader = kafka.consumer({ groupId: 'ja-txn-reader', isolationLevel: 'read_committed', maxWaitTimeInMs: 200 })
    consumers.push(reader)
    await reader.connect()
    await reader.subscribe({ topics: [topic], fromBeginning: true })
    await reader.run({ eachMessage: async ({ message }) => void got.push(message.value!.toString()) })
    await until(
      () => got.length >= committed.length,
      30_000,
      () => `wafka read ${got.length} of ${committed.length}`,
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(got.sort()).toEqual(committed)
  }, 120_000)
})
