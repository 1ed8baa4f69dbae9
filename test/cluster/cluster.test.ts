import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Cluster, metadataRequest } from '../../src/cluster/cluster.js'
import { ConnectionError, KafkaError, TimeoutError } from '../../src/errors.js'
import { Connection } from '../../src/net/connection.js'
import { Admin } from '../../src/admin/admin.js'
import { ApiVersions, Fetch, ListOffsets, Metadata, OffsetFetch, Produce } from '../../src/protocol/messages/index.js'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { kcatConsume } from '../peers/kcat.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'

const LIST_OFFSETS = 2

// Both librdkafka mock builds: Debian's 2.0.2 (old protocol versions, what an old
// broker looks like) and 2.15 (flexible versions).
describe.each(['legacy', 'modern'] as const)('cluster against the %s librdkafka mock', (build) => {
  let mock: MockCluster
  const clusters: Cluster[] = []
  const cluster = (extra: Partial<ConstructorParameters<typeof Cluster>[0]> = {}) => {
    const c = new Cluster({ clientId: 'wafka-test', brokers: mock.bootstrap.split(','), requestTimeoutMs: 5000, ...extra })
    clusters.push(c)
    return c
  }

  beforeAll(async () => {
    requirePeers()
    mock = await startMockCluster({ brokers: 3, build })
  })
  afterAll(async () => {
    await Promise.all(clusters.map((c) => c.disconnect()))
    await mock?.stop()
  })

  it('negotiates API versions: old ones on the old build, flexible ones on the new', async () => {
    const conn = await Connection.open({ host: mock.brokers[0].host, port: mock.brokers[0].port, clientId: 'wafka-test' })
    try {
      // Neither build knows ApiVersions v4: each answered UNSUPPORTED_VERSION (2.15 with a
      // non-standard body, which sends us to v0) and negotiation went on lower.
      expect(conn.apiVersionsVersion).toBeLessThan(ApiVersions.maxVersion)
      expect(conn.apiVersions.get(ApiVersions.apiKey)![1]).toBeLessThan(ApiVersions.maxVersion)
      if (build === 'legacy') {
        expect(conn.versionFor(Metadata)).toBeLessThanOrEqual(2)
        expect(conn.versionFor(Produce)).toBeLessThanOrEqual(7)
        expect(conn.versionFor(Fetch)).toBeLessThanOrEqual(11)
        expect(conn.versionFor(Metadata)).toBeLessThan(Metadata.flexibleFrom)
      } else {
        expect(conn.versionFor(Metadata)).toBeGreaterThanOrEqual(Metadata.flexibleFrom)
        expect(conn.versionFor(Produce)).toBeGreaterThanOrEqual(Produce.flexibleFrom)
        expect(conn.versionFor(Fetch)).toBeGreaterThanOrEqual(Fetch.flexibleFrom)
      }
    } finally {
      conn.close()
    }
  })

  it('bootstraps past a dead first address', async () => {
    const c = cluster({ brokers: ['127.0.0.1:1', ...mock.bootstrap.split(',')], connectTimeoutMs: 2000 })
    await c.connect()
    expect([...c.metadata.brokers.keys()].sort()).toEqual(mock.brokers.map((b) => b.id).sort())
  })

  it('fetches metadata for many topics', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `many-${build}-${i}`)
    for (const [i, name] of names.entries()) await mock.createTopic(name, { partitions: 1 + (i % 5), replicationFactor: 3 })
    const c = cluster()
    await c.connect()
    const infos = await c.topicMetadata(names)
    expect(infos.map((t) => t.partitions.length)).toEqual(names.map((_, i) => 1 + (i % 5)))
    for (const t of infos) for (const p of t.partitions) expect(mock.brokers.map((b) => b.id)).toContain(p.leader)
  })

  it('retries a request answered NOT_LEADER_OR_FOLLOWER at the new leader', async () => {
    const topic = `moved-${build}`
    await mock.createTopic(topic, { partitions: 1, replicationFactor: 3 })
    await mock.setLeader(topic, 0, 1)
    const c = cluster()
    await c.connect()
    expect(await c.leaderFor(topic, 0)).toBe(1)
    await mock.setLeader(topic, 0, 2) // our cache still says broker 1
    const asked: number[] = []
    const send = Connection.prototype.request
    const spy = vi.spyOn(Connection.prototype, 'request').mockImplementation(function (this: Connection, api, body, opts) {
      if (api === ListOffsets) asked.push(this.nodeId!)
      return send.call(this, api, body, opts)
    })
    try {
      const offsets = await new Admin(c).fetchTopicOffsets(topic)
      expect(offsets).toEqual([{ partition: 0, offset: '0', high: '0', low: '0' }])
    } finally {
      spy.mockRestore()
    }
    expect(asked[0]).toBe(1)
    expect(asked.at(-1)).toBe(2)
  })

  it('retries injected retriable errors and surfaces non-retriable ones', async () => {
    const topic = `errors-${build}`
    await mock.createTopic(topic, { partitions: 1, replicationFactor: 1 })
    const c = cluster()
    await c.connect()
    const admin = new Admin(c)
    await mock.pushRequestErrors(LIST_OFFSETS, [6, 6]) // NOT_LEADER_OR_FOLLOWER twice, then served
    expect((await admin.fetchTopicOffsetsByTimestamp(topic))[0].offset).toBe('0')
    await mock.pushRequestErrors(LIST_OFFSETS, [29]) // TOPIC_AUTHORIZATION_FAILED
    const err = await admin.fetchTopicOffsetsByTimestamp(topic).catch((e) => e)
    expect(err).toBeInstanceOf(KafkaError)
    expect(err).toMatchObject({ code: 29, type: 'TOPIC_AUTHORIZATION_FAILED', retriable: false })
    expect(err.message).toMatch(/ListOffsets/)
  })

  it('matches pipelined responses to their requests', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `pipe-${build}-${i}`)
    for (const name of names) await mock.createTopic(name, { partitions: 1 + (names.indexOf(name) % 4), replicationFactor: 1 })
    const conn = await Connection.open({ host: mock.brokers[0].host, port: mock.brokers[0].port, maxInFlight: 5 })
    try {
      const version = conn.versionFor(Metadata)
      const answers = await Promise.all(
        names.map((name) =>
          conn.request(Metadata, metadataRequest([{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name }], false, version), { version }),
        ),
      )
      answers.forEach((res, i) => {
        expect(res.topics.map((t) => t.name)).toEqual([names[i]])
        expect(res.topics[0].partitions.length).toBe(1 + (i % 4))
      })
    } finally {
      conn.close()
    }
  })

  it('sends acks=0 produce requests without waiting for, or leaking, a response slot', async () => {
    const topic = `acks0-${build}`
    await mock.createTopic(topic, { partitions: 1, replicationFactor: 1 })
    const leader = await (async () => {
      const c = cluster()
      await c.connect()
      return c.metadata.brokers.get(await c.leaderFor(topic, 0))!
    })()
    const conn = await Connection.open({ host: leader.host, port: leader.port, maxInFlight: 2 })
    try {
      for (let i = 0; i < 5; i++) {
        const batch = encodeRecordBatch([{ key: `k${i}`, value: `fire-and-forget ${i}` }])
        const res = await conn.request(
          Produce,
          { acks: 0, timeoutMs: 1000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }] },
          { expectResponse: false },
        )
        expect(res).toBeUndefined()
        expect(conn.inFlightCount).toBe(0)
      }
      // The stream is still in step: the next answered request matches its caller.
      const meta = await conn.request(
        Metadata,
        metadataRequest([{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: topic }], false, conn.versionFor(Metadata)),
      )
      expect(meta.topics[0].name).toBe(topic)
      const read = await kcatConsume(mock.bootstrap, topic, { count: 5 })
      expect(read.map((m) => m.value!.toString())).toEqual([0, 1, 2, 3, 4].map((i) => `fire-and-forget ${i}`))
    } finally {
      conn.close()
    }
  })

  it('looks the coordinator up again after NOT_COORDINATOR', async () => {
    const c = cluster()
    await c.connect()
    const admin = new Admin(c)
    await admin.setOffsets({ groupId: `moving-${build}`, topic: `moved-${build}`, partitions: [{ partition: 0, offset: 0 }] })
    const first = await c.coordinator('group', `moving-${build}`)
    const next = mock.brokers.map((b) => b.id).find((id) => id !== first)!
    await mock.setCoordinator('group', `moving-${build}`, next)
    await mock.pushRequestErrors(OffsetFetch.apiKey, [16]) // NOT_COORDINATOR, from the old coordinator
    const offsets = await admin.fetchOffsets({ groupId: `moving-${build}`, topics: [`moved-${build}`] })
    expect(offsets[0].partitions[0].partition).toBe(0)
    expect(await c.coordinator('group', `moving-${build}`)).toBe(next)
  })

  it('gives TimeoutError when the broker answers later than the request timeout', async () => {
    const conn = await Connection.open({ host: mock.brokers[2].host, port: mock.brokers[2].port, requestTimeoutMs: 300 })
    await mock.setRtt(mock.brokers[2].id, 1500)
    try {
      const started = Date.now()
      const err = await conn.request(Metadata, metadataRequest([], false, conn.versionFor(Metadata))).catch((e) => e)
      expect(err).toBeInstanceOf(TimeoutError)
      expect(err.retriable).toBe(true)
      expect(Date.now() - started).toBeLessThan(1200)
      expect(conn.isOpen).toBe(false)
    } finally {
      await mock.setRtt(mock.brokers[2].id, 0)
      conn.close()
    }
  })

  it('settles within the timeout when the leader goes down mid-request', async () => {
    const topic = `down-${build}`
    await mock.createTopic(topic, { partitions: 1, replicationFactor: 3 })
    await mock.setLeader(topic, 0, 3)
    const c = cluster({ defaultApiTimeoutMs: 3000, connectTimeoutMs: 1000 })
    await c.connect()
    await c.connection(3)
    await mock.setRtt(3, 800)
    const started = Date.now()
    const pending = new Admin(c).fetchTopicOffsets(topic).then(
      () => 'resolved',
      (e) => e,
    )
    await new Promise((r) => setTimeout(r, 200))
    await mock.brokerDown(3)
    const outcome = await pending
    const took = Date.now() - started
    await mock.brokerUp(3)
    await mock.setRtt(3, 0)
    // Either it found a leader again, or a clear retriable error at the deadline; never a hang.
    if (outcome !== 'resolved') {
      expect(outcome).toBeInstanceOf(Error)
      expect(outcome instanceof ConnectionError || outcome instanceof TimeoutError || outcome instanceof KafkaError).toBe(true)
    }
    expect(took).toBeLessThan(3000 + 5000 + 2000)
  })
})
