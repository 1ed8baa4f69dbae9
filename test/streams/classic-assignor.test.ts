// A wafka/streams instance and a Java Kafka Streams 4.4 instance of one
// application (a word count, exactly_once_v2) in one classic-protocol group
// (Java with group.protocol=classic), on real Kafka 4.4 and on the embedded
// broker with the same assertions. Both sides lead once: a wafka instance
// starts and leads, Java joins and runs the tasks the wafka leader's
// StreamsPartitionAssignor gave it (reading our AssignmentInfo); the wafka
// instance closes and Java, now leader, takes every task; a second wafka
// instance joins and runs what Java's assignor gives it (reading Java's
// AssignmentInfo); Java stops and the wafka instance holds every task. Each
// split gives both some of the 8 tasks' partitions, each partition to one
// member, and the final counts are exactly the input's.
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka } from '../../src/index.js'
import { decodeAssignment } from '../../src/consumer/assignors/index.js'
import { KafkaStreams, Serdes, StreamsBuilder } from '../../src/public/streams.js'
import { javaStreamsApp, type JavaStreamsRun } from '../peers/java-streams.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until, wafka } from '../kafka/support.js'
import { consumedAll, produceStrings, tableReader } from './support.js'

const APP = 'ca-wc'
const TEXT = 'ca-text'
const OUT = 'ca-counts'
const REPARTITION = `${APP}-counts-repartition`
const WORDS = ['kafka', 'streams', 'wafka', 'java', 'table', 'group', 'task', 'classic']
const str = Serdes.String()

/** Deterministic lines of 1-5 words. */
function lines(from: number, count: number): string[] {
  let x = 11 + from
  const next = (n: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x % n
  }
  return Array.from({ length: count }, () => Array.from({ length: 1 + next(5) }, () => WORDS[next(WORDS.length)]).join(' '))
}

/** RigStreams' wordcount: lower case, split on \W+. */
const words = (line: string) => line.toLowerCase().split(/\W+/).filter(Boolean)

function counts(text: string[]): Record<string, string> {
  const out: Record<string, bigint> = {}
  for (const line of text) for (const w of words(line)) out[w] = (out[w] ?? 0n) + 1n
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, String(v)]))
}

/** RigStreams' wordcount; a line `boom` throws (Java's would count it). */
function wordCount(text = TEXT, out = OUT) {
  const b = new StreamsBuilder()
  b.stream<string, string>(text, { keySerde: str, valueSerde: str })
    .flatMapValues((line) => {
      if (line === 'boom') throw new Error('boom')
      return words(line)
    })
    .groupBy((_key, word) => word)
    .count({ storeName: 'counts' })
    .toStream()
    .to(out, { keySerde: str, valueSerde: Serdes.Long() })
  return b.build()
}

type Member = { java: boolean; partitions: string[] }
type Group = { state: string; members: Member[] }

/** The classic group's state and members: Java's or not (by client id), and the partitions each was assigned. */
async function groupMembers(admin: ReturnType<Kafka['admin']>, app: string): Promise<Group> {
  const { groups } = await admin.describeGroups([app])
  const g = groups[0]
  return {
    state: g.state,
    members: g.members.map((m: { clientId: string; memberAssignment: Buffer }) => ({
      java: /StreamThread-\d+-consumer$/.test(m.clientId),
      partitions:
        m.memberAssignment.length === 0
          ? []
          : decodeAssignment(m.memberAssignment).partitions.flatMap((t) => t.partitions.map((p) => `${t.topic}-${p}`)),
    })),
  }
}

/** Stable with these members (Java's or not), each holding some of the `total` partitions, each partition held once. */
const split =
  (java: boolean[], total = 8) =>
  (g: Group) =>
    g.state === 'Stable' &&
    JSON.stringify(g.members.map((m) => m.java).sort()) === JSON.stringify([...java].sort()) &&
    g.members.every((m) => m.partitions.length > 0) &&
    new Set(g.members.flatMap((m) => m.partitions)).size === total &&
    g.members.reduce((n, m) => n + m.partitions.length, 0) === total

