// The record cache (Java's statestore.cache.max.bytes, on by default): on
// real Kafka 4.4 and the embedded broker, the word count with the cache on
// ends with the same output table as Java Kafka Streams 4.4 with its default
// cache; many updates of a key within one commit interval leave ONE output
// record and ONE changelog record for it (every update without the cache);
// a cache of a few hundred bytes evicts, so updates go out before any
// commit, and the results are still exact. Window and session stores cache
// too (Java's CachingWindowStore, CachingSessionStore): a windowed count
// whose (key, window) takes 40 updates in one interval gives ONE output and
// ONE changelog record for it and Java's final table; a session count folds
// a merge within one interval into the merged session alone, and a merge
// across a flush tombstones the sessions flushed before, as Java's. A
// Processor API store built withCachingEnabled() logs once per key per commit.
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { Kafka } from '../../src/index.js'
import {
  KafkaStreams,
  Serdes,
  SessionWindows,
  StreamsBuilder,
  Stores,
  TimeWindows,
  WindowedSerdes,
  type StreamsConfig,
  type Topology,
} from '../../src/public/streams.js'
import type { KeyValueStore } from '../../src/streams/key-value-store.js'
import { brokerTargets } from '../peers/targets.js'
import { until, wafkaRead } from '../kafka/support.js'
import { ThreadCache, type CacheNode } from '../../src/streams/record-cache.js'
import { createTopics, describeOnTargets, NO_TIME_RETENTION, produceStrings, rawTable, runJavaToEnd, storeCounts } from './support.js'
import { countWords, wordCountTopology, wordLines } from './word-count-app.js'

const str = Serdes.String()
const long = Serdes.Long()

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

const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000
const SIZE = 10_000
const GAP = 5_000
/** Grace long enough that no window expires from the store while a test reads it. */
const GRACE = 60_000
const KEYS = ['k0', 'k1', 'k2', 'k3', 'k4']

/** Each windowed key's values, in order, as `key@start-end` (relative to T0) to counts (null: a tombstone). */
async function windowedRecords(
  kafka: Kafka,
  topic: string,
  session: boolean,
  store = false,
): Promise<Record<string, Array<bigint | null>>> {
  const keys = session ? WindowedSerdes.sessionWindowedSerdeFrom(str) : WindowedSerdes.timeWindowedSerdeFrom(str, SIZE)
  const out: Record<string, Array<bigint | null>> = {}
  for (const r of await wafkaRead(kafka, topic, 'end')) {
    let id: string
    if (!store) {
      const w = keys.deserialize(topic, r.key!)!
      id = `${w.key}@${w.window.start - T0}-${w.window.end - T0}`
    } else if (session) {
      // Java's session store key: key, end, start.
      const k = r.key!
      id = `${k.subarray(0, k.length - 16).toString()}@${Number(k.readBigInt64BE(k.length - 8)) - T0}-${Number(k.readBigInt64BE(k.length - 16)) - T0}`
    } else {
      // Java's window store key: key, start, sequence number.
      const k = r.key!
      const start = Number(k.readBigInt64BE(k.length - 12)) - T0
      id = `${k.subarray(0, k.length - 12).toString()}@${start}-${start + SIZE}`
    }
    ;(out[id] ??= []).push(r.value === null ? null : r.value.readBigInt64BE(0))
  }
  return out
}

/**
 * Holds a compacted changelog to what was logged (`logged`, per key): read whole it equals it. The
 * embedded broker's cleaner (every 15 s; in memory all but the newest batch is cleanable) may have kept
 * only each key's last record by the time it is read: then every update logged still shows as an offset
 * (its end offset at least their count; a transaction's markers add more), and each key's last update
 * survives.
 */
