// Client quotas (KIP-219), on real Kafka and on the embedded broker with the
// same assertions: with producer_byte_rate, consumer_byte_rate and
// request_percentage set for a client id (by Kafka's own kafka-configs, on
// both), the broker answers over-quota requests with throttle_time_ms and
// mutes the connection. wafka must see the throttle (its request events and
// DEBUG log), send nothing more to that broker before it has passed, and
// lose nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { type Kafka, type LogEntry, logLevel } from '../../src/index.js'
import type { RequestEvent } from '../../src/net/connection.js'
import { javaPeer, type JavaPeer, requireKafka, startKafka } from '../peers/kafka.js'
import { until, wafka, wafkaRead } from './support.js'
import * as M from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'

// kafka-configs runs on the JVM for both targets.
const kafkaOk = requireKafka()
const CONFIGS = 'org.apache.kafka.tools.ConfigCommand'
// Rates over 2 s rather than 11: throttles of about a second, not a minute, so the test is short.
const QUOTA_WINDOWS = { 'quota.window.num': '2', 'quota.window.size.seconds': '1' }

/** A broker to throttle: its bootstrap, a JVM for Kafka's tools against it, and how it stops. */
type Target = Pick<JavaPeer, 'bootstrap' | 'runJava'> & { stop(): Promise<void> }

const targets: Array<[string, () => Promise<Target>]> = [
  [
    'real Kafka',
    async () => {
      const k = await startKafka({ config: QUOTA_WINDOWS })
      return { bootstrap: k.bootstrap, runJava: (main, args, o) => k.runJava(main, args, o), stop: () => k.stop() }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 1, config: QUOTA_WINDOWS })
      return { ...javaPeer(c.bootstrapServers), stop: () => c.stop() }
    },
  ],
]

type Answered = RequestEvent & { type: 'request' }

/** A wafka client with `clientId` whose request events and DEBUG log entries are kept. */
function observed(cluster: Target, clientId: string): { kafka: Kafka; events: RequestEvent[]; logs: LogEntry[] } {
  const events: RequestEvent[] = []
  const logs: LogEntry[] = []
  const kafka = wafka(cluster, {
    clientId,
    onRequest: (e) => void events.push(e),
    logLevel: logLevel.DEBUG,
    logCreator: () => (e: LogEntry) => {
      logs.push(e)
      // A slow log sink, at the throttle's own entry: the wait must still run from the answer.
      if (e.log.message === 'throttled by the broker: holding requests back') for (const t = Date.now(); Date.now() - t < 5;);
    },
  })
  return { kafka, events, logs }
}

/**
 * What KIP-219 asks of the client, checked on the events' own clock: after
 * an answer that carried a throttle, nothing is sent to that broker until
 * the throttle has passed (requests already in flight excepted: those sent
 * by the answer's millisecond or before).
 * Returns the throttled answers.
 */
function expectThrottleHonoured(events: RequestEvent[], api: string): Answered[] {
  const answered = events.filter((e): e is Answered => e.type === 'request')
  const throttled = answered.filter((e) => e.apiName === api && e.throttleTimeMs > 0)
  expect(throttled.length).toBeGreaterThan(0)
  let after = 0
  for (const t of throttled) {
    const answeredAt = t.sentAt + t.duration
    for (const next of answered) {
      if (next.broker !== t.broker || next.sentAt <= answeredAt) continue
      after++
      expect(
        next.sentAt - answeredAt,
        `${next.apiName} #${next.correlationId} after ${t.apiName} #${t.correlationId}`,
      ).toBeGreaterThanOrEqual(t.throttleTimeMs)
    }
  }
  // Something was sent after a throttle, so the wait was put to the test.
  expect(after).toBeGreaterThan(0)
  return throttled
}

function expectLogged(logs: LogEntry[], api: string): void {
  const said = logs.filter((l) => l.log.message === 'throttled by the broker: holding requests back' && l.log.api === api)
  expect(said.length).toBeGreaterThan(0)
  expect(said[0].label).toBe('DEBUG')
  expect(said[0].log.throttleTimeMs).toBeGreaterThan(0)
}

