// KIP-848 regex subscriptions (SubscribedTopicRegex) as Kafka 4's
// coordinator serves them: a regex new to the group is resolved off the
// heartbeat path, so the heartbeat that brings it assigns the literal topics
// only and the regex's partitions come with the next group epoch (librdkafka's
// 0045_resubscribe_with_regex expects exactly that: topic_a's 2 partitions
// first, then the regex's 8); a member moving between a regex and a topic
// list (the client sends "" to clear the regex, [] to clear the names) gets
// the new subscription's partitions and gives the old ones up; a topic
// created later is found by the next resolution, which Kafka batches (at most
// one every 10 s).
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Controller } from '../../src/broker/controller.js'
import { ConsumerGroup, type HeartbeatRequest } from '../../src/broker/groups/consumer-group.js'
import { ConsumerGroupHeartbeat, FindCoordinator, Metadata } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { until } from './support.js'

let cluster: RunningCluster | undefined
const open: RawClient[] = []
const groups: ConsumerGroup[] = []

afterEach(async () => {
  for (const g of groups.splice(0)) g.close()
  for (const c of open.splice(0)) c.close()
  await cluster?.stop()
  cluster = undefined
})

const GROUP = 'kip848-regex'
type Owned = Array<{ topicId: string; partitions: number[] }>

async function start(): Promise<{ c: RawClient; names: Map<string, string> }> {
  cluster = await startCluster({
    brokers: 1,
    // Each target at the heartbeat after its cause (the KIP-1263 interval is tested in test/kafka/kip848-offsets-regex.test.ts).
    consumerGroupAssignmentIntervalMs: 0,
    topics: [
      { name: 'topic_regex1', partitions: 4 },
      { name: 'topic_regex2', partitions: 4 },
      { name: 'topic_a', partitions: 2 },
    ],
  })
  const c = await RawClient.open(cluster.bootstrapServers.split(',')[0])
  open.push(c)
  expect((await c.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [GROUP] })).coordinators[0].errorCode).toBe(0)
  const md = await c.request(Metadata, 12, { topics: null })
  return { c, names: new Map(md.topics.map((t) => [t.topicId, t.name!])) }
}

interface Subscription {
  topics?: string[] | null
  regex?: string | null
}

const heartbeat = (c: RawClient, memberId: string, memberEpoch: number, owned: Owned | null, sub: Subscription = {}) =>
  c.request(ConsumerGroupHeartbeat, 1, {
    groupId: GROUP,
    memberId,
    memberEpoch,
    instanceId: null,
    rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
    subscribedTopicNames: sub.topics ?? null,
    subscribedTopicRegex: sub.regex ?? null,
    serverAssignor: null,
    topicPartitions: owned,
  })

/**
 * A member of GROUP that heartbeats as a client does: it reports what it
 * owns (what the last assignment gave it), so it moves through revocation.
 */
function member(c: RawClient, names: Map<string, string>, memberId: string) {
  let epoch = 0
  let owned: Owned = []
  return {
    async beat(sub: Subscription = {}) {
      const r = await heartbeat(c, memberId, epoch, owned, sub)
      expect(r.errorCode).toBe(0)
      epoch = r.memberEpoch
      if (r.assignment) owned = r.assignment.topicPartitions
      return r
    },
    /** What it owns, as topic:partition. */
    get owned(): string[] {
      return owned.flatMap((t) => t.partitions.map((p) => `${names.get(t.topicId)}:${p}`)).sort()
    },
    get epoch() {
      return epoch
    },
    async leave() {
      expect((await heartbeat(c, memberId, -1, null)).errorCode).toBe(0)
      epoch = 0
      owned = []
    },
  }
}

const all = (topic: string, n: number) => Array.from({ length: n }, (_, p) => `${topic}:${p}`)
const REGEX = '^.*topic_regex.*'

