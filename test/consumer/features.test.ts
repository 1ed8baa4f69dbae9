import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, CorruptRecordError, Kafka, KafkaError, type Consumer } from '../../src/index.js'
import { encodeRecordBatch } from '../../src/public/codec.js'
import { Cluster } from '../../src/cluster/cluster.js'
import { Produce } from '../../src/protocol/messages/index.js'
import { kcatProduce } from '../peers/kcat.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { prepareForGroups, until } from './support.js'

describe.each(['legacy', 'modern'] as const)('consumer features on the %s librdkafka mock', (build) => {
  let mock: MockCluster
  let kafka: Kafka
  const open: Array<{ disconnect(): Promise<void> }> = []
  const consumer = (config: Parameters<Kafka['consumer']>[0] = {}) => {
    const c = kafka.consumer({ heartbeatIntervalMs: 200, sessionTimeoutMs: 3000, maxWaitTimeInMs: 100, ...config })
    open.push(c)
    return c
  }
  const values = (n: number, prefix = 'm') => Array.from({ length: n }, (_, i) => ({ value: `${prefix}${i}` }))

  beforeAll(async () => {
    requirePeers()
    mock = await startMockCluster({ brokers: 3, build })
    await prepareForGroups(mock, build)
    kafka = new Kafka({ clientId: 'wafka-features-test', brokers: mock.bootstrap.split(',') })
  })
  afterAll(async () => {
    await Promise.allSettled(open.map((c) => c.disconnect()))
    await mock?.stop()
  })

  it('assign() without a group reads chosen partitions from a seek, and commits nothing', async () => {
    await mock.createTopic('manual', { partitions: 3, replicationFactor: 1 })
    for (const p of [0, 1, 2])
      await kcatProduce(
        mock.bootstrap,
        'manual',
        values(50, `p${p}-`).map((m) => ({ ...m, partition: p })),
      )
    const c = consumer({ autoOffsetReset: 'earliest' })
    await c.connect()
    c.assign([{ topic: 'manual', partitions: [0, 2] }])
    c.seek({ topic: 'manual', partition: 2, offset: 45 })
    const fetches: number[] = []
    c.on(c.events.FETCH, (e) => fetches.push(e.payload.nodeId))
    const seen: string[] = []
    await c.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
    await until(
      () => seen.length >= 55,
      10_000,
      () => `read ${seen.length}`,
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(seen.filter((v) => v.startsWith('p0-'))).toEqual(values(50, 'p0-').map((m) => m.value))
    expect(seen.filter((v) => v.startsWith('p2-'))).toEqual(['p2-45', 'p2-46', 'p2-47', 'p2-48', 'p2-49'])
    expect(seen.some((v) => v.startsWith('p1-'))).toBe(false)
    expect(fetches.length).toBeGreaterThan(0)
    await expect(c.commitOffsets([{ topic: 'manual', partition: 0, offset: 1 }])).rejects.toThrow(ConfigError)
  })

  it('pause() stops a partition and resume() picks it up where it stopped', async () => {
    await mock.createTopic('pausing', { partitions: 2, replicationFactor: 1 })
    for (const p of [0, 1])
      await kcatProduce(
        mock.bootstrap,
        'pausing',
        values(20, `p${p}-`).map((m) => ({ ...m, partition: p })),
      )
    const c = consumer({ groupId: `pausing-${build}` })
    await c.connect()
    await c.subscribe({ topics: ['pausing'], fromBeginning: true })
    c.pause([{ topic: 'pausing', partitions: [1] }])
    const seen: string[] = []
    await c.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
    await until(
      () => seen.length >= 20,
      10_000,
      () => `read ${seen.length}`,
    )
    await kcatProduce(
      mock.bootstrap,
      'pausing',
      values(5, 'late-').map((m) => ({ ...m, partition: 1 })),
    )
    await new Promise((r) => setTimeout(r, 500))
    expect(seen.every((v) => v.startsWith('p0-'))).toBe(true)
    expect(c.paused()).toEqual([{ topic: 'pausing', partitions: [1] }])
    c.resume([{ topic: 'pausing', partitions: [1] }])
    await until(
      () => seen.length >= 45,
      10_000,
      () => `read ${seen.length}`,
    )
    expect(seen.slice(20)).toEqual([...values(20, 'p1-'), ...values(5, 'late-')].map((m) => m.value))
  })

  it('batches(): a pull loop reads everything; breaking out leaves the last batch uncommitted', async () => {
    await mock.createTopic('pulled', { partitions: 1, replicationFactor: 1 })
    await kcatProduce(mock.bootstrap, 'pulled', values(300))
    const groupId = `pulled-${build}`
    const c = consumer({ groupId, maxBytesPerPartition: 1024 })
    await c.connect()
    await c.subscribe({ topics: ['pulled'], fromBeginning: true })
    const seen: string[] = []
    let lastBatchStart = ''
    for await (const batch of c.batches()) {
      lastBatchStart = batch.firstOffset()!
      for (const m of batch.messages) seen.push(m.value!.toString())
      if (seen.length >= 300) break
    }
    await c.disconnect()
    expect(seen).toEqual(values(300).map((m) => m.value))
    const committed = await kafka.admin().fetchOffsets({ groupId, topics: ['pulled'] })
    expect(committed[0].partitions[0].offset).toBe(lastBatchStart)
  })

  it("autoOffsetReset 'latest' skips what is there; 'none' fails clearly", async () => {
    await mock.createTopic('resets', { partitions: 1, replicationFactor: 1 })
    await kcatProduce(mock.bootstrap, 'resets', values(10, 'old-'))
    const latest = consumer({ groupId: `latest-${build}`, autoOffsetReset: 'latest' })
    await latest.connect()
    await latest.subscribe({ topics: ['resets'] })
    const seen: string[] = []
    await latest.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
    await until(
      () => latest.assignmentList().length === 1,
      10_000,
      () => 'not assigned',
    )
    await new Promise((r) => setTimeout(r, 500))
    await kcatProduce(mock.bootstrap, 'resets', values(3, 'new-'))
    await until(
      () => seen.length >= 3,
      10_000,
      () => `read ${seen.length}`,
    )
    expect(seen).toEqual(['new-0', 'new-1', 'new-2'])

    const none = consumer({ groupId: `none-${build}`, autoOffsetReset: 'none' })
    const crashes: Error[] = []
    none.on(none.events.CRASH, (e) => crashes.push(e.payload.error))
    await none.connect()
    await none.subscribe({ topics: ['resets'] })
    await none.run({ eachMessage: async () => {} })
    await until(
      () => crashes.length > 0,
      10_000,
      () => 'no error',
    )
    expect(crashes[0]).toBeInstanceOf(KafkaError)
    expect(crashes[0].message).toMatch(/no committed offset.*none/)
  })

  it('rejects bad usage with ConfigErrors', async () => {
    const c = consumer({ groupId: 'usage' })
    await expect(c.subscribe({ topics: [] })).rejects.toThrow(ConfigError)
    await expect(c.run({})).rejects.toThrow(/exactly one of eachMessage or eachBatch/)
    expect(() => consumer().assign([{ topic: 'x', partitions: [0] }])).not.toThrow()
    expect(() => c.assign([{ topic: 'x', partitions: [0] }])).toThrow(/without groupId/)
    expect(() => kafka.consumer({ heartbeatIntervalMs: 5000, sessionTimeoutMs: 3000 })).toThrow(ConfigError)
  })

  it('a regex subscription picks up a matching topic created later', async () => {
    await mock.createTopic('logs-a', { partitions: 1, replicationFactor: 1 })
    await kcatProduce(mock.bootstrap, 'logs-a', values(5, 'a-'))
    const c = consumer({ groupId: `logs-${build}`, metadataMaxAgeMs: 500 })
    await c.connect()
    await c.subscribe({ topics: [/^logs-/], fromBeginning: true })
    const seen: string[] = []
    await c.run({ eachMessage: async ({ topic, message }) => void seen.push(`${topic}:${message.value}`) })
    await until(
      () => seen.length >= 5,
      10_000,
      () => `read ${seen.length}`,
    )
    await mock.createTopic('logs-b', { partitions: 2, replicationFactor: 1 })
    await kcatProduce(
      mock.bootstrap,
      'logs-b',
      values(5, 'b-').map((m) => ({ ...m, partition: 0 })),
    )
    await until(
      () => seen.length >= 10,
      20_000,
      () => `read ${JSON.stringify(seen)}`,
    )
    expect(seen.slice(5)).toEqual(values(5, 'b-').map((m) => `logs-b:${m.value}`))
    expect(
      c
        .assignmentList()
        .map((p) => `${p.topic}-${p.partition}`)
        .sort(),
    ).toEqual(['logs-a-0', 'logs-b-0', 'logs-b-1'])
  })

  it('a handler running past maxPollIntervalMs makes the member leave; what it held is read again after it rejoins', async () => {
    await mock.createTopic('slow', { partitions: 1, replicationFactor: 1 })
    await kcatProduce(mock.bootstrap, 'slow', values(3))
    const c = consumer({ groupId: `slow-${build}`, maxPollIntervalMs: 800, heartbeatIntervalMs: 100, autoCommit: false })
    const reasons: string[] = []
    c.on(c.events.REBALANCING, (e) => reasons.push(String(e.payload.reason)))
    await c.connect()
    await c.subscribe({ topics: ['slow'], fromBeginning: true })
    const seen: string[] = []
    await c.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value!.toString())
        if (seen.length === 1) await new Promise((r) => setTimeout(r, 1500))
      },
    })
    await until(
      () => seen.length >= 4,
      20_000,
      () => `read ${JSON.stringify(seen)}`,
    )
    expect(reasons.some((r) => /maxPollIntervalMs/.test(r))).toBe(true)
    // Nothing was committed: the first message comes again, then the rest, in order.
    expect(seen.slice(0, 2)).toEqual(['m0', 'm0'])
    expect(seen.slice(1)).toEqual(['m0', 'm1', 'm2'])
  }, 30_000)

  it('a corrupt batch in the log stops its partition with a CorruptRecordError cause; nothing after it is skipped to, other partitions go on', async () => {
    await mock.createTopic('corrupt', { partitions: 2, replicationFactor: 1 })
    // Three batches straight to partition 0's leader: good, bit-flipped (CRC no longer matches), good.
    const cluster = new Cluster({ brokers: mock.bootstrap.split(',') })
    await cluster.connect()
    const leader = await cluster.leaderFor('corrupt', 0)
    const batch = (values: string[]) => encodeRecordBatch(values.map((value) => ({ value })))
    const bad = batch(['bad-0', 'bad-1'])
    bad[bad.length - 3] ^= 0x20
    for (const records of [batch(['good-0', 'good-1']), bad, batch(['after-0'])]) {
      const res = await cluster.send(leader, Produce, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: 'corrupt', partitionData: [{ index: 0, records }] }],
      })
      expect(res.responses[0].partitionResponses[0].errorCode).toBe(0)
    }
    await cluster.disconnect()
    await kcatProduce(
      mock.bootstrap,
      'corrupt',
      values(3, 'p1-').map((m) => ({ ...m, partition: 1 })),
    )

    const c = consumer({ groupId: `corrupt-${build}` })
    const crashes: Error[] = []
    c.on(c.events.CRASH, (e) => crashes.push(e.payload.error))
    await c.connect()
    await c.subscribe({ topics: ['corrupt'], fromBeginning: true })
    const seen: string[] = []
    await c.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
    await until(
      () => crashes.length > 0 && seen.length >= 5,
      10_000,
      () => `read ${JSON.stringify(seen)}, ${crashes.length} errors`,
    )
    await new Promise((r) => setTimeout(r, 500))
    expect(crashes[0].cause).toBeInstanceOf(CorruptRecordError)
    expect(crashes[0].message).toMatch(/corrupt-0 at offset 2/)
    expect(seen.filter((v) => !v.startsWith('p1-'))).toEqual(['good-0', 'good-1'])
    expect(seen.filter((v) => v.startsWith('p1-'))).toEqual(['p1-0', 'p1-1', 'p1-2'])
    await c.disconnect()
    // The commit stops before the corrupt batch: a fixed consumer (or a person) can take it from there.
    const committed = await kafka.admin().fetchOffsets({ groupId: `corrupt-${build}`, topics: ['corrupt'] })
    expect(committed[0].partitions.find((p: { partition: number }) => p.partition === 0)!.offset).toBe('2')
  })

  it('a handler that throws gets the same message again after a backoff; the order holds', async () => {
    await mock.createTopic('retried', { partitions: 1, replicationFactor: 1 })
    await kcatProduce(mock.bootstrap, 'retried', values(10))
    const c = consumer({ groupId: `retried-${build}`, retryBackoffMs: 50 })
    const crashes: Array<{ error: Error; restart: boolean }> = []
    c.on(c.events.CRASH, (e) => crashes.push(e.payload))
    await c.connect()
    await c.subscribe({ topics: ['retried'], fromBeginning: true })
    const attempts: string[] = []
    const done: string[] = []
    let failures = 0
    await c.run({
      eachMessage: async ({ message }) => {
        const v = message.value!.toString()
        attempts.push(v)
        if (v === 'm5' && failures++ < 2) throw new Error('not yet')
        done.push(v)
      },
    })
    await until(
      () => done.length >= 10,
      10_000,
      () => `done ${JSON.stringify(done)}`,
    )
    expect(done).toEqual(values(10).map((m) => m.value))
    expect(attempts.filter((v) => v === 'm5')).toHaveLength(3)
    expect(crashes.map((c) => [c.error.message, c.restart])).toEqual([
      ['not yet', true],
      ['not yet', true],
    ])
  })

  // Only 2.15's mock can delete a topic; neither adds partitions, so the topic comes back bigger.
  if (build === 'modern')
    it('a subscribed topic that gains partitions is rebalanced onto them', async () => {
      await mock.createTopic('grows', { partitions: 2, replicationFactor: 1 })
      const c = consumer({ groupId: 'grows', metadataMaxAgeMs: 300, autoOffsetReset: 'earliest' })
      const joins: number[][] = []
      c.on(c.events.GROUP_JOIN, (e) => joins.push(e.payload.memberAssignment.grows ?? []))
      await c.connect()
      await c.subscribe({ topics: ['grows'] })
      const seen: string[] = []
      await c.run({ eachMessage: async ({ partition, message }) => void seen.push(`${partition}:${message.value}`) })
      await until(
        () => c.assignmentList().length === 2,
        10_000,
        () => 'not assigned',
      )
      await mock.deleteTopic('grows')
      await mock.createTopic('grows', { partitions: 4, replicationFactor: 1 })
      await until(
        () => c.assignmentList().length === 4,
        15_000,
        () => `assigned ${JSON.stringify(c.assignmentList())}`,
      )
      await kcatProduce(mock.bootstrap, 'grows', [{ value: 'new', partition: 3 }])
      await until(
        () => seen.includes('3:new'),
        10_000,
        () => `read ${JSON.stringify(seen)}`,
      )
      expect(joins.at(-1)).toEqual([0, 1, 2, 3])
    })

  it('a handler that pauses its partition mid-batch gets the rest after resume, nothing skipped or repeated', async () => {
    await mock.createTopic('pause-inside', { partitions: 1, replicationFactor: 1 })
    await kcatProduce(mock.bootstrap, 'pause-inside', values(200))
    const c = consumer({ groupId: `pause-inside-${build}` })
    await c.connect()
    await c.subscribe({ topics: ['pause-inside'], fromBeginning: true })
    const seen: string[] = []
    let pausedAt = -1
    await c.run({
      eachMessage: async ({ message, pause }) => {
        seen.push(message.value!.toString())
        if (seen.length === 5) {
          const resume = pause()
          pausedAt = Date.now()
          setTimeout(resume, 400)
        }
      },
    })
    await until(
      () => seen.length >= 200,
      10_000,
      () => `read ${seen.length}`,
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(seen).toEqual(values(200).map((m) => m.value))
    expect(pausedAt).toBeGreaterThan(0)
  })
})
