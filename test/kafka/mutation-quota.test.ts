// Controller mutation quotas (KIP-599), on real Kafka and on the embedded
// broker with the same assertions: with controller_mutation_rate set for a
// client id (by Kafka's own kafka-configs, on both), CreateTopics,
// CreatePartitions and DeleteTopics spend the partitions they mutate from a
// token bucket of rate × controller.quota.window.num × window seconds. At the
// versions that know THROTTLING_QUOTA_EXCEEDED (CreateTopics v6+,
// CreatePartitions v3+, DeleteTopics v5+) the quota is strict: a topic is let
// through whole while the bucket is not below zero, refused with that error
// while it is; older versions are let through and throttled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import * as M from '../../src/protocol/messages/index.js'
import { javaPeer, type JavaPeer, requireKafka, startKafka } from '../peers/kafka.js'
import { RawClient } from '../broker/raw-client.js'
import { sleep, until } from './support.js'

const kafkaOk = requireKafka()
const CONFIGS = 'org.apache.kafka.tools.ConfigCommand'
// A burst of 2 s of the rate: 20 partitions at 10 a second.
const WINDOWS = { 'controller.quota.window.num': '2', 'controller.quota.window.size.seconds': '1' }
const RATE = 10
/** The raw client's client id, the one the quota is for. */
const CLIENT = 'raw'

type Target = Pick<JavaPeer, 'bootstrap' | 'runJava'> & { stop(): Promise<void> }

const targets: Array<[string, () => Promise<Target>]> = [
  [
    'real Kafka',
    async () => {
      const k = await startKafka({ config: WINDOWS })
      return { bootstrap: k.bootstrap, runJava: (main, args, o) => k.runJava(main, args, o), stop: () => k.stop() }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 1, config: WINDOWS })
      return { ...javaPeer(c.bootstrapServers), stop: () => c.stop() }
    },
  ],
]

