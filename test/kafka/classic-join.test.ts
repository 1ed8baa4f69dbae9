// The classic group's join and sync phases at the request level, on real
// Apache Kafka 4.4 and on the embedded broker, the same raw requests and
// assertions on each, with group.initial.rebalance.delay.ms=1000 so the
// initial delay can be watched: the delay starting again while members keep
// arriving, a leader's resent JoinGroup during CompletingRebalance, and a
// static leader restarting with JoinGroup before v9 (no rebalance).
import { Buffer } from 'node:buffer'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { DescribeGroups, FindCoordinator, Heartbeat, JoinGroup, SyncGroup } from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'

// A second, not less: the joins below are spaced by fractions of it, and a loaded machine delays a request by 100s of ms.
const DELAY_MS = 1000

for (const target of brokerTargets({
  kafka: { config: { 'group.initial.rebalance.delay.ms': String(DELAY_MS) } },
  embedded: { groupInitialRebalanceDelayMs: DELAY_MS },
}))
  describe.skipIf(!target.available)(`classic group join and sync on ${target.name}`, () => {
    let cluster: RunningTarget
    const open: RawClient[] = []
    let groupId = ''
    let n = 0

    beforeAll(async () => {
      cluster = await target.start()
    }, 120_000)
    afterEach(() => {
      for (const c of open.splice(0)) c.close()
    })
    afterAll(async () => {
      await cluster?.stop()
    })

    /** A group of its own per test, and a new connection to its coordinator per member (JoinGroup waits block one). */
    const newGroup = () => (groupId = `classic-join-${Date.now()}-${n++}`)
    async function member(): Promise<RawClient> {
      const boot = await RawClient.open(cluster.bootstrap.split(',')[0])
      open.push(boot)
      for (;;) {
        const { errorCode, host, port } = (await boot.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] }))
          .coordinators[0]
        if (errorCode === ErrorCodes.NONE) {
          const c = await RawClient.open(`${host}:${port}`)
          open.push(c)
          // Kafka answers COORDINATOR_LOAD_IN_PROGRESS while it loads a new __consumer_offsets partition.
          while (
            (await c.request(DescribeGroups, 5, { groups: [groupId] })).groups[0].errorCode === ErrorCodes.COORDINATOR_LOAD_IN_PROGRESS
          )
            await new Promise((r) => setTimeout(r, 200))
          return c
        }
        await new Promise((r) => setTimeout(r, 200)) // Kafka: COORDINATOR_NOT_AVAILABLE until __consumer_offsets exists
      }
    }
    const base = (groupInstanceId: string | null = null) => ({
      groupId,
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      groupInstanceId,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from('range') }],
    })
    const join = (c: RawClient, memberId: string, groupInstanceId: string | null = null, version = 9) =>
      c.request(JoinGroup, version, { ...base(groupInstanceId), memberId }, 30_000)
    async function joinNew(c: RawClient) {
      const first = await join(c, '')
      return first.errorCode === ErrorCodes.MEMBER_ID_REQUIRED ? join(c, first.memberId) : first
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
        { groupId, generationId, memberId, groupInstanceId, protocolType: 'consumer', protocolName: 'range', assignments },
        30_000,
      )
    const heartbeat = (c: RawClient, generationId: number, memberId: string, groupInstanceId: string | null = null) =>
      c.request(Heartbeat, 4, { groupId, generationId, memberId, groupInstanceId })
    const stateOf = async (c: RawClient) => (await c.request(DescribeGroups, 5, { groups: [groupId] })).groups[0].groupState
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

    it('the initial delay starts again while members keep arriving: three members 0.5 s and 1.5 s apart make one generation', async () => {
      newGroup()
      const [a, b, c] = [await member(), await member(), await member()]
      const ja = join(a, '', 'i-a') // static: no MEMBER_ID_REQUIRED; delay 1: 0-1000 ms
      await sleep(DELAY_MS / 2)
      const jb = join(b, '', 'i-b') // in delay 1: a second one, 1000-2000 ms
      await sleep(DELAY_MS)
      const cSent = Date.now()
      const jc = join(c, '', 'i-c') // in delay 2: a third, 2000-3000 ms, which sees no one new
      const all = await Promise.all([ja, jb, jc])
      // c, arriving in some delay, starts one more whole delay after it. Measured
      // from c's send, not a's: a loaded broker that reads a's join late (b and c
      // then land in its first or second delay) makes fewer delays, yet each
      // arrival still restarts one.
      expect(Date.now() - cSent).toBeGreaterThanOrEqual(DELAY_MS - 50)
      for (const r of all) expect(r).toMatchObject({ errorCode: 0, generationId: all[0].generationId })
      const leader = all.find((r) => r.leader === r.memberId)!
      expect(leader.members.map((m) => m.groupInstanceId).sort()).toEqual(['i-a', 'i-b', 'i-c'])
    })

    it('a leader that resends its JoinGroup during CompletingRebalance gets the member list again', async () => {
      newGroup()
      const a = await member()
      const ja = await joinNew(a)
      await sync(a, ja.generationId, ja.memberId, [])
      const b = await member()
      const bJoin = joinNew(b)
      await sleep(300)
      expect((await heartbeat(a, ja.generationId, ja.memberId)).errorCode).toBe(ErrorCodes.REBALANCE_IN_PROGRESS)
      const first = await join(a, ja.memberId)
      const jb = await bJoin
      expect(first).toMatchObject({ errorCode: 0, generationId: ja.generationId + 1, leader: ja.memberId })
      expect(await stateOf(a)).toBe('CompletingRebalance')
      const again = await join(a, ja.memberId)
      expect(again).toMatchObject({ errorCode: 0, generationId: first.generationId, leader: ja.memberId, memberId: ja.memberId })
      expect(again.members.map((m) => m.memberId).sort()).toEqual([ja.memberId, jb.memberId].sort())
      const bAgain = await join(b, jb.memberId)
      expect(bAgain).toMatchObject({ errorCode: 0, generationId: first.generationId, leader: ja.memberId, members: [] })
      const bSync = sync(b, jb.generationId, jb.memberId)
      const plan = again.members.map((m) => ({ memberId: m.memberId, assignment: Buffer.from(`for-${m.memberId}`) }))
      expect((await sync(a, again.generationId, ja.memberId, plan)).assignment.toString()).toBe(`for-${ja.memberId}`)
      expect((await bSync).assignment.toString()).toBe(`for-${jb.memberId}`)
    })

    it('a static leader restarting with JoinGroup v5 causes no rebalance: answered with its old id as leader, it syncs its assignment', async () => {
      newGroup()
      const [x, y] = [await member(), await member()]
      const [rx, ry] = await Promise.all([join(x, '', 'i-x'), join(y, '', 'i-y')])
      const [lead, follow, lc, fc, li, fi] = rx.leader === rx.memberId ? [rx, ry, x, y, 'i-x', 'i-y'] : [ry, rx, y, x, 'i-y', 'i-x']
      const fSync = sync(fc, follow.generationId, follow.memberId, [], fi)
      const plan = [
        { memberId: lead.memberId, assignment: Buffer.from('lead-part') },
        { memberId: follow.memberId, assignment: Buffer.from('follow-part') },
      ]
      await sync(lc, lead.generationId, lead.memberId, plan, li)
      expect((await fSync).assignment.toString()).toBe('follow-part')
      const restarted = await member()
      const again = await join(restarted, '', li, 5)
      expect(again).toMatchObject({ errorCode: 0, generationId: lead.generationId, leader: lead.memberId, members: [] })
      expect(again.memberId).not.toBe(lead.memberId)
      expect((await sync(restarted, again.generationId, again.memberId, [], li)).assignment.toString()).toBe('lead-part')
      expect(await stateOf(restarted)).toBe('Stable')
      expect((await heartbeat(fc, follow.generationId, follow.memberId, fi)).errorCode).toBe(ErrorCodes.NONE)
    })
  })
