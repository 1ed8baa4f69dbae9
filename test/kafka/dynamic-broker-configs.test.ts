// Dynamic broker configs that change how the broker runs, on real Kafka and
// on the embedded broker with the same assertions, set by Kafka's own
// kafka-configs for every broker (--entity-default): the topic defaults
// (message.max.bytes, log.retention.ms) reach at once
// the topics without their own value, and are described as
// DYNAMIC_DEFAULT_BROKER_CONFIG; max.connections.per.ip holds from the next
// connection. Removing a value brings the static one back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { type Kafka, KafkaError } from '../../src/index.js'
import * as M from '../../src/protocol/messages/index.js'
import { javaPeer, type JavaPeer, requireKafka, startKafka } from '../peers/kafka.js'
import { RawClient } from '../broker/raw-client.js'
import { until, wafka } from './support.js'

const kafkaOk = requireKafka()
const CONFIGS = 'org.apache.kafka.tools.ConfigCommand'
const DYNAMIC_DEFAULT_BROKER_CONFIG = 3
const TOPIC_CONFIG = 1

type Target = Pick<JavaPeer, 'bootstrap' | 'runJava'> & { stop(): Promise<void> }

const targets: Array<[string, () => Promise<Target>]> = [
  [
    'real Kafka',
    async () => {
      const k = await startKafka()
      return { bootstrap: k.bootstrap, runJava: (main, args, o) => k.runJava(main, args, o), stop: () => k.stop() }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 1 })
      return { ...javaPeer(c.bootstrapServers), stop: () => c.stop() }
    },
  ],
]

