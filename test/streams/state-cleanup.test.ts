// Java's KafkaStreams.cleanUp() and the state directory cleaner
// (state.cleanup.delay.ms), on the embedded broker (both act on the local
// stateDir only; the broker plays no part). cleanUp() is refused while the
// application runs and while another instance holds the directory; before
// start or after close it deletes the task directories (stores and
// checkpoints) and keeps the process id, so the next start restores the
// store whole from its changelog and counts on exactly. The cleaner deletes
// a task directory no task of this instance owns once it is older than
// stateCleanupDelayMs, logging at INFO as Java; an owned one stays, however old.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError, logLevel, type Kafka, type LogEntry } from '../../src/index.js'
import { IllegalStateError, KafkaStreams, Serdes, StreamsError } from '../../src/public/streams.js'
import { until } from '../kafka/support.js'
import { client, tableReader, targets, type Target } from './support.js'
import { wordCountTopology } from './word-count-app.js'

const embedded = targets.find(([name]) => name === 'the embedded broker')!

describe('cleanUp() and the state directory cleaner', () => {
  let cluster: Target
  let kafka: Kafka
  beforeAll(async () => {
    cluster = await embedded[1]()
    kafka = client(cluster)
  })
  afterAll(async () => cluster?.stop())

  let stateDir: string
  beforeEach(() => void (stateDir = mkdtempSync(join(tmpdir(), 'wafka-state-cleanup-'))))
  const running: KafkaStreams[] = []
  afterEach(async () => {
    for (const app of running.splice(0)) await app.close()
    rmSync(stateDir, { recursive: true, force: true })
  })

  async function setup(input: string, output: string) {
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
  }

  async function produce(topic: string, lines: string[]) {
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic, messages: lines.map((value, i) => ({ key: `line-${i}`, value })) })
    await producer.disconnect()
  }

  async function countsAre(output: string, expected: Record<string, bigint>) {
    const reader = await tableReader(kafka, output)
    try {
      await until(
        `${output} to hold ${JSON.stringify(expected, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`,
        () => new Map([...reader.table].map(([k, v]) => [k, v === null ? null : v.readBigInt64BE()])),
        (t) => Object.entries(expected).every(([w, n]) => t.get(w) === n),
        30_000,
      )
    } finally {
      await reader.stop()
    }
  }

  function app(applicationId: string, input: string, output: string, more: { stateCleanupDelayMs?: number } = {}) {
    const logs: LogEntry[] = []
    const a = new KafkaStreams(wordCountTopology(input, output), {
      applicationId,
      brokers: cluster.bootstrap,
      stateDir,
      commitIntervalMs: 100,
      defaultKeySerde: Serdes.String(),
      defaultValueSerde: Serdes.String(),
      logLevel: logLevel.INFO,
      logCreator: () => (e: LogEntry) => void logs.push(e),
      ...more,
    })
    running.push(a)
    return { app: a, logs }
  }

  const restored = (logs: LogEntry[]) =>
    logs
      .map((e) => /^restored (\d+) records of store counts from changelog \S+ starting at offset (\d+)$/.exec(e.log.message))
      .filter(Boolean)

  it('cleanUp() is refused while running and while another instance holds the directory; after close it deletes the task directories, keeps the process id, and the restart restores whole', async () => {
    await setup('cu-text', 'cu-counts')
    await produce('cu-text', ['a b', 'a'])
    const first = app('cu', 'cu-text', 'cu-counts')
    // Before start: allowed (nothing there yet).
    first.app.cleanUp()
    await first.app.start()
    await countsAre('cu-counts', { a: 2n, b: 1n })
    expect(() => first.app.cleanUp()).toThrow(IllegalStateError)
    expect(() => first.app.cleanUp()).toThrow('Cannot clean up while running.')
    // Another instance on the same directory (not started: it may not clean what the running one holds).
    const other = app('cu', 'cu-text', 'cu-counts')
    expect(() => other.app.cleanUp()).toThrow(StreamsError)
    expect(() => other.app.cleanUp()).toThrow(/Unable to clean up the state, this can happen if multiple instances/)
    const appDir = join(stateDir, 'cu')
    const processId = first.app.processId
    await first.app.close()
    expect(readdirSync(appDir)).toContain('1_0')
    expect(existsSync(join(appDir, '1_0', '.checkpoint'))).toBe(true)

    first.app.cleanUp()
    expect(readdirSync(appDir).sort()).toEqual(['.lock', 'kafka-streams-process-metadata'])
    expect(first.logs.map((e) => e.log.message)).toContain('Deleting task directory 1_0 for 1_0 as user calling cleanup.')

    // The restart keeps the process id and restores the store whole (from offset 0): the counts go on exactly.
    const second = app('cu', 'cu-text', 'cu-counts')
    await second.app.start()
    expect(second.app.processId).toBe(processId)
    await produce('cu-text', ['b'])
    await countsAre('cu-counts', { a: 2n, b: 2n })
    expect(restored(second.logs).map((m) => m![2])).toEqual(['0'])
  }, 60_000)

  it('the cleaner deletes an unowned task directory older than stateCleanupDelayMs (INFO, as Java), never an owned one', async () => {
    expect(() => app('x', 'x', 'x', { stateCleanupDelayMs: 0 })).toThrow(ConfigError)
    await setup('cl-text', 'cl-counts')
    await produce('cl-text', ['a'])
    const { app: a, logs } = app('cl', 'cl-text', 'cl-counts', { stateCleanupDelayMs: 1000 })
    const appDir = join(stateDir, 'cl')
    const hourAgo = new Date(Date.now() - 3_600_000)
    // A task another instance ran here once (old), one not a task's (old too).
    mkdirSync(join(appDir, '1_5'), { recursive: true })
    writeFileSync(join(appDir, '1_5', 'counts.store'), 'x')
    utimesSync(join(appDir, '1_5'), hourAgo, hourAgo)
    mkdirSync(join(appDir, 'not-a-task'))
    utimesSync(join(appDir, 'not-a-task'), hourAgo, hourAgo)
    await a.start()
    await countsAre('cl-counts', { a: 1n })
    // The running task's directory, made old: owned, so it stays.
    utimesSync(join(appDir, '1_0'), hourAgo, hourAgo)
    await until(
      'the cleaner to delete 1_5',
      () => existsSync(join(appDir, '1_5')),
      (there) => !there,
      10_000,
    )
    const line = logs.find((e) => e.log.message.startsWith('Deleting obsolete state directory 1_5'))
    expect(line?.level).toBe(logLevel.INFO)
    expect(line?.log.message).toMatch(
      /^Deleting obsolete state directory 1_5 for task 1_5 as \d+ms has elapsed \(cleanup delay is 1000ms\)\.$/,
    )
    // Another round of the cleaner: the owned task and the other directory are still there.
    await new Promise((r) => setTimeout(r, 1500))
    expect(readdirSync(appDir).sort()).toEqual(['.lock', '1_0', 'kafka-streams-process-metadata', 'not-a-task'])
    expect(logs.filter((e) => e.log.message.startsWith('Deleting obsolete state directory')).length).toBe(1)
  }, 60_000)
})
