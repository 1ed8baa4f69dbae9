// Transactions against real Apache Kafka 4.x: fencing by a second producer
// with the same transactionalId, a transaction left open aborted by the
// broker at transactionTimeoutMs, and exactly-once consume-transform-produce
// through a processor process killed -9 mid-transaction and restarted.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildSync } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Admin, type Kafka, KafkaError, type Producer } from '../../src/index.js'
import { LineSplitter, appendTail, killOnExit } from '../peers/child.js'
import { javaConsume, javaProduce } from '../peers/java-client.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until, wafka, wafkaRead } from './support.js'

const READ_COMMITTED = 1
const LATEST = -1n

for (const target of brokerTargets())
  describe.skipIf(!target.available)(`transactions on ${target.name}`, () => {
    let cluster: RunningTarget
    let kafka: Kafka
    let admin: Admin
    const producers: Producer[] = []

    beforeAll(async () => {
      cluster = await target.start()
      kafka = wafka(cluster)
      admin = kafka.admin()
      await admin.connect()
    })
    afterAll(async () => {
      await Promise.allSettled(producers.map((p) => p.disconnect()))
      await admin?.disconnect()
      await cluster?.stop()
    })

    const producer = async (config: Parameters<Kafka['producer']>[0]) => {
      const p = kafka.producer(config)
      producers.push(p)
      await p.connect()
      return p
    }
    /** The last stable offset: where a read_committed consumer stops. */
    const lso = async (topic: string, partition = 0) =>
      (await admin.listOffsets(topic, [partition], LATEST, READ_COMMITTED)).get(partition)!
    const committedValues = async (topic: string) =>
      (await javaConsume(cluster, topic, { props: { 'isolation.level': 'read_committed' } })).map((r) => r.value!.toString())

    it('one producer runs transaction after transaction, commits and aborts (on the first transaction protocol: EndTxn v5 would ask Kafka 4 for the KIP-890 protocol, which bumps the epoch at each end)', async () => {
      const topic = 'consecutive'
      await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] })
      const p = await producer({ transactionalId: 'tx-consecutive' })
      for (let i = 0; i < 6; i++) {
        const txn = await p.transaction()
        await txn.send({
          topic,
          messages: [
            { value: `t${i}-a`, partition: 0 },
            { value: `t${i}-b`, partition: 1 },
          ],
        })
        if (i % 3 === 2) await txn.abort()
        else await txn.commit()
      }
      expect((await committedValues(topic)).sort()).toEqual(['t0-a', 't0-b', 't1-a', 't1-b', 't3-a', 't3-b', 't4-a', 't4-b'])
    })

    it('a second producer with the same transactionalId fences the first; only its records are committed', async () => {
      const topic = 'fencing'
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
      const first = await producer({ transactionalId: 'tx-fence' })
      const t1 = await first.transaction()
      await t1.send({ topic, messages: [{ value: 'zombie' }] })

      const second = await producer({ transactionalId: 'tx-fence' })
      const t2 = await second.transaction()
      await t2.send({ topic, messages: [{ value: 'successor' }] })
      await t2.commit()

      const fenced = await t1.commit().then(
        () => null,
        (e: unknown) => e,
      )
      expect(fenced).toBeInstanceOf(KafkaError)
      expect(['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH']).toContain((fenced as KafkaError).type)
      // The fenced producer stays fenced: no new transaction can write.
      const again = await first
        .transaction()
        .then(async (t) => t.send({ topic, messages: [{ value: 'zombie again' }] }))
        .then(
          () => null,
          (e: unknown) => e,
        )
      expect(again).toBeInstanceOf(Error)

      expect(await committedValues(topic)).toEqual(['successor'])
    })

    it('a transaction left open past transactionTimeoutMs is aborted by the broker', async () => {
      const topic = 'timed-out'
      await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] })
      // Long enough that the checks below (a JVM start for the Java producer
      // among them) run before the broker aborts, on a loaded CI machine too.
      const p = await producer({ transactionalId: 'tx-timeout', transactionTimeoutMs: 15_000 })
      const txn = await p.transaction()
      await txn.send({ topic, messages: [{ value: 'abandoned' }] })
      // Open: read_committed readers are held at its first record.
      expect(await lso(topic)).toBe(0n)
      const other = await javaProduce(cluster, topic, [{ value: 'later' }])
      expect(other[0]).toHaveProperty('offset', 1)
      expect(await lso(topic)).toBe(0n)

      // The broker aborts it (the rig checks every second), writing an abort marker: the LSO passes it.
      await until(
        'the broker aborts the transaction',
        () => lso(topic),
        (o) => o >= 3n,
        60_000,
      )
      expect(await committedValues(topic)).toEqual(['later'])
      const uncommitted = await wafkaRead(kafka, topic, 2)
      expect(uncommitted.map((r) => r.value!.toString())).toEqual(['abandoned', 'later'])

      // The producer learns it on its next call; it was not committed.
      const late = await txn.commit().then(
        () => null,
        (e: unknown) => e,
      )
      expect(late).toBeInstanceOf(KafkaError)
      expect(['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH', 'INVALID_TXN_STATE', 'TRANSACTION_ABORTABLE']).toContain(
        (late as KafkaError).type,
      )
      expect(await committedValues(topic)).toEqual(['later'])
    }, 120_000)

    describe('consume-transform-produce killed mid-transaction', () => {
      // Inside the repository, so the bundle's external packages resolve from node_modules.
      const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url))
      mkdirSync(cache, { recursive: true })
      const dir = mkdtempSync(join(cache, 'wafka-ctp-'))
      const child = join(dir, 'ctp-child.mjs')
      afterAll(() => rmSync(dir, { recursive: true, force: true }))

      beforeAll(() => {
        // The processor runs wafka from source, bundled as the package is (wasm inlined).
        buildSync({
          entryPoints: [fileURLToPath(new URL('./ctp-child.ts', import.meta.url))],
          outfile: child,
          bundle: true,
          platform: 'node',
          format: 'esm',
          target: 'es2022',
          packages: 'external',
          loader: { '.wasm': 'binary' },
          logLevel: 'error',
        })
      })

      interface Processor {
        process: ChildProcess
        lines: string[]
        stderr: string[]
        exited: Promise<void>
      }
      const start = (holdMs: number): Processor => {
        const proc = spawn(process.execPath, [child, cluster.bootstrap, 'ctp', 'ctp-in', 'ctp-out', 'tx-ctp', String(holdMs)], {
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        killOnExit(proc)
        const p: Processor = { process: proc, lines: [], stderr: [], exited: new Promise((r) => proc.once('exit', () => r())) }
        const split = new LineSplitter()
        split.onLine = (l) => p.lines.push(l)
        proc.stdout!.setEncoding('utf8').on('data', (s: string) => split.push(s))
        proc.stderr!.setEncoding('utf8').on('data', (s: string) => appendTail(p.stderr, s, 40))
        return p
      }

      it('a read_committed reader of the output sees every input exactly once', async () => {
        const INPUTS = 3000
        await admin.createTopics({
          topics: [
            { topic: 'ctp-in', numPartitions: 3 },
            { topic: 'ctp-out', numPartitions: 3 },
          ],
        })
        const sent = await javaProduce(
          cluster,
          'ctp-in',
          Array.from({ length: INPUTS }, (_, i) => ({ key: `k${i}`, value: String(i) })),
        )
        expect(sent.every((s) => 'offset' in s)).toBe(true)

        // Twice: let it commit some, then SIGKILL it while a transaction holds records.
        for (let round = 0; round < 2; round++) {
          const p = start(300)
          const committedBefore = () => p.lines.filter((l) => l.startsWith('committed')).length
          await until(
            `round ${round}: commits`,
            () => committedBefore(),
            (n) => n >= 3,
            20_000,
          ).catch((e) => {
            throw new Error(`${e.message}\n${p.lines.join('\n')}\n${p.stderr.join('\n')}`)
          })
          const inTxn = p.lines.filter((l) => l.startsWith('in-txn')).length
          await until(
            `round ${round}: a transaction in progress`,
            () => p.lines.filter((l) => l.startsWith('in-txn')).length,
            (n) => n > inTxn,
            30_000,
          )
          p.process.kill('SIGKILL')
          await p.exited
        }
        // Records of the killed transactions are in the log, never committed.
        const last = start(0)
        try {
          await until(
            'every input consumed',
            async () => {
              const offsets = await admin.fetchOffsets({ groupId: 'ctp', topics: ['ctp-in'] })
              return offsets[0].partitions.reduce((n, x) => n + Math.max(0, Number(x.offset)), 0)
            },
            (n) => n === INPUTS,
            120_000,
          ).catch((e) => {
            throw new Error(`${e.message}\n${last.stderr.join('\n')}`)
          })
        } finally {
          last.process.kill('SIGTERM')
          await last.exited
        }

        const out = await committedValues('ctp-out')
        const counts = new Map<string, number>()
        for (const v of out) counts.set(v, (counts.get(v) ?? 0) + 1)
        expect(out.length).toBe(INPUTS)
        expect([...counts.values()].every((n) => n === 1)).toBe(true)
        expect([...counts.keys()].sort()).toEqual(Array.from({ length: INPUTS }, (_, i) => `out-${i}`).sort())

        // And the kills really hit open transactions: read_uncommitted, the log holds aborted copies besides.
        const everything = await javaConsume(cluster, 'ctp-out')
        expect(everything.length).toBeGreaterThan(INPUTS)
      }, 300_000)
    })
  })
