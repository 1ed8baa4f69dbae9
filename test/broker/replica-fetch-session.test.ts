// The replica fetchers' incremental fetch sessions (KIP-227, as Kafka's
// followers hold them): once a follower's session is open, a Fetch names only
// the partitions whose position moved and its answer only those with news, so
// an append to one partition of many costs one partition each way, not all of
// them (issue 22's load item: full fetches of every followed partition at
// every append took most of the broker's CPU under franz-go's ETL tests).
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Kafka } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { PeerLink } from '../../src/broker/peer-link.js'
import { Fetch, type FetchRequest, type FetchResponse } from '../../src/protocol/messages/Fetch.js'
import { until } from './support.js'

let cluster: RunningCluster | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await cluster?.stop()
  cluster = undefined
})

const count = (topics: { partitions: unknown[] }[]) => topics.reduce((n, t) => n + t.partitions.length, 0)

describe('replica fetch sessions', () => {
  it('after the first fetch, a follower names and gets back only the partitions that moved (30 partitions, one written)', async () => {
    cluster = await startCluster({ brokers: 2 })
    const kafka = new Kafka({ clientId: 'replica-session-test', brokers: cluster.bootstrapServers.split(',') })
    const admin = kafka.admin()
    const producer = kafka.producer({ acks: -1 })
    try {
      await admin.connect()
      await producer.connect()
      // Every partition led by broker 0, followed by broker 1: one fetch loop follows all 30.
      const assignments = Array.from({ length: 30 }, (_, partition) => ({ partition, replicas: [0, 1] }))
      await admin.createTopics({ topics: [{ topic: 'many', replicaAssignment: assignments }] })
      await producer.send({ topic: 'many', messages: [{ value: 'warm', partition: 0 }] })
      const seen: { asked: number; answered: number }[] = []
      const request = PeerLink.prototype.request
      vi.spyOn(PeerLink.prototype, 'request').mockImplementation(async function (this: PeerLink, api, version, body, timeoutMs) {
        const res = await request.call(this, api, version, body, timeoutMs)
        if (api === Fetch) seen.push({ asked: count((body as FetchRequest).topics), answered: count((res as FetchResponse).responses) })
        return res
      })
      for (let i = 0; i < 20; i++) await producer.send({ topic: 'many', messages: [{ value: `v${i}`, partition: 0 }] })
      await until(
        () => seen.length >= 20,
        10_000,
        () => `${seen.length} fetches seen`,
      )
      // A full fetch would name (and be answered for) all 30 every time.
      expect(Math.max(...seen.map((s) => s.asked))).toBeLessThanOrEqual(1)
      expect(Math.max(...seen.map((s) => s.answered))).toBeLessThanOrEqual(1)
      // And the records are there: the follower has all 21 (acks=all answered once it did).
      const offsets = await admin.fetchTopicOffsets('many')
      expect(offsets.find((o) => o.partition === 0)?.high).toBe('21')
    } finally {
      await producer.disconnect()
      await admin.disconnect()
    }
  })
})
