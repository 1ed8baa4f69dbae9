// Stream-table joins at run time, on real Kafka 4.4 and on the embedded
// broker with the same assertions (Java's KStreamKTableJoin the reference):
// inner drops a record the table has no value for (never written, or
// deleted by a tombstone), left joins it with null; a record with a null
// value is dropped with Java's warning, one with a null key too unless the
// join is a left one (which joins it with null); a table record with a null
// key is skipped. A join of topics with different partition counts fails
// start(), naming them and their counts, before any topic is made. Table-table
// joins send a change per update of either side, and a tombstone when a row
// leaves the join, as Java's KTableKTable*Join processors do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka, LogEntry } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder, StreamsError } from '../../src/public/streams.js'
import { requireKafka } from '../peers/kafka.js'
import { until, wafkaRead } from '../kafka/support.js'
import { client, consumedAll, targets, type Target } from './support.js'

const kafkaOk = requireKafka()
const str = Serdes.String()

for (const [target, start] of targets) {
  describe.skipIf(target === 'real Kafka' && !kafkaOk)(`stream-table join on ${target}`, () => {
    let cluster: Target
    let kafka: Kafka
    beforeAll(async () => {
      cluster = await start()
      kafka = client(cluster)
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    const createTopics = async (topics: Array<[string, number]>) => {
      const admin = kafka.admin()
      await admin.connect()
      try {
        await admin.createTopics({ waitForLeaders: true, topics: topics.map(([topic, numPartitions]) => ({ topic, numPartitions })) })
      } finally {
        await admin.disconnect()
      }
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

    it('inner drops misses and deleted keys, left joins them with null; null keys and values as Java', async () => {
      await createTopics([
        ['j-users', 3],
        ['j-clicks', 3],
        ['j-inner', 1],
        ['j-left', 1],
      ])
      // u3 deleted by a tombstone; the null-keyed update skipped.
      await send('j-users', [
        ['u1', 'alice'],
        ['u2', 'bob'],
        ['u3', 'carol'],
        [null, 'nobody'],
        ['u3', null],
        ['u2', 'bobby'],
      ])
      const logs = new Map<string, LogEntry[]>()
      const apps = (['inner', 'left'] as const).map((kind) => {
        const builder = new StreamsBuilder()
        const users = builder.table<string, string>('j-users', { keySerde: str, valueSerde: str }, { storeName: 'users' })
        const clicks = builder.stream<string, string>('j-clicks', { keySerde: str, valueSerde: str })
        const joined =
          kind === 'inner'
            ? clicks.join(users, (page, name) => `${page}+${name}`)
            : clicks.leftJoin(users, (page, name) => `${page}+${name}`)
        joined.to(`j-${kind}`, { keySerde: str, valueSerde: str })
        const entries: LogEntry[] = []
        logs.set(kind, entries)
        return new KafkaStreams(builder.build(), {
          applicationId: `j-${kind}-app`,
          brokers: cluster.bootstrap,
          commitIntervalMs: 100,
          // Every table change logged as it comes: a key added and deleted within a commit leaves its tombstone.
          statestoreCacheMaxBytes: 0,
          logCreator: () => (e: LogEntry) => void entries.push(e),
        })
      })
      try {
        for (const app of apps) await app.start()
        // The table in place before any click (tasks process each partition's records as they come).
        for (const kind of ['inner', 'left']) await consumedAll(kafka, `j-${kind}-app`, ['j-users'])
        await send('j-clicks', [
          ['u1', 'p1'],
          ['u2', 'p2'],
          ['u3', 'p3'],
          ['u4', 'p4'],
          [null, 'p5'],
          ['u1', null],
        ])
        for (const kind of ['inner', 'left']) await consumedAll(kafka, `j-${kind}-app`, ['j-users', 'j-clicks'])
      } finally {
        for (const app of apps) await app.close()
      }
      const readAll = async (topic: string) => {
        const admin = kafka.admin()
        await admin.connect()
        const ends = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect())
        return wafkaRead(
          kafka,
          topic,
          ends.reduce((sum, o) => sum + Number(o.high), 0),
        )
      }
      const output = async (topic: string) =>
        (await readAll(topic)).map((r) => `${str.deserialize(topic, r.key)}=${str.deserialize(topic, r.value)}`).sort()
      expect(await output('j-inner')).toEqual(['u1=p1+alice', 'u2=p2+bobby'])
      expect(await output('j-left')).toEqual(['null=p5+null', 'u1=p1+alice', 'u2=p2+bobby', 'u3=p3+null', 'u4=p4+null'])
      // The table's store logged: u3's tombstone deletes it.
      const changelog = new Map<string, string | null>()
      for (const r of await readAll('j-inner-app-users-changelog')) changelog.set(str.deserialize('', r.key)!, str.deserialize('', r.value))
      expect(Object.fromEntries(changelog)).toEqual({ u1: 'alice', u2: 'bobby', u3: null })

      const warnings = (kind: string, text: string) =>
        logs.get(kind)!.filter((e) => e.label === 'WARN' && e.log.message.includes(text)).length
      expect(warnings('inner', 'Skipping record due to null join key or value')).toBe(2)
      expect(warnings('left', 'Skipping record due to null join key or value')).toBe(1)
      for (const kind of ['inner', 'left']) expect(warnings(kind, 'Skipping record due to null key')).toBe(1) // the table's
    }, 240_000)

    it('a stream whose key changed is repartitioned by its new key before the join, the topic as many partitions as the table', async () => {
      await createTopics([
        ['rk-users', 3],
        ['rk-clicks', 2],
        ['rk-out', 1],
      ])
      await send('rk-users', [
        ['u1', 'alice'],
        ['u2', 'bob'],
      ])
      const builder = new StreamsBuilder()
      const users = builder.table<string, string>('rk-users', { keySerde: str, valueSerde: str }, { storeName: 'users' })
      builder
        .stream<string, string>('rk-clicks', { keySerde: str, valueSerde: str })
        .selectKey((_click, user) => user)
        .join(users, (user, name) => `${user}+${name}`)
        .to('rk-out', { keySerde: str, valueSerde: str })
      const app = new KafkaStreams(builder.build(), {
        applicationId: 'rk-app',
        brokers: cluster.bootstrap,
        commitIntervalMs: 100,
        defaultKeySerde: str,
        defaultValueSerde: str,
      })
      const repartition = 'rk-app-KSTREAM-KEY-SELECT-0000000003-repartition'
      try {
        await app.start()
        await consumedAll(kafka, 'rk-app', ['rk-users'])
        // Keyed by click id: without the repartition, a click would look its user up in another task's store.
        await send('rk-clicks', [
          ['c1', 'u1'],
          ['c2', 'u2'],
          ['c3', 'u3'],
          ['c4', 'u1'],
        ])
        await consumedAll(kafka, 'rk-app', ['rk-users', 'rk-clicks', repartition])
      } finally {
        await app.close()
      }
      const out = await wafkaRead(kafka, 'rk-out', 3)
      expect(out.map((r) => `${str.deserialize('', r.key)}=${str.deserialize('', r.value)}`).sort()).toEqual([
        'u1=u1+alice',
        'u1=u1+alice',
        'u2=u2+bob',
      ])
      const admin = kafka.admin()
      await admin.connect()
      try {
        expect((await admin.fetchTopicMetadata({ topics: [repartition] })).topics[0].partitions).toHaveLength(3)
      } finally {
        await admin.disconnect()
      }
    }, 240_000)

    it("table-table joins send each change as Java's processors do: joined values, and tombstones when a row leaves the join", async () => {
      await createTopics([
        ['tt-left', 1],
        ['tt-right', 1],
        ['tt-inner', 1],
        ['tt-left-out', 1],
        ['tt-outer', 1],
      ])
      const kinds = [
        ['inner', 'tt-inner'],
        ['left', 'tt-left-out'],
        ['outer', 'tt-outer'],
      ] as const
      const apps = kinds.map(([kind, out]) => {
        const builder = new StreamsBuilder()
        const l = builder.table<string, string>('tt-left', { keySerde: str, valueSerde: str }, { storeName: 'l' })
        const r = builder.table<string, string>('tt-right', { keySerde: str, valueSerde: str }, { storeName: 'r' })
        const joiner = (a: string | null, b: string | null) => `${a}+${b}`
        const joined = kind === 'inner' ? l.join(r, joiner) : kind === 'left' ? l.leftJoin(r, joiner) : l.outerJoin(r, joiner)
        joined.toStream().to(out, { keySerde: str, valueSerde: str })
        return new KafkaStreams(builder.build(), {
          applicationId: `tt-${kind}-app`,
          brokers: cluster.bootstrap,
          commitIntervalMs: 100,
          logCreator: () => () => {},
        })
      })
      // One change at a time, each processed before the next is written.
      const steps: Array<[string, string, string | null]> = [
        ['tt-left', 'k1', 'a'],
        ['tt-right', 'k1', 'b'],
        ['tt-right', 'k1', null],
        ['tt-left', 'k1', null],
        ['tt-left', 'k2', null],
      ]
      try {
        for (const app of apps) await app.start()
        for (const [topic, key, value] of steps) {
          await send(topic, [[key, value]])
          for (const [kind] of kinds) await consumedAll(kafka, `tt-${kind}-app`, ['tt-left', 'tt-right'])
        }
      } finally {
        for (const app of apps) await app.close()
      }
      const records = async (topic: string) => {
        const admin = kafka.admin()
        await admin.connect()
        const [end] = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect())
        return (await wafkaRead(kafka, topic, Number(end.high))).map(
          (r) => `${str.deserialize(topic, r.key)}=${str.deserialize(topic, r.value)}`,
        )
      }
      // Java's KTableKTableInnerJoin both ways; LeftJoin this way, RightJoin the other; OuterJoin both ways.
      expect(await records('tt-inner')).toEqual(['k1=a+b', 'k1=null'])
      expect(await records('tt-left-out')).toEqual(['k1=a+null', 'k1=a+b', 'k1=a+null', 'k1=null'])
      expect(await records('tt-outer')).toEqual(['k1=a+null', 'k1=a+b', 'k1=a+null', 'k1=null'])
    }, 240_000)

    it("a join of topics with different partition counts fails start(), naming them, and makes no topic (Java's co-partition check)", async () => {
      await createTopics([
        ['cp-clicks', 3],
        ['cp-users', 2],
      ])
      const builder = new StreamsBuilder()
      const users = builder.table<string, string>('cp-users', { keySerde: str, valueSerde: str }, { storeName: 'users' })
      builder
        .stream<string, string>('cp-clicks', { keySerde: str, valueSerde: str })
        .leftJoin(users, (a, b) => `${a}+${b}`)
        .to('cp-out', { keySerde: str, valueSerde: str })
      const app = new KafkaStreams(builder.build(), { applicationId: 'cp-app', brokers: cluster.bootstrap, logCreator: () => () => {} })
      const failure = await app.start().catch((e) => e)
      expect(failure).toBeInstanceOf(StreamsError)
      expect(failure.message).toMatch(/^Topics not co-partitioned: \[\{cp-clicks=3, cp-users=2\}\]/)
      await until(
        'ERROR',
        () => app.state,
        (s) => s === 'ERROR',
      )
      const admin = kafka.admin()
      await admin.connect()
      try {
        expect((await admin.listTopics()).filter((t) => t.startsWith('cp-app'))).toEqual([])
      } finally {
        await admin.disconnect()
      }
    }, 120_000)
  })
}
