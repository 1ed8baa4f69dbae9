import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, type Consumer } from '../../src/index.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { committedBatches } from '../../src/consumer/read-committed.js'
import { readBatches } from '../producer/support.js'
import { prepareForGroups, until } from './support.js'

// librdkafka 2.15's mock coordinates transactions and writes their markers; 2.0.2's writes none.
describe('transactions read back from the modern librdkafka mock', () => {
  let mock: MockCluster
  let kafka: Kafka
  const open: Array<{ disconnect(): Promise<void> }> = []

  beforeAll(async () => {
    requirePeers()
    mock = await startMockCluster({ brokers: 3, build: 'modern' })
    await prepareForGroups(mock, 'modern')
    kafka = new Kafka({ clientId: 'wafka-read-committed-test', brokers: mock.bootstrap.split(',') })
    await mock.createTopic('txn', { partitions: 1, replicationFactor: 3 })
  })
  afterAll(async () => {
    await Promise.allSettled(open.map((c) => c.disconnect()))
    await mock?.stop()
  })

  const read = async (isolationLevel: 'read_committed' | 'read_uncommitted', count: number): Promise<string[]> => {
    // The mock writes its transaction markers with CRC 0 (rdkafka_mock.c: "mock doesn't validate"),
    // which a CRC-checking consumer rightly refuses: the check is off here, for the mock's sake only.
    const c: Consumer = kafka.consumer({ groupId: `rc-${isolationLevel}`, isolationLevel, maxWaitTimeInMs: 100, checkCrcs: false })
    open.push(c)
    const crashes: Error[] = []
    c.on(c.events.CRASH, (e) => crashes.push(e.payload.error))
    await c.connect()
    await c.subscribe({ topics: ['txn'], fromBeginning: true })
    const seen: string[] = []
    await c.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
    await until(
      () => seen.length >= count || crashes.length > 0,
      10_000,
      () => `read ${seen.length}`,
    )
    await new Promise((r) => setTimeout(r, 500))
    expect(crashes).toEqual([])
    await c.disconnect()
    return seen
  }

  it('markers never reach user code; read_committed drops the aborted transactions of the log the mock wrote', async () => {
    const committer = kafka.producer({ transactionalId: 'committer' })
    const aborter = kafka.producer({ transactionalId: 'aborter' })
    const plain = kafka.producer()
    open.push(committer, aborter, plain)
    await Promise.all([committer.connect(), aborter.connect(), plain.connect()])
    // Interleaved in the log: c1 a1 p1 c2 a2 [commit c] [abort a] p2, then a second aborted run and a committed one.
    const tc = await committer.transaction()
    const ta = await aborter.transaction()
    await tc.send({ topic: 'txn', messages: [{ value: 'c1' }] })
    await ta.send({ topic: 'txn', messages: [{ value: 'a1' }] })
    await plain.send({ topic: 'txn', messages: [{ value: 'p1' }] })
    await tc.send({ topic: 'txn', messages: [{ value: 'c2' }] })
    await ta.send({ topic: 'txn', messages: [{ value: 'a2' }] })
    await tc.commit()
    await ta.abort()
    await plain.send({ topic: 'txn', messages: [{ value: 'p2' }] })
    const ta2 = await aborter.transaction()
    await ta2.send({ topic: 'txn', messages: [{ value: 'a3' }] })
    await ta2.abort()
    const tc2 = await committer.transaction()
    await tc2.send({ topic: 'txn', messages: [{ value: 'c3' }] })
    await tc2.commit()

    expect(await read('read_uncommitted', 8)).toEqual(['c1', 'a1', 'p1', 'c2', 'a2', 'p2', 'a3', 'c3'])

    // The mock's Fetch reports no aborted transactions (and its last stable offset is the log end), so
    // read_committed filtering is checked on the log it wrote: the aborted list a broker would send for it.
    const batches = (await readBatches(mock.bootstrap, 'txn', 0)).filter((b) => b.count > 0)
    const aborterPid = batches.find((b) => !b.isControl && b.records[0].value!.toString() === 'a1')!.producerId
    const aborted: Array<{ producerId: bigint; firstOffset: bigint }> = []
    let inTxn = false
    for (const b of batches) {
      if (b.producerId !== aborterPid) continue
      if (!b.isControl && !inTxn) aborted.push({ producerId: aborterPid, firstOffset: b.baseOffset })
      inTxn = !b.isControl
    }
    expect(aborted).toHaveLength(2)
    const visible = committedBatches(batches, aborted).flatMap((b) => b.records.map((r) => r.value!.toString()))
    expect(visible).toEqual(['c1', 'p1', 'c2', 'p2', 'c3'])
    // With the list in the other order (brokers need not sort it), the same.
    expect(committedBatches(batches, [...aborted].reverse()).flatMap((b) => b.records.map((r) => r.value!.toString()))).toEqual(visible)
  })
})
