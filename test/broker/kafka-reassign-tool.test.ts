// Kafka's kafka-reassign-partitions.sh (ReassignPartitionsCommand,
// kafka-tools 4.4.0 on the rig's JVM) against the embedded broker (issue
// 23): --generate proposes a move onto brokers 1 and 2, --execute moves a
// partition of a 3-broker cluster from [0, 1] to [1, 2] while records are
// produced, --verify reports it completed, and every record produced
// before and during the move is read back from its new leader.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Kafka, type Admin } from '../../src/index.js'
import { javaPeer, requireKafka, type JavaPeer, type JavaResult } from '../peers/kafka.js'
import { wafkaRead } from '../kafka/support.js'
import { until } from './support.js'

const REASSIGN = 'org.apache.kafka.tools.reassign.ReassignPartitionsCommand'

describe.skipIf(!requireKafka())('kafka-reassign-partitions against the embedded broker', () => {
  let cluster: RunningCluster
  let java: JavaPeer
  let kafka: Kafka
  let admin: Admin
  const dir = mkdtempSync(join(tmpdir(), 'wafka-reassign-tool-'))

  beforeAll(async () => {
    cluster = await startCluster({ brokers: 3 })
    java = javaPeer(cluster.bootstrapServers)
    kafka = new Kafka({ clientId: 'beside-reassign', brokers: cluster.bootstrapServers.split(','), retryBackoffMs: 100 })
    admin = kafka.admin()
    await admin.connect()
  })
  afterAll(async () => {
    await admin?.disconnect()
    await cluster?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  const tool = async (args: string[]): Promise<JavaResult> => {
    const r = await java.runJava(REASSIGN, ['--bootstrap-server', cluster.bootstrapServers, ...args], { timeoutMs: 90_000 })
    expect(r.code, `${args.join(' ')}:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0)
    return r
  }
  const file = (name: string, value: unknown) => {
    const path = join(dir, name)
    writeFileSync(path, JSON.stringify(value))
    return path
  }
  const replicasOf = async (topic: string) =>
    (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0].partitions.map(
      (p: { leader: number; replicas: number[]; isr: number[] }) => ({
        leader: p.leader,
        replicas: p.replicas,
        isr: [...p.isr].sort(),
      }),
    )

  it('--generate, --execute and --verify move kr-0 from [0, 1] to [1, 2]; the records produced before and during are all read back', async () => {
    await admin.createTopics({ topics: [{ topic: 'kr', replicaAssignment: [{ partition: 0, replicas: [0, 1] }] }] })
    const producer = kafka.producer()
    await producer.connect()
    let sent = 0
    const send = async (n: number) => {
      await producer.send({ topic: 'kr', acks: -1, messages: Array.from({ length: n }, () => ({ value: String(sent++) })) })
    }
    await send(200)

    // --generate: the current assignment, and a proposal using only brokers 1 and 2.
    const generated = (
      await tool([
        '--generate',
        '--topics-to-move-json-file',
        file('topics.json', { version: 1, topics: [{ topic: 'kr' }] }),
        '--broker-list',
        '1,2',
      ])
    ).stdout
    const [, current, proposed] =
      /Current partition replica assignment\s*(\{.*\})\s*Proposed partition reassignment configuration\s*(\{.*\})/s.exec(generated)!
    // (Its log_dirs are the brokers' own, from DescribeLogDirs.)
    expect(
      JSON.parse(current).partitions.map((p: { topic: string; partition: number; replicas: number[] }) => [
        p.topic,
        p.partition,
        p.replicas,
      ]),
    ).toEqual([['kr', 0, [0, 1]]])
    const proposal = JSON.parse(proposed).partitions
    expect(proposal.map((p: { replicas: number[] }) => [...p.replicas].sort())).toEqual([[1, 2]])

    // --execute [1, 2] while a producer keeps writing.
    let producing = true
    const pump = (async () => {
      while (producing) await send(10)
    })()
    const plan = file('plan.json', { version: 1, partitions: [{ topic: 'kr', partition: 0, replicas: [1, 2] }] })
    const executed = (await tool(['--execute', '--reassignment-json-file', plan])).stdout
    expect(executed).toMatch(/Successfully started partition reassignment.* for kr-0/)
    let verified = ''
    await until(
      async () =>
        /Reassignment of partition kr-0 is completed/.test(
          (verified = (await tool(['--verify', '--reassignment-json-file', plan])).stdout),
        ),
      60_000,
      () => verified,
    )
    producing = false
    await pump
    await send(20)
    await producer.disconnect()
    expect(await replicasOf('kr')).toEqual([{ leader: 1, replicas: [1, 2], isr: [1, 2] }])
    expect(await admin.listPartitionReassignments()).toEqual([])
    const back = await wafkaRead(kafka, 'kr', sent, { timeoutMs: 30_000 })
    expect(back.map((r) => Number(r.value!.toString()))).toEqual(Array.from({ length: sent }, (_, i) => i))
  }, 240_000)
})
