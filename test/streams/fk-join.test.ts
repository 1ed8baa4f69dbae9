// Foreign-key table-table joins (KIP-213) held to Java Kafka Streams 4.4:
// Murmur3.hash128 gives Java's hashes (vectors from Java's own Murmur3);
// describe() prints what Java's prints for the inner and left joins (and a
// TableJoined name); and on real Kafka 4.4 and on the embedded broker, the
// same input through Java's RigStreams fk-join and through wafka/streams ends
// with the same output table and the same subscription store changelog (its
// CombinedKey keys and SubscriptionWrapper values, hashes included), byte for
// byte. The input changes a row's foreign key, deletes a left row and a right
// row, gives rows a null foreign key and one no right row has, on topics of
// 3 (left) and 2 (right) partitions. Responses written straight to the
// response topic show the hash check: one for a value the row no longer has
// is dropped, one for its current value joined.
import { describe, expect, it } from 'vitest'
import { KafkaStreams, Serdes, StreamsBuilder, TopologyError, type KTable } from '../../src/public/streams.js'
import { murmur3Hash128 } from '../../src/streams/murmur3.js'
import { javaStreamsDescribe } from '../peers/java-streams.js'
import { brokerTargets } from '../peers/targets.js'
import { until } from '../kafka/support.js'
import { consumedAll, rawTable, runJavaToEnd, describeOnTargets } from './support.js'

const str = Serdes.String()
const fkOf = (v: string) => (v.includes(':') ? v.slice(0, v.indexOf(':')) : null)
const joiner = (l: string, r: string | null) => `${l}+${r}`

/** The rig's fk-join on our side: tables in stores "left" and "right", the foreign key before the left value's ':'. */
function fkJoin(
  b: StreamsBuilder,
  inputs: [string, string],
  output: string,
  join: 'inner' | 'left',
  name?: string,
  keyValueForm = false,
  storeName?: string,
) {
  const left = b.table<string, string>(inputs[0], { keySerde: str, valueSerde: str }, { storeName: 'left' })
  const right: KTable<string, string> = b.table<string, string>(inputs[1], { keySerde: str, valueSerde: str }, { storeName: 'right' })
  const extractor = keyValueForm ? (_key: string, v: string) => fkOf(v) : fkOf
  const options = { ...(name === undefined ? {} : { name }), ...(storeName === undefined ? {} : { storeName, valueSerde: str }) }
  const joined = join === 'inner' ? left.join(right, extractor, joiner, options) : left.leftJoin(right, extractor, joiner, options)
  joined.toStream().to(output, { keySerde: str, valueSerde: str })
}

describe('Murmur3.hash128', () => {
  it("gives Java's hashes (Kafka Streams' Murmur3.hash128, seed 104729): empty, tails of 1 to 15 bytes, whole blocks, high bytes", () => {
    const vectors: Array<[string, string]> = [
      ['', '9d2764a018e329428c3cf3b035938518'],
      ['61', '3361634e7e0f5188e9c7dda24eae326b'],
      [Buffer.from('hello').toString('hex'), '30bfb4f39919e764566aea857401d1c6'],
      [Buffer.from('a:payload-0123456789').toString('hex'), '8dc81c3e305fb21cff80cc7080cae999'],
      [Buffer.from('fifteen bytes!!').toString('hex'), 'd615b59fb3c006d22d333a2423fa9a35'],
      [Buffer.from('sixteen bytes!!!').toString('hex'), '198a5158981e91bb07656cef55b9e983'],
      [Buffer.from('The quick brown fox jumps over the lazy dog').toString('hex'), 'e74c5921af0f99c8b7f85ec81df06726'],
      ['fff0807f00', 'd16ca3e8daa432c64cf8cdecb37dfd6a'],
    ]
    for (const [input, hash] of vectors) expect(murmur3Hash128(Buffer.from(input, 'hex')).toString('hex'), input).toBe(hash)
  })
})

