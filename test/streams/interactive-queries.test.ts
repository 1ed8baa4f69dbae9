// Interactive queries (Java's KafkaStreams.store()): a running application's
// stores read through a read-only view over its tasks, on the embedded
// broker. A word count over three partitions (so the counts live in three
// tasks' stores): get, range by key bytes, all and the entry count agree with
// the words produced; a windowed count: fetch of one window and of a time
// range; a session count: a key's sessions, a time range, one session. Refused as Java refuses: an unknown store, the wrong store type, and
// any read while the application is not RUNNING.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import type { Kafka } from '../../src/index.js'
import {
  InvalidStateStoreError,
  KafkaStreams,
  Serdes,
  StreamsBuilder,
  SessionWindows,
  TimeWindows,
  type ReadOnlyKeyValueStore,
} from '../../src/public/streams.js'
import { until } from '../kafka/support.js'
import { client, consumedAll } from './support.js'

const WORDS = ['apple', 'banana', 'cherry', 'apple', 'date', 'banana', 'apple', 'elder', 'fig', 'cherry']
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000
const SIZE = 60_000

describe('interactive queries on the embedded broker', () => {
  let cluster: RunningCluster
  let kafka: Kafka
  let app: KafkaStreams
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1 })
    kafka = client({ bootstrap: cluster.bootstrapServers })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'iq-words', numPartitions: 3 }, { topic: 'iq-clicks' }] })
    await admin.disconnect()
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 'iq-words', messages: WORDS.map((w) => ({ key: w, value: w })) })
    // Clicks of one user: two in the first minute, one in the third.
    await producer.send({
      topic: 'iq-clicks',
      messages: [0, 10_000, 2 * SIZE + 5].map((t) => ({ key: 'user-1', value: 'click', timestamp: String(T0 + t) })),
    })
    await producer.disconnect()

    const builder = new StreamsBuilder()
    builder
      .stream<string, string>('iq-words', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .groupByKey()
      .count({ storeName: 'word-counts' })
    const clicks = builder.stream<string, string>('iq-clicks', { keySerde: Serdes.String(), valueSerde: Serdes.String() }).groupByKey()
    clicks.windowedBy(TimeWindows.ofSizeAndGrace(SIZE, 3_600_000)).count({ storeName: 'click-counts' })
    clicks.windowedBy(SessionWindows.ofInactivityGapAndGrace(30_000, 3_600_000)).count({ storeName: 'click-sessions' })
    app = new KafkaStreams(builder.build(), { applicationId: 'iq-app', brokers: cluster.bootstrapServers, commitIntervalMs: 100 })
    expect(() => app.store('word-counts', 'keyValue').get('apple')).toThrow(/cannot be read in state CREATED/)
    await app.start()
    await consumedAll(kafka, 'iq-app', ['iq-words', 'iq-clicks'])
    await until(
      'RUNNING',
      () => app.state,
      (s) => s === 'RUNNING',
    )
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    await cluster?.stop()
  })

  it('reads a key-value store across the tasks of every partition', async () => {
    // The words are keys, spread by the partitioner: the counts live in more than one task's store.
    const admin = kafka.admin()
    await admin.connect()
    const filled = (await admin.fetchTopicOffsets('iq-words').finally(() => admin.disconnect())).filter((o) => o.high !== '0')
    expect(filled.length).toBeGreaterThan(1)
    const counts: ReadOnlyKeyValueStore<string, bigint> = app.store('word-counts', 'keyValue')
    expect(counts.get('apple')).toBe(3n)
    expect(counts.get('fig')).toBe(1n)
    expect(counts.get('grape')).toBeNull()
    expect(counts.approximateNumEntries()).toBe(6)
    expect(new Map(counts.all().map((e) => [e.key, e.value]))).toEqual(
      new Map([
        ['apple', 3n],
        ['banana', 2n],
        ['cherry', 2n],
        ['date', 1n],
        ['elder', 1n],
        ['fig', 1n],
      ]),
    )
    // Java's range: keys whose bytes lie between the bounds, both included.
    expect(
      counts
        .range('banana', 'date')
        .map((e) => e.key)
        .sort(),
    ).toEqual(['banana', 'cherry', 'date'])
  })

  it('reads a window store: one window, and a time range of windows', () => {
    const clicks = app.store<string, bigint>('click-counts', 'window')
    expect(clicks.fetch('user-1', T0)).toBe(2n)
    expect(clicks.fetch('user-1', T0 + SIZE)).toBeNull()
    expect(clicks.fetch('user-1', T0, T0 + 3 * SIZE)).toEqual([
      { windowStart: T0, value: 2n },
      { windowStart: T0 + 2 * SIZE, value: 1n },
    ])
    expect(clicks.all().length).toBe(2)
  })

  it("reads a session store: a key's sessions, those within a time range, and one session", () => {
    const sessions = app.store<string, bigint>('click-sessions', 'session')
    const first = { window: { start: T0, end: T0 + 10_000 }, value: 2n }
    const second = { window: { start: T0 + 2 * SIZE + 5, end: T0 + 2 * SIZE + 5 }, value: 1n }
    expect(sessions.fetch('user-1')).toEqual([first, second])
    expect(sessions.fetch('user-2')).toEqual([])
    // Ending at or after T0 + 20 s and starting at or before T0 + 3 minutes: the second session only.
    expect(sessions.findSessions('user-1', T0 + 20_000, T0 + 3 * SIZE)).toEqual([second])
    expect(sessions.findSessions('user-1', T0, T0 + 5_000)).toEqual([first])
    expect(sessions.fetchSession('user-1', T0, T0 + 10_000)).toBe(2n)
    expect(sessions.fetchSession('user-1', T0, T0 + 9_999)).toBeNull()
    expect(() => app.store('click-sessions', 'keyValue')).toThrow(/store click-sessions is a session store, not a keyValue store/)
  })

  it('refuses an unknown store and the wrong store type', () => {
    expect(() => app.store('no-such', 'keyValue')).toThrow(InvalidStateStoreError)
    expect(() => app.store('word-counts', 'window')).toThrow(/store word-counts is a keyValue store, not a window store/)
  })
})