for (const [target, start] of targets)
  describe.skipIf(!kafkaOk)(`dynamic broker configs on ${target}`, () => {
    let cluster: Target
    let kafka: Kafka
    const raws: RawClient[] = []
    const everyBroker = ['--entity-type', 'brokers', '--entity-default']

    /** kafka-configs on every broker's defaults: `alter` (--add-config k=v or --delete-config k). */
    async function brokers(alter: string[]): Promise<void> {
      const r = await cluster.runJava(CONFIGS, ['--bootstrap-server', cluster.bootstrap, ...everyBroker, '--alter', ...alter], {
        timeoutMs: 60_000,
      })
      expect(r.code, r.stderr).toBe(0)
    }
    /** A topic's configs as DescribeConfigs tells them: name -> [value, source]. */
    async function described(topic: string): Promise<Map<string, [string | null, number]>> {
      const raw = await RawClient.open(cluster.bootstrap)
      raws.push(raw)
      const res = await raw.request(M.DescribeConfigs, 4, {
        resources: [{ resourceType: 2, resourceName: topic, configurationKeys: null }],
        includeSynonyms: false,
        includeDocumentation: false,
      })
      raw.close()
      return new Map(res.results[0].configs.map((c) => [c.name, [c.value, c.configSource]]))
    }
    beforeAll(async () => {
      cluster = await start()
      kafka = wafka(cluster, { clientId: 'dynamic-configs' })
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({
        topics: [
          { topic: 'follows', numPartitions: 1, replicationFactor: 1 },
          { topic: 'own', numPartitions: 1, replicationFactor: 1, configEntries: [{ name: 'max.message.bytes', value: '100000' }] },
        ],
      })
      await admin.disconnect()
    }, 240_000)
    afterAll(async () => {
      for (const r of raws) r.close()
      await cluster?.stop()
    })

    it('topic defaults set for every broker reach the topics without their own value at once', async () => {
      await brokers(['--add-config', 'message.max.bytes=2048,log.retention.ms=3600000'])
      const follows = await until(
        'the defaults described',
        () => described('follows'),
        (c) => c.get('max.message.bytes')?.[0] === '2048',
      )
      expect(follows.get('max.message.bytes')).toEqual(['2048', DYNAMIC_DEFAULT_BROKER_CONFIG])
      expect(follows.get('retention.ms')).toEqual(['3600000', DYNAMIC_DEFAULT_BROKER_CONFIG])
      expect((await described('own')).get('max.message.bytes')).toEqual(['100000', TOPIC_CONFIG])

      const producer = kafka.producer({ idempotent: false, acks: 1 })
      await producer.connect()
      try {
        const big = { value: Buffer.alloc(4096, 7) }
        // Past the default: refused where it applies, taken where the topic has its own.
        const err = await producer.send({ topic: 'follows', messages: [big] }).catch((e: unknown) => e)
        expect(err).toBeInstanceOf(KafkaError)
        expect(err).toMatchObject({ type: 'MESSAGE_TOO_LARGE' })
        expect((await producer.send({ topic: 'own', messages: [big] }))[0].errorCode).toBe(0)
        // Without the dynamic value, the static default (1 MB) again.
        await brokers(['--delete-config', 'message.max.bytes'])
        await until(
          'the static default again',
          () => described('follows'),
          (c) => c.get('max.message.bytes')?.[0] === '1048588',
        )
        expect((await producer.send({ topic: 'follows', messages: [big] }))[0].errorCode).toBe(0)
      } finally {
        await producer.disconnect()
        await brokers(['--delete-config', 'log.retention.ms'])
      }
    })

    it("wafka's admin sets every broker's defaults (an empty broker name) through any broker", async () => {
      const admin = kafka.admin()
      await admin.connect()
      try {
        await admin.alterConfigs({ resources: [{ type: 4, name: '', configEntries: [{ name: 'log.retention.ms', value: '7200000' }] }] })
        const follows = await until(
          'the default described',
          () => described('follows'),
          (c) => c.get('retention.ms')?.[0] === '7200000',
        )
        expect(follows.get('retention.ms')).toEqual(['7200000', DYNAMIC_DEFAULT_BROKER_CONFIG])
        await admin.alterConfigs({ resources: [{ type: 4, name: '', configEntries: [{ name: 'log.retention.ms', operation: 'DELETE' }] }] })
      } finally {
        await admin.disconnect()
      }
    })

    it('max.connections.per.ip set for every broker holds from the next connection', async () => {
      await brokers(['--add-config', 'max.connections.per.ip=2'])
      // A broker applies it once the change reaches it: until a third connection from one address is closed.
      await until(
        'a third connection from 127.0.0.6 refused',
        async () => {
          const opened = await Promise.all([1, 2, 3].map(() => RawClient.open(cluster.bootstrap, '127.0.0.6')))
          raws.push(...opened)
          const answered = await Promise.all(
            opened.map((r) =>
              r.request(M.ApiVersions, 3, { clientSoftwareName: 'wafka-test', clientSoftwareVersion: '1' }, 10_000).then(
                () => true,
                () => false,
              ),
            ),
          )
          for (const r of opened) r.close()
          await Promise.all(opened.map((r) => r.whenClosed))
          return answered.filter(Boolean).length
        },
        (n) => n === 2,
        30_000,
      )
      await brokers(['--delete-config', 'max.connections.per.ip'])
      // connections.max.idle.ms is not one Kafka changes at run time: refused.
      const idle = await cluster.runJava(
        CONFIGS,
        ['--bootstrap-server', cluster.bootstrap, ...everyBroker, '--alter', '--add-config', 'connections.max.idle.ms=300000'],
        { timeoutMs: 60_000 },
      )
      expect(idle.code).not.toBe(0)
      expect(idle.stderr).toMatch(/connections\.max\.idle\.ms/)
      const opened = await Promise.all([1, 2, 3].map(() => RawClient.open(cluster.bootstrap, '127.0.0.7')))
      raws.push(...opened)
      for (const r of opened)
        expect((await r.request(M.ApiVersions, 3, { clientSoftwareName: 'wafka-test', clientSoftwareVersion: '1' })).errorCode).toBe(0)
      for (const r of opened) r.close()
      await Promise.all(opened.map((r) => r.whenClosed))
    })
    it('max.connections set for every broker: at it a new connection waits, unread and not closed, until one goes', async () => {
      await brokers(['--add-config', 'max.connections=4'])
      const ask = (r: RawClient) =>
        r.write(RawClient.frame(M.ApiVersions, 3, { clientSoftwareName: 'wafka-test', clientSoftwareVersion: '1' }))
      // Once the broker has the limit: connections one at a time until one is not answered (the broker's own may hold a slot or two).
      const answered: RawClient[] = []
      let waiting: RawClient | null = null
      for (let i = 0; i < 8 && !waiting; i++) {
        const r = await RawClient.open(cluster.bootstrap, '127.0.0.8')
        raws.push(r)
        ask(r)
        const got = await r.readFrame(1500).catch(() => null)
        if (got) answered.push(r)
        else waiting = r
      }
      expect(waiting).not.toBeNull()
      expect(answered.length).toBeLessThanOrEqual(4)
      expect(waiting!.closed).toBe(false)
      // A slot freed: the waiting connection is taken and answered.
      answered[0].close()
      expect(await waiting!.readFrame(10_000)).not.toBeNull()
      for (const r of [...answered, waiting!]) r.close()
      await Promise.all([...answered, waiting!].map((r) => r.whenClosed))
      await brokers(['--delete-config', 'max.connections'])
    })
  })
