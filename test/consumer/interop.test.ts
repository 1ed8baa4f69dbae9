import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, type Consumer } from '../../src/index.js'
import { kcatGroupConsumer, kcatProduce, type KcatGroupConsumer } from '../peers/kcat.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { prepareForGroups, until } from './support.js'

describe.each(['legacy', 'modern'] as const)('wafka and kcat (librdkafka) in one group on the %s mock', (build) => {
  let mock: MockCluster
  let kafka: Kafka
  const open: Array<Consumer | KcatGroupConsumer> = []
  const stopAll = () => Promise.allSettled(open.splice(0).map((c) => ('disconnect' in c ? c.disconnect() : c.stop())))
  const wafka = async (groupId: string, topic: string, seen: string[]) => {
    // Java's defaults: range and cooperative-sticky offered; kcat offers range, so the group uses range.
    const c = kafka.consumer({ groupId, sessionTimeoutMs: 3000, heartbeatIntervalMs: 300, maxWaitTimeInMs: 100 })
    open.push(c)
    await c.connect()
    await c.subscribe({ topics: [topic], fromBeginning: true })
    await c.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
    return c
  }
  const values = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `${prefix}${i}` }))

  beforeAll(async () => {
    requirePeers()
    mock = await startMockCluster({ brokers: 3, build })
    await prepareForGroups(mock, build)
    kafka = new Kafka({ clientId: 'wafka-interop-test', brokers: mock.bootstrap.split(',') })
  })
  afterEach(stopAll)
  afterAll(async () => {
    await mock?.stop()
  })

  it('split the partitions with the range assignor and together read every message once', async () => {
    await mock.createTopic('shared', { partitions: 6, replicationFactor: 3 })
    const groupId = `shared-${build}`
    const seen: string[] = []
    const ours = await wafka(groupId, 'shared', seen)
    const theirs = kcatGroupConsumer(mock.bootstrap, { groupId, topics: ['shared'], assignor: 'range' })
    open.push(theirs)
    // Settled: each owns three, none twice.
    await until(
      () => ours.assignmentList().length === 3 && theirs.assigned().length === 3,
      30_000,
      () => `wafka ${JSON.stringify(ours.assignmentList())} kcat ${JSON.stringify(theirs.assigned())}`,
    )
    const all = [...ours.assignmentList(), ...theirs.assigned()].map((p) => p.partition).sort()
    expect(all).toEqual([0, 1, 2, 3, 4, 5])
    const messages = values('m', 3000)
    await kcatProduce(mock.bootstrap, 'shared', messages)
    await until(
      () => seen.length + theirs.messages.length >= 3000,
      30_000,
      () => `wafka ${seen.length} + kcat ${theirs.messages.length}`,
    )
    await new Promise((r) => setTimeout(r, 500))
    const together = [...seen, ...theirs.messages.map((m) => m.value!.toString())]
    expect(together).toHaveLength(3000)
    expect(together.sort()).toEqual(messages.map((m) => m.value).sort())
    expect(seen.length).toBeGreaterThan(0)
    expect(theirs.messages.length).toBeGreaterThan(0)
  }, 60_000)

  it('kcat resumes from the offsets wafka committed, and wafka from those kcat committed', async () => {
    await mock.createTopic('handover', { partitions: 3, replicationFactor: 3 })
    const groupId = `handover-${build}`
    await kcatProduce(mock.bootstrap, 'handover', values('first-', 300))
    const seen: string[] = []
    const ours = await wafka(groupId, 'handover', seen)
    await until(
      () => seen.length >= 300,
      20_000,
      () => `wafka read ${seen.length}`,
    )
    await ours.disconnect() // commits what it read
    await kcatProduce(mock.bootstrap, 'handover', values('second-', 300))
    const theirs = kcatGroupConsumer(mock.bootstrap, { groupId, topics: ['handover'] })
    open.push(theirs)
    await theirs.waitFor(300, 30_000)
    await theirs.waitForEnd(10_000)
    await theirs.stop() // commits on close
    expect(theirs.messages.map((m) => m.value!.toString()).sort()).toEqual(
      values('second-', 300)
        .map((m) => m.value)
        .sort(),
    )
    await kcatProduce(mock.bootstrap, 'handover', values('third-', 300))
    const after: string[] = []
    await wafka(groupId, 'handover', after)
    await until(
      () => after.length >= 300,
      20_000,
      () => `wafka read ${after.length}`,
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(after.sort()).toEqual(
      values('third-', 300)
        .map((m) => m.value)
        .sort(),
    )
  }, 90_000)
})
