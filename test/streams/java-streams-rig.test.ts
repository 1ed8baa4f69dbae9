// The Java Kafka Streams rig (test/peers/java-streams.ts) on real Kafka 4.4
// and on the embedded broker, with the same assertions: Java's word count
// (kafka-streams 4.4, classic group protocol) reads a topic wafka wrote and
// its output topic, read back with wafka's consumer and wafka/streams'
// serdes, holds the exact count of every word. On the embedded broker this
// is Kafka Streams served end to end: its internal topics created as it asks
// (the repartition topic and the compacted changelog), its group, its
// offsets, its repartition purges. The rig's other applications (a windowed
// count with grace, a session count, a stream-table and a table-table join)
// end with the final table Kafka Streams' documented semantics give,
// computed here from the input.
import { expect, it } from 'vitest'
import type { Kafka } from '../../src/index.js'
import { type Serde, Serdes } from '../../src/streams/serdes.js'
import { WindowedSerdes } from '../../src/streams/windowed-serdes.js'
import { javaStreamsApp } from '../peers/java-streams.js'
import { brokerTargets } from '../peers/targets.js'
import { wafkaRead } from '../kafka/support.js'
import { createTopics, produceStrings, runJavaToEnd, describeOnTargets } from './support.js'

const TOPIC_RESOURCE = 2
const VOCABULARY = ['kafka', 'streams', 'wafka', 'java', 'table', 'window', 'join', 'count', 'Record', 'TOPIC', 'x', 'a1', 'under_score']

/** Lines of words with punctuation, capitals and runs of separators between them. */
function lines(count: number): string[] {
  const out: string[] = []
  let x = 7
  const next = (n: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x % n
  }
  for (let i = 0; i < count; i++) {
    const words = Array.from({ length: 1 + next(9) }, () => VOCABULARY[next(VOCABULARY.length)])
    const seps = [' ', ', ', '  -- ', '!', '... ', '\t']
    out.push(
      (next(4) === 0 ? '(' : '') + words.map((w, j) => (j === 0 ? w : seps[next(seps.length)] + w)).join('') + (next(3) === 0 ? '.' : ''),
    )
  }
  return out
}

/** The word count RigStreams computes, computed here: lower case, split on \W+, empty words dropped. */
function expectedCounts(text: string[]): Record<string, bigint> {
  const counts: Record<string, bigint> = {}
  for (const line of text) {
    for (const word of line.toLowerCase().split(/\W+/)) if (word !== '') counts[word] = (counts[word] ?? 0n) + 1n
  }
  return counts
}

// An hour ago, to the hour (a multiple of every window size below). Not a fixed date: a record
// older than a topic's retention (7 days by default) is deleted by the broker's next retention
// check, and an application that never sees its input never commits (the tests hung on real Kafka).
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000
const str = Serdes.String()

interface In {
  key: string
  value: string | null
  timestamp: number
  partition: number
}

/** The table an output topic ends with: the last value of each key (as `show` names it), tombstones deleting. */
async function finalTable<K, V>(kafka: Kafka, topic: string, keySerde: Serde<K>, valueSerde: Serde<V>, show: (k: K) => string) {
  const table: Record<string, V> = {}
  for (const r of await readAll(kafka, topic)) {
    const key = show(keySerde.deserialize(topic, r.key)!)
    const value = valueSerde.deserialize(topic, r.value)
    if (value === null) delete table[key]
    else table[key] = value
  }
  return table
}

async function readAll(kafka: Kafka, topic: string) {
  const admin = kafka.admin()
  await admin.connect()
  const offsets = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect())
  const total = offsets.reduce((sum, o) => sum + Number(o.high), 0)
  return wafkaRead(kafka, topic, total)
}

