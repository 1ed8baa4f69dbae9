// Replication between the embedded broker's virtual brokers, as a user sees
// it through wafka's producer, consumer and admin (and raw requests where a
// field's exact value is the point): ISR, high watermark, acks=all, leader
// election, truncation of a diverged replica.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka, type Admin, type Consumer, type Producer } from '../../src/index.js'
import { startCluster, type RunningCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { Controller } from '../../src/broker/controller.js'
import { encodeRecordBatch } from '../../src/codec/batch-encoder.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { DescribeTopicPartitions, Fetch, ListOffsets, Metadata, Produce } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { received, until, type Received } from './support.js'

let cluster: RunningCluster | undefined
const clients: Array<{ disconnect(): Promise<void> } | { close(): void }> = []
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => ('disconnect' in c ? c.disconnect() : c.close())))
  await cluster?.stop()
  cluster = undefined
})

async function start(options: StartClusterOptions) {
  cluster = await startCluster({ brokers: 3, ...options })
  const kafka = new Kafka({ clientId: 'replication-test', brokers: cluster.bootstrapServers.split(',') })
  const admin = kafka.admin()
  clients.push(admin)
  await admin.connect()
  return { kafka, admin }
}

async function connected<T extends Producer | Consumer>(c: T): Promise<T> {
  clients.push(c)
  await c.connect()
  return c
}

async function partitionOf(admin: Admin, topic: string, partition = 0) {
  const md = await admin.fetchTopicMetadata({ topics: [topic] })
  return md.topics[0].partitions.find((p) => p.partitionId === partition)!
}

async function raw(brokerId: number): Promise<RawClient> {
  const b = cluster!.brokers[brokerId]
  const c = await RawClient.open(`${b.host}:${b.port}`)
  clients.push(c)
  return c
}

function produceRequest(topic: string, partition: number, acks: number, values: string[], timeoutMs = 5000) {
  return {
    acks,
    timeoutMs,
    topicData: [{ name: topic, partitionData: [{ index: partition, records: encodeRecordBatch(values.map((value) => ({ value }))) }] }],
  }
}

function consumerFetch(topic: string, partition: number, fetchOffset = 0n, currentLeaderEpoch = -1, lastFetchedEpoch = -1) {
  return {
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    topics: [{ topic, partitions: [{ partition, fetchOffset, currentLeaderEpoch, lastFetchedEpoch, partitionMaxBytes: 1 << 20 }] }],
  }
}

/** Reads `topic` from the beginning with a group consumer until `count` messages are in. */
async function readAll(kafka: Kafka, topic: string, groupId: string, count: number): Promise<Received[]> {
  const got: Received[] = []
  const consumer = await connected(kafka.consumer({ groupId, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500 }))
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  await consumer.run({ eachMessage: async ({ partition, message }) => void got.push(received(partition, message)) })
  await until(
    () => got.length >= count,
    30_000,
    () => `${got.length} of ${count} read`,
  )
  await new Promise((r) => setTimeout(r, 300)) // anything extra would show up now
  await consumer.disconnect()
  return got
}