describe('foreign-key join options', () => {
  it('a table without serdes is refused at build with a TopologyError naming what is missing', () => {
    const b = new StreamsBuilder()
    const left = b.table<string, string>('l', {}, { storeName: 'left' })
    const right = b.table<string, string>('r', { keySerde: str, valueSerde: str })
    expect(() => left.join(right, fkOf, joiner)).toThrow(TopologyError)
    expect(() => left.join(right, fkOf, joiner)).toThrow(/needs this table's key serde/)
  })
})

const [kafkaTarget] = brokerTargets()

describe.skipIf(!kafkaTarget.available)("foreign-key joins' topologies", () => {
  it("describe() prints as Java's: inner, left, and named by TableJoined (the subscription and response topics, the subscription store, KTABLE-FK-JOIN-OUTPUT)", async () => {
    const cases: Array<{ join: 'inner' | 'left'; name?: string }> = [{ join: 'inner' }, { join: 'left' }, { join: 'left', name: 'orders' }]
    const java = await Promise.all(
      cases.map((c) => javaStreamsDescribe('fk-join', { applicationId: 'd', inputs: ['l', 'r'], output: 'out', ...c })),
    )
    cases.forEach((c, i) => {
      const b = new StreamsBuilder()
      fkJoin(b, ['l', 'r'], 'out', c.join, c.name)
      expect(b.build().describe().toString(), JSON.stringify(c)).toBe(java[i])
    })
  }, 120_000)
})

// Left rows (the foreign key before ':'): a foreign key changed (o2), a row deleted (o3), null foreign
// keys (o4, and o7 losing its key), a key no right row has (o5), a value changed under the same key (o1);
// right rows: updated (c2, c3), one deleted under a subscriber (c4), one nobody subscribes to (c5).
const LEFT: Array<[string, string | null]> = [
  ['o1', 'c1:apple'],
  ['o2', 'c2:pear'],
  ['o3', 'c1:fig'],
  ['o4', 'nofk'],
  ['o5', 'c9:kiwi'],
  ['o8', 'c4:date'],
  ['o2', 'c3:pear'],
  ['o3', null],
  ['o6', 'c2:plum'],
  ['o1', 'c1:apple2'],
  ['o7', 'c3:lime'],
  ['o7', 'nofk2'],
]
const RIGHT: Array<[string, string | null]> = [
  ['c1', 'Ann'],
  ['c2', 'Bob'],
  ['c3', 'Cy'],
  ['c4', 'Dee'],
  ['c2', 'Bob2'],
  ['c4', null],
  ['c3', 'Cy2'],
  ['c5', 'Eve'],
]

function expected(join: 'inner' | 'left'): Record<string, string> {
  const final = (rows: Array<[string, string | null]>) => {
    const t = new Map<string, string>()
    for (const [k, v] of rows) v === null ? t.delete(k) : t.set(k, v)
    return t
  }
  const [L, R] = [final(LEFT), final(RIGHT)]
  const out: Record<string, string> = {}
  for (const [k, v] of L) {
    const fk = fkOf(v)
    const r = fk === null ? undefined : R.get(fk)
    if (r !== undefined || join === 'left') out[k] = joiner(v, r ?? null)
  }
  return out
}

const decoded = (t: Record<string, string>) =>
  Object.fromEntries(Object.entries(t).map(([k, v]) => [Buffer.from(k, 'hex').toString(), Buffer.from(v, 'hex').toString()]))

const SUBSCRIPTION_TOPIC = 'KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000004-topic'
const RESPONSE_TOPIC = 'KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000012-topic'
const SUBSCRIPTION_STORE = 'KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000008'

describeOnTargets(brokerTargets(), 'foreign-key joins, Java Kafka Streams and wafka/streams', (on) => {
  it('inner and left: the same final output table and subscription store changelog, byte for byte', async () => {
    const [leftTopic, rightTopic] = ['fk-left', 'fk-right']
    const admin = on.kafka.admin()
    await admin.connect()
    await admin.createTopics({
      topics: [
        { topic: leftTopic, numPartitions: 3 },
        { topic: rightTopic, numPartitions: 2 },
        ...['java', 'wafka'].flatMap((who) => ['inner', 'left'].map((j) => ({ topic: `fk-${who}-${j}`, numPartitions: 3 }))),
      ],
    })
    await admin.disconnect()
    const producer = on.kafka.producer()
    await producer.connect()
    const T0 = Date.now() - 60_000
    const records = (topic: string, rows: Array<[string, string | null]>, offset: number) =>
      rows.map(([k, v], i) => ({ key: str.serialize(topic, k), value: str.serialize(topic, v), timestamp: T0 + offset + 2 * i }))
    await producer.send({ topic: leftTopic, messages: records(leftTopic, LEFT, 0) })
    await producer.send({ topic: rightTopic, messages: records(rightTopic, RIGHT, 1) })
    await producer.disconnect()

    const joins = ['inner', 'left'] as const
    // Both Java applications at once, then both of ours: each reads the same input.
    await Promise.all(
      joins.map((join) =>
        runJavaToEnd(on.cluster, 'fk-join', {
          applicationId: `fk-java-${join}`,
          inputs: [leftTopic, rightTopic],
          output: `fk-java-${join}`,
          join,
          count: LEFT.length + RIGHT.length,
          // A cache would merge a key's updates (and drop a row added and deleted between flushes):
          // both sides run without it, forwarding every update.
          props: { 'statestore.cache.max.bytes': 0 },
        }),
      ),
    )
    await Promise.all(
      joins.map(async (join) => {
        const b = new StreamsBuilder()
        // The inner join with the (key, value) form of the extractor: the same join; the left join's result
        // materialized (Materialized.as): the store holds the output table.
        fkJoin(b, [leftTopic, rightTopic], `fk-wafka-${join}`, join, undefined, join === 'inner', join === 'left' ? 'fk-result' : undefined)
        const app = new KafkaStreams(b.build(), {
          applicationId: `fk-wafka-${join}`,
          brokers: on.cluster.bootstrap,
          commitIntervalMs: 100,
          defaultApiTimeoutMs: 30_000,
          // As Java's above: every update forwarded.
          statestoreCacheMaxBytes: 0,
        })
        await app.start()
        try {
          await until(
            `fk-wafka-${join}'s output`,
            async () => decoded(await rawTable(on.kafka, `fk-wafka-${join}`)),
            (t) => sameTable(t, expected(join)),
            60_000,
          )
          await consumedAll(on.kafka, `fk-wafka-${join}`, [
            leftTopic,
            rightTopic,
            `fk-wafka-${join}-${SUBSCRIPTION_TOPIC}`,
            `fk-wafka-${join}-${RESPONSE_TOPIC}`,
          ])
          if (join === 'left') {
            const rows = app.store<string, string>('fk-result', 'keyValue').all()
            expect(Object.fromEntries(rows.map((r) => [r.key, r.value]))).toEqual(expected('left'))
          }
        } finally {
          await app.close()
        }
      }),
    )
    for (const join of joins) {
      const javaOut = await rawTable(on.kafka, `fk-java-${join}`)
      expect(decoded(javaOut), join).toEqual(expected(join))
      expect(await rawTable(on.kafka, `fk-wafka-${join}`), join).toEqual(javaOut)
      const changelog = (who: string) => rawTable(on.kafka, `fk-${who}-${join}-${SUBSCRIPTION_STORE}-changelog`)
      const javaSubscriptions = await changelog('java')
      // One subscription per left row with a foreign key: o1, o2, o5, o6, o8.
      expect(Object.keys(javaSubscriptions).length, join).toBe(5)
      expect(await changelog('wafka'), join).toEqual(javaSubscriptions)
    }

    // The hash check: a response for a value the row no longer has is dropped, one for its current value joined.
    // Written straight to the response topic (keyed by the row's key: its partition), ours restarted to read them.
    const responseTopic = `fk-wafka-inner-${RESPONSE_TOPIC}`
    const response = (hashOf: string, foreignValue: string) =>
      Buffer.concat([Buffer.from([0]), murmur3Hash128(Buffer.from(hashOf)), Buffer.from(foreignValue)])
    const forger = on.kafka.producer()
    await forger.connect()
    await forger.send({
      topic: responseTopic,
      messages: [
        { key: Buffer.from('o1'), value: response('c1:apple', 'Stale'), timestamp: T0 + 100 },
        { key: Buffer.from('o6'), value: response('c2:plum', 'Bob3'), timestamp: T0 + 101 },
      ],
    })
    await forger.disconnect()
    const b = new StreamsBuilder()
    fkJoin(b, [leftTopic, rightTopic], 'fk-wafka-inner', 'inner')
    const app = new KafkaStreams(b.build(), { applicationId: 'fk-wafka-inner', brokers: on.cluster.bootstrap, commitIntervalMs: 100 })
    await app.start()
    try {
      const fresh = { ...expected('inner'), o6: 'c2:plum+Bob3' }
      await until(
        'the forged responses',
        async () => decoded(await rawTable(on.kafka, 'fk-wafka-inner')),
        (t) => sameTable(t, fresh),
        60_000,
      )
      await consumedAll(on.kafka, 'fk-wafka-inner', [responseTopic])
      expect(decoded(await rawTable(on.kafka, 'fk-wafka-inner'))).toEqual(fresh)
    } finally {
      await app.close()
    }
  }, 300_000)
})

const sorted = (t: Record<string, string>) => Object.fromEntries(Object.entries(t).sort(([a], [b]) => (a < b ? -1 : 1)))
const sameTable = (a: Record<string, string>, b: Record<string, string>) => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b))
