// Share groups (KIP-932, queues) with wafka's share consumer, on real
// Apache Kafka 4.4 and on the embedded broker with the same assertions: members of one group on one partition share its records
// (each delivered to one member at a time), released records come back with
// one more delivery count, rejected ones never, a record whose lock expires
// goes to another member, the delivery-count limit archives, a member that
// dies with records in flight leaves them to the others, and in the end
// every record is accepted exactly once.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildSync } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AcknowledgementResult, ShareMessage } from '../../src/index.js'
import { startCluster } from '../../src/broker/index.js'
import { javaPeer, type JavaPeer, requireKafka, SHARE_GROUP_TEST_CONFIG, startKafka } from '../peers/kafka.js'
import { killOnExit, LineSplitter } from '../peers/child.js'
import { javaShareMember } from '../peers/java-share.js'
import { produce, until } from './consumer-support.js'
import { configureShareGroup, deliveries, shareBroker, sorted, text, values } from './share-support.js'

/** A broker serving share groups: its bootstrap, Kafka's Java client beside it, and how it stops. */
type Target = JavaPeer & { stop(): Promise<void> }

const targets: Array<[string, () => Promise<Target>]> = [
  [
    'Apache Kafka 4.4',
    async () => {
      const k = await startKafka({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
      return { ...javaPeer(k.bootstrap), stop: () => k.stop() }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
      return { ...javaPeer(c.bootstrapServers), stop: () => c.stop() }
    },
  ],
]

for (const [target, start] of targets)
  describe.skipIf(!requireKafka())(`share groups on ${target}`, () => {
    const share = shareBroker(start, { clientId: 'share-test', startTimeoutMs: 120_000 })
    const { member, consumers } = share
    let n = 0

    /** A topic of one partition with `count` records, and a share group reading it from the start with these group configs. */
    async function setUp(count: number, groupConfig: Record<string, string> = {}) {
      const topic = `share-${++n}`
      const groupId = `queue-${n}`
      await share.admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
      await configureShareGroup(share.admin, groupId, groupConfig)
      await produce(share.target.bootstrap, topic, count)
      return { topic, groupId }
    }

    it('one member reads every record once, with delivery count 1, accepted implicitly', async () => {
      const { topic, groupId } = await setUp(50)
      const c = member(groupId)
      await c.subscribe({ topics: [topic] })
      const seen: ShareMessage[] = []
      await c.run({ eachMessage: async ({ message }) => void seen.push(message) })
      await until(
        () => seen.length >= 50,
        30_000,
        () => `read ${seen.length} of 50`,
      )
      expect(seen.map((m) => m.value!.toString()).sort()).toEqual(Array.from({ length: 50 }, (_, i) => `v${i}`).sort())
      expect(new Set(seen.map((m) => m.deliveryCount))).toEqual(new Set([1]))
      expect(seen[0].topic).toBe(topic)
      expect(c.assignment()).toEqual([{ topic, partition: 0 }])
    }, 60_000)

    it('3 members on 1 partition share the records: each delivered to one member at a time, every one accepted exactly once', async () => {
      const { topic, groupId } = await setUp(300)
      // Who holds each record, from hand-out to return, per member.
      const holding = new Map<string, string>()
      const overlaps: string[] = []
      const reads: Array<{ member: number; value: string; deliveryCount: number }> = []
      const accepted = new Map<string, number>()
      const members = [0, 1, 2].map((i) => {
        const c = member(groupId, { maxPollRecords: 10, shareAcquireMode: 'record_limit' })
        c.on(c.events.ACKNOWLEDGED, (e) => {
          for (const r of e.payload.results) if (r.error) overlaps.push(`member ${i}: acknowledgement refused: ${r.error.message}`)
        })
        return c
      })
      for (const [i, c] of members.entries()) {
        await c.subscribe({ topics: [topic] })
        await c.run({
          eachMessage: async ({ message }) => {
            const v = text(message)
            const other = holding.get(v)
            if (other !== undefined) overlaps.push(`${v} handed to member ${i} while member ${other} held it`)
            holding.set(v, String(i))
            reads.push({ member: i, value: v, deliveryCount: message.deliveryCount })
            // Slow enough that the others fetch while one works.
            await new Promise((r) => setTimeout(r, 10))
            holding.delete(v)
            accepted.set(v, (accepted.get(v) ?? 0) + 1)
          },
        })
      }
      await until(
        () => accepted.size >= 300,
        60_000,
        () => `accepted ${accepted.size} of 300`,
      )
      // Everything is accepted once the handlers return; a last commit carries the last round's.
      await Promise.all(members.map((c) => c.commitSync()))
      expect(overlaps).toEqual([])
      expect(sorted([...accepted.keys()])).toEqual(sorted(values(0, 300)))
      expect([...accepted.values()].every((k) => k === 1)).toBe(true)
      expect(reads.every((r) => r.deliveryCount === 1)).toBe(true)
      // The partition was shared: every member took part.
      expect(new Set(reads.map((r) => r.member))).toEqual(new Set([0, 1, 2]))
      for (const c of members) expect(c.assignment()).toEqual([{ topic, partition: 0 }])
    }, 120_000)

    it('released records come back with deliveryCount + 1; rejected ones never come back (explicit mode)', async () => {
      const { topic, groupId } = await setUp(20)
      const c = member(groupId, { acknowledgementMode: 'explicit' })
      const seen: Array<{ value: string; deliveryCount: number }> = []
      await c.subscribe({ topics: [topic] })
      let produced = false
      await c.run({
        eachMessage: async ({ message }) => {
          const v = text(message)
          seen.push({ value: v, deliveryCount: message.deliveryCount })
          const i = Number(v.slice(1))
          if (i < 5 && message.deliveryCount === 1) c.acknowledge(message, 'release')
          else if (i >= 5 && i < 10) c.acknowledge(message, 'reject')
          else c.acknowledge(message, 'accept')
        },
      })
      await until(
        () => seen.filter((s) => s.deliveryCount === 2).length >= 5,
        30_000,
        () => JSON.stringify(seen),
      )
      // Later records: the rejected ones, were they available again, would be acquired before these.
      await produce(share.target.bootstrap, topic, 5, 'v', { from: 20 })
      produced = true
      await until(
        () => seen.some((s) => s.value === 'v24'),
        30_000,
        () => JSON.stringify(seen),
      )
      await c.commitSync()
      expect(produced).toBe(true)
      const count = (v: string) => seen.filter((s) => s.value === v).map((s) => s.deliveryCount)
      for (const v of values(0, 5)) expect(count(v), v).toEqual([1, 2])
      for (const v of values(5, 25)) expect(count(v), v).toEqual([1])
    }, 60_000)

    it('a record not acknowledged before its lock expires goes to another member, and the late acknowledgement is refused', async () => {
      const { topic, groupId } = await setUp(5, { 'share.record.lock.duration.ms': '2000' })
      const slow = member(groupId, { acknowledgementMode: 'explicit', maxPollRecords: 5, shareAcquireMode: 'record_limit' })
      const refused: string[] = []
      slow.on(slow.events.ACKNOWLEDGED, (e) => {
        for (const r of e.payload.results) if (r.error) refused.push(r.error.type ?? r.error.message)
      })
      const held: ShareMessage[] = []
      let letGo!: () => void
      const hold = new Promise<void>((r) => (letGo = r))
      await slow.subscribe({ topics: [topic] })
      await slow.run({
        eachBatch: async ({ batch }) => {
          held.push(...batch.messages)
          await hold
          for (const m of batch.messages) slow.acknowledge(m, 'accept')
          await slow.commitSync()
        },
      })
      await until(
        () => held.length === 5,
        30_000,
        () => `slow holds ${held.length}`,
      )
      expect(held.every((m) => m.deliveryCount === 1)).toBe(true)
      // The other member holds them in turn while the first one's late acknowledgement goes out: refused, they are not its any more.
      const other = member(groupId, { acknowledgementMode: 'explicit', maxPollRecords: 5, shareAcquireMode: 'record_limit' })
      const got: Array<{ value: string; deliveryCount: number }> = []
      const committed: AcknowledgementResult[] = []
      let otherMayAccept!: () => void
      const otherWaits = new Promise<void>((r) => (otherMayAccept = r))
      await other.subscribe({ topics: [topic] })
      await other.run({
        eachBatch: async ({ batch }) => {
          got.push(...batch.messages.map((m) => ({ value: text(m), deliveryCount: m.deliveryCount })))
          await otherWaits
          for (const m of batch.messages) other.acknowledge(m, 'accept')
          committed.push(...(await other.commitSync()))
        },
      })
      await until(
        () => got.length >= 5,
        30_000,
        () => JSON.stringify(got),
      )
      expect(sorted(got.map((g) => g.value))).toEqual(values(0, 5))
      expect(got.every((g) => g.deliveryCount === 2)).toBe(true)
      letGo()
      await until(
        () => refused.length > 0,
        15_000,
        () => 'no refusal of the late acknowledgement',
      )
      otherMayAccept()
      await until(
        () => committed.length > 0,
        15_000,
        () => 'the other member committed nothing',
      )
      expect(committed.map((r) => [r.count, r.error])).toEqual([[5, null]])
      expect(refused).toContain('INVALID_RECORD_STATE')
    }, 60_000)

    it('at the delivery-count limit a record is archived: never delivered again', async () => {
      const { topic, groupId } = await setUp(10, { 'share.delivery.count.limit': '2' })
      const c = member(groupId, { acknowledgementMode: 'explicit' })
      const seen: Array<{ value: string; deliveryCount: number }> = []
      await c.subscribe({ topics: [topic] })
      await c.run({
        eachMessage: async ({ message }) => {
          const v = text(message)
          seen.push({ value: v, deliveryCount: message.deliveryCount })
          // v0-v2 are always released: twice delivered, then archived.
          c.acknowledge(message, Number(v.slice(1)) < 3 ? 'release' : 'accept')
        },
      })
      await until(
        () => seen.filter((s) => s.deliveryCount === 2).length >= 3,
        30_000,
        () => JSON.stringify(seen),
      )
      await produce(share.target.bootstrap, topic, 5, 'v', { from: 10 })
      await until(
        () => seen.some((s) => s.value === 'v14'),
        30_000,
        () => JSON.stringify(seen),
      )
      await c.commitSync()
      const count = (v: string) => seen.filter((s) => s.value === v).map((s) => s.deliveryCount)
      for (const v of values(0, 3)) expect(count(v), v).toEqual([1, 2])
      for (const v of values(3, 15)) expect(count(v), v).toEqual([1])
    }, 60_000)

    it('a member closed with records fetched but not handed out releases them to the others', async () => {
      // Locks of a minute (Kafka's longest): what comes back within the test's wait was released, not expired.
      const { topic, groupId } = await setUp(10, { 'share.record.lock.duration.ms': '60000' })
      const first = member(groupId, { maxPollRecords: 10, shareAcquireMode: 'record_limit' })
      let started!: () => void
      const inHandler = new Promise<void>((r) => (started = r))
      const firstSaw: string[] = []
      await first.subscribe({ topics: [topic] })
      await first.run({
        eachMessage: async ({ message }) => {
          firstSaw.push(text(message))
          started()
          await new Promise((r) => setTimeout(r, 500))
        },
      })
      await inHandler
      await first.disconnect()
      const got = await deliveries(member(groupId), topic)
      // What the first member finished was accepted (implicit mode), the rest released on close.
      await until(
        () => firstSaw.length + got.length >= 10,
        30_000,
        () => `${firstSaw} / ${JSON.stringify(got)}`,
      )
      expect(sorted([...firstSaw, ...got.map((g) => g.value)])).toEqual(sorted(values(0, 10)))
      expect(firstSaw.length).toBeLessThan(10)
      expect(got.every((g) => g.deliveryCount === 2)).toBe(true)
    }, 60_000)

    describe('a member killed with records in flight', () => {
      // Inside the repository, so the bundle's external packages resolve from node_modules.
      const cache = fileURLToPath(new URL('../../node_modules/.cache/', import.meta.url))
      mkdirSync(cache, { recursive: true })
      const dir = mkdtempSync(join(cache, 'wafka-share-'))
      const child = join(dir, 'share-child.mjs')
      afterAll(() => rmSync(dir, { recursive: true, force: true }))
      beforeAll(() => {
        buildSync({
          entryPoints: [fileURLToPath(new URL('./share-child.ts', import.meta.url))],
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

      it('its records go to the others (with one more delivery count), and all are accepted once', async () => {
        const { topic, groupId } = await setUp(30, { 'share.record.lock.duration.ms': '4000' })
        const proc: ChildProcess = spawn(process.execPath, [child, share.target.bootstrap, groupId, topic], {
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        killOnExit(proc)
        const lines: string[] = []
        const stderr: string[] = []
        const split = new LineSplitter()
        split.onLine = (l) => lines.push(l)
        proc.stdout!.setEncoding('utf8').on('data', (s: string) => split.push(s))
        proc.stderr!.setEncoding('utf8').on('data', (s: string) => stderr.push(s))
        const exited = new Promise((r) => proc.once('exit', r))
        await until(
          () => lines.some((l) => l.startsWith('held ')),
          30_000,
          () => `child said ${lines} ${stderr.join('')}`,
        )
        const held = lines
          .find((l) => l.startsWith('held '))!
          .slice(5)
          .split(',')
        expect(held.length).toBeGreaterThan(0)
        proc.kill('SIGKILL')
        await exited
        const c = member(groupId)
        const got = await deliveries(c, topic)
        await until(
          () => got.length >= 30,
          30_000,
          () => `got ${got.length} of 30`,
        )
        await c.commitSync()
        expect(sorted(got.map((g) => g.value))).toEqual(sorted(values(0, 30)))
        for (const g of got) expect(g.deliveryCount, g.value).toBe(held.includes(g.value) ? 2 : 1)
      }, 90_000)
    })

    it("a mixed group: wafka members and Java's KafkaShareConsumer split the records and together accept each exactly once", async () => {
      const { topic, groupId } = await setUp(400)
      // Java takes 10 records a poll and works on them for 50 ms, so the wafka members get their share.
      const java = javaShareMember(share.target, groupId, topic, {
        props: { 'max.poll.records': 10, 'share.acquire.mode': 'record_limit' },
        pollDelayMs: 50,
      })
      try {
        await java.started
        const wafkaReads: Array<{ member: number; value: string; deliveryCount: number }> = []
        for (const i of [0, 1]) {
          const c = member(groupId, { maxPollRecords: 10, shareAcquireMode: 'record_limit' })
          await c.subscribe({ topics: [topic] })
          await c.run({
            eachMessage: async ({ message }) => {
              wafkaReads.push({ member: i, value: text(message), deliveryCount: message.deliveryCount })
              await new Promise((r) => setTimeout(r, 5))
            },
          })
        }
        await until(
          () => new Set([...wafkaReads.map((r) => r.value), ...java.records.map((r) => r.value!.toString())]).size >= 400,
          60_000,
          () => `wafka ${wafkaReads.length}, Java ${java.records.length}\n${java.stderr.join('\n')}`,
        )
        await java.stop()
        await Promise.all(consumers.map((c) => c.commitSync()))
        const all = [...wafkaReads.map((r) => r.value), ...java.records.map((r) => r.value!.toString())]
        expect(sorted(all)).toEqual(sorted(values(0, 400)))
        expect([...wafkaReads.map((r) => r.deliveryCount), ...java.records.map((r) => r.deliveryCount)].every((d) => d === 1)).toBe(true)
        expect(java.records.length).toBeGreaterThan(0)
        expect(new Set(wafkaReads.map((r) => r.member))).toEqual(new Set([0, 1]))
      } finally {
        await java.stop()
      }
    }, 120_000)

    it('the async iterator: implicit mode accepts a record when the next is asked for; leaving the loop accepts the last, releases the unseen', async () => {
      const { topic, groupId } = await setUp(20)
      const c = member(groupId, { maxPollRecords: 20, shareAcquireMode: 'record_limit' })
      await c.subscribe({ topics: [topic] })
      const first: string[] = []
      for await (const m of c) {
        first.push(text(m))
        if (first.length === 5) break
      }
      // The five seen are accepted (the fifth when the loop was left), the other fifteen released: a second loop gets those, once more delivered.
      const second: Array<{ value: string; deliveryCount: number }> = []
      for await (const m of c) {
        second.push({ value: text(m), deliveryCount: m.deliveryCount })
        if (second.length === 15) break
      }
      await c.commitSync()
      expect(sorted([...first, ...second.map((s) => s.value)])).toEqual(sorted(values(0, 20)))
      expect(second.every((s) => s.deliveryCount === 2)).toBe(true)
    }, 60_000)

    it("record limits (KIP-1206): 'record_limit' never acquires more than maxPollRecords; 'batch_optimized' goes to the end of a record batch", async () => {
      // 50 records in one batch (one send): the broker acquires whole batches unless told to keep the limit.
      const { topic, groupId } = await setUp(50)
      const strict = member(groupId, { maxPollRecords: 7, shareAcquireMode: 'record_limit' })
      const sizes: number[] = []
      await strict.subscribe({ topics: [topic] })
      await strict.run({ eachBatch: async ({ batch }) => void sizes.push(batch.messages.length) })
      await until(
        () => sizes.reduce((a, b) => a + b, 0) >= 50,
        30_000,
        () => `batches ${sizes}`,
      )
      expect(Math.max(...sizes)).toBeLessThanOrEqual(7)
      await strict.disconnect()

      const { topic: topic2, groupId: group2 } = await setUp(50)
      const loose = member(group2, { maxPollRecords: 7 })
      const looseSizes: number[] = []
      await loose.subscribe({ topics: [topic2] })
      await loose.run({ eachBatch: async ({ batch }) => void looseSizes.push(batch.messages.length) })
      await until(
        () => looseSizes.reduce((a, b) => a + b, 0) >= 50,
        30_000,
        () => `batches ${looseSizes}`,
      )
      expect(Math.max(...looseSizes)).toBeGreaterThan(7)
    }, 60_000)

    it('explicit mode: a record left unacknowledged when more are fetched stops the run (as Java’s poll() throws) and is released; implicit mode refuses acknowledge()', async () => {
      const { topic, groupId } = await setUp(10, { 'share.record.lock.duration.ms': '60000' })
      const c = member(groupId, { acknowledgementMode: 'explicit', maxPollRecords: 5, shareAcquireMode: 'record_limit' })
      const crashes: Error[] = []
      c.on(c.events.CRASH, (e) => void crashes.push(e.payload.error))
      await c.subscribe({ topics: [topic] })
      const seen: string[] = []
      await c.run({ eachMessage: async ({ message }) => void seen.push(text(message)) })
      await until(
        () => crashes.length > 0,
        30_000,
        () => `no crash; seen ${seen}`,
      )
      expect(crashes[0].message).toMatch(/not acknowledged/)
      // Released, so another member has them at once, delivered a second time.
      const got = await deliveries(member(groupId), topic)
      await until(
        () => got.length >= 10,
        30_000,
        () => JSON.stringify(got),
      )
      for (const g of got) expect(g.deliveryCount, g.value).toBe(seen.includes(g.value) ? 2 : 1)

      const implicit = member(groupId)
      expect(() => implicit.acknowledge({} as ShareMessage, 'accept')).toThrow(/acknowledgementMode: 'explicit'/)
    }, 60_000)
  })