describeOnTargets(brokerTargets(), 'Java Kafka Streams', (on) => {
  it('word count (classic group protocol): the output topic holds the exact count of every word', async () => {
    const text = lines(400)
    const appId = 'rig-wordcount'
    const admin = on.kafka.admin()
    await admin.connect()
    try {
      await admin.createTopics({
        topics: [
          { topic: 'text', numPartitions: 3 },
          { topic: 'word-counts', numPartitions: 3 },
        ],
      })
      const producer = on.kafka.producer()
      await producer.connect()
      await producer.send({
        topic: 'text',
        messages: text.map((line, i) => ({
          key: Serdes.String().serialize('text', `line-${i}`),
          value: Serdes.String().serialize('text', line),
        })),
      })
      await producer.disconnect()

      const app = javaStreamsApp(on.cluster, 'wordcount', {
        applicationId: appId,
        inputs: ['text'],
        output: 'word-counts',
        count: text.length,
        props: { 'group.protocol': 'classic', 'commit.interval.ms': 100 },
      })
      await app.waitFor((e) => e.event === 'state' && e.to === 'RUNNING', 90_000)
      const exit = await Promise.race([
        app.exited,
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`word count did not finish in 120 s (state ${app.state()}):\n${app.stderr.join('\n')}`)),
            120_000,
          ),
        ),
      ]).finally(() => app.kill())
      expect({ exit, errors: app.events.filter((e) => e.event === 'error') }, app.stderr.join('\n')).toEqual({
        exit: { code: 0, signal: null },
        errors: [],
      })
      expect(app.events.find((e) => e.event === 'committed')).toEqual({ event: 'committed', records: text.length })

      // The last count of each word is the exact count; a word's counts only go up.
      const records = await readAll(on.kafka, 'word-counts')
      const last: Record<string, bigint> = {}
      const notRising: string[] = []
      for (const r of records) {
        const word = Serdes.String().deserialize('word-counts', r.key)!
        const count = Serdes.Long().deserialize('word-counts', r.value)!
        if (last[word] !== undefined && count <= last[word]) notRising.push(`${word}: ${last[word]} then ${count}`)
        last[word] = count
      }
      expect(last).toEqual(expectedCounts(text))
      expect(notRising).toEqual([])

      // Streams' internal topics, as it asked for them: the repartition topic of the
      // groupBy and the store's changelog, compacted.
      const topics = await admin.listTopics()
      expect(topics.filter((t) => t.startsWith(`${appId}-`)).sort()).toEqual([`${appId}-counts-changelog`, `${appId}-counts-repartition`])
      const { resources } = await admin.describeConfigs({
        resources: [`${appId}-counts-changelog`, `${appId}-counts-repartition`].map((name) => ({
          type: TOPIC_RESOURCE,
          name,
          configNames: ['cleanup.policy'],
        })),
      })
      expect(resources.map((r) => [r.resourceName, r.configEntries[0]?.configValue])).toEqual([
        [`${appId}-counts-changelog`, 'compact'],
        [`${appId}-counts-repartition`, 'delete'],
      ])
    } finally {
      await admin.disconnect()
    }
  }, 300_000)

  it('windowed count with grace: each window holds the records of its key that were not too late for it', async () => {
    const [size, grace] = [10_000, 5_000]
    // Per partition, time moves on by about 0.7 s a record; every 9th record is 4 s behind
    // (within the grace), every 13th 20 s behind (its window closed).
    const records: In[] = []
    for (let p = 0; p < 3; p++) {
      for (let i = 0; i < 60; i++) {
        const late = i % 13 === 12 ? 20_000 : i % 9 === 8 ? 4_000 : 0
        records.push({ key: `k${p + 3 * (i % 2)}`, value: `v${i}`, timestamp: T0 + 30_000 + i * 700 - late, partition: p })
      }
    }
    // What Kafka Streams documents: stream time per task (partition), a window of [start,
    // start + size) takes a record while start + size > stream time - grace.
    const expected: Record<string, bigint> = {}
    let dropped = 0
    for (let p = 0; p < 3; p++) {
      let streamTime = -Infinity
      for (const r of records.filter((x) => x.partition === p)) {
        streamTime = Math.max(streamTime, r.timestamp)
        const start = Math.floor(r.timestamp / size) * size
        if (start + size > streamTime - grace) expected[`${r.key}@${start}`] = (expected[`${r.key}@${start}`] ?? 0n) + 1n
        else dropped++
      }
    }
    expect(dropped).toBeGreaterThan(0)
    await createTopics(on.kafka, ['events', 'windowed-counts'], 3)
    await produceStrings(on.kafka, 'events', records)
    await runJavaToEnd(on.cluster, 'windowed-count', {
      applicationId: 'rig-windowed',
      inputs: ['events'],
      output: 'windowed-counts',
      count: records.length,
      windowMs: size,
      graceMs: grace,
    })
    const serde = WindowedSerdes.timeWindowedSerdeFrom(str, size)
    const table = await finalTable(on.kafka, 'windowed-counts', serde, Serdes.Long(), (k) => `${k.key}@${k.window.start}`)
    expect(table).toEqual(expected)
  }, 300_000)

  it('session count: sessions merge when a record bridges them, the merged ones deleted', async () => {
    const gap = 5_000
    // Per key: two bursts 8 s apart (two sessions), then a record between them that merges
    // them (late, within the grace), then a third burst 60 s on.
    const records: In[] = []
    for (let p = 0; p < 3; p++) {
      const key = `s${p}`
      const at = (ms: number) => records.push({ key, value: String(ms), timestamp: T0 + ms + p * 100, partition: p })
      for (const ms of [0, 1_000, 2_000, 10_000, 11_000, 6_000, 70_000, 70_500]) at(ms)
    }
    const expected: Record<string, bigint> = {}
    for (let p = 0; p < 3; p++) {
      const o = T0 + p * 100
      Object.assign(expected, { [`s${p}@${o}-${o + 11_000}`]: 6n, [`s${p}@${o + 70_000}-${o + 70_500}`]: 2n })
    }
    await createTopics(on.kafka, ['sessions-in', 'session-counts'], 3)
    await produceStrings(on.kafka, 'sessions-in', records)
    await runJavaToEnd(on.cluster, 'session-count', {
      applicationId: 'rig-sessions',
      inputs: ['sessions-in'],
      output: 'session-counts',
      count: records.length,
      gapMs: gap,
      graceMs: 30_000,
    })
    const serde = WindowedSerdes.sessionWindowedSerdeFrom(str)
    const table = await finalTable(on.kafka, 'session-counts', serde, Serdes.Long(), (k) => `${k.key}@${k.window.start}-${k.window.end}`)
    expect(table).toEqual(expected)
  }, 300_000)

  it('stream-table left join: each click joined with the user as the table stood at its time', async () => {
    // Keys in the same partition of both topics (co-partitioned); the table first in time.
    const part = (key: string) => Number(key.slice(1)) % 3
    const users: In[] = [0, 1, 2, 3, 4, 5].map((i) => ({
      key: `u${i}`,
      value: `name${i}`,
      timestamp: T0 + 1_000 + i,
      partition: part(`u${i}`),
    }))
    users.push({ key: 'u0', value: 'renamed', timestamp: T0 + 20_000, partition: 0 })
    const clicks: In[] = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({
      key: `u${i}`,
      value: `page${i}`,
      timestamp: T0 + 10_000 + i,
      partition: part(`u${i}`),
    }))
    clicks.push({ key: 'u0', value: 'later', timestamp: T0 + 30_000, partition: 0 })
    await createTopics(on.kafka, ['clicks', 'users', 'enriched'], 3)
    await produceStrings(on.kafka, 'users', users)
    await produceStrings(on.kafka, 'clicks', clicks)
    await runJavaToEnd(on.cluster, 'stream-table-join', {
      applicationId: 'rig-stream-table',
      inputs: ['clicks', 'users'],
      output: 'enriched',
      join: 'left',
      count: users.length + clicks.length,
    })
    const joined: Record<string, string[]> = {}
    for (const r of await readAll(on.kafka, 'enriched'))
      (joined[str.deserialize('enriched', r.key)!] ??= []).push(str.deserialize('enriched', r.value)!)
    expect(joined).toEqual({
      u0: ['page0+name0', 'later+renamed'],
      u1: ['page1+name1'],
      u2: ['page2+name2'],
      u3: ['page3+name3'],
      u4: ['page4+name4'],
      u5: ['page5+name5'],
      u6: ['page6+null'],
      u7: ['page7+null'],
    })
  }, 300_000)

  it('table-table outer join: the final table joins the final states of both sides', async () => {
    const rec = (key: string, value: string | null, i: number): In => ({
      key,
      value,
      timestamp: T0 + i * 1_000,
      partition: key.charCodeAt(0) % 3,
    })
    const left = [rec('a', 'a1', 1), rec('b', 'b1', 2), rec('c', 'c1', 3), rec('a', 'a2', 7), rec('c', null, 8), rec('e', 'e1', 9)]
    const right = [rec('b', 'B1', 4), rec('d', 'D1', 5), rec('c', 'C1', 6), rec('d', null, 10), rec('e', 'E1', 11)]
    await createTopics(on.kafka, ['left', 'right', 'joined'], 3)
    await produceStrings(on.kafka, 'left', left)
    await produceStrings(on.kafka, 'right', right)
    await runJavaToEnd(on.cluster, 'table-table-join', {
      applicationId: 'rig-table-table',
      inputs: ['left', 'right'],
      output: 'joined',
      join: 'outer',
      count: left.length + right.length,
    })
    expect(await finalTable(on.kafka, 'joined', str, str, (k) => k)).toEqual({ a: 'a2+null', b: 'b1+B1', c: 'null+C1', e: 'e1+E1' })
  }, 300_000)
})
