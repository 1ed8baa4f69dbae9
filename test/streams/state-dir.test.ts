// Persistent stores across restarts, on real Kafka 4.4 and on the embedded
// broker with the same assertions, each test on a stateDir of its own: a
// word count closed cleanly and started again restores only past its
// checkpoint (nothing, here, of a changelog of thousands) and its counts stay
// exact; a checkpoint past the changelog's end (a changelog recreated) is
// wiped with a WARN and restored whole; kill -9 of an instance under
// at_least_once loses nothing on restart; under exactly_once_v2 a crash
// leaves no checkpoint, so the restart restores the store whole and every
// count is exact. The instances run test/streams/eos-child.ts in a process of
// their own (to kill), the restarts in this one.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest'
import { logLevel, type Kafka, type LogEntry } from '../../src/index.js'
import { KafkaStreams, Serdes, SessionWindows, StreamsBuilder, TimeWindows, type StreamsConfig } from '../../src/public/streams.js'
import { readCheckpoint, writeCheckpoint } from '../../src/streams/offset-checkpoint.js'
import { killOnExit, LineSplitter } from '../peers/child.js'
import { requireKafka } from '../peers/kafka.js'
import { until } from '../kafka/support.js'
import { client, consumedAll, tableReader, targets, type Target } from './support.js'
import { wordCountTopology } from './word-count-app.js'

const kafkaOk = requireKafka()

// As eos-child.ts's: words through a repartition topic into the store `counts` (task 1_<partition>).
const words = (lines: string[]) => lines.flatMap((l) => l.toLowerCase().split(/\W+/).filter(Boolean))
function counted(lines: string[]): Map<string, bigint> {
  const m = new Map<string, bigint>()
  for (const w of words(lines)) m.set(w, (m.get(w) ?? 0n) + 1n)
  return m
}
const asCounts = (table: Map<string, Buffer | null>) =>
  new Map([...table].map(([k, v]) => [k, v === null ? null : Serdes.Long().deserialize('', v)]))
const exactly = (expected: Map<string, bigint>) => (t: Map<string, bigint | null>) =>
  t.size === expected.size && [...expected].every(([w, n]) => t.get(w) === n)

/** What each restore of `store` logged: the records restored and the offset it began at. */
function restores(logs: LogEntry[], store = 'counts'): Array<{ restored: number; from: bigint }> {
  return logs
    .map((e) => new RegExp(`^restored (\\d+) records of store ${store} from changelog \\S+ starting at offset (\\d+)$`).exec(e.log.message))
    .filter((m) => m !== null)
    .map((m) => ({ restored: Number(m[1]), from: BigInt(m[2]!) }))
}

