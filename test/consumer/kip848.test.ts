import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, type Consumer } from '../../src/index.js'
import { kcatProduce } from '../peers/kcat.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { prepareForGroups, until } from './support.js'

// KIP-848 (ConsumerGroupHeartbeat): served by librdkafka 2.15's mock, not by 2.0.2's.
describe("groupProtocol 'consumer' (KIP-848) against the modern librdkafka mock", () => {
  let mock: MockCluster
  let kafka: Kafka
  const open: Consumer[] = []

  beforeAll(async () => {
    requirePeers()
    mock = await startMockCluster({ brokers: 3, build: 'modern' })
    await prepareForGroups(mock, 'modern')
    kafka = new Kafka({ clientId: 'wafka-kip848-test', brokers: mock.bootstrap.split(',') })
  })
  afterAll(async () => {
    await Promise.allSettled(open.map((c) => c.disconnect()))
    await mock?.stop()
  })

  const member = async (groupId: string, topic: string, seen: Array<{ by: string; value: string }>, by: string) => {
    const c = kafka.consumer({ groupId, groupProtocol: 'consumer', maxWaitTimeInMs: 100, autoCommitIntervalMs: 200 })
    open.push(c)
    await c.connect()
    await c.subscribe({ topics: [topic], fromBeginning: true })
    await c.run({ eachMessage: async ({ message }) => void seen.push({ by, value: message.value!.toString() }) })
    return c
  }

  it('joins, gets its partitions from the coordinator, shares them with a second member, and takes them back when it leaves', async () => {
    await mock.createTopic('kip848', { partitions: 4, replicationFactor: 3 })
    await kcatProduce(
      mock.bootstrap,
      'kip848',
      Array.from({ length: 400 }, (_, i) => ({ key: `k${i}`, value: `m${i}` })),
    )
    const seen: Array<{ by: string; value: string }> = []
    const a = await member('kip848-group', 'kip848', seen, 'a')
    expect(
      a
        .assignmentList()
        .map((p) => p.partition)
        .sort(),
    ).toEqual([0, 1, 2, 3])
    await until(
      () => seen.length >= 400,
      10_000,
      () => `read ${seen.length}`,
    )
    const b = await member('kip848-group', 'kip848', seen, 'b')
    // The coordinator moves some partitions to b: a revokes them (committing), b takes them.
    await until(
      () => b.assignmentList().length > 0 && a.assignmentList().length + b.assignmentList().length === 4,
      15_000,
      () => `a ${JSON.stringify(a.assignmentList())} b ${JSON.stringify(b.assignmentList())}`,
    )
    const owned = [...a.assignmentList(), ...b.assignmentList()].map((p) => p.partition).sort()
    expect(owned).toEqual([0, 1, 2, 3])
    await kcatProduce(
      mock.bootstrap,
      'kip848',
      Array.from({ length: 400 }, (_, i) => ({ key: `k${i}`, value: `n${i}` })),
    )
    await until(
      () => seen.length >= 800,
      10_000,
      () => `read ${seen.length}`,
    )
    await new Promise((r) => setTimeout(r, 300))
    // Nothing read twice: the hand-over committed first.
    expect(seen).toHaveLength(800)
    expect(seen.filter((s) => s.value.startsWith('n') && s.by === 'b').length).toBeGreaterThan(0)
    await a.disconnect()
    await until(
      () => b.assignmentList().length === 4,
      15_000,
      () => `b has ${JSON.stringify(b.assignmentList())}`,
    )
  })

  it('a static member restarted within the session timeout gets its partitions back and the other member keeps its own', async () => {
    await mock.createTopic('kip848-static', { partitions: 4, replicationFactor: 3 })
    const moves: string[] = []
    const start = async (name: string, groupInstanceId?: string) => {
      const c = kafka.consumer({ groupId: 'kip848-static', groupProtocol: 'consumer', groupInstanceId, maxWaitTimeInMs: 100 })
      open.push(c)
      c.on(c.events.PARTITIONS_ASSIGNED, (e) => moves.push(`${name} +${e.payload.partitions[0].partitions}`))
      c.on(c.events.PARTITIONS_REVOKED, (e) => moves.push(`${name} -${e.payload.partitions[0].partitions}`))
      await c.connect()
      await c.subscribe({ topics: ['kip848-static'], fromBeginning: true })
      await c.run({ eachMessage: async () => {} })
      return c
    }
    const fixed = await start('fixed', 'instance-1')
    const other = await start('other')
    await until(
      () => fixed.assignmentList().length === 2 && other.assignmentList().length === 2,
      15_000,
      () => `${JSON.stringify(fixed.assignmentList())} / ${JSON.stringify(other.assignmentList())}`,
    )
    const before = fixed
      .assignmentList()
      .map((p) => p.partition)
      .sort()
    const othersBefore = other
      .assignmentList()
      .map((p) => p.partition)
      .sort()
    moves.length = 0
    await fixed.disconnect() // leaves with epoch -2: "back soon"
    const again = await start('again', 'instance-1')
    await until(
      () => again.assignmentList().length === 2,
      15_000,
      () => `again has ${JSON.stringify(again.assignmentList())}`,
    )
    await new Promise((r) => setTimeout(r, 500))
    expect(
      again
        .assignmentList()
        .map((p) => p.partition)
        .sort(),
    ).toEqual(before)
    expect(
      other
        .assignmentList()
        .map((p) => p.partition)
        .sort(),
    ).toEqual(othersBefore)
    // The other member never gave anything up or took anything over.
    expect(moves.filter((m) => m.startsWith('other'))).toEqual([])
  })
})
