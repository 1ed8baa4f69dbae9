// KIP-392, fetch from follower, on the embedded broker: brokers with racks,
// the leader naming a preferred read replica in the consumer's rack (with
// replicaSelector 'rack-aware', Kafka's RackAwareReplicaSelector), and
// followers serving consumers up to the high watermark they know. Then the
// Java consumer with client.rack reading a topic through its follower.
// And wafka's consumer with rackId following the preferred read replica,
// and going back to the leader when that replica stops.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { startCluster, type RunningCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { handlers } from '../../src/broker/dispatch.js'
import type { Handler } from '../../src/broker/handler.js'
import { decodeRecordSet } from '../../src/codec/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { Fetch, Metadata } from '../../src/protocol/messages/index.js'
import { javaConsume } from '../peers/java-client.js'
import { javaPeer, requireKafka } from '../peers/kafka.js'
import { RawClient } from './raw-client.js'
import { until } from './support.js'

let cluster: RunningCluster | undefined
const clients: Array<{ disconnect(): Promise<void> } | { close(): void }> = []
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => ('disconnect' in c ? c.disconnect() : c.close())))
  await cluster?.stop()
  cluster = undefined
})

const RACKS = ['rack-a', 'rack-b', 'rack-c']

async function start(options: StartClusterOptions = {}) {
  cluster = await startCluster({
    brokers: 3,
    racks: RACKS,
    replicaSelector: 'rack-aware',
    topics: [{ name: 'ff', partitions: 1, replicationFactor: 3 }],
    ...options,
  })
  const kafka = new Kafka({ clientId: 'kip392', brokers: cluster.bootstrapServers.split(',') })
  const producer = kafka.producer({ acks: -1 })
  clients.push(producer)
  await producer.connect()
  return { kafka, producer }
}

async function raw(brokerId: number): Promise<RawClient> {
  const b = cluster!.brokers[brokerId]
  const c = await RawClient.open(`${b.host}:${b.port}`)
  clients.push(c)
  return c
}

const fetchFrom = (c: RawClient, rackId: string, fetchOffset = 0n, version = 12) =>
  c.request(Fetch, version, {
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    rackId,
    topics: [{ topic: 'ff', partitions: [{ partition: 0, fetchOffset, partitionMaxBytes: 1 << 20 }] }],
  })

/** The values in a Fetch answer's records: decoded bytes (a response), or the chunks a handler answers with. */
const values = (records: unknown) => {
  const bytes = Array.isArray(records) ? Buffer.concat(records as Buffer[]) : ((records as Buffer | null) ?? Buffer.alloc(0))
  return decodeRecordSet(bytes).batches.flatMap((b) => b.records.map((r) => Buffer.from(r.value!).toString()))
}

async function roles(c: RawClient) {
  const md = await c.request(Metadata, 12, { topics: [{ name: 'ff' }] })
  const p = md.topics[0].partitions[0]
  return { leader: p.leaderId, followers: p.replicaNodes.filter((r) => r !== p.leaderId), brokers: md.brokers }
}

