// Standby tasks and key metadata under groupProtocol 'classic' (Java's
// StreamsPartitionAssignor with num.standby.replicas), on Apache Kafka 4.4
// and on the embedded broker with the same assertions. Two wafka instances
// of a word count with numStandbyReplicas 1 (persistent stores, and in-memory
// ones, which only a handed-over standby keeps): every stateful task has its
// active on one and a standby on the other (the leader's AssignmentInfo says
// so, read back through streamsMetadataForStore); the standby copies follow
// the active stores (read as stale stores); queryMetadataForKey names, on
// both instances, the one whose store holds the word, the other as its
// standby, and the partition murmur2 gives; when one closes, the other takes
// its tasks over restoring only the tail. A Java Kafka Streams instance with
// num.standby.replicas=1 leading a mixed classic group gives the wafka member
// standby (and warm-up) tasks it keeps: its stale view holds the whole table,
// and queryMetadataForKey names Java's host for the words its active stores lack.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, logLevel, type LogEntry } from '../../src/index.js'
import { KafkaStreams, Serdes, type StreamsConfig } from '../../src/public/streams.js'
import { murmur2Partition } from '../../src/producer/partitioners/murmur2.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until } from '../kafka/support.js'
import { countsAre, createTopics, produceStrings, standbysFollow, tookOverFromStandbys, withJavaBeside } from './support.js'
import { countWords, wordCountTopology, wordLines } from './word-count-app.js'

const str = Serdes.String()
const PARTITIONS = 4

const hostKey = (h: { host: string; port: number }) => `${h.host}:${h.port}`