describe('replication', () => {
  it('3 brokers, RF 3: stopping the leader during an acks=all idempotent load loses nothing acknowledged; the ISR shrinks and grows back', async () => {
    const { kafka, admin } = await start({ topics: [{ name: 'load', partitions: 3 }], replicaLagTimeMaxMs: 2000 })
    const before = await partitionOf(admin, 'load')
    expect([...before.isr].sort()).toEqual([0, 1, 2])
    const victim = before.leader
    const producer = await connected(kafka.producer({ idempotent: true, acks: 'all' }))
    const acknowledged = new Set<string>()
    let failed = 0
    let next = 0
    const SENDS = 300
    const PER_SEND = 20
    let stopped: Promise<void> | null = null
    const worker = async () => {
      while (next < SENDS) {
        const i = next++
        if (i === SENDS / 3) stopped = cluster!.stopBroker(victim)
        const values = Array.from({ length: PER_SEND }, (_, j) => `m-${i}-${j}`)
        try {
          await producer.send({ topic: 'load', messages: values.map((value) => ({ value })) })
          for (const v of values) acknowledged.add(v)
        } catch {
          failed++
        }
      }
    }
    await Promise.all(Array.from({ length: 6 }, worker))
    await stopped
    expect(failed).toBe(0)
    expect(acknowledged.size).toBe(SENDS * PER_SEND)

    // The stopped broker left the ISR and is offline; its partition has a new leader, at a new epoch.
    const during = await partitionOf(admin, 'load')
    expect(during.leader).not.toBe(victim)
    expect(during.leader).toBeGreaterThanOrEqual(0)
    expect(during.leaderEpoch).toBeGreaterThan(before.leaderEpoch)
    expect(during.isr).not.toContain(victim)
    expect(during.offlineReplicas).toEqual([victim])
    expect(
      cluster!.metadataLog.some(
        (r) => r.type === 'partition-change' && r.partition === 0 && r.leader === during.leader && !r.isr.includes(victim),
      ),
    ).toBe(true)

    const got = await readAll(kafka, 'load', 'load-check', acknowledged.size)
    const values = got.map((m) => m.value!.toString())
    expect(values.length).toBe(new Set(values).size) // exactly once
    expect(values.filter((v) => !acknowledged.has(v))).toEqual([])
    expect([...acknowledged].filter((v) => !values.includes(v))).toEqual([])
    // Each send's messages went to one partition, in order.
    for (const p of [0, 1, 2]) {
      const mine = got.filter((m) => m.partition === p)
      expect(mine.map((m) => m.offset)).toEqual(mine.map((_, i) => BigInt(i)))
    }

    // Started again, it catches up and rejoins every ISR.
    await cluster!.startBroker(victim)
    await until(
      async () => (await admin.fetchTopicMetadata({ topics: ['load'] })).topics[0].partitions.every((p) => p.isr.length === 3),
      20_000,
      () => `broker ${victim} back in every ISR`,
    )
  })

  it('a paused follower leaves the ISR while the leader takes writes, and rejoins when resumed', async () => {
    const { kafka, admin } = await start({ topics: [{ name: 'lag', partitions: 1 }], replicaLagTimeMaxMs: 300 })
    const { leader, isr } = await partitionOf(admin, 'lag')
    expect(isr.length).toBe(3)
    const follower = isr.find((r) => r !== leader)!
    const producer = await connected(kafka.producer())
    cluster!.pauseFollower(follower)
    let n = 0
    await until(
      async () => {
        await producer.send({ topic: 'lag', messages: [{ value: `v${n++}` }] })
        return !(await partitionOf(admin, 'lag')).isr.includes(follower)
      },
      10_000,
      () => `broker ${follower} out of the ISR`,
    )
    expect((await partitionOf(admin, 'lag')).isr.sort()).toEqual(isr.filter((r) => r !== follower).sort())
    // With the ISR smaller, acks=all goes on being answered.
    await producer.send({ topic: 'lag', messages: [{ value: 'while-out' }] })
    cluster!.pauseFollower(follower, false)
    await until(
      async () => (await partitionOf(admin, 'lag')).isr.includes(follower),
      10_000,
      () => `broker ${follower} back in the ISR`,
    )
    // The leader epoch stayed: ISR changes are not elections.
    expect((await partitionOf(admin, 'lag')).leaderEpoch).toBe(0)
  })

  it('acks=all with min.insync.replicas=2 and both followers paused: NOT_ENOUGH_REPLICAS; acks=1 still written', async () => {
    const { kafka, admin } = await start({
      topics: [{ name: 'minisr', partitions: 1, configs: { 'min.insync.replicas': '2' } }],
      replicaLagTimeMaxMs: 300,
    })
    const { leader } = await partitionOf(admin, 'minisr')
    const producer = await connected(kafka.producer({ idempotent: false, acks: 1 }))
    for (const b of [0, 1, 2]) if (b !== leader) cluster!.pauseFollower(b)
    await until(
      async () => {
        await producer.send({ topic: 'minisr', messages: [{ value: 'one' }] })
        return (await partitionOf(admin, 'minisr')).isr.length === 1
      },
      10_000,
      () => 'the ISR down to the leader',
    )
    const c = await raw(leader)
    const r = await c.request(Produce, 9, produceRequest('minisr', 0, -1, ['refused']))
    expect(r.responses[0].partitionResponses[0].errorCode).toBe(ErrorCodes.NOT_ENOUGH_REPLICAS)
    const strict = await connected(kafka.producer({ idempotent: true, acks: 'all', deliveryTimeoutMs: 1500, requestTimeoutMs: 1000 }))
    // As Java's producer: NOT_ENOUGH_REPLICAS is retriable, so the send fails at its delivery timeout.
    await expect(strict.send({ topic: 'minisr', messages: [{ value: 'refused too' }] })).rejects.toThrow(/deliveryTimeoutMs/)
    const ok = await c.request(Produce, 9, produceRequest('minisr', 0, 1, ['acks=1']))
    expect(ok.responses[0].partitionResponses[0].errorCode).toBe(ErrorCodes.NONE)
  })

  it('acks=all waits for the ISR: REQUEST_TIMED_OUT at the produce timeout while an in-sync follower does not fetch; answered once it does', async () => {
    const { admin } = await start({ topics: [{ name: 'wait', partitions: 1 }], replicaLagTimeMaxMs: 60_000 })
    const { leader } = await partitionOf(admin, 'wait')
    for (const b of [0, 1, 2]) if (b !== leader) cluster!.pauseFollower(b)
    const c = await raw(leader)
    const t0 = Date.now()
    const timedOut = await c.request(Produce, 9, produceRequest('wait', 0, -1, ['slow'], 300))
    expect(timedOut.responses[0].partitionResponses[0].errorCode).toBe(ErrorCodes.REQUEST_TIMED_OUT)
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290)
    const pending = c.request(Produce, 9, produceRequest('wait', 0, -1, ['later'], 10_000))
    await new Promise((r) => setTimeout(r, 200))
    for (const b of [0, 1, 2]) if (b !== leader) cluster!.pauseFollower(b, false)
    const answered = await pending
    expect(answered.responses[0].partitionResponses[0]).toMatchObject({ errorCode: ErrorCodes.NONE, baseOffset: 1n })
  })

  it('a consumer never reads past the high watermark: records only the leader has stay invisible until the ISR has them', async () => {
    // __consumer_offsets unreplicated: the paused followers stall only 'hw'. (Replicated, they
    // would hold the group's join too, as on Kafka: its SyncGroup waits for the ISR.)
    const { kafka, admin } = await start({
      topics: [{ name: 'hw', partitions: 1 }],
      replicaLagTimeMaxMs: 60_000,
      offsetsTopicReplicationFactor: 1,
    })
    const { leader } = await partitionOf(admin, 'hw')
    const followers = [0, 1, 2].filter((b) => b !== leader)
    for (const b of followers) cluster!.pauseFollower(b)
    const c = await raw(leader)
    const w = await c.request(Produce, 9, produceRequest('hw', 0, 1, ['a', 'b', 'c']))
    expect(w.responses[0].partitionResponses[0].errorCode).toBe(ErrorCodes.NONE)
    const f = await c.request(Fetch, 12, consumerFetch('hw', 0))
    expect(f.responses[0].partitions[0]).toMatchObject({ errorCode: 0, highWatermark: 0n })
    expect(f.responses[0].partitions[0].records?.length ?? 0).toBe(0)
    const latest = await c.request(ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: 'hw', partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: -1 }] }],
    })
    expect(latest.topics[0].partitions[0].offset).toBe(0n)
    const got: Received[] = []
    const consumer = await connected(kafka.consumer({ groupId: 'hw', sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500 }))
    await consumer.subscribe({ topics: ['hw'], fromBeginning: true })
    await consumer.run({ eachMessage: async ({ partition, message }) => void got.push(received(partition, message)) })
    await new Promise((r) => setTimeout(r, 1500))
    expect(got).toEqual([])
    for (const b of followers) cluster!.pauseFollower(b, false)
    await until(
      () => got.length >= 3,
      10_000,
      () => `${got.length} of 3 after the followers caught up`,
    )
    expect(got.map((m) => m.value!.toString())).toEqual(['a', 'b', 'c'])
  })

  it('a deposed leader answers NOT_LEADER_OR_FOLLOWER; an old leader epoch gets FENCED_LEADER_EPOCH from the new leader', async () => {
    const { admin } = await start({ topics: [{ name: 'fence', partitions: 1 }] })
    const before = await partitionOf(admin, 'fence')
    const next = before.isr.find((r) => r !== before.leader)!
    cluster!.moveLeader('fence', 0, next)
    const after = await partitionOf(admin, 'fence')
    expect(after).toMatchObject({ leader: next, leaderEpoch: before.leaderEpoch + 1 })
    expect([...after.isr].sort()).toEqual([0, 1, 2])
    const old = await raw(before.leader)
    const p = await old.request(Produce, 9, produceRequest('fence', 0, -1, ['x']))
    expect(p.responses[0].partitionResponses[0].errorCode).toBe(ErrorCodes.NOT_LEADER_OR_FOLLOWER)
    const fresh = await raw(next)
    const f = await fresh.request(Fetch, 12, consumerFetch('fence', 0, 0n, before.leaderEpoch))
    expect(f.responses[0].partitions[0].errorCode).toBe(ErrorCodes.FENCED_LEADER_EPOCH)
    const ok = await fresh.request(Fetch, 12, consumerFetch('fence', 0, 0n, after.leaderEpoch))
    expect(ok.responses[0].partitions[0].errorCode).toBe(ErrorCodes.NONE)
  })

  it('Fetch v12+ tells a fetcher whose last fetched epoch ends before its fetch offset where it diverged (divergingEpoch)', async () => {
    const { admin } = await start({ topics: [{ name: 'div', partitions: 1 }] })
    const first = await partitionOf(admin, 'div')
    const c0 = await raw(first.leader)
    await c0.request(Produce, 9, produceRequest('div', 0, -1, ['a']))
    const next = first.isr.find((r) => r !== first.leader)!
    cluster!.moveLeader('div', 0, next)
    const c1 = await raw(next)
    await c1.request(Produce, 9, produceRequest('div', 0, -1, ['b', 'c']))
    // As if it had read offsets 0-1 under epoch 0 (a log the new leader does not have).
    const f = await c1.request(Fetch, 12, consumerFetch('div', 0, 2n, 1, 0))
    expect(f.responses[0].partitions[0]).toMatchObject({ errorCode: 0, divergingEpoch: { epoch: 0, endOffset: 1n } })
    expect(f.responses[0].partitions[0].records?.length ?? 0).toBe(0)
    // Fetching under the epoch it really read, it gets records.
    const ok = await c1.request(Fetch, 12, consumerFetch('div', 0, 1n, 1, 0))
    expect(ok.responses[0].partitions[0].divergingEpoch.epoch).toBe(-1)
    expect(ok.responses[0].partitions[0].records!.length).toBeGreaterThan(0)
  })

  it('a stopped leader with records no follower has truncates them when it restarts (OffsetForLeaderEpoch), catches up and rejoins the ISR', async () => {
    const { kafka, admin } = await start({ topics: [{ name: 'diverge', partitions: 1 }], replicaLagTimeMaxMs: 60_000 })
    const { leader } = await partitionOf(admin, 'diverge')
    const followers = [0, 1, 2].filter((b) => b !== leader)
    const c = await raw(leader)
    expect((await c.request(Produce, 9, produceRequest('diverge', 0, -1, ['a']))).responses[0].partitionResponses[0].errorCode).toBe(0)
    for (const b of followers) cluster!.pauseFollower(b)
    // Written by the leader alone (acks=1): never committed.
    expect((await c.request(Produce, 9, produceRequest('diverge', 0, 1, ['x1', 'x2']))).responses[0].partitionResponses[0].errorCode).toBe(
      0,
    )
    await cluster!.stopBroker(leader)
    for (const b of followers) cluster!.pauseFollower(b, false)
    const elected = await partitionOf(admin, 'diverge')
    expect(followers).toContain(elected.leader)
    expect(elected.leaderEpoch).toBe(1)
    const producer = await connected(kafka.producer())
    await producer.send({ topic: 'diverge', messages: [{ value: 'b' }, { value: 'c' }] })
    await cluster!.startBroker(leader)
    await until(
      async () => (await partitionOf(admin, 'diverge')).isr.includes(leader),
      10_000,
      () => `broker ${leader} back in the ISR`,
    )
    // Led by the restarted broker again, its log is the committed one: x1 and x2 are gone.
    cluster!.moveLeader('diverge', 0, leader)
    const got = await readAll(kafka, 'diverge', 'diverge-check', 3)
    expect(got.map((m) => [m.offset, m.value!.toString()])).toEqual([
      [0n, 'a'],
      [1n, 'b'],
      [2n, 'c'],
    ])
  })

  it('a fenced broker cannot rejoin an ISR (a fetch it sent before stopping may still reach its leader)', () => {
    const c = new Controller()
    for (const id of [0, 1, 2]) c.registerBroker(id, '127.0.0.1', 9000 + id)
    const t = c.createTopic('f', { partitions: 1, replicationFactor: 3 })!
    const { leader, leaderEpoch } = t.partitions[0]
    const other = [0, 1, 2].find((b) => b !== leader)!
    c.setFenced(other, true)
    expect(c.topics.get('f')!.partitions[0].isr).not.toContain(other)
    expect(c.alterIsr(t.id, 0, leader, leaderEpoch, [...c.topics.get('f')!.partitions[0].isr, other])).toBe(false)
    expect(c.topics.get('f')!.partitions[0].isr).not.toContain(other)
    c.setFenced(other, false)
    expect(c.alterIsr(t.id, 0, leader, leaderEpoch, [...c.topics.get('f')!.partitions[0].isr, other])).toBe(true)
    expect(c.topics.get('f')!.partitions[0].isr).toContain(other)
    // A deposed leader's change is refused too.
    expect(c.alterIsr(t.id, 0, other, leaderEpoch, [other])).toBe(false)
  })

  it('ElectLeaders: the preferred replica leads again after a move; no unclean election unless asked, then a live replica leads', async () => {
    const { kafka, admin } = await start({ topics: [{ name: 'elect', partitions: 1 }], replicaLagTimeMaxMs: 300 })
    const first = await partitionOf(admin, 'elect')
    const preferred = first.replicas[0]
    expect(first.leader).toBe(preferred)
    const other = first.replicas[1]
    cluster!.moveLeader('elect', 0, other)
    const results = await admin.electLeaders({ electionType: 'PREFERRED', topicPartitions: [{ topic: 'elect', partitions: [0] }] })
    expect(results).toEqual([{ topic: 'elect', partition: 0, error: null }])
    expect(await partitionOf(admin, 'elect')).toMatchObject({ leader: preferred, leaderEpoch: first.leaderEpoch + 2 })
    const again = await admin.electLeaders({ electionType: 'PREFERRED', topicPartitions: [{ topic: 'elect', partitions: [0] }] })
    expect(again[0].error?.message).toMatch(/ELECTION_NOT_NEEDED/)
    // Both followers fall out of the ISR, then the leader stops: nobody in sync is left to lead.
    const producer = await connected(kafka.producer({ idempotent: false, acks: 1 }))
    for (const b of first.replicas.slice(1)) cluster!.pauseFollower(b)
    await until(
      async () => {
        await producer.send({ topic: 'elect', messages: [{ value: 'x' }] })
        return (await partitionOf(admin, 'elect')).isr.length === 1
      },
      10_000,
      () => 'the ISR down to the leader',
    )
    await cluster!.stopBroker(preferred)
    expect(await partitionOf(admin, 'elect')).toMatchObject({ leader: -1, isr: [preferred] })
    const unclean = await admin.electLeaders({ electionType: 'UNCLEAN', topicPartitions: [{ topic: 'elect', partitions: [0] }] })
    expect(unclean).toEqual([{ topic: 'elect', partition: 0, error: null }])
    const after = await partitionOf(admin, 'elect')
    expect(first.replicas.slice(1)).toContain(after.leader)
    expect(after.isr).toEqual([after.leader])
  })

  it('DescribeTopicPartitions shows leaders, ISR and offline replicas after a stop, a page at a time', async () => {
    const { admin } = await start({ topics: [{ name: 'dtp', partitions: 3 }] })
    const before = await partitionOf(admin, 'dtp')
    await cluster!.stopBroker(before.leader)
    const c = await raw([0, 1, 2].find((b) => b !== before.leader)!)
    const first = await c.request(DescribeTopicPartitions, 0, {
      topics: [{ name: 'dtp' }, { name: 'missing' }],
      responsePartitionLimit: 2,
      cursor: null,
    })
    expect(first.topics.map((t) => [t.name, t.errorCode])).toEqual([['dtp', 0]])
    expect(first.topics[0].partitions.map((p) => p.partitionIndex)).toEqual([0, 1])
    const p0 = first.topics[0].partitions[0]
    expect(p0.leaderId).not.toBe(before.leader)
    expect(p0.leaderEpoch).toBe(before.leaderEpoch + 1)
    expect(p0.isrNodes).not.toContain(before.leader)
    expect(p0.offlineReplicas).toEqual([before.leader])
    expect(first.nextCursor).toMatchObject({ topicName: 'dtp', partitionIndex: 2 })
    const rest = await c.request(DescribeTopicPartitions, 0, {
      topics: [{ name: 'dtp' }, { name: 'missing' }],
      responsePartitionLimit: 2,
      cursor: first.nextCursor,
    })
    expect(rest.topics.map((t) => [t.name, t.errorCode])).toEqual([
      ['dtp', 0],
      ['missing', ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION],
    ])
    expect(rest.topics[0].partitions.map((p) => p.partitionIndex)).toEqual([2])
    expect(rest.nextCursor).toBeNull()
    // The same as Metadata says.
    const md = (await admin.fetchTopicMetadata({ topics: ['dtp'] })).topics[0].partitions.find((p) => p.partitionId === 2)!
    expect(rest.topics[0].partitions[0]).toMatchObject({ leaderId: md.leader, isrNodes: md.isr, replicaNodes: md.replicas })
  })

  it('CreateTopics honours the replication factor up to the broker count; the default is min(3, brokers)', async () => {
    const { admin } = await start({ brokers: 2, topics: [] })
    await admin.createTopics({
      topics: [
        { topic: 'dflt', numPartitions: 2 },
        { topic: 'one', numPartitions: 1, replicationFactor: 1 },
      ],
    })
    const md = await admin.fetchTopicMetadata({ topics: ['dflt', 'one'] })
    const byName = new Map(md.topics.map((t) => [t.name, t]))
    for (const p of byName.get('dflt')!.partitions) expect(p.replicas.length).toBe(2)
    expect(byName.get('one')!.partitions[0].replicas.length).toBe(1)
    await expect(admin.createTopics({ topics: [{ topic: 'three', numPartitions: 1, replicationFactor: 3 }] })).rejects.toThrow(
      /INVALID_REPLICATION_FACTOR|replication factor/i,
    )
  })
})

