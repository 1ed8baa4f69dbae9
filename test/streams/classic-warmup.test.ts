// Lag-aware task placement under groupProtocol 'classic' (Java's
// HighAvailabilityTaskAssignor: acceptable.recovery.lag, warm-up tasks,
// probing rebalances), on Apache Kafka 4.4 and on the embedded broker. A
// wafka instance builds a count store alone; a second one joins with an
// empty stateDir: the wafka leader gives it no stateful active task (it
// lags by more than acceptableRecoveryLag) but a warm-up copy that fills
// from the changelog, and the probing rebalance probingRebalanceIntervalMs
// later hands it its share, restoring only the tail. A Java leader with the
// same configs places the tasks of the same scenario the same way: all
// actives on the caught-up instance, one warm-up on the newcomer.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, logLevel, type LogEntry } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder, TimeWindows, WindowedSerdes, type StreamsConfig } from '../../src/public/streams.js'
import { probingRebalanceBound } from '../../src/streams/options.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until } from '../kafka/support.js'
import { countsAre, createTopics, produceStrings, restoresIn, withJavaBeside } from './support.js'

const str = Serdes.String()
const PARTITIONS = 2
const LAG = 50
/** Keys per partition: each a changelog record, far over LAG. */
const KEYS = 150
const WINDOW_MS = 3_600_000

const lines = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: `k${from + i}`, value: 'x', timestamp: Date.now(), partition: (from + i) % PARTITIONS }))

// One stateful sub-topology reading the input: nothing stateless to move, so the join's rebalance asks for no follow-up.
const countTopology = (input: string, output: string) => {
  const b = new StreamsBuilder()
  b.stream<string, string>(input, { keySerde: str, valueSerde: str })
    .groupByKey()
    .count({ storeName: 'counts' })
    .toStream()
    .to(output, { keySerde: str, valueSerde: Serdes.Long() })
  return b.build()
}

// RigStreams' windowed-count: the same shape, as a Java instance runs it.
const windowedTopology = (input: string, output: string) => {
  const b = new StreamsBuilder()
  b.stream<string, string>(input, { keySerde: str, valueSerde: str })
    .groupByKey()
    .windowedBy(TimeWindows.ofSizeAndGrace(WINDOW_MS, 0))
    .count({ storeName: 'windowed-counts' })
    .toStream()
    .to(output, { keySerde: WindowedSerdes.timeWindowedSerdeFrom(str, WINDOW_MS), valueSerde: Serdes.Long() })
  return b.build()
}

const hostKey = (h: { host: string; port: number }) => `${h.host}:${h.port}`

