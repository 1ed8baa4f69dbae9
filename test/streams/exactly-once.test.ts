// processingGuarantee 'exactly_once_v2' (Java's EOS v2), on real Kafka 4.4 and
// on the embedded broker with the same assertions: a word count's output read
// read_committed holds one record per word and every count exact, and nothing
// aborted is in the topic; a processor that throws mid-batch under
// REPLACE_THREAD aborts the transaction (what the batch sent before the throw
// is seen by read_uncommitted only), and after the replacement every count is
// still exact, where at_least_once counts the failed word twice; an instance
// in a child process killed (SIGKILL) mid-run and another started: its open
// transaction is aborted and every word is counted once; a producer fenced
// by another taking its transactional id is Java's TaskMigrated: the tasks
// close, a new producer rejoins, the handler is not asked, no count is lost.
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { logLevel, type Kafka, type LogEntry } from '../../src/index.js'
import { KafkaStreams, Serdes, StreamsBuilder, type StreamsConfig } from '../../src/public/streams.js'
import { resolveStreamsConfig } from '../../src/streams/options.js'
import { DescribeTransactions } from '../../src/protocol/messages/DescribeTransactions.js'
import { RawClient } from '../broker/raw-client.js'
import { killOnExit, LineSplitter } from '../peers/child.js'
import { requireKafka } from '../peers/kafka.js'
import { until } from '../kafka/support.js'
import { client, consumedAll, tableReader, targets, type Target } from './support.js'

const kafkaOk = requireKafka()

/** Word count; `afterCount` sees each (word, count) before the sink. */
function wordCount(input: string, output: string, afterCount: (word: string) => void = () => {}) {
  const builder = new StreamsBuilder()
  builder
    .stream<string, string>(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
    .groupBy((_key, word) => word)
    .count({ storeName: 'counts' })
    .toStream()
    .mapValues((count, word) => {
      afterCount(word)
      return count
    })
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() })
  return builder.build()
}

const words = (lines: string[]) => lines.flatMap((l) => l.toLowerCase().split(/\W+/).filter(Boolean))
function counted(lines: string[]): Map<string, bigint> {
  const m = new Map<string, bigint>()
  for (const w of words(lines)) m.set(w, (m.get(w) ?? 0n) + 1n)
  return m
}
const asCounts = (table: Map<string, Buffer | null>) => new Map([...table].map(([k, v]) => [k, Serdes.Long().deserialize('', v!)]))

describe('exactly_once_v2 options', () => {
  it("commitIntervalMs defaults to 100 ms under exactly_once_v2 (Java's), 30 s under at_least_once; a given one is kept", () => {
    const base = { applicationId: 'a', brokers: 'localhost:9092' }
    expect(resolveStreamsConfig({ ...base, processingGuarantee: 'exactly_once_v2' }).commitIntervalMs).toBe(100)
    expect(resolveStreamsConfig(base).commitIntervalMs).toBe(30_000)
    expect(resolveStreamsConfig({ ...base, processingGuarantee: 'exactly_once_v2', commitIntervalMs: 250 }).commitIntervalMs).toBe(250)
  })
})

