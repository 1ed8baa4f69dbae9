// wafka's producer against real Apache Kafka 4.x: every codec with the
// awkward records (null and empty keys and values, unicode, every byte
// value, repeated and null headers), read back exactly by kcat and by the
// Java consumer; keyed records land where the Java producer puts them.
// And the reverse: what the Java producer writes (every codec, its snappy
// xerial-framed), wafka reads exactly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Admin, Kafka, Producer } from '../../src/index.js'
import { type JavaRecordIn, javaConsume, javaPartitionsFor, javaProduce } from '../peers/java-client.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { kcatConsume } from '../peers/kcat.js'
import { wafka, wafkaRead } from './support.js'

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const
/** The codec bits of a RecordBatch's attributes. */
const CODEC_ID = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const

const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i))
const unicode = 'Grüße, Kafka — 日本語 🚀 \u{10FFFF}'

interface Case {
  key: Buffer | null
  value: Buffer | null
  headers: Array<[string, Buffer | null]>
}

/** The records every codec must carry exactly (bytes, nulls and header order included). */
function awkward(tag: string): Case[] {
  const cases: Case[] = [
    { key: null, value: Buffer.from(`${tag} null key`), headers: [] },
    { key: Buffer.alloc(0), value: Buffer.from(`${tag} empty key`), headers: [] },
    { key: Buffer.from('null value'), value: null, headers: [] },
    { key: Buffer.from('empty value'), value: Buffer.alloc(0), headers: [] },
    { key: null, value: null, headers: [['only', Buffer.from('headers')]] },
    { key: Buffer.from(unicode), value: Buffer.from(unicode.repeat(3)), headers: [[unicode, Buffer.from(unicode)]] },
    { key: every, value: Buffer.concat([every, Buffer.from(every).reverse()]), headers: [['bin', every]] },
    {
      key: Buffer.from('headers'),
      value: Buffer.from(tag),
      headers: [
        ['a', Buffer.from('1')],
        ['b', null],
        ['a', Buffer.from('2')],
        ['empty', Buffer.alloc(0)],
      ],
    },
  ]
  // Enough of a compressible run that every codec has something to squeeze.
  for (let i = 0; i < 200; i++)
    cases.push({
      key: Buffer.from(`k${i % 7}`),
      value: Buffer.from(`${tag} value ${i} `.repeat(10)),
      headers: [['i', Buffer.from(String(i))]],
    })
  return cases
}

const hex = (b: Buffer | null) => (b === null ? null : b.toString('hex'))
const shape = (r: { key: Buffer | null; value: Buffer | null; headers: Array<[string, Buffer | null]> }) => ({
  key: hex(r.key),
  value: hex(r.value),
  headers: r.headers.map(([k, v]) => [k, hex(v)]),
})

for (const target of brokerTargets())
  describe.skipIf(!target.available)(`producer on ${target.name}`, () => {
    let cluster: RunningTarget
    let kafka: Kafka
    let admin: Admin
    let producer: Producer

    beforeAll(async () => {
      cluster = await target.start()
      kafka = wafka(cluster)
      admin = kafka.admin()
      await admin.connect()
    })
    afterAll(async () => {
      await producer?.disconnect()
      await admin?.disconnect()
      await cluster?.stop()
    })

    it.each(CODECS)('%s: wafka writes, kcat and the Java consumer read every byte back', async (codec) => {
      const topic = `wafka-writes-${codec}`
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
      producer = kafka.producer({ compression: codec })
      await producer.connect()
      const cases = awkward(codec)
      // Several sends, so several batches.
      for (let i = 0; i < cases.length; i += 50) {
        await producer.send({ topic, messages: cases.slice(i, i + 50).map((c) => ({ ...c, partition: 0 })) })
      }
      await producer.disconnect()

      const expected = cases.map(shape)
      const java = await javaConsume(cluster, topic, { count: cases.length })
      expect(java.map(shape)).toEqual(expected)
      expect(java.map((r) => r.offset)).toEqual(cases.map((_, i) => i))

      const kcat = await kcatConsume(cluster.bootstrap, topic, { count: cases.length })
      expect(kcat.map(shape)).toEqual(expected)

      // The broker kept wafka's codec (topic compression.type=producer): the batches are really compressed.
      const back = await wafkaRead(kafka, topic, cases.length)
      expect(new Set(back.map((r) => r.attributes & 7))).toEqual(new Set([CODEC_ID[codec]]))
      expect(back.map(shape)).toEqual(expected)
    })

    it.each(CODECS)('%s: the Java producer writes, wafka reads every byte back', async (codec) => {
      const topic = `java-writes-${codec}`
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
      const cases = awkward(`java ${codec}`)
      const records: JavaRecordIn[] = cases.map((c) => ({ ...c, partition: 0 }))
      const sent = await javaProduce(cluster, topic, records, { 'compression.type': codec, 'linger.ms': 50 })
      expect(sent.every((s) => 'offset' in s)).toBe(true)
      const back = await wafkaRead(kafka, topic, cases.length)
      expect(back.map(shape)).toEqual(cases.map(shape))
      expect(back.map((r) => r.offset)).toEqual(cases.map((_, i) => BigInt(i)))
      expect(new Set(back.map((r) => r.attributes & 7))).toEqual(new Set([CODEC_ID[codec]]))
    })

    it('keyed records land where the Java producer puts the same keys', async () => {
      const topic = 'keyed'
      await admin.createTopics({ topics: [{ topic, numPartitions: 12, replicationFactor: 1 }] })
      const keys = [
        ...Array.from({ length: 300 }, (_, i) => Buffer.from(`key-${i}`)),
        Buffer.from(unicode),
        every,
        Buffer.from([0]),
        Buffer.alloc(0),
        Buffer.from('x'.repeat(1000)),
      ]
      const javaPartitions = await javaPartitionsFor(cluster, topic, keys)
      expect(new Set(javaPartitions).size).toBe(12)

      producer = kafka.producer()
      await producer.connect()
      const results = await Promise.all(keys.map((key) => producer.send({ topic, messages: [{ key, value: 'w' }] })))
      await producer.disconnect()
      expect(results.map((r) => r[0].partition)).toEqual(javaPartitions)
    })
  })