describe('KIP-848 regex subscriptions', () => {
  it('a regex new to the group matches nothing at its first heartbeat: the literal topics first, the regex’s with the next epoch (0045_resubscribe_with_regex)', async () => {
    const { c, names } = await start()
    const m = member(c, names, 'rx')
    // Subscribed to the regex alone: nothing yet, then both topics.
    await m.beat({ topics: [], regex: REGEX })
    expect(m.owned).toEqual([])
    await until(
      async () => (await m.beat(), m.owned.length === 8),
      5000,
      () => m.owned.join(),
    )
    expect(m.owned).toEqual([...all('topic_regex1', 4), ...all('topic_regex2', 4)])

    // Unsubscribe (leave): nobody subscribes to the regex any more, so it is forgotten.
    await m.leave()
    // Regex and a literal topic: topic_a's 2 partitions first, as Kafka assigns them.
    await m.beat({ topics: ['topic_a'], regex: REGEX })
    expect(m.owned).toEqual(all('topic_a', 2))
    const epoch = m.epoch
    await until(
      async () => (await m.beat(), m.owned.length === 10),
      5000,
      () => m.owned.join(),
    )
    expect(m.epoch).toBeGreaterThan(epoch)
    expect(m.owned).toEqual([...all('topic_a', 2), ...all('topic_regex1', 4), ...all('topic_regex2', 4)])
  })

  it('regex to a topic list, back to a regex, and to another regex: each time the new subscription’s partitions, the old ones given up', async () => {
    const { c, names } = await start()
    const m = member(c, names, 'mover')
    await m.beat({ topics: [], regex: REGEX })
    await until(
      async () => (await m.beat(), m.owned.length === 8),
      5000,
      () => m.owned.join(),
    )

    // To one topic: the client clears the regex with "" and names the topic.
    await m.beat({ topics: ['topic_a'], regex: '' })
    await until(
      async () => (await m.beat(), m.owned.join() === all('topic_a', 2).join()),
      5000,
      () => m.owned.join(),
    )
    // A heartbeat that changes nothing (null fields) keeps the subscription.
    for (let i = 0; i < 3; i++) await m.beat()
    expect(m.owned).toEqual(all('topic_a', 2))

    // Back to a regex: the names cleared with [].
    await m.beat({ topics: [], regex: 'topic_regex1' })
    await until(
      async () => (await m.beat(), m.owned.join() === all('topic_regex1', 4).join()),
      5000,
      () => m.owned.join(),
    )

    // To another regex.
    await m.beat({ regex: 'topic_regex2|topic_a' })
    await until(
      async () => (await m.beat(), m.owned.join() === [...all('topic_a', 2), ...all('topic_regex2', 4)].join()),
      5000,
      () => m.owned.join(),
    )
    for (let i = 0; i < 3; i++) await m.beat()
    expect(m.owned).toEqual([...all('topic_a', 2), ...all('topic_regex2', 4)])
  })
})

describe('regex resolution (the group alone)', () => {
  it('a topic created later is found by the next resolution, at most one per batch interval', async () => {
    const controller = new Controller()
    controller.registerBroker(0, '127.0.0.1', 1)
    controller.createTopic('orders-eu', { partitions: 2, replicationFactor: 1 })
    const g = new ConsumerGroup('g', controller, {
      sessionTimeoutMs: 60_000,
      heartbeatIntervalMs: 1000,
      regexBatchIntervalMs: 300,
      assignmentIntervalMs: 0,
    })
    groups.push(g)
    let epoch = 0
    let owned: Owned = []
    const beat = (sub: Partial<HeartbeatRequest> = {}) => {
      const r = g.heartbeat({
        version: 1,
        memberId: 'm',
        memberEpoch: epoch,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: epoch === 0 ? 60_000 : -1,
        subscribedTopicNames: null,
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: owned,
        clientId: 'c',
        clientHost: '/127.0.0.1',
        ...sub,
      })
      expect(r.errorCode).toBe(0)
      epoch = r.memberEpoch
      if (r.assignment) owned = r.assignment.topicPartitions
      return owned.map((t) => `${controller.topicsById.get(t.topicId)?.name}:${t.partitions.join('.')}`).sort()
    }
    expect(beat({ subscribedTopicNames: [], subscribedTopicRegex: 'orders-.*' })).toEqual([])
    await new Promise((r) => setTimeout(r, 5))
    expect(beat()).toEqual(['orders-eu:0.1'])

    controller.createTopic('orders-jp', { partitions: 1, replicationFactor: 1 })
    // Within the batch interval of the last resolution: not yet.
    beat()
    await new Promise((r) => setTimeout(r, 5))
    expect(beat()).toEqual(['orders-eu:0.1'])
    // After it, the next heartbeat has it resolved again.
    await new Promise((r) => setTimeout(r, 350))
    beat()
    await new Promise((r) => setTimeout(r, 5))
    expect(beat()).toEqual(['orders-eu:0.1', 'orders-jp:0'])
    // 1 at the join (an unresolved regex is no new epoch), 2 and 3 for the two resolutions.
    expect(g.groupEpoch).toBe(3)
  })
})