describe('unclean.leader.election.enable', () => {
  /** Followers paused until the ISR is the leader alone, then records only the leader gets ('lost-*'); then the leader stops. */
  async function leaderAloneThenStopped(kafka: Kafka, admin: Admin, topic: string) {
    const producer = await connected(kafka.producer({ idempotent: false, acks: -1 }))
    await producer.send({ topic, messages: [{ value: 'early-1' }, { value: 'early-2' }] })
    const first = await partitionOf(admin, topic)
    expect(first.isr.length).toBe(3)
    for (const b of first.replicas.filter((r) => r !== first.leader)) cluster!.pauseFollower(b)
    const lone = await connected(kafka.producer({ idempotent: false, acks: 1 }))
    await until(
      async () => {
        await lone.send({ topic, messages: [{ value: 'late' }] })
        return (await partitionOf(admin, topic)).isr.length === 1
      },
      10_000,
      () => 'the ISR down to the leader',
    )
    // The followers have been cut off for the lag time: these reach the leader alone.
    await lone.send({ topic, messages: [{ value: 'lost-1' }, { value: 'lost-2' }] })
    await cluster!.stopBroker(first.leader)
    return first
  }

  it('false (the default): with every ISR member down the partition stays leaderless — LEADER_NOT_AVAILABLE in Metadata, NOT_LEADER_OR_FOLLOWER to a produce — until it is set true', async () => {
    const { kafka, admin } = await start({ topics: [{ name: 'clean', partitions: 1 }], replicaLagTimeMaxMs: 300 })
    const first = await leaderAloneThenStopped(kafka, admin, 'clean')
    await new Promise((r) => setTimeout(r, 500)) // no election comes later either
    expect(await partitionOf(admin, 'clean')).toMatchObject({ leader: -1, isr: [first.leader] })
    for (const b of first.replicas.filter((r) => r !== first.leader)) {
      const c = await raw(b)
      const md = await c.request(Metadata, 12, { topics: [{ name: 'clean' }] })
      expect(md.topics[0].partitions[0]).toMatchObject({ leaderId: -1, errorCode: ErrorCodes.LEADER_NOT_AVAILABLE })
      const r = await c.request(Produce, 9, produceRequest('clean', 0, 1, ['refused']))
      expect(r.responses[0].partitionResponses[0].errorCode).toBe(ErrorCodes.NOT_LEADER_OR_FOLLOWER)
    }
    // Allowing it elects a live out-of-sync replica at once, under a new epoch, alone in its ISR.
    await admin.alterConfigs({
      resources: [{ type: 2, name: 'clean', configEntries: [{ name: 'unclean.leader.election.enable', value: 'true' }] }],
    })
    const after = await partitionOf(admin, 'clean')
    expect(first.replicas.filter((r) => r !== first.leader)).toContain(after.leader)
    expect(after.isr).toEqual([after.leader])
    expect(after.leaderEpoch).toBeGreaterThan(first.leaderEpoch)
    const described = await admin.describeConfigs({
      resources: [{ type: 2, name: 'clean', configNames: ['unclean.leader.election.enable'] }],
    })
    expect(described.resources[0].configEntries[0]).toMatchObject({ configName: 'unclean.leader.election.enable', configValue: 'true' })
  })

  it('set for every broker (a dynamic broker config), it elects at once too, for the topics without their own value', async () => {
    const { kafka, admin } = await start({
      topics: [
        { name: 'follows-default', partitions: 1 },
        { name: 'own-false', partitions: 1, configs: { 'unclean.leader.election.enable': 'false' } },
      ],
      replicaLagTimeMaxMs: 300,
    })
    const first = await leaderAloneThenStopped(kafka, admin, 'follows-default')
    const own = await partitionOf(admin, 'own-false')
    expect(await partitionOf(admin, 'follows-default')).toMatchObject({ leader: -1, isr: [first.leader] })
    await admin.alterConfigs({
      resources: [{ type: 4, name: '', configEntries: [{ name: 'unclean.leader.election.enable', value: 'true' }] }],
    })
    const after = await partitionOf(admin, 'follows-default')
    expect(first.replicas.filter((r) => r !== first.leader)).toContain(after.leader)
    expect(after.isr).toEqual([after.leader])
    const described = await admin.describeConfigs({
      resources: [{ type: 2, name: 'follows-default', configNames: ['unclean.leader.election.enable'] }],
    })
    expect(described.resources[0].configEntries[0]).toMatchObject({ configValue: 'true', configSource: 3 })
    // A topic with its own false keeps it (its leader, if it was the stopped broker, stays out).
    if (own.isr.length === 1 && own.leader === first.leader) expect((await partitionOf(admin, 'own-false')).leader).toBe(-1)
  })

  it('true: a live out-of-sync replica leads at once (epoch bump); what only the old leader had is lost, and the old leader truncates to the new log when it returns', async () => {
    const { kafka, admin } = await start({
      topics: [{ name: 'dirty', partitions: 1, configs: { 'unclean.leader.election.enable': 'true' } }],
      replicaLagTimeMaxMs: 300,
    })
    const first = await leaderAloneThenStopped(kafka, admin, 'dirty')
    const after = await partitionOf(admin, 'dirty')
    expect(first.replicas.filter((r) => r !== first.leader)).toContain(after.leader)
    expect(after.isr).toEqual([after.leader])
    expect(after.leaderEpoch).toBeGreaterThan(first.leaderEpoch)
    const producer = await connected(kafka.producer({ idempotent: false, acks: 1 }))
    await producer.send({ topic: 'dirty', messages: [{ value: 'after' }] })
    for (const b of first.replicas) if (b !== first.leader) cluster!.pauseFollower(b, false)
    await cluster!.startBroker(first.leader)
    // The old leader comes back as a follower, drops what the new leader never had, and rejoins the ISR.
    await until(
      async () => (await partitionOf(admin, 'dirty')).isr.length === 3,
      15_000,
      () => 'the old leader back in the ISR',
    )
    // The new leader's log is what there is: what it had (a follower fetch in flight when it was paused
    // may have brought it some of 'late'), then 'after'; the records only the old leader had are gone.
    const end = Number((await admin.fetchTopicOffsets('dirty'))[0].high)
    const got = (await readAll(kafka, 'dirty', 'dirty-reader', end)).map((m) => m.value!.toString())
    expect(got.slice(0, 2)).toEqual(['early-1', 'early-2'])
    expect(got.at(-1)).toBe('after')
    expect(got.slice(2, -1).every((v) => v === 'late')).toBe(true)
    expect(got.filter((v) => v.startsWith('lost'))).toEqual([])
    // Read from the old leader itself, once it leads again: the same log, the lost records gone there too.
    cluster!.moveLeader('dirty', 0, first.leader)
    const c = await raw(first.leader)
    const f = await c.request(Fetch, 12, consumerFetch('dirty', 0))
    expect(f.responses[0].partitions[0].errorCode).toBe(0)
    expect(f.responses[0].partitions[0].highWatermark).toBe(BigInt(end))
  })

  it('the config takes only true or false', async () => {
    const { admin } = await start({ topics: [{ name: 'cfg', partitions: 1 }] })
    await expect(
      admin.alterConfigs({
        resources: [{ type: 2, name: 'cfg', configEntries: [{ name: 'unclean.leader.election.enable', value: 'yes' }] }],
      }),
    ).rejects.toThrow(/Expected value to be either true or false/)
  })
})