for (const [target, start] of targets) {
  // The built package (WAFKA_BUILT) is held to the embedded broker only, as the other streams files in the built slice; Kafka's half is the src run's.
  describe.skipIf(target === 'real Kafka' && (!kafkaOk || !!process.env.WAFKA_BUILT))(
    `persistent stores under stateDir on ${target}`,
    () => {
      let cluster: Target
      let kafka: Kafka
      beforeAll(async () => {
        cluster = await start()
        kafka = client(cluster)
      })
      afterAll(async () => cluster?.stop())

      let stateDir: string
      beforeEach(() => void (stateDir = mkdtempSync(join(tmpdir(), 'wafka-state-dir-'))))
      const running: KafkaStreams[] = []
      afterEach(async () => {
        for (const app of running.splice(0)) await app.close()
        rmSync(stateDir, { recursive: true, force: true })
      })

      async function setup(input: string, output: string, lines: string[]) {
        const admin = kafka.admin()
        await admin.connect()
        await admin
          .createTopics({
            topics: [
              { topic: input, numPartitions: 1 },
              { topic: output, numPartitions: 1 },
            ],
          })
          .finally(() => admin.disconnect())
        await produce(input, lines, 0)
      }

      async function produce(topic: string, lines: string[], from: number) {
        const producer = kafka.producer()
        await producer.connect()
        for (let i = 0; i < lines.length; i += 500)
          await producer.send({ topic, messages: lines.slice(i, i + 500).map((value, j) => ({ key: `line-${from + i + j}`, value })) })
        await producer.disconnect()
      }

      /** An instance in this process, its log kept. */
      async function app(
        applicationId: string,
        input: string,
        output: string,
        processingGuarantee: StreamsConfig['processingGuarantee'],
        topology = wordCountTopology(input, output),
      ): Promise<{ app: KafkaStreams; logs: LogEntry[] }> {
        const logs: LogEntry[] = []
        const a = new KafkaStreams(topology, {
          applicationId,
          brokers: cluster.bootstrap,
          processingGuarantee,
          stateDir,
          commitIntervalMs: 100,
          sessionTimeoutMs: 6000,
          heartbeatIntervalMs: 1000,
          defaultApiTimeoutMs: 30_000,
          // Every update logged: the tests check changelog offsets and count output records per word.
          statestoreCacheMaxBytes: 0,
          defaultKeySerde: Serdes.String(),
          defaultValueSerde: Serdes.String(),
          logLevel: logLevel.INFO,
          logCreator: () => (e: LogEntry) => void logs.push(e),
        })
        running.push(a)
        await a.start()
        return { app: a, logs }
      }

      /** test/streams/eos-child.ts in a process of its own on this test's stateDir. */
      function child(applicationId: string, input: string, output: string, guarantee: 'at_least_once' | 'exactly_once_v2') {
        const root = new URL('../..', import.meta.url).pathname
        const proc = spawn(process.execPath, ['--import', './test/streams/ts-register.mjs', 'test/streams/eos-child.ts'], {
          cwd: root,
          env: {
            ...process.env,
            EOS_BROKERS: cluster.bootstrap,
            EOS_APP: applicationId,
            EOS_INPUT: input,
            EOS_OUTPUT: output,
            EOS_GUARANTEE: guarantee,
            EOS_STATE_DIR: stateDir,
            EOS_SESSION_TIMEOUT_MS: '6000',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        killOnExit(proc)
        const states: string[] = []
        const lines = new LineSplitter()
        lines.onLine = (line) => line.startsWith('state ') && states.push(line.slice(6))
        proc.stdout!.setEncoding('utf8').on('data', (c: string) => lines.push(c))
        const stderr: string[] = []
        proc.stderr!.setEncoding('utf8').on('data', (c: string) => stderr.push(c))
        const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? -1)))
        return { proc, states, stderr, exited }
      }

      it('a clean close checkpoints the store; the restart restores only past the checkpoint and the counts stay exact; a bad checkpoint or a lost file means a full restore', async () => {
        const [input, output, applicationId] = ['sd-clean-in', 'sd-clean-out', 'sd-clean']
        const first = Array.from({ length: 3000 }, (_, i) => `w${i % 50}`)
        await setup(input, output, first)
        const table = await tableReader(kafka, output)
        try {
          const one = await app(applicationId, input, output, 'at_least_once')
          await until('the first counts', () => asCounts(table.table), exactly(counted(first)), 60_000)
          // A second instance on the same stateDir is refused while the first holds it.
          const intruder = new KafkaStreams(wordCountTopology(input, output), {
            applicationId,
            brokers: cluster.bootstrap,
            stateDir,
            defaultKeySerde: Serdes.String(),
            defaultValueSerde: Serdes.String(),
            logLevel: logLevel.NOTHING,
          })
          await expect(intruder.start()).rejects.toThrow(/multiple instances of Kafka Streams are running in the same state directory/)
          const processId = one.app.processId
          await one.app.close()
          // Java's layout: <stateDir>/<applicationId>/<task>/.checkpoint, the last changelog offset the store holds.
          const taskDir = join(stateDir, applicationId, '1_0')
          // Only the task with a store has a directory.
          expect(readdirSync(join(stateDir, applicationId)).sort()).toEqual(['.lock', '1_0', 'kafka-streams-process-metadata'])
          expect(readCheckpoint(join(taskDir, '.checkpoint'))).toEqual([
            { topic: `${applicationId}-counts-changelog`, partition: 0, offset: 2999n },
          ])

          const second = ['w1 w2 new']
          await produce(input, second, 3000)
          const two = await app(applicationId, input, output, 'at_least_once')
          expect(two.app.processId).toBe(processId)
          await until('the counts after the restart', () => asCounts(table.table), exactly(counted([...first, ...second])), 60_000)
          // Of a changelog of 3000 records, the restore read none: the store file held them all.
          expect(restores(two.logs)).toEqual([{ restored: 0, from: 3000n }])
          await two.app.close()
          expect(readCheckpoint(join(taskDir, '.checkpoint'))).toEqual([
            { topic: `${applicationId}-counts-changelog`, partition: 0, offset: 3002n },
          ])

          // A checkpoint past the changelog's end (a changelog deleted and made anew): wiped, with a WARN, and restored whole.
          writeCheckpoint(join(taskDir, '.checkpoint'), [{ topic: `${applicationId}-counts-changelog`, partition: 0, offset: 999_999n }])
          const third = ['w3']
          await produce(input, third, 3001)
          const three = await app(applicationId, input, output, 'at_least_once')
          await until('the counts after the wipe', () => asCounts(table.table), exactly(counted([...first, ...second, ...third])), 60_000)
          expect(restores(three.logs)).toEqual([{ restored: 3003, from: 0n }])
          const warned = three.logs.filter((e) => e.level === logLevel.WARN && e.log.message.includes('wiping it and restoring it'))
          expect(warned.map((e) => e.log.message)).toEqual([
            expect.stringContaining(
              `its checkpointed offset 999999 is outside its changelog ${applicationId}-counts-changelog-0 [0, 3003)`,
            ),
          ])
          await three.app.close()

          // A checkpoint whose store file is gone: restored whole too, not only past the checkpoint.
          rmSync(join(taskDir, 'counts.store'))
          await produce(input, third, 3002)
          const four = await app(applicationId, input, output, 'at_least_once')
          await until(
            'the counts after the lost file',
            () => asCounts(table.table),
            exactly(counted([...first, ...second, ...third, ...third])),
            60_000,
          )
          expect(restores(four.logs)).toEqual([{ restored: 3004, from: 0n }])
          expect(four.logs.some((e) => e.level === logLevel.WARN && e.log.message.includes('its file is missing'))).toBe(true)
        } finally {
          await table.stop()
        }
      }, 90_000)

      it('window and session stores are persistent too: a restart restores neither, and counts on', async () => {
        const [input, applicationId] = ['sd-windows-in', 'sd-windows']
        const windowed = () => {
          const builder = new StreamsBuilder()
          const grouped = builder.stream<string, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() }).groupByKey()
          grouped.windowedBy(TimeWindows.ofSizeWithNoGrace(3_600_000)).count({ storeName: 'window-counts' })
          grouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(3_600_000)).count({ storeName: 'session-counts' })
          return builder.build()
        }
        // Within one hour's window and one session per key.
        const base = 472_222 * 3_600_000
        const send = async (from: number, to: number) => {
          const producer = kafka.producer()
          await producer.connect()
          const messages = Array.from({ length: to - from }, (_, j) => ({
            key: (from + j) % 2 ? 'b' : 'a',
            value: 'x',
            timestamp: String(base + (from + j) * 1000),
          }))
          await producer.send({ topic: input, messages })
          await producer.disconnect()
        }
        const admin = kafka.admin()
        await admin.connect()
        await admin.createTopics({ topics: [{ topic: input, numPartitions: 1 }] }).finally(() => admin.disconnect())
        await send(0, 200)
        const counted = async (a: KafkaStreams, n: bigint) =>
          until(
            `${n} per key in each store`,
            () => {
              if (a.state !== 'RUNNING') return null
              const w = a.store<string, bigint>('window-counts', 'window')
              const sessions = a.store<string, bigint>('session-counts', 'session')
              return ['a', 'b'].map((k) => [w.fetch(k, base), sessions.fetch(k).map((s) => s.value)])
            },
            (got) =>
              JSON.stringify(got, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) ===
              JSON.stringify([
                [String(n), [String(n)]],
                [String(n), [String(n)]],
              ]),
            60_000,
          )
        const one = await app(applicationId, input, '', 'at_least_once', windowed())
        await counted(one.app, 100n)
        await one.app.close()
        const taskDir = join(stateDir, applicationId, '0_0')
        expect(readdirSync(taskDir).sort()).toEqual(['.checkpoint', 'session-counts.store', 'window-counts.store'])
        const checkpoint = readCheckpoint(join(taskDir, '.checkpoint'))
        const at = (store: string) => checkpoint.find((c) => c.topic === `${applicationId}-${store}-changelog`)!.offset
        await send(200, 220)
        const two = await app(applicationId, input, '', 'at_least_once', windowed())
        await counted(two.app, 110n)
        for (const store of ['window-counts', 'session-counts'])
          expect(restores(two.logs, store)).toEqual([{ restored: 0, from: at(store) + 1n }])
        // 200 window updates; the session store logs a removal and a put per merge.
        expect(at('window-counts')).toBe(199n)
        expect(at('session-counts')).toBeGreaterThan(199n)
      }, 60_000)

      it('at_least_once, kill -9 mid-run: the restart on the same stateDir misses nothing', async () => {
        const [input, output, applicationId] = ['sd-alos-in', 'sd-alos-out', 'sd-alos']
        const all = Array.from({ length: 600 }, (_, i) => `w${i % 13} v${i % 7}`)
        await setup(input, output, all.slice(0, 200))
        const table = await tableReader(kafka, output)
        try {
          const first = child(applicationId, input, output, 'at_least_once')
          await until(
            'some output',
            () => table.records(),
            (n) => n > 0,
            60_000,
          ).catch((err) => {
            throw new Error(`${(err as Error).message}; child: ${first.states.join(', ')} ${first.stderr.join('').slice(-2000)}`)
          })
          await produce(input, all.slice(200, 400), 200)
          first.proc.kill('SIGKILL')
          expect(await first.exited).toBe('SIGKILL')
          await produce(input, all.slice(400), 400)
          await app(applicationId, input, output, 'at_least_once')
          const expected = counted(all)
          // at_least_once may count a record twice after a crash, never not at all.
          await until(
            'every count at least',
            () => asCounts(table.table),
            (t) => t.size === expected.size && [...expected].every(([w, n]) => (t.get(w) ?? 0n) >= n),
            60_000,
          )
          await consumedAll(kafka, applicationId, [input])
        } finally {
          await table.stop()
        }
      }, 90_000)

      it('exactly_once_v2, kill -9 mid-run: no checkpoint survives the crash, the restart restores the store whole and every count is exact', async () => {
        const [input, output, applicationId] = ['sd-eos-in', 'sd-eos-out', 'sd-eos']
        const all = Array.from({ length: 600 }, (_, i) => `w${i % 13} v${i % 7}`)
        await setup(input, output, all.slice(0, 200))
        const committed = await tableReader(kafka, output, undefined, 'read_committed')
        try {
          const first = child(applicationId, input, output, 'exactly_once_v2')
          await until(
            'some output committed',
            () => committed.records(),
            (n) => n > 0,
            60_000,
          ).catch((err) => {
            throw new Error(`${(err as Error).message}; child: ${first.states.join(', ')} ${first.stderr.join('').slice(-2000)}`)
          })
          await produce(input, all.slice(200, 400), 200)
          first.proc.kill('SIGKILL')
          expect(await first.exited).toBe('SIGKILL')
          // The store's file is there, its checkpoint is not: deleted when the task started, as Java's under EOS.
          const taskDir = join(stateDir, applicationId, '1_0')
          expect(existsSync(join(taskDir, 'counts.store'))).toBe(true)
          expect(existsSync(join(taskDir, '.checkpoint'))).toBe(false)
          await produce(input, all.slice(400), 400)
          const restarted = await app(applicationId, input, output, 'exactly_once_v2')
          await until('every count, read_committed', () => asCounts(committed.table), exactly(counted(all)), 60_000)
          await consumedAll(kafka, applicationId, [input])
          const [restore] = restores(restarted.logs)
          expect(restore!.from).toBe(0n)
          expect(restore!.restored).toBeGreaterThan(0)
          expect(
            restarted.logs.some((e) => e.level === logLevel.WARN && e.log.message.includes('it has no checkpointed offset; wiping it')),
          ).toBe(true)
          // One committed output record per word: nothing of the killed instance's open transaction, nothing counted twice.
          expect(committed.records()).toBe(words(all).length)
        } finally {
          await committed.stop()
        }
      }, 90_000)
    },
  )
}
