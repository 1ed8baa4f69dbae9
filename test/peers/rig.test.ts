// The real-peer rig, proven with real clients only: kcat against both
// librdkafka mock cluster builds, every fault command exercised.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type KcatAssignor,
  type KcatGroupConsumer,
  type KcatMessage,
  type KcatPartition,
  type KcatProduceMessage,
  KCAT_AUTO_COMMIT_MS,
  kcatApiVersions,
  kcatConsume,
  kcatGroupConsumer,
  kcatMetadata,
  kcatProduce,
  parseRebalanceLine,
} from './kcat.js'
import { DISCONNECT, type MockCluster, requirePeers, startMockCluster } from './mock-cluster.js'

const PRODUCE = 0
const METADATA = 3
const NOT_LEADER_OR_FOLLOWER = 6
// Retriable and counted against the retry budget (librdkafka re-sends leader errors for free).
const NOT_ENOUGH_REPLICAS = 19

const peers = requirePeers()

const bytes = (b: Buffer | null) => (b === null ? null : b.toString('hex'))
const summary = (m: KcatMessage) => ({
  partition: m.partition,
  key: bytes(m.key),
  value: bytes(m.value),
  headers: m.headers.map(([k, v]) => [k, bytes(v)]),
})
const toBuf = (b: string | Uint8Array | null | undefined) => (b == null ? null : Buffer.from(b))
const expected = (m: KcatProduceMessage, partition: number) => {
  const h = !m.headers ? [] : Array.isArray(m.headers) ? m.headers : Object.entries(m.headers)
  return {
    partition,
    key: bytes(toBuf(m.key)),
    value: bytes(toBuf(m.value)),
    headers: h.map(([k, v]) => [k, v === null ? null : Buffer.from(v).toString('hex')]),
  }
}
const byOffset = (a: KcatMessage, b: KcatMessage) => a.partition - b.partition || a.offset - b.offset

/** n messages spread evenly over the partitions, keyed and valued by index. */
const spread = (n: number, partitions: number, prefix: string): KcatProduceMessage[] =>
  Array.from({ length: n }, (_, i) => ({ key: `${prefix}k${i}`, value: `${prefix}v${i}`, partition: i % partitions }))
const values = (ms: KcatMessage[]) => ms.map((m) => m.value!.toString()).sort()
const sentValues = (ms: KcatProduceMessage[]) => ms.map((m) => String(m.value)).sort()
const distinctValues = (ms: KcatMessage[]) => [...new Set(values(ms))]
const partitionIds = (ps: KcatPartition[]) => ps.map((p) => p.partition)

const CLEAN_EXIT = { code: 0, signal: null }
/** How librdkafka's range and roundrobin assignors split 6 partitions between 2 members. */
const SPLITS: Partial<Record<KcatAssignor, string[]>> = { range: ['0,1,2', '3,4,5'], roundrobin: ['0,2,4', '1,3,5'] }

/** Stops members one after another (each leave is its own rebalance); how each exited. */
async function stopAll(members: KcatGroupConsumer[]) {
  const exits = []
  for (const m of members) exits.push(await m.stop())
  return exits
}

/** The partitions a member has been given, at any rebalance. */
const everAssigned = (m: KcatGroupConsumer) =>
  new Set(m.rebalances.filter((r) => r.kind === 'assigned').flatMap((r) => partitionIds(r.partitions)))

describe('kcat rebalance lines', () => {
  it('parses what kcat 1.7.1 prints for eager and cooperative rebalances', () => {
    expect(parseRebalanceLine('% Group g rebalanced (memberid 0x7f01): assigned: t [0], t.x-y [12]')).toEqual({
      kind: 'assigned',
      incremental: false,
      lost: false,
      memberId: '0x7f01',
      partitions: [
        { topic: 't', partition: 0 },
        { topic: 't.x-y', partition: 12 },
      ],
    })
    expect(parseRebalanceLine('% Group g rebalanced (memberid m): revoked: ')).toMatchObject({ kind: 'revoked', partitions: [] })
    expect(
      parseRebalanceLine(
        '% Group a b rebalanced: incremental revoke of 1 partition(s) (memberid m-1, assignment lost, COOPERATIVE rebalance protocol): t [3]',
      ),
    ).toEqual({ kind: 'revoked', incremental: true, lost: true, memberId: 'm-1', partitions: [{ topic: 't', partition: 3 }] })
    expect(
      parseRebalanceLine('% Group g rebalanced: incremental assignment of 0 partition(s) (memberid m, COOPERATIVE rebalance protocol): '),
    ).toMatchObject({ kind: 'assigned', incremental: true, lost: false, partitions: [] })
    expect(parseRebalanceLine('% Reached end of topic t [2] at offset 6')).toBeNull()
    expect(parseRebalanceLine('%4|1795957247.857|COMMITFAIL|rdkafka#consumer-1| [thrd:main]: Offset commit failed')).toBeNull()
  })

  it('refuses the group settings kcat would silently drop', () => {
    for (const name of ['enable.auto.commit', 'auto.commit.interval.ms']) {
      expect(() => kcatGroupConsumer('127.0.0.1:1', { groupId: 'g', topics: ['t'], config: { [name]: 200 } })).toThrow(/cannot set/)
    }
  })
})

