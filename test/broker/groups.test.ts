// The classic group protocol at the request level: MEMBER_ID_REQUIRED,
// a rebalance when a member joins, session and rebalance timeouts expelling
// silent members, static members keeping their place (and fencing the
// instance's old member id), LeaveGroup, and the generation checks. The
// scenarios checked on real Kafka too are in test/kafka/classic-join.test.ts.
import { Buffer } from 'node:buffer'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  DescribeGroups,
  FindCoordinator,
  Heartbeat,
  JoinGroup,
  LeaveGroup,
  OffsetCommit,
  SyncGroup,
} from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'

let cluster: RunningCluster
const open: RawClient[] = []
const GROUP = 'raw-group'

beforeEach(async () => {
  // Short session timeouts allowed, so expiry can be watched.
  cluster = await startCluster({ brokers: 2, topics: [{ name: 't', partitions: 2 }], groupMinSessionTimeoutMs: 100 })
})
afterEach(async () => {
  for (const c of open.splice(0)) c.close()
  await cluster.stop()
})

/** A new connection to the group's coordinator (one per member: JoinGroup waits block a connection). */
async function member(): Promise<RawClient> {
  const boot = await RawClient.open(cluster.bootstrapServers.split(',')[0])
  open.push(boot)
  const { nodeId } = (await boot.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [GROUP] })).coordinators[0]
  const b = cluster.brokers[nodeId]
  const c = await RawClient.open(`${b.host}:${b.port}`)
  open.push(c)
  return c
}

const base = (
  o: { sessionTimeoutMs?: number; rebalanceTimeoutMs?: number; groupInstanceId?: string | null; protocols?: string[] } = {},
) => ({
  groupId: GROUP,
  sessionTimeoutMs: o.sessionTimeoutMs ?? 10_000,
  rebalanceTimeoutMs: o.rebalanceTimeoutMs ?? 10_000,
  groupInstanceId: o.groupInstanceId ?? null,
  protocolType: 'consumer',
  protocols: (o.protocols ?? ['range']).map((name) => ({ name, metadata: Buffer.from(name) })),
})

async function joinNew(c: RawClient, o: Parameters<typeof base>[0] = {}) {
  const first = await c.request(JoinGroup, 9, { ...base(o), memberId: '' })
  if (first.errorCode !== ErrorCodes.MEMBER_ID_REQUIRED) return first
  return c.request(JoinGroup, 9, { ...base(o), memberId: first.memberId }, 30_000)
}

const sync = (
  c: RawClient,
  generationId: number,
  memberId: string,
  assignments: { memberId: string; assignment: Buffer }[] = [],
  groupInstanceId: string | null = null,
) =>
  c.request(
    SyncGroup,
    5,
    { groupId: GROUP, generationId, memberId, groupInstanceId, protocolType: 'consumer', protocolName: 'range', assignments },
    30_000,
  )
const heartbeat = (c: RawClient, generationId: number, memberId: string, groupInstanceId: string | null = null) =>
  c.request(Heartbeat, 4, { groupId: GROUP, generationId, memberId, groupInstanceId })
const describeGroup = async (c: RawClient) => (await c.request(DescribeGroups, 5, { groups: [GROUP] })).groups[0]