for (const [target, start] of targets)
  describe.skipIf(!kafkaOk)(`client quotas on ${target} (KIP-219)`, () => {
    let cluster: Target
    const topic = 'throttled'
    const count = 60
    const value = (i: number) => Buffer.alloc(4096, i % 251).fill(`#${i}#`, 0, 8)

    /** kafka-configs --alter --add-config `config` for client id `client`. */
    async function quota(client: string, config: string): Promise<void> {
      const args = ['--bootstrap-server', cluster.bootstrap, '--entity-type', 'clients', '--entity-name', client]
      const set = await cluster.runJava(CONFIGS, [...args, '--alter', '--add-config', config], { timeoutMs: 60_000 })
      expect(set.code, set.stderr).toBe(0)
      const name = config.split('=')[0]
      await until(
        `${name} for ${client}`,
        async () => (await cluster.runJava(CONFIGS, [...args, '--describe'], { timeoutMs: 60_000 })).stdout,
        (out) => out.includes(name),
      )
    }

    beforeAll(async () => {
      cluster = await start()
      await Promise.all([
        quota('throttled-producer', 'producer_byte_rate=40960'),
        quota('throttled-consumer', 'consumer_byte_rate=40960'),
        quota('throttled-admin', 'request_percentage=0.01'),
      ])
    }, 240_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    it('a producer over producer_byte_rate waits out each throttle and loses nothing', async () => {
      const { kafka, events, logs } = observed(cluster, 'throttled-producer')
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
      await admin.disconnect()
      const producer = kafka.producer()
      await producer.connect()
      try {
        // 240 KB at 40 KB/s, 60 KB at a time: throttled.
        for (let i = 0; i < count; i += 15)
          await producer.send({ topic, messages: Array.from({ length: 15 }, (_, j) => ({ key: `${i + j}`, value: value(i + j) })) })
      } finally {
        await producer.disconnect()
      }
      const throttled = expectThrottleHonoured(events, 'Produce')
      expect(throttled.every((e) => e.apiVersion >= 6)).toBe(true)
      expectLogged(logs, 'Produce')
      const read = await wafkaRead(wafka(cluster, { clientId: 'unthrottled-reader' }), topic, count)
      expect(read.map((r) => r.key!.toString())).toEqual(Array.from({ length: count }, (_, i) => `${i}`))
      expect(read.every((r, i) => r.value!.equals(value(i)))).toBe(true)
    })

    it('a consumer over consumer_byte_rate waits out each throttle and reads everything once, in order', async () => {
      const { kafka, events, logs } = observed(cluster, 'throttled-consumer')
      // 16 KB a fetch, well under the quota's 40 KB a second: Kafka answers a fetch that would
      // put the rate over the quota empty (and unrecords it), so a fetch near the quota's size
      // passes only at some points of the quota window and the read can stall for a minute.
      // Small fetches always pass once a throttle has been waited out, and 240 KB still needs many.
      const consumer = kafka.consumer({ autoOffsetReset: 'earliest', maxWaitTimeInMs: 200, maxBytesPerPartition: 16_384 })
      const read: Array<{ key: string; value: Buffer }> = []
      await consumer.connect()
      try {
        consumer.assign([{ topic, partitions: [0] }])
        await consumer.run({ eachMessage: async ({ message }) => void read.push({ key: message.key!.toString(), value: message.value! }) })
        await until(
          'every record read',
          () => read.length,
          (n) => n >= count,
          60_000,
        ).catch((err: Error) => {
          // A stall says where the client stood: its last answers and whether a request still waited.
          const last = events
            .slice(-4)
            .map((e) =>
              e.type === 'request'
                ? `${e.apiName} throttled ${e.throttleTimeMs} ms`
                : e.type === 'queueSize'
                  ? `${e.queueSize} waiting`
                  : e.type,
            )
          throw new Error(`${err.message}; last events: ${last.join(', ')}`)
        })
      } finally {
        await consumer.disconnect()
      }
      expect(read.map((r) => r.key)).toEqual(Array.from({ length: count }, (_, i) => `${i}`))
      expect(read.every((r, i) => r.value.equals(value(i)))).toBe(true)
      expectThrottleHonoured(events, 'Fetch')
      expectLogged(logs, 'Fetch')
    }, 90_000) // past until's 60 s, so a read that stalls says how far it got (one timed out silently in CI)

    it('an admin over request_percentage gets the throttle time in describeConfigs and waits it out', async () => {
      const { kafka, events, logs } = observed(cluster, 'throttled-admin')
      const admin = kafka.admin()
      await admin.connect()
      try {
        const times: number[] = []
        // Bounded: a few requests exceed 0.01% of a request thread's time.
        for (let i = 0; i < 40 && !times.some((t) => t > 0); i++) {
          const res = await admin.describeConfigs({ resources: [{ type: 2 /* TOPIC */, name: topic }] })
          expect(res.resources[0].configEntries.length).toBeGreaterThan(0)
          times.push(res.throttleTime)
        }
        expect(times.some((t) => t > 0)).toBe(true)
        // One more after the throttle: it waits, it does not fail.
        expect((await admin.describeConfigs({ resources: [{ type: 2, name: topic }] })).resources).toHaveLength(1)
      } finally {
        await admin.disconnect()
      }
      expectThrottleHonoured(events, 'DescribeConfigs')
      expectLogged(logs, 'DescribeConfigs')
    })

    it('a Fetch throttled by request_percentage alone is answered empty (its records come after the throttle)', async () => {
      const small = 'fetch-time'
      const kafka = wafka(cluster, { clientId: 'unthrottled-writer' })
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: small, numPartitions: 1, replicationFactor: 1 }] })
      await admin.disconnect()
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({ topic: small, messages: Array.from({ length: 10 }, (_, i) => ({ value: value(i) })) })
      await producer.disconnect()
      // The raw client's id ('raw') may take 0.01% of a request thread: its fetches soon go over, never its byte rate.
      await quota('raw', 'request_percentage=0.01')
      const client = await RawClient.open(cluster.bootstrap.split(',')[0])
      const answers: Array<{ throttleTimeMs: number; records: number }> = []
      try {
        // Bounded: each fetch could read all ten records; a few exceed the quota (each throttle at most a window, 1 s).
        for (let i = 0; i < 40 && answers.filter((a) => a.throttleTimeMs > 0).length < 3; i++) {
          const res = await client.request(M.Fetch, 12, {
            maxWaitMs: 0,
            minBytes: 0,
            maxBytes: 1 << 20,
            topics: [{ topic: small, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
          })
          expect(res.errorCode).toBe(0)
          const records = res.responses.flatMap((t) => t.partitions).reduce((n, p) => n + (p.records?.length ?? 0), 0)
          answers.push({ throttleTimeMs: res.throttleTimeMs, records })
        }
      } finally {
        client.close()
      }
      const throttled = answers.filter((a) => a.throttleTimeMs > 0)
      expect(throttled.length).toBeGreaterThan(0)
      expect(throttled.map((a) => a.records)).toEqual(throttled.map(() => 0))
      // The others carry the records: the empty answers are the throttle's doing.
      expect(answers.filter((a) => a.throttleTimeMs === 0).every((a) => a.records > 0)).toBe(true)
    }, 120_000)

    // Last: the default user's quota applies to every client without SASL.
    it("kafka-configs sets, describes and deletes quotas of users, client ids, both and the defaults, and refuses Kafka's way", async () => {
      const configs = async (args: string[]) => {
        const r = await cluster.runJava(CONFIGS, ['--bootstrap-server', cluster.bootstrap, ...args], { timeoutMs: 60_000 })
        return { code: r.code, out: r.stdout.trim(), err: r.stderr }
      }
      const both = ['--entity-type', 'users', '--entity-name', 'alice', '--entity-type', 'clients', '--entity-name', 'app']
      const set = await configs(['--alter', '--add-config', 'producer_byte_rate=1048576,consumer_byte_rate=2097152', ...both])
      expect(set.code, set.err).toBe(0)
      expect(set.out).toBe('Completed updating config for user alice.')
      const defaults = await configs(['--alter', '--add-config', 'request_percentage=200', '--entity-type', 'users', '--entity-default'])
      expect(defaults.code, defaults.err).toBe(0)
      expect(defaults.out).toBe('Completed updating default config for users in the cluster.')
      const aliceDefault = ['--entity-type', 'users', '--entity-name', 'alice', '--entity-type', 'clients', '--entity-default']
      expect((await configs(['--alter', '--add-config', 'consumer_byte_rate=4096', ...aliceDefault])).code).toBe(0)
      expect((await configs(['--describe', ...both])).out).toBe(
        "Quota configs for user-principal 'alice', client-id 'app' are consumer_byte_rate=2097152.0, producer_byte_rate=1048576.0",
      )
      expect((await configs(['--describe', ...aliceDefault])).out).toBe(
        "Quota configs for user-principal 'alice', the default client-id are consumer_byte_rate=4096.0",
      )
      expect((await configs(['--describe', '--entity-type', 'users', '--entity-default'])).out).toBe(
        'Quota configs for the default user-principal are request_percentage=200.0',
      )
      // A byte rate is a whole number: refused by the broker, with Kafka's message.
      const fraction = await configs([
        '--alter',
        '--add-config',
        'producer_byte_rate=1.5',
        '--entity-type',
        'clients',
        '--entity-name',
        'app',
      ])
      expect(fraction.code).not.toBe(0)
      expect(fraction.err).toContain(
        'Caused by: org.apache.kafka.common.errors.InvalidRequestException: producer_byte_rate cannot be a fractional value.',
      )
      const removed = await configs(['--alter', '--delete-config', 'consumer_byte_rate', ...both])
      expect(removed.code, removed.err).toBe(0)
      expect((await configs(['--describe', ...both])).out).toBe(
        "Quota configs for user-principal 'alice', client-id 'app' are producer_byte_rate=1048576.0",
      )
      expect((await configs(['--alter', '--delete-config', 'request_percentage', '--entity-type', 'users', '--entity-default'])).code).toBe(
        0,
      )
    }, 240_000)
  })