for (const build of ['legacy', 'modern'] as const) {
  describe.skipIf(!peers)(`mock cluster, ${build} build, with kcat`, () => {
    let cluster: MockCluster

    beforeAll(async () => {
      cluster = await startMockCluster({ brokers: 3, build })
    })
    afterAll(async () => {
      await cluster?.stop()
    })

    it('starts 3 brokers on loopback and kcat -L lists them and a created topic', async () => {
      expect(cluster.brokers.map((b) => b.id)).toEqual([1, 2, 3])
      expect(cluster.bootstrap).toBe(cluster.brokers.map((b) => `${b.host}:${b.port}`).join(','))
      await cluster.createTopic('listed', { partitions: 12, replicationFactor: 3 })

      const md = await kcatMetadata(cluster.bootstrap)
      expect(md.brokers.sort((a, b) => a.id - b.id)).toEqual(cluster.brokers)
      const topic = md.topics.find((t) => t.name === 'listed')!
      expect(topic.partitions).toHaveLength(12)
      for (const p of topic.partitions) {
        expect([1, 2, 3]).toContain(p.leader)
        expect(p.replicas.sort()).toEqual([1, 2, 3])
      }
      await expect(cluster.createTopic('listed', { partitions: 1 })).rejects.toThrow(/TOPIC_ALREADY_EXISTS/)
      await expect(cluster.createTopic('too-many-replicas', { replicationFactor: 4 })).rejects.toThrow(/replication factor/)
    })

    it(`advertises ${build === 'modern' ? "2.15's API versions (flexible ones included)" : "2.0.2's old API versions"}`, async () => {
      const v = await kcatApiVersions(cluster.bootstrap)
      const expectedVersions: Record<number, [number, number]> =
        build === 'modern'
          ? // JoinGroup held to v5 by mock-cluster.c: 2.15 misreads its v6
            { 0: [0, 10], 1: [0, 16], 3: [0, 12], 11: [0, 5], 14: [0, 3], 12: [0, 3], 13: [0, 2], 18: [0, 2], 68: [1, 1] }
          : { 0: [0, 7], 1: [0, 11], 3: [0, 2], 11: [0, 5], 18: [0, 2] }
      for (const [key, range] of Object.entries(expectedVersions)) expect(v.get(Number(key)), `api ${key}`).toEqual(range)
      if (build === 'legacy') expect(v.has(68)).toBe(false)
    })

    it('round-trips what kcat produces, byte for byte: binary data, null and empty keys and values, headers', async () => {
      await cluster.createTopic('round-trip', { partitions: 3 })
      const messages: KcatProduceMessage[] = [
        { key: 'k1', value: 'v1', partition: 0 },
        { key: randomBytes(64), value: randomBytes(2000), partition: 0 },
        // Every byte value, including the ones JSON and the shell care about.
        {
          key: Buffer.from([0, 10, 13, 34, 92, 0x7f, 0x80, 0xff]),
          value: Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
          partition: 1,
        },
        { key: null, value: 'no key', partition: 1 },
        { key: 'null value', value: null, partition: 1 },
        { key: null, value: null, partition: 1 },
        { key: '', value: 'empty key', partition: 1 },
        { key: 'empty value', value: '', partition: 1 },
        {
          key: 'h',
          value: 'with headers',
          headers: [
            ['a', '1'],
            ['a', '2'],
            ['utf8 ✓', 'ünïcödé'],
            ['null', null],
          ],
          partition: 2,
        },
        { key: 'h2', value: 'other headers', headers: { trace: 'abc' }, partition: 2 },
      ]
      await kcatProduce(cluster.bootstrap, 'round-trip', messages)
      const got = (await kcatConsume(cluster.bootstrap, 'round-trip')).sort(byOffset)
      expect(got.map(summary)).toEqual(messages.map((m) => expected(m, m.partition!)))
      expect(got.map((m) => m.offset)).toEqual([0, 1, 0, 1, 2, 3, 4, 5, 0, 1])
      for (const m of got) {
        expect(m.topic).toBe('round-trip')
        expect(m.timestampType).toBe('create')
        expect(Math.abs(m.timestamp - Date.now())).toBeLessThan(60_000)
      }
    })

    it('refuses what kcat cannot express instead of sending something else', async () => {
      await expect(kcatProduce(cluster.bootstrap, 'x', [{ key: '', value: null }])).rejects.toThrow(/null value with an empty key/)
      await expect(kcatProduce(cluster.bootstrap, 'x', [{ key: null, value: '' }])).rejects.toThrow(/empty value without a key/)
      await expect(kcatProduce(cluster.bootstrap, 'x', [{ value: 'v', headers: { 'a=b': 'c' } }])).rejects.toThrow(/header/)
    })

    it('round-trips every codec kcat has', async () => {
      await cluster.createTopic('codecs', { partitions: 1 })
      const codecs = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const
      const sent: KcatProduceMessage[] = []
      for (const compression of codecs) {
        const batch = Array.from({ length: 50 }, (_, i) => ({
          key: `${compression}-${i}`,
          value: `${compression} `.repeat(20 + i),
          partition: 0,
        }))
        await kcatProduce(cluster.bootstrap, 'codecs', batch, { compression })
        sent.push(...batch)
      }
      const got = await kcatConsume(cluster.bootstrap, 'codecs', { count: sent.length })
      expect(got.map(summary)).toEqual(sent.map((m) => expected(m, 0)))
    })

    it('consumes from an offset, or only new messages', async () => {
      await cluster.createTopic('offsets', { partitions: 1 })
      await kcatProduce(
        cluster.bootstrap,
        'offsets',
        ['a', 'b', 'c'].map((value) => ({ value, partition: 0 })),
      )
      const fromOne = await kcatConsume(cluster.bootstrap, 'offsets', { offset: 1, partition: 0 })
      expect(fromOne.map((m) => m.value!.toString())).toEqual(['b', 'c'])
      const later = kcatConsume(cluster.bootstrap, 'offsets', { fromBeginning: false, count: 1, partition: 0 })
      // No signal says when the consumer sits at the end: produce until it sees one.
      let got: KcatMessage[] | undefined
      for (let i = 0; i < 10 && !got; i++) {
        await kcatProduce(cluster.bootstrap, 'offsets', [{ value: 'new', partition: 0 }])
        got = await Promise.race([later, new Promise<undefined>((r) => setTimeout(r, 1000))])
      }
      expect(got!.map((m) => m.value!.toString())).toEqual(['new'])
      expect(got![0].offset).toBeGreaterThanOrEqual(3)
    })

    it('setLeader moves a partition, as Metadata shows; the data stays readable', async () => {
      await cluster.createTopic('moved', { partitions: 2 })
      await cluster.setLeader('moved', 0, 3)
      await cluster.setLeader('moved', 1, 2)
      let md = await kcatMetadata(cluster.bootstrap, { topic: 'moved' })
      expect(md.topics[0].partitions.map((p) => p.leader)).toEqual([3, 2])
      await kcatProduce(cluster.bootstrap, 'moved', [{ value: 'x', partition: 0 }])
      await cluster.setLeader('moved', 0, 1)
      md = await kcatMetadata(cluster.bootstrap, { topic: 'moved' })
      expect(md.topics[0].partitions[0].leader).toBe(1)
      const got = await kcatConsume(cluster.bootstrap, 'moved', { partition: 0 })
      expect(got.map((m) => [m.broker, m.value!.toString()])).toEqual([[1, 'x']])
      await expect(cluster.setLeader('moved', 5, 1)).rejects.toThrow(/UNKNOWN_TOPIC_OR_PART/)
      await expect(cluster.setLeader('moved', 0, 9)).rejects.toThrow(/BROKER_NOT_AVAILABLE/)
    })

    it('brokerDown refuses connections; brokerUp brings it back', async () => {
      await cluster.brokerDown(2)
      const md = await kcatMetadata(cluster.bootstrap)
      // 2.10+ leaves a down broker out of Metadata (as KRaft does); 2.0.2 still lists it.
      expect(md.brokers.map((b) => b.id).sort()).toEqual(build === 'modern' ? [1, 3] : [1, 2, 3])
      // Leadership does not move off a down broker.
      await cluster.createTopic('down', { partitions: 1 })
      await cluster.setLeader('down', 0, 2)
      await expect(kcatProduce(cluster.bootstrap, 'down', [{ value: 'lost', partition: 0 }], { timeoutMs: 1500 })).rejects.toThrow(/failed/)
      await cluster.brokerUp(2)
      expect((await kcatMetadata(cluster.bootstrap)).brokers).toHaveLength(3)
      await kcatProduce(cluster.bootstrap, 'down', [{ value: 'kept', partition: 0 }])
      const got = await kcatConsume(cluster.bootstrap, 'down')
      expect(got.map((m) => m.value!.toString())).toEqual(['kept'])
    })

    it('pushRequestErrors: each code answers one request; kcat retries past retriable ones, each message lands once', async () => {
      await cluster.createTopic('retried', { partitions: 1 })
      await cluster.pushRequestErrors(PRODUCE, [NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS, NOT_LEADER_OR_FOLLOWER])
      const noRetries = { 'message.send.max.retries': 0 }
      // Without retries the first error is final...
      await expect(kcatProduce(cluster.bootstrap, 'retried', [{ value: 'rejected', partition: 0 }], { config: noRetries })).rejects.toThrow(
        /failed/,
      )
      // ...with them, kcat goes past the other two...
      const sent = Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, partition: 0 }))
      await kcatProduce(cluster.bootstrap, 'retried', sent, { config: { 'linger.ms': 50 } })
      // ...which are then used up.
      await kcatProduce(cluster.bootstrap, 'retried', [{ value: 'last', partition: 0 }], { config: noRetries })
      const got = await kcatConsume(cluster.bootstrap, 'retried')
      expect(got.map(summary)).toEqual([...sent, { value: 'last' }].map((m) => expected(m, 0)))
    })

    it('pushBrokerRequestErrors with delays is used up by the requests to that broker', async () => {
      await cluster.createTopic('broker-errors', { partitions: 1 })
      await cluster.setLeader('broker-errors', 0, 1)
      await cluster.pushBrokerRequestErrors(1, PRODUCE, [{ code: NOT_LEADER_OR_FOLLOWER, rttMs: 200 }, NOT_LEADER_OR_FOLLOWER])
      expect(await cluster.brokerErrorCount(1, PRODUCE)).toBe(2)
      const started = Date.now()
      await kcatProduce(cluster.bootstrap, 'broker-errors', [{ value: 'once', partition: 0 }])
      expect(Date.now() - started).toBeGreaterThanOrEqual(200)
      expect(await cluster.brokerErrorCount(1, PRODUCE)).toBe(0)
      const got = await kcatConsume(cluster.bootstrap, 'broker-errors')
      expect(got.map((m) => m.value!.toString())).toEqual(['once'])
    })

    it('pushDisconnects drops the connection; kcat reconnects and delivers', async () => {
      await cluster.createTopic('disconnects', { partitions: 1 })
      await cluster.setLeader('disconnects', 0, 3)
      await cluster.pushDisconnects(PRODUCE, 2, 3)
      await kcatProduce(cluster.bootstrap, 'disconnects', [{ value: 'after reconnect', partition: 0 }])
      expect(await cluster.brokerErrorCount(3, PRODUCE)).toBe(0)
      const got = await kcatConsume(cluster.bootstrap, 'disconnects')
      // An injected error is answered before the append, so a retry cannot duplicate.
      expect(got.map((m) => m.value!.toString())).toEqual(['after reconnect'])
      await cluster.pushDisconnects(METADATA, 1)
      expect((await kcatMetadata(cluster.bootstrap)).brokers.length).toBe(3)
    })

    it('setRtt delays every response of a broker', async () => {
      await cluster.setRtt(-1, 400)
      const started = Date.now()
      await kcatMetadata(cluster.bootstrap)
      expect(Date.now() - started).toBeGreaterThanOrEqual(400)
      await cluster.setRtt(-1, 0)
    })

    it('setTopicError shows in Metadata; setCoordinator, setApiVersion and setRack are accepted', async () => {
      await cluster.createTopic('erroring', { partitions: 1 })
      await cluster.setTopicError('erroring', 29) // TOPIC_AUTHORIZATION_FAILED
      const md = await kcatMetadata(cluster.bootstrap, { topic: 'erroring' })
      expect(md.topics[0].error).toMatch(/authoriz/i)
      await cluster.setTopicError('erroring', 0)

      await cluster.setCoordinator('group', 'g1', 2)
      await cluster.setCoordinator('transaction', 'tx1', 3)
      await expect(cluster.command('coordinator', 'nope', 'k', 1)).rejects.toThrow(/group or transaction/)
      await cluster.setRack(1, 'rack-a')
      const [min, max] = (await kcatApiVersions(cluster.bootstrap)).get(METADATA)!
      await cluster.setApiVersion(METADATA, 0, 1)
      expect((await kcatApiVersions(cluster.bootstrap)).get(METADATA)).toEqual([0, 1])
      expect((await kcatMetadata(cluster.bootstrap)).brokers).toHaveLength(3)
      await cluster.setApiVersion(METADATA, min, max)
    })

    it(`a transactional kcat producer commits through the mock, which ${build === 'modern' ? 'writes a' : 'writes no'} commit marker`, async () => {
      await cluster.createTopic('txn', { partitions: 1 })
      await cluster.setCoordinator('transaction', 'rig-tx', 2)
      const tx = [
        { value: 't1', partition: 0 },
        { value: 't2', partition: 0 },
      ]
      await kcatProduce(cluster.bootstrap, 'txn', tx, { transactionalId: 'rig-tx' })
      await kcatProduce(cluster.bootstrap, 'txn', [{ value: 'after', partition: 0 }])
      const got = await kcatConsume(cluster.bootstrap, 'txn', { config: { 'isolation.level': 'read_committed' } })
      // The control record takes an offset (2) that consumers never see.
      const afterOffset = build === 'modern' ? 3 : 2
      expect(got.map((m) => [m.offset, m.value!.toString()])).toEqual([
        [0, 't1'],
        [1, 't2'],
        [afterOffset, 'after'],
      ])
    })

    it('mock limit: a batch appended before a dropped connection is appended again on retry, even when idempotent', async () => {
      for (const idempotent of [false, true]) {
        const topic = `dup-${idempotent}`
        await cluster.createTopic(topic, { partitions: 1 })
        await cluster.setLeader(topic, 0, 1)
        // Appended at once, answered 10 s later: time to drop the connection in between.
        await cluster.pushBrokerRequestErrors(1, PRODUCE, [{ code: 0, rttMs: 10_000 }])
        const producing = kcatProduce(cluster.bootstrap, topic, [{ value: 'once', partition: 0 }], {
          config: { 'enable.idempotence': idempotent },
        })
        while ((await cluster.brokerErrorCount(1, PRODUCE)) > 0) await new Promise((r) => setTimeout(r, 20))
        await cluster.brokerDown(1)
        await cluster.brokerUp(1)
        await producing
        const got = await kcatConsume(cluster.bootstrap, topic)
        // Only a transactional producer's sequence numbers are checked.
        expect(got.map((m) => [m.offset, m.value!.toString()])).toEqual([
          [0, 'once'],
          [1, 'once'],
        ])
      }
    })

    it('mock limit: a partition keeps about 5 MiB, dropping its oldest batches', async () => {
      await cluster.createTopic('big', { partitions: 1 })
      const sent = Array.from({ length: 70 }, (_, i) => ({ key: `k${i}`, value: Buffer.alloc(100_000, i), partition: 0 }))
      await kcatProduce(cluster.bootstrap, 'big', sent, { config: { 'batch.num.messages': 5 } })
      const got = await kcatConsume(cluster.bootstrap, 'big')
      const kept = got.reduce((n, m) => n + m.value!.length, 0)
      expect(got.at(-1)!.offset).toBe(69)
      expect(got[0].offset).toBeGreaterThan(0)
      expect(kept).toBeGreaterThan(4_500_000)
      expect(kept).toBeLessThanOrEqual(5 * 1024 * 1024 + 500_000)
    })

    // The group tests mostly wait on the mock's rebalance delays: they run side by side
    // (vitest runs consecutive concurrent tests together), each with its own topic and group.
    for (const assignor of ['range', 'roundrobin', 'cooperative-sticky'] as KcatAssignor[]) {
      it.concurrent(
        `kcat group members (${assignor}) split a 6-partition topic, read it all between them, and a later member resumes from their commits`,
        async () => {
          const topic = `grouped-${assignor}`
          const group = { groupId: `rig-${assignor}`, topics: [topic], assignor }
          await cluster.createTopic(topic, { partitions: 6 })
          const first = spread(60, 6, 'a')
          await kcatProduce(cluster.bootstrap, topic, first)

          // Started together, both join within the mock's initial rebalance delay.
          const [a, b] = [kcatGroupConsumer(cluster.bootstrap, group), kcatGroupConsumer(cluster.bootstrap, group)]
          try {
            const owned = (await Promise.all([a, b].map((m) => m.waitForAssignment((p) => p.length === 3)))).map(partitionIds)
            expect(owned.flat().sort()).toEqual([0, 1, 2, 3, 4, 5])
            if (assignor in SPLITS) expect(owned.map(String).sort()).toEqual(SPLITS[assignor])
            expect(a.memberId).not.toBe(b.memberId)
            await Promise.all([a, b].map((m) => m.waitForEnd()))
            // A member re-reads after a rebalance whose commit the mock refused (README, mock
            // limits): distinct messages, each from a partition its reader was given.
            expect(distinctValues([...a.messages, ...b.messages])).toEqual(sentValues(first))
            for (const m of [a, b]) expect(m.messages.every((msg) => everAssigned(m).has(msg.partition))).toBe(true)

            // The other takes every partition over and reads to their end; alone in the group,
            // its close commits them all, whatever became of the earlier commits.
            expect(await a.stop()).toEqual(CLEAN_EXIT)
            expect(partitionIds(await b.waitForAssignment((p) => p.length === 6))).toEqual([0, 1, 2, 3, 4, 5])
            expect((await b.waitForEnd()).map((e) => e.offset)).toEqual([10, 10, 10, 10, 10, 10])
          } finally {
            expect(await stopAll([a, b])).toEqual([CLEAN_EXIT, CLEAN_EXIT])
          }
          // Closing revoked everything through the rebalance callback.
          expect(b.rebalances.at(-1)!.kind).toBe('revoked')
          expect(b.assigned()).toEqual([])

          const second = spread(12, 6, 'b')
          await kcatProduce(cluster.bootstrap, topic, second)
          // From the beginning where nothing is committed: a lost commit would show as a re-read.
          const later = kcatGroupConsumer(cluster.bootstrap, group)
          try {
            expect(partitionIds(await later.waitForAssignment((p) => p.length === 6))).toEqual([0, 1, 2, 3, 4, 5])
            const resumed = await later.waitFor(12)
            expect(values(resumed)).toEqual(sentValues(second))
            expect(resumed.every((m) => m.offset >= 10)).toBe(true)
          } finally {
            expect(await later.stop()).toEqual(CLEAN_EXIT)
          }
        },
      )
    }

    it.concurrent('stop() commits: a member stopped before its first auto-commit hands its offsets to the next one', async () => {
      await cluster.createTopic('close-commit', { partitions: 2 })
      const group = { groupId: 'rig-close-commit', topics: ['close-commit'] }
      await kcatProduce(cluster.bootstrap, 'close-commit', spread(8, 2, 'a'))
      const first = kcatGroupConsumer(cluster.bootstrap, group)
      try {
        await first.waitFor(8)
        // The mock's initial rebalance delay is 3 s: this is the close's commit, not the timer's.
        expect(Date.now() - first.startedAt).toBeLessThan(KCAT_AUTO_COMMIT_MS)
      } finally {
        expect(await first.stop()).toEqual(CLEAN_EXIT)
      }
      await kcatProduce(cluster.bootstrap, 'close-commit', spread(4, 2, 'b'))
      const next = kcatGroupConsumer(cluster.bootstrap, group)
      try {
        expect(values(await next.waitFor(4))).toEqual(['bv0', 'bv1', 'bv2', 'bv3'])
      } finally {
        await next.stop()
      }
    })

    it.concurrent('a kcat group member fails clearly: waitFor times out with its stderr, and rejects once it has exited', async () => {
      await cluster.createTopic('quiet', { partitions: 1 })
      const member = kcatGroupConsumer(cluster.bootstrap, { groupId: 'rig-quiet', topics: ['quiet'] })
      await member.waitForAssignment()
      await expect(member.waitFor(1, 300)).rejects.toThrow(/timed out after 300 ms waiting for 1 messages[^]*stderr:[^]*rebalanced/)
      await member.stop()
      await expect(member.waitFor(1)).rejects.toThrow(/exited \(code 0\) before 1 messages/)
      expect(await member.stop()).toEqual(CLEAN_EXIT)
    })

    it('auto-creates a topic that a Metadata request names (4 partitions by default)', async () => {
      const md = await kcatMetadata(cluster.bootstrap, { topic: 'never-created' })
      expect(md.topics[0].partitions).toHaveLength(4)
    })

    it(`newer commands: ${build === 'modern' ? 'work' : 'answer unsupported'}`, async () => {
      await cluster.createTopic('newer', { partitions: 1 })
      const attempts: [string, () => Promise<void>][] = [
        ['rebalance-delay', () => cluster.setRebalanceDelay(0)],
        ['controller', () => cluster.setControllerId(2)],
        ['partition-errors', () => cluster.pushPartitionErrors('newer', 0, PRODUCE, [NOT_LEADER_OR_FOLLOWER])],
        ['delete-records', () => cluster.deleteRecords('newer', 0, 0)],
        ['hide-broker', () => cluster.hideBroker(3)],
        ['delete-topic', () => cluster.deleteTopic('newer')],
        // KIP-848: without a client for ConsumerGroupHeartbeat, only accepted or not.
        ['group-consumer-session-timeout', () => cluster.setGroupConsumerSessionTimeout(10_000)],
        ['group-consumer-heartbeat-interval', () => cluster.setGroupConsumerHeartbeatInterval(500)],
        ['target-assignment', () => cluster.setTargetAssignment('kip848', { m1: [{ topic: 't', partition: 0 }], m2: [] })],
        ['target-assignment', () => cluster.setTargetAssignment('kip848', null)],
      ]
      for (const [name, run] of attempts) {
        expect(cluster.supports(name)).toBe(build === 'modern')
        if (build === 'modern') await run()
        else await expect(run()).rejects.toThrow(/unsupported/)
      }
      if (build === 'modern') {
        await expect(cluster.command('target-assignment', 'g', 'm1:0')).rejects.toThrow(/MEMBER=TOPIC:PARTITION/)
        await expect(cluster.command('target-assignment', 'g', 'm1=t')).rejects.toThrow(/TOPIC:PARTITION/)
        await expect(cluster.setGroupConsumerSessionTimeout(0)).rejects.toThrow(/not a number in range/)
        const md = await kcatMetadata(cluster.bootstrap)
        expect(md.controllerId).toBe(2)
        expect(md.brokers.map((b) => b.id).sort()).toEqual([1, 2])
        expect(md.topics.map((t) => t.name)).not.toContain('newer')
      }
    })

    it('rejects bad commands with the reason', async () => {
      await expect(cluster.command('bogus')).rejects.toThrow(/unknown command/)
      await expect(cluster.command('rtt', 1)).rejects.toThrow(/usage: rtt BROKER MS/)
      await expect(cluster.command('rtt', 'x', 1)).rejects.toThrow(/not a number/)
      await expect(cluster.createTopic('has space')).rejects.toThrow(/blanks/)
      // A bad entry anywhere leaves the stack untouched.
      await expect(cluster.command('broker-errors', 2, PRODUCE, '6', 'x')).rejects.toThrow(/CODE:RTT_MS/)
      expect(await cluster.brokerErrorCount(2, PRODUCE)).toBe(0)
    })
  })

  describe.skipIf(!peers)(`mock cluster process, ${build} build`, () => {
    it('starts and stops in well under a second each, and rejects commands once stopped', async () => {
      const started = Date.now()
      const c = await startMockCluster({ brokers: 1, build })
      const startMs = Date.now() - started
      await c.createTopic('t')
      const stopping = Date.now()
      await c.stop()
      const stopMs = Date.now() - stopping
      // Logged, not asserted: timing never decides a test.
      console.log(`mock cluster ${build}: start ${startMs} ms, stop ${stopMs} ms`)
      await expect(c.createTopic('u')).rejects.toThrow(/exited/)
      await c.stop()
    })

    it('rejects pending and later commands when the process dies', async () => {
      const c = await startMockCluster({ brokers: 1, build })
      const pid = (c as unknown as { child: { pid: number } }).child.pid
      process.kill(pid, 'SIGKILL')
      await expect(c.createTopic('t')).rejects.toThrow(/exited \(SIGKILL\)/)
      await c.stop()
    })
  })
}