for (const target of brokerTargets()) {
  describe.skipIf(!target.available)(`a wafka and a Java instance in one classic group on ${target.name}`, () => {
    let cluster: RunningTarget
    let kafka: Kafka
    const javas: JavaStreamsRun[] = []
    const wafkas: KafkaStreams[] = []
    beforeAll(async () => {
      cluster = await target.start()
      kafka = wafka(cluster)
    }, 120_000)
    afterAll(async () => {
      await Promise.allSettled(javas.map((a) => a.kill()))
      for (const a of wafkas) await a.close().catch(() => {})
      await cluster?.stop()
    })

    it('split the tasks both ways, hand them over, and count exactly', async () => {
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({
        topics: [
          { topic: TEXT, numPartitions: 4 },
          { topic: OUT, numPartitions: 2 },
        ],
      })
      const members = () => groupMembers(admin, APP)
      const startWafka = (name: string) => {
        const app = new KafkaStreams(wordCount(), {
          applicationId: APP,
          brokers: cluster.bootstrap,
          stateDir: join(tmpdir(), 'kafka-streams', `classic-${name}`),
          processingGuarantee: 'exactly_once_v2',
          commitIntervalMs: 100,
          defaultKeySerde: str,
          defaultValueSerde: str,
          logLevel: 1,
        })
        wafkas.push(app)
        return app
      }
      const startJava = () => {
        const j = javaStreamsApp(cluster, 'wordcount', {
          applicationId: APP,
          inputs: [TEXT],
          output: OUT,
          props: { 'group.protocol': 'classic', 'commit.interval.ms': 100, 'processing.guarantee': 'exactly_once_v2' },
        })
        javas.push(j)
        return j
      }
      const produce = (text: string[], tag: string) =>
        produceStrings(
          kafka,
          TEXT,
          text.map((value, i) => ({ key: `${tag}${i}`, value, timestamp: Date.now(), partition: i % 4 })),
        )
      const all: string[] = []
      const more = async (from: number, tag: string) => {
        const text = lines(from, 60)
        all.push(...text)
        await produce(text, tag)
        await consumedAll(kafka, APP, [TEXT, REPARTITION], 90_000)
      }

      // 1. wafka leads; Java joins and takes what our assignor gives it.
      const a = startWafka('a')
      await a.start()
      await until(
        'the wafka instance to run',
        () => a.state,
        (s) => s === 'RUNNING',
        60_000,
      )
      await more(0, 'a')
      const java = startJava()
      const first = await until('the tasks split between wafka (leader) and Java', members, split([false, true]), 90_000)
      await more(100, 'b')

      // 2. The wafka instance leaves: Java, now leader, holds every task.
      await a.close()
      await until('Java to hold every task', members, split([true]), 90_000)
      await more(200, 'c')

      // 3. A wafka instance joins the Java-led group and runs what Java's assignor gives it.
      const b = startWafka('b')
      await b.start()
      const second = await until('the tasks split between Java (leader) and wafka', members, split([false, true]), 90_000)
      await more(300, 'd')

      // 4. Java stops: the wafka instance holds every task.
      expect(await java.stop()).toEqual({ code: 0, signal: null })
      await until('wafka to hold every task', members, split([false]), 90_000)
      await more(400, 'e')

      const out = await tableReader(kafka, OUT, undefined, 'read_committed')
      try {
        const expected = counts(all)
        await until(
          'the final word counts',
          () => Object.fromEntries([...out.table].map(([k, v]) => [k, v === null ? null : String(v.readBigInt64BE())])),
          (t) => JSON.stringify(Object.entries(t).sort()) === JSON.stringify(Object.entries(expected).sort()),
          30_000,
        )
      } finally {
        await out.stop()
        await admin.disconnect()
      }
      expect(java.events.filter((e) => e.event === 'error')).toEqual([])
      expect([a.state, b.state]).toEqual(['NOT_RUNNING', 'RUNNING'])
    }, 400_000)

    for (const leader of ['Java', 'wafka'] as const)
      it(`SHUTDOWN_APPLICATION from a wafka instance's handler stops the Java instance too (the ${leader} leader answers every member SHUTDOWN_REQUESTED)`, async () => {
        const app = `ca-sd-${leader}`
        const [text, out] = [`${app}-text`, `${app}-counts`]
        const admin = kafka.admin()
        await admin.connect()
        await admin.createTopics({
          topics: [
            { topic: text, numPartitions: 2 },
            { topic: out, numPartitions: 1 },
          ],
        })
        const startJava = async () => {
          const java = javaStreamsApp(cluster, 'wordcount', {
            applicationId: app,
            inputs: [text],
            output: out,
            props: { 'group.protocol': 'classic', 'commit.interval.ms': 100 },
          })
          javas.push(java)
          await java.waitFor((e) => e.event === 'state' && e.to === 'RUNNING', 90_000)
          return java
        }
        const a = new KafkaStreams(wordCount(text, out), {
          applicationId: app,
          brokers: cluster.bootstrap,
          stateDir: join(tmpdir(), 'kafka-streams', `classic-sd-${leader}`),
          commitIntervalMs: 100,
          // Stopping in ERROR it stays in the group (Java's closeToError): the Java instance's rejoin waits until
          // this member's session ends, so a short one (the broker's least) keeps the case from waiting 45 s.
          sessionTimeoutMs: 6_000,
          heartbeatIntervalMs: 1_000,
          defaultKeySerde: str,
          defaultValueSerde: str,
          logLevel: 1,
        })
        wafkas.push(a)
        a.setUncaughtExceptionHandler(() => 'SHUTDOWN_APPLICATION')
        // The first member to join leads.
        const java = leader === 'Java' ? await startJava() : undefined
        await a.start()
        await until(
          'the wafka instance to run',
          () => a.state,
          (s) => s === 'RUNNING',
          60_000,
        )
        const other = java ?? (await startJava())
        try {
          const g = await until('the tasks split', () => groupMembers(admin, app), split([false, true], 4), 90_000)
          // The poison line goes to an input partition the wafka instance holds.
          const mine = g.members.find((m) => !m.java)!.partitions.filter((p) => p.startsWith(`${text}-`))
          const partition = mine.length > 0 ? Number(mine[0].slice(text.length + 1)) : -1
          expect(partition).toBeGreaterThanOrEqual(0)
          await produceStrings(kafka, text, [{ key: 'k', value: 'boom', timestamp: Date.now(), partition }])
          await other.waitFor((e) => e.event === 'state' && e.to === 'ERROR', 60_000)
          // Well before SHUTDOWN_REQUEST_MS (30 s) would stop it alone: the group's answer did.
          await until(
            'the wafka instance to stop in ERROR',
            () => a.state,
            (s) => s === 'ERROR',
            20_000,
          )
        } finally {
          await a.close()
          await admin.disconnect()
        }
      }, 240_000)
  })
}
