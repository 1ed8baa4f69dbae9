// The record cache (Java's statestore.cache.max.bytes, on by default): on
// real Kafka 4.4 and the embedded broker, the word count with the cache on
// ends with the same output table as Java Kafka Streams 4.4 with its default
// cache; many updates of a key within one commit interval leave ONE output
// record and ONE changelog record for it (every update without the cache);
// a cache of a few hundred bytes evicts, so updates go out before any
// commit, and the results are still exact.
import { describe, expect, it } from 'vitest'
import type { Kafka } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder, type Topology } from '../../src/public/streams.js'
import { brokerTargets } from '../peers/targets.js'
import { until, wafkaRead } from '../kafka/support.js'
import { ThreadCache, type CacheNode } from '../../src/streams/record-cache.js'
import { NO_TIME_RETENTION, produceStrings, rawTable, runJavaToEnd, describeOnTargets } from './support.js'
import { countWords, wordCountTopology, wordLines } from './word-count-app.js'

const str = Serdes.String()
const long = Serdes.Long()

async function createTopics(kafka: Kafka, names: string[], numPartitions: number): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    await admin.createTopics({ topics: names.map((topic) => ({ topic, numPartitions })) })
  } finally {
    await admin.disconnect()
  }
}

/** Records per key of `topic` (String keys), read to its end. */
async function recordsPerKey(
  kafka: Kafka,
  topic: string,
  isolationLevel: 'read_committed' | 'read_uncommitted' = 'read_committed',
): Promise<Map<string, bigint[]>> {
  const out = new Map<string, bigint[]>()
  for (const r of await wafkaRead(kafka, topic, 'end', { isolationLevel })) {
    const key = r.key!.toString()
    const list = out.get(key) ?? []
    list.push(r.value === null ? -1n : r.value.readBigInt64BE(0))
    out.set(key, list)
  }
  return out
}

async function endOffset(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0)
  } finally {
    await admin.disconnect()
  }
}

/** groupByKey().count() into store `counts`, out to `output`: no repartition, so a key's updates stay in one task. */
function countByKey(input: string, output: string, cachingEnabled?: boolean): Topology {
  const b = new StreamsBuilder()
  b.stream<string, string>(input, { keySerde: str, valueSerde: str })
    .groupByKey()
    .count({ storeName: 'counts', cachingEnabled })
    .toStream()
    .to(output, { keySerde: str, valueSerde: long })
  return b.build()
}

describe("the record cache's eviction, as Java's ThreadCache and NamedCache", () => {
  const ctx = { topic: 't', partition: 0, offset: 0n, timestamp: 0 }
  const key = (k: string) => Buffer.from(k)
  // One entry: 2-byte key, 8-byte value: 2 + 8 + 8 + 1 + 20 + 1 (topic) + 24 = 64 bytes.
  const put = (c: ReturnType<ThreadCache['named']>, k: string, before: Buffer | null = null) => c.changed(k, key(k), before, 8, 1, ctx)

  it("evicting a changed key flushes every change of its store, the evicted key's first, then least recently changed first", () => {
    const thread = new ThreadCache(3 * 64)
    const flushed: string[][] = []
    const a = thread.named('0_0-a', (nodes: CacheNode[]) => flushed.push(nodes.map((n) => n.id)))
    put(a, 'k1')
    put(a, 'k2')
    put(a, 'k3')
    expect(thread.sizeBytes).toBe(3 * 64)
    expect(flushed).toEqual([])
    // k1 changed again: now the most recently used and changed; k2 is the eldest.
    put(a, 'k1')
    put(a, 'k4')
    expect(flushed).toEqual([['k2', 'k3', 'k1', 'k4']])
    expect(thread.sizeBytes).toBe(3 * 64)
    // Clean keys evict without a flush.
    put(a, 'k5')
    expect(flushed.length).toBe(1)
    a.flush()
    expect(flushed[1]).toEqual(['k5'])
    a.close()
    expect(thread.sizeBytes).toBe(0)
  })

  it('a read makes a key the most recently used; a flush hands each changed key once with the value it held at the last flush', () => {
    const thread = new ThreadCache(2 * 64)
    const seen: Array<[string, string | null]> = []
    const a = thread.named('0_0-a', (nodes: CacheNode[]) =>
      seen.push(...nodes.map((n) => [n.id, n.flushed?.toString() ?? null] as [string, string | null])),
    )
    put(a, 'k1', Buffer.from('old1'))
    put(a, 'k1', Buffer.from('ignored: k1 is changed already'))
    put(a, 'k2')
    a.touch('k1', key('k1'), 8, ctx)
    // k2 is the eldest now: evicted, flushed with every change.
    put(a, 'k3')
    expect(seen).toEqual([
      ['k2', null],
      ['k1', 'old1'],
      ['k3', null],
    ])
  })
})