for (const [target, start] of targets)
  describe.skipIf(!kafkaOk)(`controller_mutation_rate on ${target} (KIP-599)`, () => {
    let cluster: Target
    const raws: RawClient[] = []
    /** A new connection: the last one may be muted for its throttle. */
    const open = async () => {
      const raw = await RawClient.open(cluster.bootstrap)
      raws.push(raw)
      return raw
    }
    const create = (raw: RawClient, version: number, topics: Array<[string, number]>) =>
      raw.request(M.CreateTopics, version, {
        topics: topics.map(([name, numPartitions]) => ({ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] })),
        timeoutMs: 30_000,
        validateOnly: false,
      })
    /** Waits, with backoff, until the bucket is not below zero: a strict CreateTopics of `name` goes through. */
    const createOnceRefilled = (name: string) =>
      until(
        `${name} created once the bucket refills`,
        async () => {
          const raw = await open()
          const res = await create(raw, 7, [[name, 1]])
          raw.close()
          if (res.topics[0].errorCode === ErrorCodes.THROTTLING_QUOTA_EXCEEDED) await sleep(Math.max(100, res.throttleTimeMs))
          return res.topics[0].errorCode
        },
        (code) => code === ErrorCodes.NONE,
        30_000,
      )

    beforeAll(async () => {
      cluster = await start()
      const args = ['--bootstrap-server', cluster.bootstrap, '--entity-type', 'clients', '--entity-name', CLIENT]
      const set = await cluster.runJava(CONFIGS, [...args, '--alter', '--add-config', `controller_mutation_rate=${RATE}`], {
        timeoutMs: 60_000,
      })
      expect(set.code, set.stderr).toBe(0)
      await until(
        'controller_mutation_rate described',
        async () => (await cluster.runJava(CONFIGS, [...args, '--describe'], { timeoutMs: 60_000 })).stdout,
        (out) => out.includes('controller_mutation_rate'),
      )
    }, 240_000)
    afterAll(async () => {
      for (const r of raws) r.close()
      await cluster?.stop()
    })

    it('strict CreateTopics (v6+) lets a topic through whole while the bucket is not below zero, then refuses the next', async () => {
      const raw = await open()
      // 30 partitions from a bucket of 20: let through, 10 in debt; the next topic is refused.
      const res = await create(raw, 7, [
        ['mq-big', 30],
        ['mq-next', 1],
      ])
      const byName = new Map(res.topics.map((t) => [t.name, t]))
      expect(byName.get('mq-big')!.errorCode).toBe(ErrorCodes.NONE)
      expect(byName.get('mq-big')!.numPartitions).toBe(30)
      expect(byName.get('mq-next')!.errorCode).toBe(ErrorCodes.THROTTLING_QUOTA_EXCEEDED)
      // Kafka's ApiError tells no message that is the error's own.
      expect(byName.get('mq-next')!.errorMessage).toBeNull()
      // 10 partitions of debt at 10 a second: about a second's throttle.
      expect(res.throttleTimeMs).toBeGreaterThan(0)
      expect(res.throttleTimeMs).toBeLessThanOrEqual(1000)

      // Still in debt: a strict CreatePartitions (v3) and DeleteTopics (v5) are refused too, on a connection not muted.
      const other = await open()
      const grow = await other.request(M.CreatePartitions, 3, {
        topics: [{ name: 'mq-big', count: 31, assignments: null }],
        timeoutMs: 30_000,
        validateOnly: false,
      })
      expect(grow.results[0].errorCode).toBe(ErrorCodes.THROTTLING_QUOTA_EXCEEDED)
      expect(grow.results[0].errorMessage).toBeNull()
      expect(grow.throttleTimeMs).toBeGreaterThan(0)
      const third = await open()
      const del = await third.request(M.DeleteTopics, 5, { topicNames: ['mq-big'], timeoutMs: 30_000 })
      expect(del.responses[0].errorCode).toBe(ErrorCodes.THROTTLING_QUOTA_EXCEEDED)
      expect(del.responses[0].errorMessage).toBeNull()
      expect(del.throttleTimeMs).toBeGreaterThan(0)

      // A token bucket comes back once its debt is paid (not after a whole window of samples).
      await createOnceRefilled('mq-next')
    })

    it('older versions are let through over the quota and throttled instead', async () => {
      // Put the bucket in debt: 25 partitions from at most 20.
      await createOnceRefilled('mq-fill')
      const raw = await open()
      const fill = await create(raw, 7, [['mq-debt', 25]])
      expect(fill.topics[0].errorCode).toBe(ErrorCodes.NONE)

      // CreateTopics v5, CreatePartitions v2, DeleteTopics v4: no THROTTLING_QUOTA_EXCEEDED, each done and throttled.
      const created = await create(await open(), 5, [['mq-old', 2]])
      expect(created.topics[0].errorCode).toBe(ErrorCodes.NONE)
      expect(created.throttleTimeMs).toBeGreaterThan(0)
      const grown = await (
        await open()
      ).request(M.CreatePartitions, 2, {
        topics: [{ name: 'mq-old', count: 4, assignments: null }],
        timeoutMs: 30_000,
        validateOnly: false,
      })
      expect(grown.results[0].errorCode).toBe(ErrorCodes.NONE)
      expect(grown.throttleTimeMs).toBeGreaterThan(0)
      const deleted = await (await open()).request(M.DeleteTopics, 4, { topicNames: ['mq-debt'], timeoutMs: 30_000 })
      expect(deleted.responses[0].errorCode).toBe(ErrorCodes.NONE)
      expect(deleted.throttleTimeMs).toBeGreaterThan(0)

      // And a connection answered with a throttle is muted for it (KIP-219): its next answer comes no sooner.
      const muted = await open()
      const before = Date.now()
      const throttled = await create(muted, 5, [['mq-old-2', 1]])
      expect(throttled.throttleTimeMs).toBeGreaterThan(0)
      await create(muted, 5, [['mq-old-3', 1]])
      expect(Date.now() - before).toBeGreaterThanOrEqual(throttled.throttleTimeMs - 50)
    })
  })