for (const target of brokerTargets()) {
  describe.skipIf(!target.available)(`lag-aware task placement under the classic protocol on ${target.name}`, () => {
    let kafka: RunningTarget
    let client: Kafka

    beforeAll(async () => {
      // Test-only: a probing rebalance seconds away, not Java's minimum minute.
      probingRebalanceBound.minMs = 1_000
      kafka = await target.start()
      client = new Kafka({ clientId: 'classic-warmup-test', brokers: kafka.bootstrap.split(','), retryBackoffMs: 100 })
    }, 120_000)

    afterAll(async () => {
      probingRebalanceBound.minMs = 60_000
      await kafka?.stop()
    })

    const config = (app: string, more: Partial<StreamsConfig>): StreamsConfig => ({
      stateDir: mkdtempSync(join(tmpdir(), 'wafka-classic-warmup-')),
      applicationId: app,
      brokers: kafka.bootstrap,
      groupProtocol: 'classic',
      commitIntervalMs: 100,
      retryBackoffMs: 100,
      heartbeatIntervalMs: 500,
      defaultKeySerde: str,
      defaultValueSerde: str,
      acceptableRecoveryLag: LAG,
      ...more,
    })

    /** Per host, the input partitions of its active and standby tasks of `store`, as `s` sees them. */
    const placement = (s: KafkaStreams, store: string, input: string) =>
      s.state !== 'RUNNING'
        ? undefined
        : Object.fromEntries(
            s.streamsMetadataForStore(store).map((h) => [
              hostKey(h.hostInfo),
              {
                active: h.topicPartitions.filter((p) => p.topic === input).map((p) => p.partition),
                standby: h.standbyTopicPartitions.filter((p) => p.topic === input).map((p) => p.partition),
              },
            ]),
          )

    it('a newcomer with no state gets a warm-up, not the active, until the probing rebalance hands it over with only the tail to restore', async () => {
      const app = 'cwu-wafka'
      const [input, output] = [`${app}-in`, `${app}-counts`]
      await createTopics(client, [input, output], PARTITIONS)
      const a = new KafkaStreams(
        countTopology(input, output),
        config(app, { applicationServer: 'host-a:7001', probingRebalanceIntervalMs: 4_000 }),
      )
      const logs: LogEntry[] = []
      const b = new KafkaStreams(
        countTopology(input, output),
        config(app, {
          applicationServer: 'host-b:7002',
          probingRebalanceIntervalMs: 4_000,
          logLevel: logLevel.INFO,
          logCreator: () => (e: LogEntry) => void logs.push(e),
        }),
      )
      try {
        await a.start()
        const first = lines(0, KEYS * PARTITIONS)
        await produceStrings(client, input, first)
        await countsAre(client, output, new Map(first.map((r) => [r.key, 1n])))
        await b.start()
        // a (the leader, caught up on both tasks) keeps both actives; b, balanced onto 0_1 but 150 behind, warms it up.
        const warming = await until(
          'b to be given a warm-up of 0_1 and no active stateful task',
          () => placement(b, 'counts', input),
          (p) =>
            JSON.stringify(p) ===
            JSON.stringify({ 'host-a:7001': { active: [0, 1], standby: [] }, 'host-b:7002': { active: [], standby: [1] } }),
          30_000,
        )
        await until(
          'a to see the same',
          () => placement(a, 'counts', input),
          (p) => JSON.stringify(p) === JSON.stringify(warming),
          10_000,
        )
        // The warm-up fills from the changelog: b's stale view holds partition 1's counts.
        await until(
          'the warm-up to hold partition 1',
          () => b.store<string, bigint>('counts', 'keyValue', { enableStaleStores: true }).approximateNumEntries(),
          (n) => n === KEYS,
          30_000,
        )
        // The probing rebalance (4 s after the first) gives b its caught-up task: balanced.
        await until(
          'the probing rebalance to hand 0_1 to b',
          () => placement(a, 'counts', input),
          (p) =>
            JSON.stringify(p) ===
            JSON.stringify({ 'host-a:7001': { active: [0], standby: [] }, 'host-b:7002': { active: [1], standby: [] } }),
          30_000,
        )
        const second = lines(KEYS * PARTITIONS, 40)
        await produceStrings(client, input, second)
        await countsAre(client, output, new Map([...first, ...second].map((r) => [r.key, 1n])))
        // b restored 0_1 from where its warm-up stood: never from the start, at most the acceptable lag.
        const restores = restoresIn(logs)
        expect(restores.map((r) => r.task)).toEqual(['0_1'])
        expect(restores[0].from).toBeGreaterThan(0n)
        expect(restores[0].restored).toBeLessThanOrEqual(LAG)
        expect(b.store<string, bigint>('counts', 'keyValue').approximateNumEntries()).toBe(KEYS + 20)
      } finally {
        await a.close()
        await b.close()
      }
    }, 90_000)

    it('a Java leader with the same configs places the same scenario alike: both actives on the caught-up instance, one warm-up on the newcomer', async () => {
      const app = 'cwu-java'
      const [input, output] = [`${app}-in`, `${app}-counts`]
      await withJavaBeside(
        client,
        kafka,
        {
          topics: [input, output],
          partitions: PARTITIONS,
          app: 'windowed-count',
          options: {
            applicationId: app,
            inputs: [input],
            output,
            windowMs: WINDOW_MS,
            // Never reached: it only makes the rig report the committed input offsets as they grow.
            count: 1_000_000_000,
            props: { 'acceptable.recovery.lag': LAG, 'max.warmup.replicas': 2 },
          },
          wafka: () => new KafkaStreams(windowedTopology(input, output), config(app, { applicationServer: 'wafka-host:7200' })),
        },
        async (java, w) => {
          const first = lines(0, KEYS * PARTITIONS)
          await produceStrings(client, input, first)
          await until(
            'Java to commit every record',
            () => Math.max(0, ...java.events.flatMap((e) => (e.event === 'progress' ? [e.records] : []))),
            (n) => n >= first.length,
            60_000,
          )
          await w.start()
          const seen = await until(
            'wafka to be given one warm-up and no active stateful task',
            () => placement(w, 'windowed-counts', input),
            (p) =>
              p?.['java-host:7100']?.active.length === PARTITIONS &&
              p['wafka-host:7200']?.active.length === 0 &&
              p['wafka-host:7200'].standby.length === 1,
            60_000,
          )
          expect(seen['java-host:7100'].standby).toEqual([])
          expect(java.events.filter((e) => e.event === 'error')).toEqual([])
        },
      )
    }, 120_000)
  })
}
