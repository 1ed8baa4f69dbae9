// Finding the instance that holds a key (Java's queryMetadataForKey,
// metadataForAllStreamsClients, streamsMetadataForStore) under
// groupProtocol 'streams', on Apache Kafka 4.4 and on the embedded broker
// with the same assertions: the broker's heartbeat carries each member's
// applicationServer and its tasks' partitions. Two wafka instances with
// different applicationServer values split a word count; for every word,
// both name the same instance, whose store holds the word's count while the
// other's does not. A wafka instance and a Java Kafka Streams instance
// (application.server set) in one group: the wafka instance names the Java
// one for exactly the words its own store lacks. Before start and after
// close the calls are refused with typed errors. (Under the classic protocol:
// classic-standby.test.ts.)
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import {
  IllegalStateError,
  KafkaStreams,
  Serdes,
  StreamsBuilder,
  StreamsNotStartedError,
  type KeyQueryMetadata,
  type StreamsConfig,
} from '../../src/public/streams.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { javaStreamsApp } from '../peers/java-streams.js'
import { until } from '../kafka/support.js'
import { coordinatorSees, produceStrings, tableReader } from './support.js'
import { FAST_STREAMS_GROUPS, wordCountTopology } from './word-count-app.js'
import { RawClient } from '../broker/raw-client.js'

const str = Serdes.String()
const WORDS = ['kafka', 'streams', 'wafka', 'java', 'table', 'window', 'join', 'count', 'x', 'a1', 'query', 'host', 'key', 'store']

/** Every word `times` times, a line each, over `partitions` partitions. */
function lines(times: number, partitions: number) {
  return Array.from({ length: WORDS.length * times }, (_, i) => ({
    key: `k${i}`,
    value: WORDS[i % WORDS.length],
    timestamp: Date.now(),
    partition: i % partitions,
  }))
}

const hostOf = (m: KeyQueryMetadata | null) => (m ? `${m.activeHost.host}:${m.activeHost.port}` : 'null')