describe('classic group protocol', () => {
  it('MEMBER_ID_REQUIRED, then a generation; a second member makes the first rejoin; each gets its assignment', async () => {
    const a = await member()
    const first = await a.request(JoinGroup, 9, { ...base(), memberId: '' })
    expect(first.errorCode).toBe(ErrorCodes.MEMBER_ID_REQUIRED)
    expect(first.memberId).toMatch(/^raw-/)
    const g1 = await a.request(JoinGroup, 9, { ...base(), memberId: first.memberId })
    expect(g1).toMatchObject({ errorCode: 0, generationId: 1, leader: first.memberId, protocolName: 'range' })
    expect(g1.members.map((m) => m.memberId)).toEqual([first.memberId])
    expect((await sync(a, 1, first.memberId, [{ memberId: first.memberId, assignment: Buffer.from('all') }])).assignment.toString()).toBe(
      'all',
    )
    expect((await describeGroup(a)).groupState).toBe('Stable')

    const b = await member()
    const bJoin = joinNew(b)
    await new Promise((r) => setTimeout(r, 100))
    expect(await heartbeat(a, 1, first.memberId)).toMatchObject({ errorCode: ErrorCodes.REBALANCE_IN_PROGRESS })
    const aJoin = await a.request(JoinGroup, 9, { ...base(), memberId: first.memberId })
    const bJoined = await bJoin
    expect(aJoin.generationId).toBe(2)
    expect(bJoined.generationId).toBe(2)
    expect(aJoin.leader).toBe(first.memberId)
    expect(aJoin.members.length).toBe(2)
    expect(bJoined.members).toEqual([]) // only the leader gets the members
    expect(await heartbeat(a, 1, first.memberId)).toMatchObject({ errorCode: ErrorCodes.ILLEGAL_GENERATION })
    const bSync = sync(b, 2, bJoined.memberId)
    const aSync = await sync(a, 2, first.memberId, [
      { memberId: first.memberId, assignment: Buffer.from('p0') },
      { memberId: bJoined.memberId, assignment: Buffer.from('p1') },
    ])
    expect(aSync.assignment.toString()).toBe('p0')
    expect((await bSync).assignment.toString()).toBe('p1')
    // A commit in an old generation is refused; in the current one it is taken.
    const commit = (generationIdOrMemberEpoch: number) =>
      a.request(OffsetCommit, 9, {
        groupId: GROUP,
        generationIdOrMemberEpoch,
        memberId: first.memberId,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 3n }] }],
      })
    expect((await commit(1)).topics[0].partitions[0].errorCode).toBe(ErrorCodes.ILLEGAL_GENERATION)
    expect((await commit(2)).topics[0].partitions[0].errorCode).toBe(0)
  })

  it('a member that stops heartbeating is expelled after its session timeout; the group goes on without it', async () => {
    const o = { sessionTimeoutMs: 300 }
    const a = await member()
    const ja = await joinNew(a, o)
    await sync(a, ja.generationId, ja.memberId, [])
    // a stays alive: heartbeats, rejoining and syncing whenever told to.
    let aGen = ja.generationId
    let alive = true
    const keepAlive = (async () => {
      while (alive) {
        const hb = await heartbeat(a, aGen, ja.memberId)
        if (hb.errorCode === ErrorCodes.REBALANCE_IN_PROGRESS) {
          const r = await a.request(JoinGroup, 9, { ...base(o), memberId: ja.memberId }, 10_000)
          aGen = r.generationId
          await sync(
            a,
            aGen,
            ja.memberId,
            r.members.map((m) => ({ memberId: m.memberId, assignment: Buffer.from(m.memberId) })),
          )
        }
        await new Promise((r) => setTimeout(r, 50))
      }
    })()
    const b = await member()
    const jb = await joinNew(b, o)
    expect(jb.generationId).toBe(ja.generationId + 1)
    expect((await sync(b, jb.generationId, jb.memberId)).assignment.toString()).toBe(jb.memberId)
    // b goes silent; after 300 ms it is out and a alone forms the next generation.
    const watcher = await member()
    const deadline = Date.now() + 5000
    for (;;) {
      const g = await describeGroup(watcher)
      if (g.groupState === 'Stable' && g.members.length === 1 && aGen > jb.generationId) {
        expect(g.members[0].memberId).toBe(ja.memberId)
        break
      }
      if (Date.now() > deadline)
        throw new Error(`b was never expelled: ${g.groupState} ${JSON.stringify(g.members.map((m) => m.memberId))}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    alive = false
    await keepAlive
    expect((await heartbeat(b, jb.generationId, jb.memberId)).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
  })

  it('a member that does not rejoin within the rebalance timeout is left out of the next generation', async () => {
    const a = await member()
    const ja = await joinNew(a, { rebalanceTimeoutMs: 300 })
    await sync(a, ja.generationId, ja.memberId, [])
    const b = await member()
    // a never rejoins: after its rebalance timeout (300 ms) b's join completes alone.
    const jb = await joinNew(b, { rebalanceTimeoutMs: 300 })
    expect(jb).toMatchObject({ errorCode: 0, generationId: ja.generationId + 1, leader: jb.memberId })
    expect(jb.members.map((m) => m.memberId)).toEqual([jb.memberId])
    expect((await heartbeat(a, ja.generationId, ja.memberId)).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
  })

  it('static members: no MEMBER_ID_REQUIRED; a restarted instance takes its place without a rebalance and fences its old id', async () => {
    const leader = await member()
    const jl = await joinNew(leader, { groupInstanceId: 'leader-instance' })
    const s = await member()
    const firstJoin = s.request(JoinGroup, 9, { ...base({ groupInstanceId: 'static-1' }), memberId: '' }, 30_000)
    await new Promise((r) => setTimeout(r, 50))
    const lj = await leader.request(JoinGroup, 9, { ...base({ groupInstanceId: 'leader-instance' }), memberId: jl.memberId })
    const js = await firstJoin
    expect(js.errorCode).toBe(0) // a static member is not asked for a member id first
    const syncS = sync(s, js.generationId, js.memberId, [], 'static-1')
    await sync(leader, lj.generationId, lj.memberId, [{ memberId: js.memberId, assignment: Buffer.from('static-part') }], 'leader-instance')
    expect((await syncS).assignment.toString()).toBe('static-part')
    // The instance restarts: it joins with no member id, gets a new one, same generation, no rebalance.
    const s2 = await member()
    const again = await s2.request(JoinGroup, 9, { ...base({ groupInstanceId: 'static-1' }), memberId: '' })
    expect(again.errorCode).toBe(0)
    expect(again.memberId).not.toBe(js.memberId)
    expect(again.generationId).toBe(js.generationId)
    expect((await sync(s2, again.generationId, again.memberId, [], 'static-1')).assignment.toString()).toBe('static-part')
    expect((await describeGroup(leader)).groupState).toBe('Stable')
    expect((await heartbeat(s, js.generationId, js.memberId, 'static-1')).errorCode).toBe(ErrorCodes.FENCED_INSTANCE_ID)
    // Leaving by instance id.
    const left = await s2.request(LeaveGroup, 5, { groupId: GROUP, members: [{ memberId: '', groupInstanceId: 'static-1' }] })
    expect(left.members[0].errorCode).toBe(0)
    expect((await heartbeat(leader, lj.generationId, lj.memberId, 'leader-instance')).errorCode).toBe(ErrorCodes.REBALANCE_IN_PROGRESS)
  })

  it('the first join of an empty group ends on its delay timer, never inside the JoinGroup that began it (delay 0: both of two JoinGroups sent together make generation 1)', async () => {
    // librdkafka's 0102/0118 start two consumers at once; Kafka completes an initial join only
    // from its delay timer, so a JoinGroup already received is in the first generation.
    const a = await member()
    const b = await member()
    const ja = a.request(JoinGroup, 9, { ...base({ groupInstanceId: 'i-a' }), memberId: '' }, 30_000)
    const jb = b.request(JoinGroup, 9, { ...base({ groupInstanceId: 'i-b' }), memberId: '' }, 30_000)
    const [ra, rb] = await Promise.all([ja, jb])
    expect(ra).toMatchObject({ errorCode: 0, generationId: 1 })
    expect(rb).toMatchObject({ errorCode: 0, generationId: 1, leader: ra.leader })
    const leader = ra.leader === ra.memberId ? ra : rb
    expect(leader.members.map((m) => m.groupInstanceId).sort()).toEqual(['i-a', 'i-b'])
  })

  it('incompatible protocols and bad session timeouts are refused', async () => {
    const a = await member()
    await joinNew(a)
    const b = await member()
    expect((await b.request(JoinGroup, 9, { ...base({ protocols: ['roundrobin'] }), memberId: '' })).errorCode).toBe(
      ErrorCodes.INCONSISTENT_GROUP_PROTOCOL,
    )
    expect((await b.request(JoinGroup, 9, { ...base({ sessionTimeoutMs: 50 }), memberId: '' })).errorCode).toBe(
      ErrorCodes.INVALID_SESSION_TIMEOUT,
    )
    expect((await b.request(JoinGroup, 9, { ...base(), memberId: 'made-up' })).errorCode).toBe(ErrorCodes.UNKNOWN_MEMBER_ID)
  })
})
