// Replication throttles, on real Kafka and on the embedded broker with the
// same assertions: Kafka's kafka-reassign-partitions.sh --throttle sets
// leader/follower.replication.throttled.rate on the brokers of a move and
// leader/follower.replication.throttled.replicas on its topic, and the move
// is held to that rate: 2 MB copied to a new replica at 200 KB/s takes
// seconds, where the same move back unthrottled (after --verify removed
// the throttle) is quicker. Nothing is lost either way.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import type { Admin, Kafka } from '../../src/index.js'
import { javaPeer, type JavaPeer, type JavaResult, requireKafka, startKafka } from '../peers/kafka.js'
import { until, wafka, wafkaRead } from './support.js'

const kafkaOk = requireKafka()
const REASSIGN = 'org.apache.kafka.tools.reassign.ReassignPartitionsCommand'
const CONFIGS = 'org.apache.kafka.tools.ConfigCommand'
const RATE = 200_000
const RECORDS = 64
const value = (i: number) => Buffer.alloc(32 * 1024, i % 251)

type Target = Pick<JavaPeer, 'bootstrap' | 'runJava'> & { stop(): Promise<void> }

const targets: Array<[string, () => Promise<Target>]> = [
  [
    'real Kafka',
    async () => {
      const k = await startKafka({ brokers: 3 })
      return { bootstrap: k.bootstrap, runJava: (main, args, o) => k.runJava(main, args, o), stop: () => k.stop() }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 3 })
      return { ...javaPeer(c.bootstrapServers), stop: () => c.stop() }
    },
  ],
]

for (const [target, start] of targets)
  describe.skipIf(!kafkaOk)(`replication throttles on ${target}`, () => {
    let cluster: Target
    let kafka: Kafka
    let admin: Admin
    const dir = mkdtempSync(join(tmpdir(), 'wafka-replication-throttle-'))
    const topic = 'moved'

    beforeAll(async () => {
      cluster = await start()
      kafka = wafka(cluster, { clientId: 'replication-throttle', retryBackoffMs: 100 })
      admin = kafka.admin()
      await admin.connect()
    }, 240_000)
    afterAll(async () => {
      await admin?.disconnect()
      await cluster?.stop()
      rmSync(dir, { recursive: true, force: true })
    })

    const tool = async (main: string, args: string[]): Promise<JavaResult> => {
      const r = await cluster.runJava(main, ['--bootstrap-server', cluster.bootstrap, ...args], { timeoutMs: 90_000 })
      expect(r.code, `${args.join(' ')}:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0)
      return r
    }
    const plan = (name: string, replicas: number[]) => {
      const path = join(dir, name)
      writeFileSync(path, JSON.stringify({ version: 1, partitions: [{ topic, partition: 0, replicas }] }))
      return path
    }
    /** Executes the move to `replicas` (with `extra` arguments) and returns how long it took from then to its end. */
    const move = async (file: string, replicas: number[], extra: string[]): Promise<number> => {
      await tool(REASSIGN, ['--execute', '--reassignment-json-file', file, ...extra])
      const started = Date.now()
      await until(
        `${topic}-0 on ${replicas}`,
        async () => (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0].partitions[0],
        (p: { replicas: number[]; isr: number[] }) =>
          JSON.stringify(p.replicas) === JSON.stringify(replicas) && JSON.stringify([...p.isr].sort()) === JSON.stringify(replicas),
        120_000,
      )
      return Date.now() - started
    }

    it('--throttle holds a 2 MB move to its rate; the same move unthrottled is quicker; nothing is lost', async () => {
      const ids = (await admin.describeCluster()).brokers.map((b) => b.nodeId).sort((a, b) => a - b)
      const [from, to] = ids
      await admin.createTopics({ topics: [{ topic, replicaAssignment: [{ partition: 0, replicas: [from] }] }] })
      const producer = kafka.producer()
      await producer.connect()
      for (let i = 0; i < RECORDS; i += 8)
        await producer.send({ topic, messages: Array.from({ length: 8 }, (_, j) => ({ key: `${i + j}`, value: value(i + j) })) })
      await producer.disconnect()

      const there = plan('there.json', [to])
      const throttled = await move(there, [to], ['--throttle', String(RATE)])
      // --verify reports the move done and removes the throttle: the rates from the brokers, the lists from the topic.
      const verified = (await tool(REASSIGN, ['--verify', '--reassignment-json-file', there])).stdout
      expect(verified).toMatch(new RegExp(`Reassignment of partition ${topic}-0 is completed`))
      expect(verified).toMatch(/Clearing broker-level throttles on brokers? /)
      expect(verified).toMatch(new RegExp(`Clearing topic-level throttles on topics? ${topic}`))
      const described = (await tool(CONFIGS, ['--describe', '--entity-type', 'topics', '--entity-name', topic])).stdout
      expect(described).not.toMatch(/replication\.throttled\.replicas/)

      const back = await move(plan('back.json', [from]), [from], [])
      // 2 MB at 200 KB/s: seconds (the first MB goes at once, then the rate holds the rest back).
      expect(throttled).toBeGreaterThan(2500)
      expect(back).toBeLessThan(throttled)

      const read = await wafkaRead(kafka, topic, RECORDS, { timeoutMs: 30_000 })
      expect(read.map((r) => r.key!.toString())).toEqual(Array.from({ length: RECORDS }, (_, i) => `${i}`))
      expect(read.every((r, i) => r.value!.equals(value(i)))).toBe(true)
    }, 300_000)
  })