describeOnTargets(
  brokerTargets(NO_TIME_RETENTION),
  'the record cache',
  (on) => {
    const app = (topology: Topology, applicationId: string, extra: Record<string, unknown> = {}) =>
      new KafkaStreams(topology, {
        applicationId,
        brokers: on.cluster.bootstrap,
        defaultApiTimeoutMs: 30_000,
        defaultDslStore: 'in_memory',
        defaultKeySerde: str,
        defaultValueSerde: str,
        ...extra,
      })

    it("word count with the cache on: the same final output table as Java's with its default cache", async () => {
      const lines = wordLines(400, 3)
      await createTopics(on.kafka, ['rc-text', 'rc-java-counts', 'rc-wafka-counts'], 3)
      await produceStrings(on.kafka, 'rc-text', lines)
      const expected = Object.fromEntries(countWords(lines))

      // Java's defaults: statestore.cache.max.bytes 10 MiB (runJavaToEnd sets commit.interval.ms 100).
      await runJavaToEnd(on.cluster, 'wordcount', {
        applicationId: 'rc-java-wc',
        inputs: ['rc-text'],
        output: 'rc-java-counts',
        count: 400,
      })
      const javaTable = await rawTable(on.kafka, 'rc-java-counts')

      const streams = app(wordCountTopology('rc-text', 'rc-wafka-counts'), 'rc-wafka-wc', { commitIntervalMs: 100 })
      await streams.start()
      try {
        await until(
          'the word count',
          () => recordsPerKey(on.kafka, 'rc-wafka-counts'),
          (t) => Object.keys(expected).every((w) => t.get(w)?.at(-1) === expected[w]),
          90_000,
        )
      } finally {
        await streams.close()
      }
      expect(await rawTable(on.kafka, 'rc-wafka-counts')).toEqual(javaTable)
      const decoded = Object.fromEntries([...(await recordsPerKey(on.kafka, 'rc-java-counts'))].map(([k, v]) => [k, v.at(-1)]))
      expect(decoded).toEqual(expected)
    }, 300_000)

    for (const [cache, guarantee, off] of [
      [true, 'at_least_once', ''],
      [true, 'exactly_once_v2', ''],
      [false, 'at_least_once', 'statestoreCacheMaxBytes'],
      [false, 'at_least_once', 'cachingEnabled'],
    ] as const)
      it(`${cache ? `with the cache on (${guarantee}), 40 updates of a key in one commit interval give ONE output and ONE changelog record` : off === 'cachingEnabled' ? "with Materialized's cachingEnabled false (Java's withCachingDisabled()), every update is forwarded and logged" : 'with the cache off (statestoreCacheMaxBytes 0), every update is forwarded and logged'}`, async () => {
        const id = cache ? `on-${guarantee === 'exactly_once_v2' ? 'eos' : 'alos'}` : off === 'cachingEnabled' ? 'disabled' : 'off'
        const [input, output] = [`rc-many-${id}`, `rc-many-${id}-out`]
        await createTopics(on.kafka, [input, output], 1)
        const keys = ['k0', 'k1', 'k2', 'k3', 'k4']
        // Interleaved: each key's updates spread over the whole input.
        const records = Array.from({ length: 200 }, (_, i) => ({ key: keys[i % 5], value: `v${i}`, timestamp: Date.now(), partition: 0 }))
        await produceStrings(on.kafka, input, records)
        // No commit while the test looks: only the close commits (and, with the cache, flushes).
        const streams = app(countByKey(input, output, off === 'cachingEnabled' ? false : undefined), `rc-many-${id}`, {
          commitIntervalMs: 600_000,
          processingGuarantee: guarantee,
          ...(off === 'statestoreCacheMaxBytes' ? { statestoreCacheMaxBytes: 0 } : {}),
        })
        await streams.start()
        try {
          await until(
            'every update counted (read through the cache)',
            () => {
              const store = streams.store<string, bigint>('counts', 'keyValue')
              return keys.map((k) => store.get(k))
            },
            (counts) => counts.every((c) => c === 40n),
            60_000,
          )
          // Before the commit the cache holds every update: nothing was forwarded.
          if (cache) expect(await endOffset(on.kafka, output)).toBe(0)
          else
            await until(
              'every update forwarded',
              () => endOffset(on.kafka, output),
              (n) => n === 200,
              30_000,
            )
        } finally {
          await streams.close()
        }
        const out = await recordsPerKey(on.kafka, output)
        const changelog = await recordsPerKey(on.kafka, `rc-many-${id}-counts-changelog`)
        const every = Array.from({ length: 40 }, (_, i) => BigInt(i + 1))
        for (const k of keys) {
          expect(out.get(k), `${k}'s output`).toEqual(cache ? [40n] : every)
          expect(changelog.get(k), `${k}'s changelog`).toEqual(cache ? [40n] : every)
        }
      }, 120_000)

    it('a cache of a few hundred bytes evicts: updates go out before any commit, and the final counts are exact', async () => {
      const [input, output] = ['rc-small', 'rc-small-out']
      await createTopics(on.kafka, [input, output], 1)
      const keys = Array.from({ length: 30 }, (_, i) => `key-${i}`)
      const records = Array.from({ length: 120 }, (_, i) => ({ key: keys[i % 30], value: 'x', timestamp: Date.now(), partition: 0 }))
      await produceStrings(on.kafka, input, records)
      const streams = app(countByKey(input, output), 'rc-small', { commitIntervalMs: 600_000, statestoreCacheMaxBytes: 300 })
      await streams.start()
      try {
        // Evictions flush: the output fills while no commit has run.
        const before = await until(
          'evicted updates forwarded',
          () => endOffset(on.kafka, output),
          (n) => n > 0,
          60_000,
        )
        expect(before).toBeGreaterThan(0)
        await until(
          'every update counted',
          () => keys.map((k) => streams.store<string, bigint>('counts', 'keyValue').get(k)),
          (c) => c.every((x) => x === 4n),
          60_000,
        )
      } finally {
        await streams.close()
      }
      const out = await recordsPerKey(on.kafka, output)
      const changelog = await recordsPerKey(on.kafka, 'rc-small-counts-changelog')
      for (const k of keys) {
        // Each record forwarded is a count reached, in order, ending with the exact one.
        const seen = out.get(k)!
        expect(seen.at(-1), k).toBe(4n)
        expect(
          [...seen].sort((a, b) => Number(a - b)),
          k,
        ).toEqual(seen)
        expect(changelog.get(k)!.at(-1), k).toBe(4n)
      }
    }, 120_000)
  },
  { builtOnEmbedded: true },
)