for (const [target, start] of targets) {
  describe.skipIf(target === 'real Kafka' && !kafkaOk)(`exactly_once_v2 on ${target}`, () => {
    let cluster: Target
    let kafka: Kafka
    beforeAll(async () => {
      cluster = await start()
      kafka = client(cluster)
    })
    afterAll(async () => cluster?.stop())

    const running: KafkaStreams[] = []
    afterAll(async () => {
      for (const app of running) await app.close()
    })

    async function setup(input: string, output: string, partitions: number, lines: string[]) {
      const admin = kafka.admin()
      await admin.connect()
      await admin
        .createTopics({
          topics: [
            { topic: input, numPartitions: partitions },
            { topic: output, numPartitions: partitions },
          ],
        })
        .finally(() => admin.disconnect())
      const producer = kafka.producer()
      await producer.connect()
      await producer.send({ topic: input, messages: lines.map((value, i) => ({ key: `line-${i}`, value })) })
      await producer.disconnect()
    }

    const options = (applicationId: string, processingGuarantee: StreamsConfig['processingGuarantee']): StreamsConfig => ({
      applicationId,
      brokers: cluster.bootstrap,
      processingGuarantee,
      // exactly_once_v2 runs with its default (100 ms); at_least_once's (30 s) would outlast the test.
      ...(processingGuarantee === 'at_least_once' ? { commitIntervalMs: 500 } : {}),
      defaultApiTimeoutMs: 30_000,
      defaultKeySerde: Serdes.String(),
      defaultValueSerde: Serdes.String(),
      // Every update forwarded: the tests count one committed output record per word (record-cache.test.ts has the cache).
      statestoreCacheMaxBytes: 0,
    })

    it('word count: read_committed sees one record per word and every count exact; nothing aborted is in the topic', async () => {
      const lines = ['the quick brown fox', 'jumps over the lazy dog', 'The dog barks', 'a fox, a dog and THE end', 'quick quick quick']
      await setup('eos-wc-in', 'eos-wc-out', 3, lines)
      const app = new KafkaStreams(wordCount('eos-wc-in', 'eos-wc-out'), options('eos-wc', 'exactly_once_v2'))
      running.push(app)
      await app.start()
      const committed = await tableReader(kafka, 'eos-wc-out', undefined, 'read_committed')
      const expected = counted(lines)
      try {
        await until(
          'every count',
          () => asCounts(committed.table),
          (t) => t.size === expected.size && [...expected].every(([w, n]) => t.get(w) === n),
          60_000,
        )
        await consumedAll(kafka, 'eos-wc', ['eos-wc-in', 'eos-wc-counts-repartition'])
        await app.close()
        expect(committed.records()).toBe(words(lines).length)
      } finally {
        await committed.stop()
      }
      const all = await tableReader(kafka, 'eos-wc-out')
      await until(
        'read_uncommitted reads as far',
        () => all.records(),
        (n) => n >= words(lines).length,
      ).finally(() => all.stop())
      // No transaction was aborted: read_uncommitted sees exactly what read_committed does.
      expect(all.records()).toBe(words(lines).length)
      expect(asCounts(all.table)).toEqual(expected)
      // The producer was Java's: transactional id <applicationId>-<processId>-1, transaction.timeout.ms 10000, its last transaction committed.
      const wire = await RawClient.open(cluster.bootstrap.split(',')[0])
      try {
        const [state] = (await wire.request(DescribeTransactions, 0, { transactionalIds: [`eos-wc-${app.processId}-1`] })).transactionStates
        expect(state).toMatchObject({ errorCode: 0, transactionState: 'CompleteCommit', transactionTimeoutMs: 10_000 })
      } finally {
        wire.close()
      }
    }, 150_000)

    // One partition everywhere: the count task sees the, quick, brown, fox in that order, and fails at fox.
    const LINES = ['the quick brown fox', 'jumps over the lazy dog', 'the fox ends']

    async function failOnceAtFox(guarantee: 'at_least_once' | 'exactly_once_v2') {
      const [input, output, applicationId] = [`${guarantee}-fox-in`, `${guarantee}-fox-out`, `${guarantee}-fox`]
      await setup(input, output, 1, LINES)
      let thrown = 0
      const app = new KafkaStreams(
        wordCount(input, output, (word) => {
          if (word === 'fox' && thrown++ === 0) throw new RangeError('fox failed once')
        }),
        options(applicationId, guarantee),
      )
      const handled: string[] = []
      app.setUncaughtExceptionHandler((e) => {
        handled.push(e.message)
        return 'REPLACE_THREAD'
      })
      running.push(app)
      await app.start()
      await consumedAll(kafka, applicationId, [input, `${applicationId}-counts-repartition`])
      await app.close()
      expect(handled).toEqual([expect.stringMatching(/^task 1_0 failed to process .*: fox failed once$/)])
      const read = async (isolation: 'read_committed' | 'read_uncommitted') => {
        const reader = await tableReader(kafka, output, undefined, isolation)
        // 'ends' is the last word: once it is read, everything before it in the partition is.
        await until(
          `the output, ${isolation}`,
          () => reader.table.has('ends'),
          (has) => has,
        ).finally(() => reader.stop())
        return { counts: asCounts(reader.table), records: reader.records() }
      }
      return { committed: await read('read_committed'), all: await read('read_uncommitted') }
    }

    it('a processor failing mid-batch under REPLACE_THREAD: the transaction is aborted and no word is counted twice', async () => {
      const { committed, all } = await failOnceAtFox('exactly_once_v2')
      expect(committed.counts).toEqual(counted(LINES))
      expect(committed.records).toBe(words(LINES).length)
      // What the failed batch sent before the throw (the, quick, brown) was aborted: only read_uncommitted sees it.
      expect(all.records).toBeGreaterThanOrEqual(words(LINES).length + 3)
    }, 150_000)

    /** test/streams/eos-child.ts in a process of its own; `states` gets each state it prints. */
    function child(applicationId: string, input: string, output: string) {
      const root = new URL('../..', import.meta.url).pathname
      const proc = spawn(process.execPath, ['--import', './test/streams/ts-register.mjs', 'test/streams/eos-child.ts'], {
        cwd: root,
        env: { ...process.env, EOS_BROKERS: cluster.bootstrap, EOS_APP: applicationId, EOS_INPUT: input, EOS_OUTPUT: output },
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

    it('kill -9 of an instance mid-run: the next one starts from the last commit and every count is exact', async () => {
      const [input, output, applicationId] = ['eos-kill-in', 'eos-kill-out', 'eos-kill']
      const line = (i: number) => `w${i % 7} v${i % 11} all`
      const all = Array.from({ length: 400 }, (_, i) => line(i))
      await setup(input, output, 3, all.slice(0, 100))
      const producer = kafka.producer()
      await producer.connect()
      const committed = await tableReader(kafka, output, undefined, 'read_committed')
      try {
        const first = child(applicationId, input, output)
        await until(
          'the first instance RUNNING',
          () => first.states.at(-1),
          (st) => st === 'RUNNING',
          60_000,
        )
        // Input keeps coming while it runs; it is killed once some output is committed and more is in flight.
        for (let i = 100; i < 300; i += 20) {
          await producer.send({ topic: input, messages: all.slice(i, i + 20).map((value, j) => ({ key: `line-${i + j}`, value })) })
          if (i === 160)
            await until(
              'some output committed',
              () => committed.records(),
              (n) => n > 0,
              60_000,
            )
        }
        first.proc.kill('SIGKILL')
        expect(await first.exited).toBe('SIGKILL')
        await producer.send({ topic: input, messages: all.slice(300).map((value, j) => ({ key: `line-${300 + j}`, value })) })
        const second = child(applicationId, input, output)
        const expected = counted(all)
        // The killed member leaves the group when its session expires (45 s), and its transaction is aborted after 10 s.
        await until(
          'every count, read_committed',
          () => asCounts(committed.table),
          (t) => t.size === expected.size && [...expected].every(([w, n]) => t.get(w) === n),
          120_000,
        ).catch((err) => {
          throw new Error(`${(err as Error).message}; second instance: ${second.states.join(', ')} ${second.stderr.join('').slice(-2000)}`)
        })
        second.proc.kill('SIGTERM')
        expect(await second.exited).toBe(0)
        await consumedAll(kafka, applicationId, [input])
        // Each word counted once: one committed output record per word, none from the killed instance's open transaction.
        expect(committed.records()).toBe(words(all).length)
      } finally {
        await committed.stop()
        await producer.disconnect()
      }
    }, 240_000)

    it('a fenced producer (another took its transactional id): the tasks move, a new producer rejoins, no count lost or doubled', async () => {
      const [input, output, applicationId] = ['eos-fenced-in', 'eos-fenced-out', 'eos-fenced']
      const round1 = ['one two three', 'two three', 'three']
      const round2 = ['one more', 'three again']
      await setup(input, output, 1, round1)
      const logs: LogEntry[] = []
      const app = new KafkaStreams(wordCount(input, output), {
        ...options(applicationId, 'exactly_once_v2'),
        logCreator: () => (e: LogEntry) => void logs.push(e),
      })
      const handled: string[] = []
      app.setUncaughtExceptionHandler((e) => {
        handled.push(e.message)
        return 'SHUTDOWN_CLIENT'
      })
      const states: string[] = []
      app.on('stateChange', (st) => states.push(st))
      running.push(app)
      await app.start()
      const committed = await tableReader(kafka, output, undefined, 'read_committed')
      try {
        const exact = (lines: string[]) => (t: Map<string, bigint>) => {
          const expected = counted(lines)
          return t.size === expected.size && [...expected].every(([w, n]) => t.get(w) === n)
        }
        await until('round 1', () => asCounts(committed.table), exact(round1), 60_000)
        // initTransactions with its id bumps the epoch: the instance's producer is fenced at its next transaction.
        const fencer = kafka.producer({ transactionalId: `${applicationId}-${app.processId}-1` })
        await fencer.connect()
        await fencer.disconnect()
        const producer = kafka.producer()
        await producer.connect()
        await producer.send({ topic: input, messages: round2.map((value, i) => ({ key: `r2-${i}`, value })) })
        await producer.disconnect()
        await until('round 2', () => asCounts(committed.table), exact([...round1, ...round2]), 60_000)
        expect(committed.records()).toBe(words([...round1, ...round2]).length)
      } finally {
        await committed.stop()
      }
      const migrated = logs.filter((e) => e.level === logLevel.WARN && e.log.message.startsWith('this instance lost its tasks'))
      expect(migrated).toHaveLength(1)
      expect(migrated[0].log.error).toMatch(/PRODUCER_FENCED|INVALID_PRODUCER_EPOCH/)
      expect(handled).toEqual([])
      expect(app.state).toBe('RUNNING')
      expect(states).toEqual(['REBALANCING', 'RUNNING', 'REBALANCING', 'RUNNING'])
      await app.close()
    }, 150_000)

    it('the same failure under at_least_once counts the failed word twice (its store change was logged before the throw)', async () => {
      const { committed } = await failOnceAtFox('at_least_once')
      expect(committed.counts).toEqual(new Map([...counted(LINES), ['fox', 3n]]))
    }, 150_000)
  })
}
