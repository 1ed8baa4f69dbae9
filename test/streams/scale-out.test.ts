// Two instances of one application share its tasks through the consumer
// group, on real Kafka 4.4 and on the embedded broker with the same
// assertions: the second instance joins while the first runs, takes over
// some tasks (restoring their stores from the changelogs the first one
// wrote), and the counts after more input are exact, as one instance's.
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka, LogEntry } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder } from '../../src/public/streams.js'
import { requireKafka } from '../peers/kafka.js'
import { until } from '../kafka/support.js'
import { client, tableReader, targets, type Target } from './support.js'

const kafkaOk = requireKafka()

function wordCount() {
  const builder = new StreamsBuilder()
  builder
    .stream<string, string>('text')
    .flatMapValues((line) => line.split(' '))
    .groupBy((_key, word) => word)
    .count({ storeName: 'counts' })
    .toStream()
    .to('text-counts')
  return builder.build()
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu']
const lines = (round: number) => Array.from({ length: 40 }, (_, i) => `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + round) % WORDS.length]}`)

function counted(all: string[]): Map<string, bigint> {
  const m = new Map<string, bigint>()
  for (const l of all) for (const w of l.split(' ')) m.set(w, (m.get(w) ?? 0n) + 1n)
  return m
}

for (const [target, start] of targets) {
  describe.skipIf(target === 'real Kafka' && !kafkaOk)(`two instances of one application on ${target}`, () => {
    let cluster: Target
    let kafka: Kafka
    const apps: KafkaStreams[] = []
    beforeAll(async () => {
      cluster = await start()
      kafka = client(cluster)
    })
    afterAll(async () => {
      for (const app of apps) await app.close()
      await cluster?.stop()
    })

    it('split the tasks, move state with them, and count exactly', async () => {
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({
        topics: [
          { topic: 'text', numPartitions: 4 },
          { topic: 'text-counts', numPartitions: 2 },
        ],
      })
      await admin.disconnect()
      const producer = kafka.producer()
      await producer.connect()
      const send = (round: number) =>
        producer.send({ topic: 'text', messages: lines(round).map((value, i) => ({ key: `r${round}-${i}`, value })) })
      const logsOf = (entries: LogEntry[]) => () => (e: LogEntry) => void entries.push(e)
      // Each instance its own stateDir, as two Java instances on one machine need (the first locks its directory).
      const options = (logs: LogEntry[]) => ({
        applicationId: 'scale-app',
        stateDir: join(tmpdir(), 'kafka-streams', logs === logsA ? 'a' : 'b'),
        brokers: cluster.bootstrap,
        commitIntervalMs: 300,
        defaultKeySerde: Serdes.String(),
        defaultValueSerde: Serdes.String(),
        logLevel: 4 as const,
        logCreator: logsOf(logs),
      })
      const [logsA, logsB]: LogEntry[][] = [[], []]
      const reader = await tableReader(kafka, 'text-counts')
      try {
        await send(1)
        const a = new KafkaStreams(wordCount(), options(logsA))
        apps.push(a)
        await a.start()
        const counts = () => new Map([...reader.table].map(([k, v]) => [k, v === null ? null : v.readBigInt64BE(0)]))
        const exact = (expected: Map<string, bigint>) => (t: Map<string, bigint | null>) =>
          t.size === expected.size && [...expected].every(([w, n]) => t.get(w) === n)
        await until('one instance counts round 1', counts, exact(counted(lines(1))))

        const b = new KafkaStreams(wordCount(), options(logsB))
        apps.push(b)
        await b.start()
        await until(
          'both instances running',
          () => [a.state, b.state],
          (s) => s.every((x) => x === 'RUNNING'),
        )
        await send(2)
        await until('two instances count rounds 1 and 2', counts, exact(counted([...lines(1), ...lines(2)])))

        const tasksOf = (logs: LogEntry[]) => new Set(logs.filter((e) => e.log.message === 'task running').map((e) => e.log.task as string))
        // Java's task ids: sub-topology 0 reads `text`, 1 the repartition topic; four partitions each.
        expect([...tasksOf(logsA), ...tasksOf(logsB)].every((t) => /^[01]_[0-3]$/.test(t))).toBe(true)
        expect(tasksOf(logsB).size).toBeGreaterThan(0)
        // The second instance took over counting tasks whose changelogs already held counts.
        expect(logsB.some((e) => e.log.message === 'restored state stores from their changelogs' && (e.log.records as number) > 0)).toBe(
          true,
        )
      } finally {
        await producer.disconnect()
        await reader.stop()
      }
    }, 150_000)
  })
}
