// Global tables at run time, on real Kafka 4.4 and on the embedded broker
// with the same assertions (Java's GlobalStreamThread and
// KStreamGlobalKTableJoin the reference): the table's topic, of another
// partition count than the stream's, is read whole by every instance before
// it runs (bootstrap) and followed after; a null key is skipped, a null value
// deletes; the stream joins it by a key mapped from each record, inner
// dropping misses, left joining them with null, records with a null value
// (or, inner, a null mapped key) dropped with Java's warning. No changelog is
// made for the global store, and a missing global topic fails start().
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { logLevel, type Kafka, type LogEntry } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder, StreamsError } from '../../src/public/streams.js'
import { requireKafka } from '../peers/kafka.js'
import { until, wafkaRead } from '../kafka/support.js'
import { client, consumedAll, targets, type Target } from './support.js'

const kafkaOk = requireKafka()
const str = Serdes.String()

// Real Kafka's half skips only where Kafka cannot run, outside CI: requireKafka() throws under CI.
for (const [target, start] of targets) {
  describe.skipIf(target === 'real Kafka' && !kafkaOk)(`global table on ${target}`, () => {
    let cluster: Target
    let kafka: Kafka
    beforeAll(async () => {
      cluster = await start()
      kafka = client(cluster)
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    const admin = async <T>(work: (a: ReturnType<Kafka['admin']>) => Promise<T>): Promise<T> => {
      const a = kafka.admin()
      await a.connect()
      return work(a).finally(() => a.disconnect())
    }

    const send = async (topic: string, records: Array<[string | null, string | null]>) => {
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({
        topic,
        messages: records.map(([key, value]) => ({ key: str.serialize(topic, key), value: str.serialize(topic, value) })),
      })
      await producer.disconnect()
    }

    const app = (kind: 'inner' | 'left', logs: LogEntry[]) => {
      const b = new StreamsBuilder()
      const clicks = b.stream<string, string>('gt-clicks', { keySerde: str, valueSerde: str })
      const users = b.globalTable<string, string>('gt-users', { keySerde: str, valueSerde: str }, { storeName: 'users' })
      // A click's value is the user it is for; 'anonymous' maps to a null key.
      const user = (_click: string, value: string) => (value === 'anonymous' ? (null as unknown as string) : value)
      const joiner = (value: string, name: string | null) => `${value}+${name}`
      ;(kind === 'inner' ? clicks.join(users, user, joiner) : clicks.leftJoin(users, user, joiner)).to(`gt-${kind}`, {
        keySerde: str,
        valueSerde: str,
      })
      return new KafkaStreams(b.build(), {
        applicationId: `gt-${kind}-app`,
        brokers: cluster.bootstrap,
        commitIntervalMs: 100,
        logLevel: logLevel.INFO,
        logCreator: () => (e: LogEntry) => void logs.push(e),
      })
    }

    it('every instance bootstraps the whole table, follows its updates and deletions, and joins by the mapped key', async () => {
      await admin((a) =>
        a.createTopics({
          waitForLeaders: true,
          topics: [
            { topic: 'gt-users', numPartitions: 3 },
            { topic: 'gt-clicks', numPartitions: 2 },
            { topic: 'gt-inner', numPartitions: 1 },
            { topic: 'gt-left', numPartitions: 1 },
          ],
        }),
      )
      // Before start (the bootstrap): carol deleted, a null-keyed record skipped.
      await send('gt-users', [
        ['u1', 'alice'],
        ['u2', 'bob'],
        ['u3', 'carol'],
        [null, 'nobody'],
        ['u3', null],
      ])
      const logs = { a: [] as LogEntry[], b: [] as LogEntry[], left: [] as LogEntry[] }
      // Two instances of one application (the stream's two partitions split between them), and a left join.
      const apps = [app('inner', logs.a), app('inner', logs.b), app('left', logs.left)]
      try {
        for (const x of apps) await x.start()
        for (const x of apps)
          await until(
            'RUNNING',
            () => x.state,
            (s) => s === 'RUNNING',
          )
        const table = (x: KafkaStreams) =>
          x
            .store<string, string>('users', 'keyValue')
            .all()
            .map((e) => `${e.key}=${e.value}`)
            .sort()
        // Bootstrapped before RUNNING: the whole table (every partition) in each instance.
        for (const x of apps) expect(table(x)).toEqual(['u1=alice', 'u2=bob'])
        // After start (following): an update, a new key, a deletion.
        await send('gt-users', [
          ['u2', 'bobby'],
          ['u4', 'dan'],
          ['u1', null],
        ])
        for (const x of apps)
          await until(
            'the update in every instance',
            () => table(x),
            (t) => t.join() === 'u2=bobby,u4=dan',
          )
        await send('gt-clicks', [
          ['c1', 'u1'],
          ['c2', 'u2'],
          ['c3', 'u3'],
          ['c4', 'u4'],
          ['c5', null],
          ['c6', 'anonymous'],
          ['c7', 'u2'],
          ['c8', 'u4'],
          ['c9', 'u9'],
        ])
        for (const kind of ['inner', 'left']) await consumedAll(kafka, `gt-${kind}-app`, ['gt-clicks'])
      } finally {
        for (const x of apps) await x.close()
      }
      // Both instances ran a task of the stream (the table whole in each, so their joins agree): the second one
      // only once the group split the stream's two partitions (a task starts when its partition is assigned, so
      // the first one may have run both before).
      for (const l of [logs.a, logs.b]) expect(l.filter((e) => e.log.message === 'task running').length).toBeGreaterThanOrEqual(1)
      const output = async (topic: string) => {
        const ends = await admin((a) => a.fetchTopicOffsets(topic))
        const records = await wafkaRead(
          kafka,
          topic,
          ends.reduce((sum, o) => sum + Number(o.high), 0),
        )
        return records.map((r) => `${str.deserialize(topic, r.key)}=${str.deserialize(topic, r.value)}`).sort()
      }
      expect(await output('gt-inner')).toEqual(['c2=u2+bobby', 'c4=u4+dan', 'c7=u2+bobby', 'c8=u4+dan'])
      expect(await output('gt-left')).toEqual([
        'c1=u1+null',
        'c2=u2+bobby',
        'c3=u3+null',
        'c4=u4+dan',
        'c6=anonymous+null',
        'c7=u2+bobby',
        'c8=u4+dan',
        'c9=u9+null',
      ])
      const warnings = (l: LogEntry[]) =>
        l.filter((e) => e.label === 'WARN' && e.log.message === 'Skipping record due to null join key or value').length
      expect(warnings(logs.a) + warnings(logs.b)).toBe(2) // c5's null value, c6's null mapped key
      expect(warnings(logs.left)).toBe(1) // c5's
      // The topic is the store's changelog: none is made.
      expect((await admin((a) => a.listTopics())).filter((t) => t.includes('users'))).toEqual(['gt-users'])
    }, 240_000)

    it("a global table's topic that does not exist fails start()", async () => {
      await admin((a) => a.createTopics({ waitForLeaders: true, topics: [{ topic: 'gt-lonely', numPartitions: 1 }] }))
      const b = new StreamsBuilder()
      const table = b.globalTable<string, string>('gt-missing', { keySerde: str, valueSerde: str })
      b.stream<string, string>('gt-lonely', { keySerde: str, valueSerde: str })
        .join(
          table,
          (k) => k,
          (v, t) => `${v}+${t}`,
        )
        .to('gt-lonely-out', { keySerde: str, valueSerde: str })
      const x = new KafkaStreams(b.build(), { applicationId: 'gt-missing-app', brokers: cluster.bootstrap })
      const failed = await x.start().catch((e: unknown) => e)
      expect(failed).toBeInstanceOf(StreamsError)
      expect((failed as Error).message).toBe('global table topics gt-missing do not exist: create them before start()')
      await until(
        'ERROR',
        () => x.state,
        (s) => s === 'ERROR',
      )
    }, 120_000)
  })
}
