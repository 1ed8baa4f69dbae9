// Kafka's own command-line tools (kafka-tools 4.4.0, run on the rig's JVM)
// against the embedded broker: kafka-topics, the console producer and
// consumer, kafka-consumer-groups, and the producer/consumer perf tools. Each
// checks what the tool printed against what wafka's own admin and consumer see.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Kafka, type Admin } from '../../src/index.js'
import { javaGroupMember, type JavaGroupMember } from '../peers/java-client.js'
import { javaPeer, requireKafka, type JavaPeer, type JavaResult } from '../peers/kafka.js'
import { until } from './support.js'

const TOPICS = 'org.apache.kafka.tools.TopicCommand'
const PRODUCER = 'org.apache.kafka.tools.ConsoleProducer'
const CONSUMER = 'org.apache.kafka.tools.consumer.ConsoleConsumer'
const GROUPS = 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand'
const PRODUCER_PERF = 'org.apache.kafka.tools.ProducerPerformance'
const CONSUMER_PERF = 'org.apache.kafka.tools.ConsumerPerformance'

describe.skipIf(!requireKafka())("Kafka's console and perf tools against the embedded broker", () => {
  let cluster: RunningCluster
  let java: JavaPeer
  let kafka: Kafka
  let admin: Admin
  const members: JavaGroupMember[] = []

  beforeAll(async () => {
    cluster = await startCluster({ brokers: 3 })
    java = javaPeer(cluster.bootstrapServers)
    kafka = new Kafka({ clientId: 'beside-kafka-tools', brokers: cluster.bootstrapServers.split(','), retryBackoffMs: 100 })
    admin = kafka.admin()
    await admin.connect()
  })
  afterAll(async () => {
    await Promise.allSettled(members.map((m) => m.kill()))
    await admin?.disconnect()
    await cluster?.stop()
  })

  /** Runs a tool to its end; fails with its output unless it exits 0. */
  const tool = async (mainClass: string, args: string[], input?: string): Promise<JavaResult> => {
    const r = await java.runJava(mainClass, ['--bootstrap-server', cluster.bootstrapServers, ...args], { input, timeoutMs: 90_000 })
    expect(r.code, `${mainClass} ${args.join(' ')}:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0)
    return r
  }
  const lines = (s: string) => s.split('\n').filter((l) => l.trim() !== '')

  it('kafka-topics: create, list, describe, alter and delete, as wafka sees them', async () => {
    await tool(TOPICS, [
      '--create',
      '--topic',
      'kt-a',
      '--partitions',
      '3',
      '--replication-factor',
      '2',
      '--config',
      'retention.ms=7200000',
    ])
    await tool(TOPICS, ['--create', '--topic', 'kt-b', '--partitions', '1'])
    expect(lines((await tool(TOPICS, ['--list'])).stdout)).toEqual(expect.arrayContaining(['kt-a', 'kt-b']))

    // "Topic: kt-a  Partition: 0  Leader: 1  Replicas: 1,2  Isr: 1,2 ...", one line per partition.
    const described = lines((await tool(TOPICS, ['--describe', '--topic', 'kt-a'])).stdout)
    expect(described[0]).toMatch(/Topic: kt-a\s+TopicId: \S+\s+PartitionCount: 3\s+ReplicationFactor: 2\s+Configs: .*retention\.ms=7200000/)
    const partitions = described
      .filter((l) => /Partition: \d/.test(l))
      .map((l) => {
        const m = /Partition: (\d+)\s+Leader: (-?\d+)\s+Replicas: ([\d,]+)\s+Isr: ([\d,]+)/.exec(l)!
        return [Number(m[1]), Number(m[2]), m[3].split(',').map(Number), m[4].split(',').map(Number).sort()]
      })
    const meta = (await admin.fetchTopicMetadata({ topics: ['kt-a'] })).topics[0].partitions
    expect(partitions).toEqual(
      [...meta].sort((a, b) => a.partitionId - b.partitionId).map((p) => [p.partitionId, p.leader, p.replicas, [...p.isr].sort()]),
    )

    await tool(TOPICS, ['--alter', '--topic', 'kt-a', '--partitions', '5'])
    expect((await admin.fetchTopicMetadata({ topics: ['kt-a'] })).topics[0].partitions).toHaveLength(5)
    // Shrinking is refused; the tool exits non-zero with the broker's reason.
    const shrink = await java.runJava(TOPICS, [
      '--bootstrap-server',
      cluster.bootstrapServers,
      '--alter',
      '--topic',
      'kt-a',
      '--partitions',
      '2',
    ])
    expect(shrink.code).not.toBe(0)
    expect(shrink.stdout + shrink.stderr).toMatch(/currently has 5 partition\(s\); 2 would not be an increase/)

    await tool(TOPICS, ['--delete', '--topic', 'kt-b'])
    expect(await admin.listTopics()).not.toContain('kt-b')
    expect(lines((await tool(TOPICS, ['--list'])).stdout)).not.toContain('kt-b')
  }, 180_000)

  it('the console producer (every codec) writes what wafka reads; the console consumer in a group reads it all; kafka-consumer-groups shows and resets its offsets', async () => {
    const topic = 'kt-console'
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] })
    const sent: Array<[string, string]> = []
    for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) {
      const batch = Array.from(
        { length: 20 },
        (_, i) => [`${codec}-k${i}`, `${codec} value ${i} ${'x'.repeat(i * 10)}`] as [string, string],
      )
      sent.push(...batch)
      await tool(
        PRODUCER,
        [
          '--topic',
          topic,
          '--compression-codec',
          codec,
          '--reader-property',
          'parse.key=true',
          '--reader-property',
          'key.separator=\t',
          '--producer-property',
          'acks=all',
        ],
        batch.map(([k, v]) => `${k}\t${v}`).join('\n') + '\n',
      )
    }

    // What wafka reads back: every record, once, key and value as the tool read them from stdin.
    const got: Array<[string, string]> = []
    const reader = kafka.consumer({ autoOffsetReset: 'earliest', maxWaitTimeInMs: 100 })
    const codecs = new Set<number>()
    await reader.connect()
    try {
      reader.assign([{ topic, partitions: [0, 1, 2] }])
      await reader.run({
        eachMessage: async ({ message }) => {
          codecs.add(message.attributes & 7)
          got.push([message.key!.toString(), message.value!.toString()])
        },
      })
      const deadline = Date.now() + 30_000
      while (got.length < sent.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    } finally {
      await reader.disconnect()
    }
    expect(got.sort()).toEqual([...sent].sort())
    expect([...codecs].sort()).toEqual([0, 1, 2, 3, 4])

    const consumed = await tool(CONSUMER, [
      '--topic',
      topic,
      '--group',
      'kt-console-group',
      '--from-beginning',
      '--max-messages',
      String(sent.length),
      '--timeout-ms',
      '30000',
      '--formatter-property',
      'print.key=true',
      '--formatter-property',
      'key.separator=\t',
    ])
    const printed = lines(consumed.stdout).map((l) => l.split('\t') as [string, string])
    expect(printed.sort()).toEqual([...sent].sort())

    // The group committed everything on close: kafka-consumer-groups' table matches wafka's admin.
    const list = await tool(GROUPS, ['--list'])
    expect(lines(list.stdout)).toContain('kt-console-group')
    const ends = await admin.fetchTopicOffsets(topic)
    const committed = (await admin.fetchOffsets({ groupId: 'kt-console-group', topics: [topic] }))[0].partitions
    expect(committed.map((p) => [p.partition, p.offset]).sort()).toEqual(ends.map((e) => [e.partition, e.high]).sort())
    const table = lines((await tool(GROUPS, ['--describe', '--group', 'kt-console-group'])).stdout)
    // GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID
    const rows = table
      .map((l) => l.trim().split(/\s+/))
      .filter((c) => c[0] === 'kt-console-group' && c[1] === topic)
      .map((c) => [Number(c[2]), c[3], c[4], c[5]])
      .sort()
    expect(rows).toEqual(ends.map((e) => [e.partition, e.high, e.high, '0']).sort())

    const reset = await tool(GROUPS, ['--reset-offsets', '--group', 'kt-console-group', '--topic', topic, '--to-earliest', '--execute'])
    expect(lines(reset.stdout).filter((l) => l.trim().startsWith('kt-console-group')).length).toBe(3)
    const afterReset = (await admin.fetchOffsets({ groupId: 'kt-console-group', topics: [topic] }))[0].partitions
    expect(afterReset.map((p) => p.offset)).toEqual(['0', '0', '0'])

    await tool(GROUPS, ['--delete', '--group', 'kt-console-group'])
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain('kt-console-group')
  }, 240_000)

  it("kafka-consumer-groups describes a KIP-848 group's state and members as wafka's admin does", async () => {
    const topic = 'kt-kip848'
    const group = 'kt-kip848-group'
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }] })
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
    const [w] = (await admin.describeGroups([group])).groups
    // GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS
    const state = lines((await tool(GROUPS, ['--describe', '--group', group, '--state'])).stdout)
      .map((l) => l.trim().split(/\s+/))
      .filter((c) => c[0] === group)
    expect(state.map((c) => c.slice(-3))).toEqual([[w.protocol, 'Stable', '2']])
    // GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS (and more columns for KIP-848 groups)
    const table = lines((await tool(GROUPS, ['--describe', '--group', group, '--members'])).stdout).map((l) => l.trim().split(/\s+/))
    const header = table.find((c) => c[0] === 'GROUP')!
    const rows = table.filter((c) => c[0] === group)
    const col = (name: string) => header.indexOf(name)
    expect(rows.map((c) => [c[col('CONSUMER-ID')], c[col('CLIENT-ID')], Number(c[col('#PARTITIONS')])]).sort()).toEqual(
      w.members.map((m) => [m.memberId, m.clientId, m.assignment!.reduce((n, t) => n + t.partitions.length, 0)]).sort(),
    )
  }, 120_000)

  it('kafka-transactions lists and describes an open transaction as its coordinator holds it; kafka-log-dirs shows each replica and its size', async () => {
    const TRANSACTIONS = 'org.apache.kafka.tools.TransactionsCommand'
    const LOG_DIRS = 'org.apache.kafka.tools.LogDirsCommand'
    await admin.createTopics({ topics: [{ topic: 'tx-tools', numPartitions: 2, replicationFactor: 3 }] })
    const producer = kafka.producer({ transactionalId: 'tools-tx' })
    await producer.connect()
    try {
      const t = await producer.transaction()
      await t.send({ topic: 'tx-tools', messages: [{ key: 'k', value: 'v', partition: 1 }] })
      const listed = lines((await tool(TRANSACTIONS, ['list'])).stdout).map((l) => l.trim().split(/\s+/))
      expect(listed[0]).toEqual(['TransactionalId', 'Coordinator', 'ProducerId', 'TransactionState'])
      const row = listed.find((r) => r[0] === 'tools-tx')!
      expect(row[3]).toBe('Ongoing')
      const described = lines((await tool(TRANSACTIONS, ['describe', '--transactional-id', 'tools-tx'])).stdout).map((l) =>
        l.trim().split(/\s+/),
      )
      const header = described[0]
      const values = described[1]
      const field = (name: string) => values[header.indexOf(name)]
      expect(field('TransactionalId')).toBe('tools-tx')
      expect(field('CoordinatorId')).toBe(row[1])
      expect(field('ProducerId')).toBe(row[2])
      expect(field('TransactionState')).toBe('Ongoing')
      expect(Number(field('CurrentTransactionStartTimeMs'))).toBeGreaterThan(Date.now() - 120_000)
      expect(described[1].join(' ')).toContain('tx-tools-1')
      // describe-producers asks the partition's leader: the transactional producer, its open transaction's first offset.
      const producers = lines((await tool(TRANSACTIONS, ['describe-producers', '--topic', 'tx-tools', '--partition', '1'])).stdout).map(
        (l) => l.trim().split(/\s+/),
      )
      const ph = producers[0]
      const pv = producers.find((r) => r[ph.indexOf('ProducerId')] === row[2])!
      expect(pv, producers.join('\n')).toBeDefined()
      expect(pv[ph.indexOf('ProducerEpoch')]).toBe(field('ProducerEpoch'))
      expect(pv[ph.indexOf('LatestCoordinatorEpoch')]).toBe('-1')
      expect(pv[ph.indexOf('LastSequence')]).toBe('0')
      expect(pv[ph.indexOf('CurrentTransactionStartOffset')]).toBe('0')
      await t.commit()
      const after = lines((await tool(TRANSACTIONS, ['list', '--transactional-id-pattern', 'tools-.*'])).stdout).map((l) =>
        l.trim().split(/\s+/),
      )
      // The pattern (ListTransactions v2) keeps only ids it matches.
      expect(after.slice(1).map((r) => [r[0], r[3]])).toEqual([['tools-tx', 'CompleteCommit']])
    } finally {
      await producer.disconnect()
    }
    const out = (await tool(LOG_DIRS, ['--describe', '--topic-list', 'tx-tools'])).stdout
    const report = JSON.parse(lines(out).find((l) => l.startsWith('{'))!) as {
      brokers: {
        broker: number
        logDirs: { logDir: string; error: string | null; partitions: { partition: string; size: number; offsetLag: number }[] }[]
      }[]
    }
    expect(report.brokers.map((b) => b.broker).sort()).toEqual([0, 1, 2])
    for (const b of report.brokers) {
      expect(b.logDirs).toHaveLength(1)
      expect(b.logDirs[0].logDir).toBe(`memory:broker-${b.broker}`)
      const sizes = Object.fromEntries(b.logDirs[0].partitions.map((p) => [p.partition, p.size]))
      // RF 3: every broker holds both partitions; partition 1 has the record and the commit marker.
      expect(Object.keys(sizes).sort()).toEqual(['tx-tools-0', 'tx-tools-1'])
      expect(sizes['tx-tools-0']).toBe(0)
    }
    await until(
      async () => {
        const again = JSON.parse(
          lines((await tool(LOG_DIRS, ['--describe', '--topic-list', 'tx-tools'])).stdout).find((l) => l.startsWith('{'))!,
        )
        return again.brokers.every(
          (b: (typeof report.brokers)[number]) => b.logDirs[0].partitions.find((p) => p.partition === 'tx-tools-1')!.size > 0,
        )
      },
      60_000,
      () => 'tx-tools-1 holds data on every replica',
    )
  })

  it('ProducerPerformance writes every record it reports; ConsumerPerformance reads them all back', async () => {
    const topic = 'kt-perf'
    const records = 20_000
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] })
    const produced = await java.runJava(
      PRODUCER_PERF,
      [
        '--topic',
        topic,
        '--num-records',
        String(records),
        '--record-size',
        '100',
        '--throughput',
        '-1',
        '--command-property',
        `bootstrap.servers=${cluster.bootstrapServers}`,
        'acks=all',
        'compression.type=lz4',
        'linger.ms=5',
      ],
      { timeoutMs: 120_000 },
    )
    expect(produced.code, produced.stderr.slice(-3000)).toBe(0)
    // The summary line: "20000 records sent, ... records/sec (... MB/sec), ... ms avg latency, ...".
    expect(lines(produced.stdout).at(-1)).toMatch(new RegExp(`^${records} records sent, `))
    const ends = await admin.fetchTopicOffsets(topic)
    expect(ends.reduce((n, e) => n + Number(e.high), 0)).toBe(records)

    const consumed = await tool(CONSUMER_PERF, ['--topic', topic, '--num-records', String(records), '--timeout', '60000'])
    // Header, then: start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, ...
    const [header, row] = lines(consumed.stdout).slice(-2)
    const columns = header.split(',').map((s) => s.trim())
    const values = row.split(',').map((s) => s.trim())
    const at = (name: string) => values[columns.indexOf(name)]
    expect(Number(at('data.consumed.in.nMsg'))).toBe(records)
    expect(Number(at('data.consumed.in.MB'))).toBeCloseTo((records * 100) / (1024 * 1024), 3)
  }, 240_000)
})