for (const target of brokerTargets(FAST_STREAMS_GROUPS)) {
  describe.skipIf(!target.available)(`queryMetadataForKey under groupProtocol streams on ${target.name}`, () => {
    let kafka: RunningTarget
    let client: Kafka

    beforeAll(async () => {
      kafka = await target.start()
      client = new Kafka({ clientId: 'query-metadata-test', brokers: kafka.bootstrap.split(','), retryBackoffMs: 100 })
    }, 120_000)

    const raw: RawClient[] = []
    afterAll(async () => {
      for (const c of raw) c.close()
      await kafka?.stop()
    })

    let instances = 0
    const app = (applicationId: string, input: string, output: string, more: Partial<StreamsConfig> = {}) =>
      new KafkaStreams(wordCountTopology(input, output), {
        stateDir: join(tmpdir(), 'kafka-streams', `instance-${++instances}`),
        groupProtocol: 'streams',
        ...more,
        applicationId,
        brokers: kafka.bootstrap,
        commitIntervalMs: 100,
        retryBackoffMs: 100,
        defaultKeySerde: str,
        defaultValueSerde: str,
      })

    async function createTopics(topics: string[], partitions: number): Promise<void> {
      const admin = client.admin()
      await admin.connect()
      try {
        await admin.createTopics({ waitForLeaders: true, topics: topics.map((topic) => ({ topic, numPartitions: partitions })) })
      } finally {
        await admin.disconnect()
      }
      await coordinatorSees(kafka.bootstrap, topics, raw)
    }

    /** Until the output's table holds every word with count `times`. */
    async function counted(output: string, times: number): Promise<void> {
      const reader = await tableReader(client, output)
      try {
        await until(
          `${output} to hold the counts`,
          () => new Map([...reader.table].map(([k, v]) => [k, v === null ? null : v.readBigInt64BE()])),
          (t) => t.size === WORDS.length && WORDS.every((w) => t.get(w) === BigInt(times)),
          60_000,
        )
      } finally {
        await reader.stop()
      }
    }

    it('two instances with different applicationServer values: for every word both name the instance whose store holds it', async () => {
      await createTopics(['qm-text', 'qm-counts'], 4)
      const a = app('qm', 'qm-text', 'qm-counts', { applicationServer: 'host-a:7001' })
      const b = app('qm', 'qm-text', 'qm-counts', { applicationServer: 'host-b:7002' })
      expect(() => a.queryMetadataForKey('counts', 'kafka', str)).toThrow(StreamsNotStartedError)
      await a.start()
      await b.start()
      try {
        // Both instances know both hosts, each with tasks of the store: the tasks are split.
        await until(
          'each instance to see both hosts holding counts',
          () => [a, b].map((x) => (x.state === 'RUNNING' ? x.streamsMetadataForStore('counts').map((m) => `${m.host}:${m.port}`) : [])),
          (seen) => seen.every((s) => s.join() === 'host-a:7001,host-b:7002'),
          60_000,
        )
        await produceStrings(client, 'qm-text', lines(3, 4))
        await counted('qm-counts', 3)
        await until(
          'both to be RUNNING',
          () => [a.state, b.state],
          (s) => s.every((x) => x === 'RUNNING'),
          30_000,
        )
        const byHost = { 'host-a:7001': a, 'host-b:7002': b }
        const holders = new Set<string>()
        for (const word of WORDS) {
          const fromA = a.queryMetadataForKey('counts', word, str)
          const fromB = b.queryMetadataForKey('counts', word, str)
          expect(fromB).toEqual(fromA)
          expect(fromA!.partition).toBeGreaterThanOrEqual(0)
          expect(fromA!.partition).toBeLessThan(4)
          expect(fromA!.standbyHosts).toEqual([])
          const host = hostOf(fromA) as keyof typeof byHost
          expect(Object.keys(byHost)).toContain(host)
          holders.add(host)
          const holder = byHost[host]
          const other = holder === a ? b : a
          expect({ word, count: holder.store<string, bigint>('counts', 'keyValue').get(word) }).toEqual({ word, count: 3n })
          expect({ word, count: other.store<string, bigint>('counts', 'keyValue').get(word) }).toEqual({ word, count: null })
        }
        expect([...holders].sort()).toEqual(['host-a:7001', 'host-b:7002'])
        // A partitioner instead of a serializer: the partition it gives decides.
        const viaPartitioner = a.queryMetadataForKey('counts', 'anything', (topic, _key, _value, n) => {
          expect({ topic, n }).toEqual({ topic: 'qm-counts-repartition', n: 4 })
          return 2
        })
        expect(viaPartitioner!.partition).toBe(2)
        // metadataForAllStreamsClients: both instances, every source partition once between them.
        const all = a.metadataForAllStreamsClients()
        expect(all.map((m) => m.hostInfo)).toEqual([
          { host: 'host-a', port: 7001 },
          { host: 'host-b', port: 7002 },
        ])
        const parts = all.flatMap((m) => m.topicPartitions.map((tp) => `${tp.topic}-${tp.partition}`)).sort()
        expect(parts).toEqual(['qm-counts-repartition', 'qm-text'].flatMap((t) => [0, 1, 2, 3].map((p) => `${t}-${p}`)).sort())
        // An unknown store: null, as Java's.
        expect(a.queryMetadataForKey('no-such-store', 'kafka', str)).toBeNull()
        expect(a.streamsMetadataForStore('no-such-store')).toEqual([])
      } finally {
        await a.close()
        await b.close()
      }
      expect(() => a.metadataForAllStreamsClients()).toThrow(IllegalStateError)
      expect(() => a.queryMetadataForKey('counts', 'kafka', str)).toThrow('KafkaStreams is not running. State is NOT_RUNNING.')
    }, 120_000)

    it('a wafka and a Java Kafka Streams instance (application.server) in one group: wafka names Java for exactly the words its store lacks', async () => {
      await createTopics(['qmj-text', 'qmj-counts'], 4)
      const w = app('qmj', 'qmj-text', 'qmj-counts', { applicationServer: 'wafka-host:7001' })
      await w.start()
      const java = javaStreamsApp(kafka, 'wordcount', {
        applicationId: 'qmj',
        inputs: ['qmj-text'],
        output: 'qmj-counts',
        props: { 'group.protocol': 'streams', 'commit.interval.ms': 100, 'application.server': 'java-host:7003' },
      })
      try {
        await until(
          'wafka to see both hosts holding counts',
          () => (w.state === 'RUNNING' ? w.streamsMetadataForStore('counts').map((m) => `${m.host}:${m.port}`) : []),
          (hosts) => hosts.join() === 'java-host:7003,wafka-host:7001',
          90_000,
        )
        await produceStrings(client, 'qmj-text', lines(2, 4))
        await counted('qmj-counts', 2)
        const holders = new Set<string>()
        for (const word of WORDS) {
          const host = hostOf(w.queryMetadataForKey('counts', word, str))
          holders.add(host)
          const local = w.store<string, bigint>('counts', 'keyValue').get(word)
          expect({ word, host, local }).toEqual({ word, host, local: host === 'wafka-host:7001' ? 2n : null })
        }
        expect([...holders].sort()).toEqual(['java-host:7003', 'wafka-host:7001'])
      } finally {
        await java.kill()
        await w.close()
      }
    }, 150_000)

    it("a sub-topology reading topics of 2 and 4 partitions: each instance's partitions name only those the topics have (as Kafka's EndpointToPartitionsManager)", async () => {
      await createTopics(['qmp-a'], 2)
      await createTopics(['qmp-b', 'qmp-out'], 4)
      const b = new StreamsBuilder()
      b.stream<string, string>(['qmp-a', 'qmp-b'], { keySerde: str, valueSerde: str })
        .groupByKey()
        .count({ storeName: 'per-key' })
        .toStream()
        .to('qmp-out', { keySerde: str, valueSerde: Serdes.Long() })
      const one = new KafkaStreams(b.build(), {
        stateDir: join(tmpdir(), 'kafka-streams', `instance-${++instances}`),
        groupProtocol: 'streams',
        applicationServer: 'only-host:7001',
        applicationId: 'qmp',
        brokers: kafka.bootstrap,
        retryBackoffMs: 100,
        defaultKeySerde: str,
        defaultValueSerde: str,
      })
      await one.start()
      try {
        const all = await until(
          'the instance to know its partitions',
          () => (one.state === 'RUNNING' ? one.metadataForAllStreamsClients() : []),
          (m) => m.length === 1 && m[0].topicPartitions.length > 0,
          60_000,
        )
        expect(all[0].stateStoreNames).toEqual(['per-key'])
        expect(all[0].topicPartitions.map((tp) => `${tp.topic}-${tp.partition}`)).toEqual([
          'qmp-a-0',
          'qmp-a-1',
          'qmp-b-0',
          'qmp-b-1',
          'qmp-b-2',
          'qmp-b-3',
        ])
        // The key's partition is over the topic with the most partitions (4).
        expect(one.queryMetadataForKey('per-key', 'k', (topic, _k, _v, n) => (topic === 'qmp-b' && n === 4 ? 3 : -1))).toEqual({
          activeHost: { host: 'only-host', port: 7001 },
          standbyHosts: [],
          partition: 3,
        })
      } finally {
        await one.close()
      }
    }, 90_000)
  })
}