async function expectLogged(kafka: Kafka, topic: string, survived: Record<string, Array<bigint | null>>, logged: Record<string, bigint[]>) {
  if (isDeepStrictEqual(survived, logged)) return
  const admin = kafka.admin()
  await admin.connect()
  const [{ high }] = await admin.fetchTopicOffsets(topic)
  await admin.disconnect()
  expect(Number(high), `${topic}: records logged`).toBeGreaterThanOrEqual(
    Object.values(logged).reduce((n, updates) => n + updates.length, 0),
  )
  expect(Object.keys(survived).sort()).toEqual(Object.keys(logged).sort())
  for (const [key, updates] of Object.entries(logged)) expect(survived[key].at(-1), `${topic}: ${key}`).toBe(updates.at(-1))
}

const windowedCount = (input: string, output: string, cachingEnabled?: boolean): Topology => {
  const b = new StreamsBuilder()
  b.stream<string, string>(input, { keySerde: str, valueSerde: str })
    .groupByKey()
    .windowedBy(TimeWindows.ofSizeAndGrace(SIZE, GRACE))
    .count({ storeName: 'windowed-counts', cachingEnabled })
    .toStream()
    .to(output, { valueSerde: long })
  return b.build()
}

const sessionCount = (input: string, output: string): Topology => {
  const b = new StreamsBuilder()
  b.stream<string, string>(input, { keySerde: str, valueSerde: str })
    .groupByKey()
    .windowedBy(SessionWindows.ofInactivityGapAndGrace(GAP, 3_600_000))
    .count({ storeName: 'session-counts' })
    .toStream()
    .to(output, { valueSerde: long })
  return b.build()
}

/** A processor counting per key in store `counts` (built with caching or not), forwarding nothing. */
const processorCount = (input: string, caching: boolean): Topology => {
  const b = new StreamsBuilder()
  const builder = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('counts'), str, long)
  b.addStateStore(caching ? builder.withCachingEnabled() : builder)
  b.stream<string, string>(input, { keySerde: str, valueSerde: str }).process(() => {
    let store: KeyValueStore<string, bigint>
    return {
      init: (context) => void (store = context.getStateStore<string, bigint>('counts')),
      process: (r) => store.put(r.key, (store.get(r.key) ?? 0n) + 1n, r.timestamp),
    }
  }, 'counts')
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

describe('StoreBuilder caching', () => {
  it("is off by default, as Java's builders; withCachingEnabled() / withCachingDisabled() give new builders", () => {
    const builder = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('s'), str, long)
    expect(builder.def.caching).toBe(false)
    const on = builder.withCachingEnabled()
    expect(on.def.caching).toBe(true)
    expect(on.name).toBe('s')
    expect(builder.def.caching).toBe(false)
    expect(on.withCachingDisabled().def.caching).toBe(false)
  })
})

