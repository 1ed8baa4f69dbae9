import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, type Consumer } from '../../src/index.js'
import { kcatProduce } from '../peers/kcat.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { byPartition, expectResumesAtCommits, prepareForGroups, record, until, type Seen, type TimelineEntry } from './support.js'

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const

/** Every partition's offsets strictly increasing: in order, nothing twice. */
function expectInOrderOnce(seen: Seen[]): void {
  for (const [key, offsets] of byPartition(seen)) {
    for (let i = 1; i < offsets.length; i++) {
      if (offsets[i] <= offsets[i - 1]) throw new Error(`${key}: offset ${offsets[i]} after ${offsets[i - 1]}`)
    }
  }
}

describe.each(['legacy', 'modern'] as const)('consumer groups on the %s librdkafka mock', (build) => {
  let mock: MockCluster
  let kafka: Kafka
  const open: Consumer[] = []
  const consumer = (config: Parameters<Kafka['consumer']>[0] = {}) => {
    const c = kafka.consumer({ heartbeatIntervalMs: 200, sessionTimeoutMs: 6000, autoCommitIntervalMs: 200, ...config })
    open.push(c)
    return c
  }
  /** Starts a member that records what it reads (and which member read it) into `seen`. */
  const member = async (
    groupId: string,
    topic: string,
    seen: Array<Seen & { by: string }>,
    name: string,
    config: Parameters<Kafka['consumer']>[0] = {},
    delayMs = 0,
  ) => {
    const c = consumer({ groupId, ...config })
    await c.connect()
    await c.subscribe({ topics: [topic], fromBeginning: true })
    await c.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) seen.push({ ...record(batch.topic, batch.partition, m), by: name })
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs))
      },
    })
    return c
  }

  beforeAll(async () => {
    requirePeers()
    mock = await startMockCluster({ brokers: 3, build })
    await prepareForGroups(mock, build)
    kafka = new Kafka({ clientId: 'wafka-group-test', brokers: mock.bootstrap.split(',') })
  })
  afterAll(async () => {
    await Promise.allSettled(open.map((c) => c.disconnect()))
    await mock?.stop()
  })

  it('three members read exactly the 200,000 messages kcat wrote with every codec to 12 partitions, each partition in order', async () => {
    await mock.createTopic('codecs', { partitions: 12, replicationFactor: 3 })
    // The members settle first (the mocks refuse commits while a group rebalances, so a hand-over
    // mid-stream would re-read past the last periodic commit), then kcat writes.
    const seen: Array<Seen & { by: string }> = []
    const members = await Promise.all(['a', 'b', 'c'].map((name) => member(`codecs-${build}`, 'codecs', seen, name)))
    await until(
      () => members.every((m) => m.assignmentList().length === 4),
      30_000,
      () => members.map((m) => m.assignmentList().length).join('/'),
    )
    const perCodec = 40_000
    const expected: string[] = []
    for (const compression of CODECS) {
      const messages = Array.from({ length: perCodec }, (_, i) => ({
        key: `${compression}-${i % 97}`,
        value: `${compression}:${i}:${'x'.repeat(i % 40)}`,
      }))
      expected.push(...messages.map((m) => m.value))
      await kcatProduce(mock.bootstrap, 'codecs', messages, { compression, timeoutMs: 60_000 })
    }
    await until(
      () => seen.length >= expected.length,
      90_000,
      () => `${seen.length} of ${expected.length} read`,
    )
    await new Promise((r) => setTimeout(r, 500)) // anything read twice would show up now
    expect(seen.length).toBe(expected.length)
    expect(seen.map((s) => s.value!).sort()).toEqual(expected.sort())
    expectInOrderOnce(seen)
    // Each partition's messages, in offset order, are in the order kcat sent them (per codec run).
    for (let p = 0; p < 12; p++) {
      const sorted = seen.filter((s) => s.partition === p).sort((a, b) => (a.offset < b.offset ? -1 : 1))
      for (const codec of CODECS) {
        const ns = sorted.filter((s) => s.value!.startsWith(`${codec}:`)).map((s) => Number(s.value!.split(':')[1]))
        expect(ns).toEqual([...ns].sort((a, b) => a - b))
      }
    }
    expect(new Set(seen.map((s) => s.by)).size).toBe(3)
  }, 180_000)

  for (const assignor of ['range', 'cooperative-sticky'] as const) {
    it(`${assignor}: a member leaving and another joining mid-stream lose nothing; a new owner starts at the last commit`, async () => {
      const topic = `rebalance-${assignor}`
      await mock.createTopic(topic, { partitions: 6, replicationFactor: 3 })
      const total = 6000
      const messages = Array.from({ length: total }, (_, i) => ({ key: `k${i}`, value: `m${i}` }))
      // Small batches, small fetches and slow handling: the rebalances land mid-stream.
      await kcatProduce(mock.bootstrap, topic, messages, { config: { 'batch.num.messages': 20 } })
      const seen: Array<Seen & { by: string }> = []
      // Reads and successful commits in the order they happened.
      const timeline: TimelineEntry[] = []
      const revoked: Record<string, number[][]> = { a: [], b: [], c: [] }
      const groupId = `rebalance-${assignor}-${build}`
      const config = { partitionAssigners: [assignor], maxBytesPerPartition: 4096, sessionTimeoutMs: 3000 }
      const start = async (name: string) => {
        const c = consumer({ groupId, ...config })
        c.on(c.events.PARTITIONS_REVOKED, (e) =>
          revoked[name].push(e.payload.partitions.flatMap((t: { partitions: number[] }) => t.partitions)),
        )
        c.on(c.events.PARTITIONS_ASSIGNED, (e) =>
          timeline.push({ assigned: e.payload.partitions.flatMap((t: { partitions: number[] }) => t.partitions) }),
        )
        c.on(c.events.COMMIT_OFFSETS, (e) => {
          for (const t of e.payload.topics ?? [])
            for (const p of t.partitions) timeline.push({ commit: { partition: p.partition, offset: BigInt(p.offset) } })
        })
        await c.connect()
        await c.subscribe({ topics: [topic], fromBeginning: true })
        await c.run({
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) {
              const read = { ...record(batch.topic, batch.partition, m), by: name }
              seen.push(read)
              timeline.push({ read })
            }
            await new Promise((r) => setTimeout(r, 30))
          },
        })
        return c
      }
      const a = await start('a')
      await until(
        () => seen.length > 500,
        20_000,
        () => `a read ${seen.length}`,
      )
      const b = await start('b')
      await until(
        () => seen.some((s) => s.by === 'b'),
        20_000,
        () => 'b read nothing',
      )
      await a.disconnect()
      const c = await start('c')
      await until(
        () => new Set(seen.map((s) => s.value)).size >= total,
        60_000,
        () => `${new Set(seen.map((s) => s.value)).size} of ${total} read`,
      )
      await new Promise((r) => setTimeout(r, 500))
      expect(new Set(seen.map((s) => s.value)).size).toBe(total)
      expect(seen.some((s) => s.by === 'c')).toBe(true)
      expectResumesAtCommits(timeline)
      if (assignor === 'cooperative-sticky') {
        // When b joined, a gave up only what moved to b, never everything at once.
        expect(revoked.a[0].length).toBeGreaterThan(0)
        expect(revoked.a[0].length).toBeLessThan(6)
      } else {
        // Eager: a gives up all it owns when b joins.
        expect(revoked.a[0]).toHaveLength(6)
      }
      await Promise.all([b.disconnect(), c.disconnect()])
    }, 120_000)
  }

  it('commits only what the handler finished: a restarted member resumes there', async () => {
    const topic = 'resume'
    await mock.createTopic(topic, { partitions: 1, replicationFactor: 3 })
    await kcatProduce(
      mock.bootstrap,
      topic,
      Array.from({ length: 100 }, (_, i) => ({ value: `m${i}` })),
    )
    const groupId = `resume-${build}`
    const first = consumer({ groupId })
    await first.connect()
    await first.subscribe({ topics: [topic], fromBeginning: true })
    const read: string[] = []
    await first.run({
      eachMessage: async ({ message }) => {
        if (read.length === 40) throw new Error('the handler fails at the 41st message')
        read.push(message.value!.toString())
      },
    })
    await until(
      () => read.length === 40,
      10_000,
      () => `read ${read.length}`,
    )
    await first.disconnect()
    const second = consumer({ groupId })
    await second.connect()
    await second.subscribe({ topics: [topic], fromBeginning: true })
    const rest: string[] = []
    await second.run({ eachMessage: async ({ message }) => void rest.push(message.value!.toString()) })
    await until(
      () => rest.length >= 60,
      10_000,
      () => `read ${rest.length}`,
    )
    expect(rest[0]).toBe('m40')
    expect([...read, ...rest]).toEqual(Array.from({ length: 100 }, (_, i) => `m${i}`))
  })

  it('disconnect() while a rebalance holds its JoinGroup returns promptly and leaves the group', async () => {
    await mock.createTopic('held', { partitions: 2, replicationFactor: 3 })
    await kcatProduce(mock.bootstrap, 'held', [{ value: 'slow' }])
    const groupId = `held-${build}`
    const busy = consumer({ groupId, sessionTimeoutMs: 8000, heartbeatIntervalMs: 200 })
    await busy.connect()
    await busy.subscribe({ topics: ['held'], fromBeginning: true })
    let release!: () => void
    const handling = new Promise<void>((r) => (release = r))
    let started = false
    await busy.run({
      eachMessage: async () => {
        started = true
        await handling
      },
    })
    await until(
      () => started,
      10_000,
      () => 'the handler did not start',
    )
    // The busy member cannot rejoin until its handler returns: the newcomer's JoinGroup is held meanwhile.
    const newcomer = consumer({ groupId, sessionTimeoutMs: 8000 })
    await newcomer.connect()
    await newcomer.subscribe({ topics: ['held'], fromBeginning: true })
    void newcomer.run({ eachMessage: async () => {} }).catch(() => {})
    await new Promise((r) => setTimeout(r, 1000))
    const t0 = Date.now()
    await newcomer.disconnect()
    expect(Date.now() - t0).toBeLessThan(3000)
    release()
  }, 30_000)
})