describe('KIP-392: fetch from follower', () => {
  it('Metadata shows the racks; the leader names an in-sync follower in the client rack, and that follower serves up to its high watermark', async () => {
    const { producer } = await start({ replicaLagTimeMaxMs: 400 })
    await producer.send({ topic: 'ff', messages: ['m0', 'm1', 'm2'].map((value) => ({ value })) })
    const boot = await raw(0)
    const { leader, followers, brokers } = await roles(boot)
    expect(brokers.map((b) => [b.nodeId, b.rack]).sort()).toEqual(RACKS.map((r, i) => [i, r]))
    const follower = followers[0]
    const l = await raw(leader)
    const f = await raw(follower)

    // A consumer in the follower's rack: sent there, with no records.
    const redirected = (await fetchFrom(l, RACKS[follower])).responses[0].partitions[0]
    expect(redirected).toMatchObject({ errorCode: 0, preferredReadReplica: follower, highWatermark: 3n })
    expect(values(redirected.records)).toEqual([])
    // In the leader's rack, in no rack, or in a rack no broker is in: the leader serves.
    for (const rack of [RACKS[leader], '', 'rack-z']) {
      const own = (await fetchFrom(l, rack)).responses[0].partitions[0]
      expect(own.preferredReadReplica).toBe(-1)
      expect(values(own.records)).toEqual(['m0', 'm1', 'm2'])
    }

    // The follower serves what it has, up to the high watermark it has from the leader.
    await until(
      async () => (await fetchFrom(f, RACKS[follower])).responses[0].partitions[0].highWatermark === 3n,
      5000,
      () => 'the follower learning the high watermark',
    )
    const served = (await fetchFrom(f, RACKS[follower])).responses[0].partitions[0]
    expect(served).toMatchObject({ errorCode: 0, preferredReadReplica: -1 })
    expect(values(served.records)).toEqual(['m0', 'm1', 'm2'])
    expect(values((await fetchFrom(f, RACKS[follower], 3n)).responses[0].partitions[0].records)).toEqual([])
    // Before v11 a consumer reads from the leader only.
    expect((await fetchFrom(f, '', 0n, 10)).responses[0].partitions[0].errorCode).toBe(ErrorCodes.NOT_LEADER_OR_FOLLOWER)

    // The follower stops fetching: it falls behind and out of the ISR. It still serves only what it knows
    // was committed; the leader no longer sends consumers there.
    cluster!.pauseFollower(follower)
    const lone = new Kafka({ clientId: 'kip392-acks1', brokers: cluster!.bootstrapServers.split(',') }).producer({
      acks: 1,
      idempotent: false,
    })
    clients.push(lone)
    await lone.connect()
    await until(
      async () => {
        await lone.send({ topic: 'ff', messages: [{ value: 'later' }] })
        const md = await boot.request(Metadata, 12, { topics: [{ name: 'ff' }] })
        return !md.topics[0].partitions[0].isrNodes.includes(follower)
      },
      10_000,
      () => 'the paused follower out of the ISR',
    )
    const stale = (await fetchFrom(f, RACKS[follower])).responses[0].partitions[0]
    expect(stale.highWatermark).toBe(3n)
    expect(values(stale.records)).toEqual(['m0', 'm1', 'm2'])
    const back = (await fetchFrom(l, RACKS[follower])).responses[0].partitions[0]
    expect(back.preferredReadReplica).toBe(-1)
    expect(values(back.records).slice(0, 3)).toEqual(['m0', 'm1', 'm2'])
    expect(back.highWatermark).toBeGreaterThan(3n)
  })

  it("replicaSelector 'leader' (Kafka's default): no preferred read replica, whatever the rack", async () => {
    const { producer } = await start({ replicaSelector: 'leader' })
    await producer.send({ topic: 'ff', messages: [{ value: 'x' }] })
    const boot = await raw(0)
    const { leader, followers } = await roles(boot)
    const r = (await fetchFrom(await raw(leader), RACKS[followers[0]])).responses[0].partitions[0]
    expect(r.preferredReadReplica).toBe(-1)
    expect(values(r.records)).toEqual(['x'])
  })

  it('bad options are refused', async () => {
    await expect(startCluster({ racks: [''] })).rejects.toThrow(/racks must be/)
    await expect(startCluster({ replicaSelector: 'nearest' as 'leader' })).rejects.toThrow(/replicaSelector must be/)
  })
})

/**
 * Counts, per broker, the records its Fetch answers gave consumers (not
 * followers) while `run` runs: the handler table is the broker's one seam
 * per API.
 */