// The built package (WAFKA_BUILT) is held to the embedded broker, as the other streams files in the built slice.
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
          await storeCounts(streams, keys, 40n, 'every update counted (read through the cache)')
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
        const changelog = `rc-many-${id}-counts-changelog`
        const every = Array.from({ length: 40 }, (_, i) => BigInt(i + 1))
        for (const k of keys) expect(out.get(k), `${k}'s output`).toEqual(cache ? [40n] : every)
        const logged = Object.fromEntries(keys.map((k) => [k, cache ? [40n] : every]))
        await expectLogged(on.kafka, changelog, Object.fromEntries(await recordsPerKey(on.kafka, changelog)), logged)
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
        await storeCounts(streams, keys, 4n)
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

    const quiet = (topology: Topology, applicationId: string, extra: Partial<StreamsConfig> = {}) =>
      new KafkaStreams(topology, {
        applicationId,
        brokers: on.cluster.bootstrap,
        defaultApiTimeoutMs: 30_000,
        defaultDslStore: 'in_memory',
        defaultKeySerde: str,
        defaultValueSerde: str,
        // No commit while a test looks: only the close commits (and flushes the caches).
        commitIntervalMs: 600_000,
        ...extra,
      })

    // 400 records, 50 ms apart: two 10 s windows, each key's 40 updates in each, interleaved.
    const records = Array.from({ length: 400 }, (_, i) => ({ key: KEYS[i % 5], value: `v${i}`, timestamp: T0 + i * 50, partition: 0 }))

    // statestoreCacheMaxBytes 0 leaves every store uncached (above); the windowed and session tests comparing every
    // update with Java's (java-comparison, sliding-windows, session-windows, suppress) run with it.
    for (const mode of ['cache', 'cachingEnabled false'] as const)
      it(
        mode === 'cache'
          ? "windowed count, 40 updates of each (key, window) in one commit interval: ONE output and ONE changelog record each, the same final table and changelog as Java's with its default cache"
          : `windowed count with ${mode}: every update forwarded and logged`,
        async () => {
          const id = mode === 'cache' ? 'on' : 'disabled'
          const [input, output] = [`wc-${id}`, `wc-${id}-out`]
          await createTopics(on.kafka, [input, output], 1)
          await produceStrings(on.kafka, input, records)
          // Java's windowed-count (store windowed-counts), its default cache (10 MiB) and commit interval 100 ms, beside ours.
          const java =
            mode === 'cache'
              ? runJavaToEnd(on.cluster, 'windowed-count', {
                  applicationId: 'wc-java',
                  inputs: [input],
                  output: 'wc-java-out',
                  count: records.length,
                  windowMs: SIZE,
                  graceMs: GRACE,
                })
              : Promise.resolve()
          // Awaited below, unless a failure before that ends the test (then its rejection is not the test's).
          java.catch(() => {})
          const streams = quiet(windowedCount(input, output, mode === 'cache' ? undefined : false), `wc-${id}`)
          await streams.start()
          try {
            await until(
              'every update counted (read through the cache)',
              () => {
                const store = streams.store<string, bigint>('windowed-counts', 'window')
                return KEYS.flatMap((k) => [store.fetch(k, T0), store.fetch(k, T0 + SIZE)])
              },
              (counts) => counts.every((c) => c === 40n),
              60_000,
            )
            // The cache holds every update until the close's flush.
            if (mode === 'cache') expect(await windowedRecords(on.kafka, output, false)).toEqual({})
          } finally {
            await streams.close()
          }
          const every = Array.from({ length: 40 }, (_, i) => BigInt(i + 1))
          const expected = Object.fromEntries(
            KEYS.flatMap((k) => [`${k}@0-${SIZE}`, `${k}@${SIZE}-${2 * SIZE}`]).map((w) => [w, mode === 'cache' ? [40n] : every]),
          )
          expect(await windowedRecords(on.kafka, output, false)).toEqual(expected)
          const changelog = `wc-${id}-windowed-counts-changelog`
          await expectLogged(on.kafka, changelog, await windowedRecords(on.kafka, changelog, false, true), expected)
          if (mode !== 'cache') return

          await java
          const javaTable = await rawTable(on.kafka, 'wc-java-out')
          expect(Object.keys(javaTable).length).toBe(10)
          expect(await rawTable(on.kafka, output)).toEqual(javaTable)
          expect(await rawTable(on.kafka, `wc-${id}-windowed-counts-changelog`)).toEqual(
            await rawTable(on.kafka, 'wc-java-windowed-counts-changelog'),
          )
        },
        180_000,
      )

    it("session count: a merge within one commit interval gives the merged session alone; one across a flush tombstones the sessions flushed before; Java's final table", async () => {
      const [input, output] = ['sc-in', 'sc-out']
      await createTopics(on.kafka, [input, output], 1)
      const phase1 = [
        { key: 'a', value: 'x', timestamp: T0, partition: 0 },
        { key: 'a', value: 'x', timestamp: T0 + 10_000, partition: 0 },
        // b: two sessions merged by a third record, all within this interval.
        { key: 'b', value: 'x', timestamp: T0, partition: 0 },
        { key: 'b', value: 'x', timestamp: T0 + 8_000, partition: 0 },
        { key: 'b', value: 'x', timestamp: T0 + 4_000, partition: 0 },
      ]
      // a's two sessions, flushed by the first close, merged by 5 s, then grown by 5.5 s.
      const phase2 = [
        { key: 'a', value: 'x', timestamp: T0 + 5_000, partition: 0 },
        { key: 'a', value: 'x', timestamp: T0 + 5_500, partition: 0 },
      ]
      const run = async (expected: Array<[string, bigint]>) => {
        const streams = quiet(sessionCount(input, output), 'sc-app')
        await streams.start()
        try {
          await until(
            'the sessions (read through the cache)',
            () => {
              const store = streams.store<string, bigint>('session-counts', 'session')
              return [...store.fetch('a'), ...store.fetch('b')].map((s) => [`@${s.window.start - T0}-${s.window.end - T0}`, s.value])
            },
            (s) => JSON.stringify(s.map(([w, v]) => `${w}=${v}`)) === JSON.stringify(expected.map(([w, v]) => `${w}=${v}`)),
            60_000,
          )
        } finally {
          await streams.close()
        }
      }
      await produceStrings(on.kafka, input, phase1)
      // Java's session-count (gap 5 s, store session-counts) with its default cache, beside ours: it runs until it
      // has committed both phases' records.
      const java = runJavaToEnd(on.cluster, 'session-count', {
        applicationId: 'sc-java',
        inputs: [input],
        output: 'sc-java-out',
        count: phase1.length + phase2.length,
        gapMs: GAP,
        graceMs: 3_600_000,
      })
      java.catch(() => {})
      await run([
        ['@0-0', 1n],
        ['@10000-10000', 1n],
        ['@0-8000', 3n],
      ])
      // b's [0] and [8 s], made and merged away before the flush: neither forwarded nor logged (Java skips them).
      const first = { 'a@0-0': [1n], 'a@10000-10000': [1n], 'b@0-8000': [3n] }
      expect(await windowedRecords(on.kafka, output, true)).toEqual(first)
      expect(await windowedRecords(on.kafka, 'sc-app-session-counts-changelog', true, true)).toEqual(first)

      await produceStrings(on.kafka, input, phase2)
      await run([
        ['@0-10000', 4n],
        ['@0-8000', 3n],
      ])
      const second = { 'a@0-0': [1n, null], 'a@10000-10000': [1n, null], 'a@0-10000': [4n], 'b@0-8000': [3n] }
      expect(await windowedRecords(on.kafka, output, true)).toEqual(second)
      expect(await windowedRecords(on.kafka, 'sc-app-session-counts-changelog', true, true)).toEqual(second)

      await java
      const javaTable = await rawTable(on.kafka, 'sc-java-out')
      expect(Object.keys(javaTable).length).toBe(2)
      expect(await rawTable(on.kafka, output)).toEqual(javaTable)
    }, 180_000)

    it('a Processor API store withCachingEnabled() logs each key once per commit; without, every write', async () => {
      for (const caching of [true, false]) {
        const input = `pc-${caching ? 'on' : 'off'}`
        await createTopics(on.kafka, [input], 1)
        await produceStrings(on.kafka, input, records.slice(0, 200))
        const streams = quiet(processorCount(input, caching), input)
        await streams.start()
        try {
          await storeCounts(streams, KEYS, 40n, 'every record counted (read through the cache)')
        } finally {
          await streams.close()
        }
        const changelog: Record<string, bigint[]> = {}
        for (const r of await wafkaRead(on.kafka, `${input}-counts-changelog`, 'end'))
          (changelog[r.key!.toString()] ??= []).push(r.value!.readBigInt64BE(0))
        const every = Array.from({ length: 40 }, (_, i) => BigInt(i + 1))
        await expectLogged(
          on.kafka,
          `${input}-counts-changelog`,
          changelog,
          Object.fromEntries(KEYS.map((k) => [k, caching ? [40n] : every])),
        )
      }
    }, 120_000)
  },
  { builtOnEmbedded: true },
)