for (const target of brokerTargets()) {
  describe.skipIf(!target.available)(`standby tasks and key metadata under the classic protocol on ${target.name}`, () => {
    let kafka: RunningTarget
    let client: Kafka

    beforeAll(async () => {
      kafka = await target.start()
      client = new Kafka({ clientId: 'classic-standby-test', brokers: kafka.bootstrap.split(','), retryBackoffMs: 100 })
    }, 120_000)

    afterAll(async () => {
      await kafka?.stop()
    })

    const instance = (app: string, input: string, output: string, more: Partial<StreamsConfig>) =>
      new KafkaStreams(wordCountTopology(input, output), {
        stateDir: mkdtempSync(join(tmpdir(), 'wafka-classic-standby-')),
        applicationId: app,
        brokers: kafka.bootstrap,
        groupProtocol: 'classic',
        commitIntervalMs: 100,
        retryBackoffMs: 100,
        heartbeatIntervalMs: 500,
        defaultKeySerde: str,
        defaultValueSerde: str,
        ...more,
      })

    // In memory, the take-over restores only the tail only if the standby's stores are handed over, not closed.
    for (const store of ['rocksDB', 'in_memory'] as const)
      it(`${store} stores: two wafka instances, numStandbyReplicas 1: each keeps a standby of the other’s tasks, both name the right host per key, and a takeover restores only the tail`, async () => {
        const app = `csb-wafka-${store === 'rocksDB' ? 'disk' : 'mem'}`
        const [input, output] = [`${app}-text`, `${app}-counts`]
        const repartition = `${app}-counts-repartition`
        await createTopics(client, [input, output], PARTITIONS)
        const logs: LogEntry[] = []
        const a = instance(app, input, output, { numStandbyReplicas: 1, applicationServer: 'host-a:7001', defaultDslStore: store })
        const b = instance(app, input, output, {
          numStandbyReplicas: 1,
          defaultDslStore: store,
          applicationServer: 'host-b:7002',
          logLevel: logLevel.INFO,
          logCreator: () => (e: LogEntry) => void logs.push(e),
        })
        await a.start()
        try {
          const first = wordLines(300, PARTITIONS, 11)
          await produceStrings(client, input, first)
          await countsAre(client, output, countWords(first))
          await b.start()
          // Each store partition (of the repartition topic): active on one host, standby on the other, as both instances see it.
          const split = (s: KafkaStreams) => {
            if (s.state !== 'RUNNING') return undefined
            const hosts = s.streamsMetadataForStore('counts')
            if (hosts.length !== 2) return undefined
            const of = (h: (typeof hosts)[number], standby: boolean) =>
              (standby ? h.standbyTopicPartitions : h.topicPartitions).filter((p) => p.topic === repartition).map((p) => p.partition)
            const ok = Array.from({ length: PARTITIONS }, (_, p) => p).every(
              (p) =>
                hosts.filter((h) => of(h, false).includes(p)).length === 1 && hosts.filter((h) => of(h, true).includes(p)).length === 1,
            )
            const each = hosts.every((h) => of(h, false).length > 0 && of(h, false).every((p) => !of(h, true).includes(p)))
            return ok && each ? Object.fromEntries(hosts.map((h) => [hostKey(h.hostInfo), of(h, false).sort()])) : undefined
          }
          const actives = await until(
            'both instances to see every store partition active on one host and standby on the other',
            () => [split(a), split(b)],
            ([x, y]) => x !== undefined && JSON.stringify(x) === JSON.stringify(y),
            60_000,
          )
          const second = wordLines(300, PARTITIONS, 12)
          await produceStrings(client, input, second)
          const expected = countWords([...first, ...second])
          await countsAre(client, output, expected)
          // Each instance's standbys followed the other's active stores: with its own, the whole table.
          for (const s of [a, b]) await standbysFollow(s, expected, 'the stale view to hold every count')
          expect(b.store('counts', 'keyValue').approximateNumEntries()).toBeLessThan(expected.size)

          // queryMetadataForKey: the same answer on both, the host whose active store holds the word, the other as standby.
          const byHost = { 'host-a:7001': a, 'host-b:7002': b }
          for (const word of expected.keys()) {
            const [ma, mb] = [a, b].map((s) => s.queryMetadataForKey('counts', word, str)!)
            expect(mb).toEqual(ma)
            const partition = murmur2Partition(Buffer.from(word, 'utf8'), PARTITIONS)
            expect(ma.partition).toBe(partition)
            const active = hostKey(ma.activeHost) as keyof typeof byHost
            expect(actives[0]![active]).toContain(partition)
            expect(ma.standbyHosts.map(hostKey)).toEqual(Object.keys(byHost).filter((h) => h !== active))
            expect(byHost[active].store<string, bigint>('counts', 'keyValue').get(word)).toBe(expected.get(word))
          }

          // a leaves: b takes a's stateful tasks over from its standbys' stores.
          const taken = actives[0]!['host-a:7001'].map((p) => `1_${p}`)
          const mark = logs.length
          await a.close()
          await until(
            'b to run every task',
            () => (b.state === 'RUNNING' ? b.streamsMetadataForStore('counts') : []),
            (m) => m.length === 1 && m[0].topicPartitions.filter((p) => p.topic === repartition).length === PARTITIONS,
            60_000,
          )
          await tookOverFromStandbys(
            client,
            { input, output },
            { before: [...first, ...second], more: wordLines(100, PARTITIONS, 13), logs, from: mark, taken },
          )
        } finally {
          await a.close()
          await b.close()
        }
      }, 120_000)

    it('a Java instance with num.standby.replicas=1 leading a classic group gives the wafka member standby tasks it keeps; queryMetadataForKey agrees', async () => {
      const app = 'csb-java'
      const [input, output] = [`${app}-text`, `${app}-counts`]
      await withJavaBeside(
        client,
        kafka,
        {
          topics: [input, output],
          partitions: PARTITIONS,
          app: 'wordcount',
          options: { applicationId: app, inputs: [input], output, props: { 'num.standby.replicas': 1 } },
          wafka: () => instance(app, input, output, { numStandbyReplicas: 1, applicationServer: 'wafka-host:7200' }),
        },
        async (java, w) => {
          const first = wordLines(300, PARTITIONS, 14)
          await produceStrings(client, input, first)
          await countsAre(client, output, countWords(first))
          // Java leads: it is the only member when wafka joins.
          await w.start()
          await until(
            'wafka to see both hosts, itself with standby partitions',
            () => (w.state === 'RUNNING' ? w.metadataForAllStreamsClients() : []),
            (m) =>
              m.map((x) => hostKey(x.hostInfo)).join() === 'java-host:7100,wafka-host:7200' &&
              m[1].standbyStateStoreNames.includes('counts'),
            60_000,
          )
          const second = wordLines(300, PARTITIONS, 15)
          await produceStrings(client, input, second)
          const expected = countWords([...first, ...second])
          await countsAre(client, output, expected)
          // wafka's standbys read the changelogs of Java's active tasks: with its own tasks, the whole table.
          await standbysFollow(w, expected, 'wafka’s stale view to hold every count')
          const own = w.store<string, bigint>('counts', 'keyValue')
          for (const word of expected.keys()) {
            const m = w.queryMetadataForKey('counts', word, str)!
            expect(m.partition).toBe(murmur2Partition(Buffer.from(word, 'utf8'), PARTITIONS))
            // The host named holds the word: wafka's own active store exactly when it names itself.
            expect(hostKey(m.activeHost)).toBe(own.get(word) === expected.get(word) ? 'wafka-host:7200' : 'java-host:7100')
            expect(m.standbyHosts.map(hostKey)).toEqual([hostKey(m.activeHost) === 'java-host:7100' ? 'wafka-host:7200' : 'java-host:7100'])
          }
          expect(java.events.filter((e) => e.event === 'error')).toEqual([])
        },
      )
    }, 120_000)
  })
}