async function countServed<T>(run: () => Promise<T>): Promise<{ result: T; servedBy: Map<number, number> }> {
  const servedBy = new Map<number, number>()
  const original = handlers[Fetch.apiKey] as Handler
  handlers[Fetch.apiKey] = {
    ...original,
    async handle(req, ctx) {
      const res = await original.handle(req, ctx)
      const replicaId = ctx.version >= 15 ? req.replicaState.replicaId : req.replicaId
      if (replicaId < 0 && typeof res === 'object' && 'responses' in res) {
        const n = (res.responses as Array<{ partitions: Array<{ records: unknown }> }>)
          .flatMap((t) => t.partitions)
          .reduce((sum, p) => sum + values(p.records).length, 0)
        servedBy.set(ctx.broker.id, (servedBy.get(ctx.broker.id) ?? 0) + n)
      }
      return res
    },
  }
  try {
    return { result: await run(), servedBy }
  } finally {
    handlers[Fetch.apiKey] = original
  }
}

/** 300 records in the one-partition topic, and which broker leads it and which follow. */
async function filled() {
  const { kafka, producer } = await start()
  const sent = Array.from({ length: 300 }, (_, i) => `v${i}`)
  for (let i = 0; i < sent.length; i += 50)
    await producer.send({ topic: 'ff', messages: sent.slice(i, i + 50).map((value) => ({ value })) })
  return { kafka, sent, ...(await roles(await raw(0))) }
}

/** The records came from the follower in the consumer's rack; the leader sent it away before serving (a first fetch's worth at most). */
function expectServedByFollower(servedBy: Map<number, number>, follower: number, leader: number, count: number) {
  expect(servedBy.get(follower) ?? 0).toBeGreaterThan(0)
  expect(servedBy.get(follower)! + (servedBy.get(leader) ?? 0)).toBeGreaterThanOrEqual(count)
}

describe.skipIf(!requireKafka())('the Java consumer with client.rack', () => {
  it('reads the whole topic, its records served by the follower in its rack', async () => {
    const { sent, leader, followers } = await filled()
    const follower = followers[0]
    const { result: got, servedBy } = await countServed(() =>
      javaConsume(javaPeer(cluster!.bootstrapServers), 'ff', { count: sent.length, props: { 'client.rack': RACKS[follower] } }),
    )
    expect(got.map((r) => r.value!.toString())).toEqual(sent)
    expectServedByFollower(servedBy, follower, leader, sent.length)
  }, 120_000)
})

describe("wafka's consumer with rackId", () => {
  it('follows the preferred read replica: every record once, served by the follower in its rack', async () => {
    const { kafka, sent, leader, followers } = await filled()
    const follower = followers[0]
    const { result: got, servedBy } = await countServed(async () => {
      const consumer = kafka.consumer({ rackId: RACKS[follower], maxWaitTimeInMs: 100 })
      clients.push(consumer)
      const seen: string[] = []
      consumer.assign([{ topic: 'ff', partitions: [0] }])
      consumer.seek({ topic: 'ff', partition: 0, offset: 0 })
      await consumer.connect()
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
      await until(
        () => seen.length >= sent.length,
        20_000,
        () => `${seen.length} of ${sent.length}`,
      )
      return seen
    })
    expect(got).toEqual(sent)
    expectServedByFollower(servedBy, follower, leader, sent.length)
  })

  it('goes back to the leader when the follower it was sent to stops, and loses nothing', async () => {
    const { kafka, sent, leader, followers } = await filled()
    const follower = followers[0]
    const consumer = kafka.consumer({ rackId: RACKS[follower], maxWaitTimeInMs: 100, retryBackoffMs: 50 })
    clients.push(consumer)
    const seen: string[] = []
    consumer.assign([{ topic: 'ff', partitions: [0] }])
    consumer.seek({ topic: 'ff', partition: 0, offset: 0 })
    await consumer.connect()
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
    await until(
      () => seen.length >= sent.length,
      20_000,
      () => `${seen.length} of ${sent.length}`,
    )
    await cluster!.stopBroker(follower)
    const more = await kafka.producer({ acks: 1 })
    clients.push(more)
    await more.connect()
    await more.send({ topic: 'ff', messages: [{ value: 'after' }] })
    await until(
      () => seen.includes('after'),
      20_000,
      () => `still ${seen.length}; the leader is ${leader}`,
    )
    expect(seen).toEqual([...sent, 'after'])
  })
})
