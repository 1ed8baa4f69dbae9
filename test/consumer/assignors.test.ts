import { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import { Prng } from '../../bench/support/prng.js'
import {
  type AssignContext,
  assignorByName,
  cooperativeStickyAssignor,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  type MemberAssignment,
  type MemberSubscription,
  type PartitionAssignor,
  rangeAssignor,
  roundRobinAssignor,
  kafkaJSRoundRobinAssignor,
  type TopicPartitions,
} from '../../src/consumer/assignors/index.js'
import { ProtocolError } from '../../src/errors.js'
import { ConsumerProtocolSubscription, encodeData } from '../../src/protocol/messages/index.js'
import { seedFromEnv } from '../prng.js'

const require = createRequire(import.meta.url)
const { MemberMetadata, MemberAssignment: KafkaJsAssignment } = require('kafkajs/src/consumer/assignerProtocol')

const seed = seedFromEnv('WAFKA_ASSIGNOR_SEED')
console.log(`assignors seed ${seed} (replay: WAFKA_ASSIGNOR_SEED=${seed})`)

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex')

function member(memberId: string, topics: string[], extra: Partial<MemberSubscription> = {}): MemberSubscription {
  return { memberId, groupInstanceId: null, topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null, ...extra }
}

function counts(byTopic: Record<string, number>): Map<string, number> {
  return new Map(Object.entries(byTopic))
}

function assign(assignor: PartitionAssignor, members: MemberSubscription[], partitionCounts: Map<string, number>, generationId = 1) {
  return assignor.assign({ members, partitionCounts, generationId })
}

/** { memberId: ['t0p0', ...] }, for comparing with the Java javadoc examples. */
function render(result: Map<string, MemberAssignment>): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const [id, { partitions }] of result) out[id] = partitions.flatMap((tp) => tp.partitions.map((p) => `${tp.topic}p${p}`))
  return out
}

/** 't0p0' labels back into TopicPartitions. */
function owned(...labels: string[]): TopicPartitions[] {
  const byTopic = new Map<string, number[]>()
  for (const label of labels) {
    const [, topic, p] = /^(.*)p(\d+)$/.exec(label)!
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), Number(p)])
  }
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }))
}

const key = (topic: string, p: number): string => `${topic}p${p}`

function keysOf(partitions: readonly TopicPartitions[]): Set<string> {
  return new Set(partitions.flatMap((tp) => tp.partitions.map((p) => key(tp.topic, p))))
}

/** Every member's new subscription after it took its assignment in `generationId`: it now owns exactly that. */
function afterRound(members: MemberSubscription[], result: Map<string, MemberAssignment>, generationId: number): MemberSubscription[] {
  return members.map((m) => ({ ...m, ownedPartitions: result.get(m.memberId)!.partitions, generationId }))
}

function sizes(result: Map<string, MemberAssignment>): Map<string, number> {
  return new Map([...result].map(([id, a]) => [id, a.partitions.reduce((n, tp) => n + tp.partitions.length, 0)]))
}

/** Each partition at most once, only to a member subscribed to an existing topic, and (when `complete`) every one. */
function expectValid(context: AssignContext, result: Map<string, MemberAssignment>, complete: boolean): void {
  expect(new Set(result.keys())).toEqual(new Set(context.members.map((m) => m.memberId)))
  const seen = new Set<string>()
  for (const m of context.members) {
    for (const { topic, partitions } of result.get(m.memberId)!.partitions) {
      expect(m.topics).toContain(topic)
      for (const p of partitions) {
        expect(p).toBeGreaterThanOrEqual(0)
        expect(p).toBeLessThan(context.partitionCounts.get(topic)!)
        expect(seen.has(key(topic, p)), `${key(topic, p)} assigned twice`).toBe(false)
        seen.add(key(topic, p))
      }
    }
  }
  if (!complete) return
  for (const [topic, count] of context.partitionCounts) {
    if (!context.members.some((m) => m.topics.includes(topic))) continue
    for (let p = 0; p < count; p++) expect(seen.has(key(topic, p)), `${key(topic, p)} unassigned`).toBe(true)
  }
}

/** The sticky assignor's balance: nobody could give a partition to a member subscribed to it that holds 2+ fewer. */
function expectBalanced(members: MemberSubscription[], result: Map<string, MemberAssignment>): void {
  const load = sizes(result)
  for (const giver of members) {
    const held = new Set(result.get(giver.memberId)!.partitions.map((tp) => tp.topic))
    for (const taker of members) {
      if (load.get(giver.memberId)! - load.get(taker.memberId)! < 2) continue
      const shared = taker.topics.filter((t) => held.has(t))
      expect(
        shared,
        `${giver.memberId} (${load.get(giver.memberId)}) could give ${shared} to ${taker.memberId} (${load.get(taker.memberId)})`,
      ).toEqual([])
    }
  }
}

describe('range', () => {
  it('the Java javadoc example: ranges per topic, the first member gets the extra one', () => {
    const result = assign(rangeAssignor, [member('C1', ['t0', 't1']), member('C0', ['t0', 't1'])], counts({ t0: 3, t1: 3 }))
    expect(render(result)).toEqual({ C1: ['t0p2', 't1p2'], C0: ['t0p0', 't0p1', 't1p0', 't1p1'] })
  })

  it('static members sort by group.instance.id, ahead of dynamic ones (Java MemberInfo)', () => {
    // Member ids as after a rolling bounce: the instance ids keep the order.
    const members = [member('C2', ['t0'], { groupInstanceId: 'I1' }), member('C3', ['t0'], { groupInstanceId: 'I0' }), member('A', ['t0'])]
    expect(render(assign(rangeAssignor, members, counts({ t0: 5 })))).toEqual({ C3: ['t0p0', 't0p1'], C2: ['t0p2', 't0p3'], A: ['t0p4'] })
  })

  it('mixed subscriptions, a topic without metadata, a member given nothing (Java RangeAssignorTest cases)', () => {
    const members = [member('consumer1', ['topic1']), member('consumer2', ['topic1', 'topic2', 'gone']), member('consumer3', ['topic1'])]
    expect(render(assign(rangeAssignor, members, counts({ topic1: 3, topic2: 2 })))).toEqual({
      consumer1: ['topic1p0'],
      consumer2: ['topic1p1', 'topic2p0', 'topic2p1'],
      consumer3: ['topic1p2'],
    })
    expect(render(assign(rangeAssignor, [member('c1', ['t']), member('c2', ['t'])], counts({ t: 1 })))).toEqual({ c1: ['tp0'], c2: [] })
  })

  it('co-partitions: topics with equal counts and subscribers put partition i on the same member', () => {
    const members = ['a', 'b', 'c'].map((id) => member(id, ['x', 'y']))
    const result = render(assign(rangeAssignor, members, counts({ x: 7, y: 7 })))
    for (const labels of Object.values(result)) {
      expect(labels.filter((l) => l.startsWith('x')).map((l) => l.slice(1))).toEqual(
        labels.filter((l) => l.startsWith('y')).map((l) => l.slice(1)),
      )
    }
  })
})

describe('roundrobin', () => {
  it('the Java javadoc example with equal subscriptions', () => {
    const result = assign(roundRobinAssignor, [member('C0', ['t0', 't1']), member('C1', ['t1', 't0'])], counts({ t0: 3, t1: 3 }))
    expect(render(result)).toEqual({ C0: ['t0p0', 't0p2', 't1p1'], C1: ['t0p1', 't1p0', 't1p2'] })
  })

  it('the Java javadoc example with unequal subscriptions: skips members not subscribed', () => {
    const members = [member('C0', ['t0']), member('C1', ['t0', 't1']), member('C2', ['t0', 't1', 't2'])]
    expect(render(assign(roundRobinAssignor, members, counts({ t0: 1, t1: 2, t2: 3 })))).toEqual({
      C0: ['t0p0'],
      C1: ['t1p0'],
      C2: ['t1p1', 't2p0', 't2p1', 't2p2'],
    })
  })

  it('the Java javadoc static membership example: instance ids fix the order across new member ids', () => {
    const members = [
      member('C5', ['t0', 't1'], { groupInstanceId: 'I0' }),
      member('C3', ['t0', 't1'], { groupInstanceId: 'I1' }),
      member('C4', ['t0', 't1'], { groupInstanceId: 'I2' }),
    ]
    expect(render(assign(roundRobinAssignor, members, counts({ t0: 3, t1: 3 })))).toEqual({
      C5: ['t0p0', 't1p0'],
      C3: ['t0p1', 't1p1'],
      C4: ['t0p2', 't1p2'],
    })
  })
})

describe('eager assignors over random groups', () => {
  for (const assignor of [rangeAssignor, roundRobinAssignor]) {
    it(`${assignor.name}: complete, valid, and balanced as Java's is`, () => {
      const rng = new Prng(Prng.derive(seed, assignor.name.length))
      for (let round = 0; round < 200; round++) {
        const { members, partitionCounts } = randomGroup(rng, rng.chance(0.5))
        const context = { members, partitionCounts, generationId: 1 }
        const result = assignor.assign(context)
        expectValid(context, result, true)
        const equal = members.every((m) => m.topics.join() === members[0].topics.join())
        if (!equal) continue
        // Range balances each topic; round robin the totals.
        const perTopic = [...partitionCounts.keys()].map((t) =>
          [...result.values()].map((a) => a.partitions.find((tp) => tp.topic === t)?.partitions.length ?? 0),
        )
        const spreads = assignor === rangeAssignor ? perTopic : [[...sizes(result).values()]]
        for (const loads of spreads) expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1)
      }
    })
  }
})

describe('cooperative-sticky', () => {
  it('the Java StickyAssignor javadoc example 1: fresh like round robin, then keeps everything when C1 leaves', () => {
    const topics = ['t0', 't1', 't2', 't3']
    const partitionCounts = counts({ t0: 2, t1: 2, t2: 2, t3: 2 })
    const first = assign(
      cooperativeStickyAssignor,
      ['C0', 'C1', 'C2'].map((id) => member(id, topics)),
      partitionCounts,
    )
    expect(render(first)).toEqual({ C0: ['t0p0', 't1p1', 't3p0'], C1: ['t0p1', 't2p0', 't3p1'], C2: ['t1p0', 't2p1'] })
    const remaining = afterRound(
      ['C0', 'C2'].map((id) => member(id, topics)),
      first,
      1,
    )
    expect(render(assign(cooperativeStickyAssignor, remaining, partitionCounts, 2))).toEqual({
      C0: ['t0p0', 't1p1', 't2p0', 't3p0'],
      C2: ['t0p1', 't1p0', 't2p1', 't3p1'],
    })
  })

  it('the Java StickyAssignor javadoc example 2: unequal subscriptions, then C0 leaves', () => {
    const members = [member('C0', ['t0']), member('C1', ['t0', 't1']), member('C2', ['t0', 't1', 't2'])]
    const partitionCounts = counts({ t0: 1, t1: 2, t2: 3 })
    const first = assign(cooperativeStickyAssignor, members, partitionCounts)
    expect(render(first)).toEqual({ C0: ['t0p0'], C1: ['t1p0', 't1p1'], C2: ['t2p0', 't2p1', 't2p2'] })
    const second = assign(cooperativeStickyAssignor, afterRound(members.slice(1), first, 1), partitionCounts, 2)
    expect(render(second)).toEqual({ C1: ['t0p0', 't1p0', 't1p1'], C2: ['t2p0', 't2p1', 't2p2'] })
  })

  it('the cooperative rule: a partition changing owner is left out until its owner has revoked it', () => {
    const partitionCounts = counts({ t0: 3, t1: 3 })
    const everything = owned('t0p0', 't0p1', 't0p2', 't1p0', 't1p1', 't1p2')
    const members = [member('A', ['t0', 't1'], { ownedPartitions: everything, generationId: 4 }), member('B', ['t0', 't1'])]

    const first = assign(cooperativeStickyAssignor, members, partitionCounts, 5)
    const keptByA = keysOf(first.get('A')!.partitions)
    expect(keptByA.size).toBe(3)
    expect([...keptByA].every((k) => keysOf(everything).has(k))).toBe(true)
    expect(first.get('B')!.partitions).toEqual([]) // what B will get is still A's

    // A revoked what it was not given and rejoins owning only the rest.
    const second = assign(cooperativeStickyAssignor, afterRound(members, first, 5), partitionCounts, 6)
    expect(keysOf(second.get('A')!.partitions)).toEqual(keptByA)
    const toB = keysOf(second.get('B')!.partitions)
    expect(toB.size).toBe(3)
    expect([...toB].some((k) => keptByA.has(k))).toBe(false)

    // Settled: nothing moves again.
    expect(render(assign(cooperativeStickyAssignor, afterRound(members, second, 6), partitionCounts, 7))).toEqual(render(second))
  })

  it('a partition whose owner left the group goes to its new owner at once', () => {
    const members = [member('B', ['t'], { ownedPartitions: owned('tp1'), generationId: 3 })] // A, owner of tp0, is gone
    expect(render(assign(cooperativeStickyAssignor, members, counts({ t: 2 }), 4))).toEqual({ B: ['tp0', 'tp1'] })
  })

  it('two claims on one partition: the newer generation keeps it', () => {
    const partitionCounts = counts({ t: 2 })
    const members = [
      member('A', ['t'], { ownedPartitions: owned('tp0'), generationId: 5 }),
      member('B', ['t'], { ownedPartitions: owned('tp0', 'tp1'), generationId: 3 }), // stale: missed generations 4 and 5
    ]
    expect(render(assign(cooperativeStickyAssignor, members, partitionCounts, 6))).toEqual({ A: ['tp0'], B: ['tp1'] })
    // The other way round, whatever the member order: B keeps both, and tp1 is
    // held back from A (the balance wants it there) until B has revoked it.
    members[0].generationId = 2
    expect(render(assign(cooperativeStickyAssignor, members, partitionCounts, 6))).toEqual({ A: [], B: ['tp0'] })
  })

  it('claims tied on generation cancel out; the partition is dealt as unowned', () => {
    const members = [
      member('A', ['t'], { ownedPartitions: owned('tp0'), generationId: 4 }),
      member('B', ['t'], { ownedPartitions: owned('tp0', 'tp1'), generationId: 4 }),
    ]
    // B keeps tp1; tp0 goes to the lighter A, which claims it, so it is not held back.
    expect(render(assign(cooperativeStickyAssignor, members, counts({ t: 2 }), 5))).toEqual({ A: ['tp0'], B: ['tp1'] })
  })

  it('reads the generation from Java userData when the subscription has none (ConsumerProtocol v0/v1)', () => {
    const javaUserData = (generation: number): Buffer =>
      cooperativeStickyAssignor.subscriptionUserData!({ owned: [], generationId: generation })!
    expect(javaUserData(7)).toEqual(hex('00000007'))
    expect(javaUserData(-1)).toEqual(hex('ffffffff'))
    const members = [
      member('A', ['t'], { ownedPartitions: owned('tp0'), userData: javaUserData(7) }),
      member('B', ['t'], { ownedPartitions: owned('tp0', 'tp1'), generationId: 5 }),
    ]
    expect(render(assign(cooperativeStickyAssignor, members, counts({ t: 2 }), 8))).toEqual({ A: ['tp0'], B: ['tp1'] })
    // userData too short for a generation counts as none (-1), as in Java.
    // B keeps tp0 and gives up tp1, which A gets once B has revoked it.
    members[0].userData = hex('07')
    expect(render(assign(cooperativeStickyAssignor, members, counts({ t: 2 }), 8))).toEqual({ A: [], B: ['tp0'] })
  })

  it('ignores claims on partitions that do not exist or topics the member dropped, but still waits for their revocation', () => {
    const members = [
      member('A', ['t'], { ownedPartitions: [...owned('tp0', 'tp9'), ...owned('up0')], generationId: 2 }),
      member('B', ['t', 'u'], { generationId: 2 }),
    ]
    const result = assign(cooperativeStickyAssignor, members, counts({ t: 2, u: 1 }), 3)
    // A keeps tp0; tp9 does not exist; up0 moves from A (no longer subscribed)
    // to B, so it is held back this round; tp1 goes to A, level with B counting up0.
    expect(render(result)).toEqual({ A: ['tp0', 'tp1'], B: [] })
    const next = assign(cooperativeStickyAssignor, afterRound(members, result, 3), counts({ t: 2, u: 1 }), 4)
    expect(render(next)).toEqual({ A: ['tp0', 'tp1'], B: ['up0'] })
  })

  for (const equal of [true, false]) {
    it(`random groups with ${equal ? 'equal' : 'mixed'} subscriptions: valid, cooperative, then balanced, sticky and stable`, () => {
      const rng = new Prng(Prng.derive(seed, equal ? 100 : 101))
      for (let round = 0; round < 300; round++) {
        const group = randomGroup(rng, equal)
        const members = withRandomOwnership(rng, group.members, group.partitionCounts)
        checkCooperativeRounds(members, group.partitionCounts, equal)
      }
    })
  }

  it('1000 partitions x 100 members in milliseconds', () => {
    const topics = Array.from({ length: 10 }, (_, i) => `topic-${i}`)
    const partitionCounts = new Map(topics.map((t) => [t, 100]))
    const ids = Array.from({ length: 100 }, (_, i) => `consumer-${i}-${(i * 2654435761) >>> 0}`)
    const rng = new Prng(Prng.derive(seed, 7))
    const time = (label: string, members: MemberSubscription[]) => {
      const started = performance.now()
      const result = assign(cooperativeStickyAssignor, members, partitionCounts, 9)
      const ms = performance.now() - started
      console.log(`cooperative-sticky ${label}: ${ms.toFixed(1)} ms`)
      expect(ms).toBeLessThan(1000)
      return result
    }
    const fresh = time(
      'fresh',
      ids.map((id) => member(id, topics)),
    )
    const settled = afterRound(
      ids.map((id) => member(id, topics)),
      fresh,
      9,
    )
    time('one leaves', settled.slice(1))
    time('ten join', [...settled, ...Array.from({ length: 10 }, (_, i) => member(`late-${i}`, topics))])
    time(
      'mixed subscriptions',
      ids.map((id) => member(id, topics.filter(() => rng.chance(0.5)).concat(topics[0]))),
    )
    time('one member owned everything', [
      member('hog', topics, { ownedPartitions: topics.map((topic) => ({ topic, partitions: [...Array(100).keys()] })), generationId: 8 }),
      ...ids.map((id) => member(id, topics)),
    ])
  })

  it('mixed subscriptions where the heaviest members cannot give anything stay fast', () => {
    // 200 members on private 20-partition topics (heavy, nobody else may take them)
    // above 200 members sharing one topic, half of them owning 18 partitions of it.
    const partitionCounts = new Map<string, number>([['shared', 9 * 200]])
    const members: MemberSubscription[] = []
    for (let i = 0; i < 200; i++) {
      partitionCounts.set(`private-${i}`, 20)
      members.push(member(`a${i}`, [`private-${i}`]))
    }
    for (let i = 0; i < 200; i++) {
      const partitions = i % 2 === 0 ? Array.from({ length: 18 }, (_, k) => (i / 2) * 18 + k) : []
      members.push(
        member(`b${i}`, ['shared'], { ownedPartitions: partitions.length > 0 ? [{ topic: 'shared', partitions }] : [], generationId: 3 }),
      )
    }
    const started = performance.now()
    const result = assign(cooperativeStickyAssignor, members, partitionCounts, 4)
    const ms = performance.now() - started
    console.log(`cooperative-sticky 400 members, stuck heavy ones: ${ms.toFixed(1)} ms`)
    expect(ms).toBeLessThan(1000)
    // Each sharing owner keeps 9 and gives 9 to a sharer owning nothing (held back this round).
    for (let i = 0; i < 200; i++) expect(sizes(result).get(`b${i}`)).toBe(i % 2 === 0 ? 9 : 0)
  })
})

/** A group of 1-12 members over 1-6 topics; a topic may be missing from metadata. */
function randomGroup(rng: Prng, equalSubscriptions: boolean) {
  const topics = Array.from({ length: rng.between(1, 6) }, (_, i) => `t${i}`)
  const partitionCounts = new Map(topics.filter(() => !rng.chance(0.05)).map((t) => [t, rng.between(1, 24)]))
  const members = Array.from({ length: rng.between(1, 12) }, (_, i) => {
    const subscribed = equalSubscriptions ? topics : topics.filter(() => rng.chance(0.5))
    return member(`m${rng.u32().toString(36)}-${i}`, subscribed.length > 0 ? subscribed : [rng.pick(topics)], {
      groupInstanceId: rng.chance(0.2) ? `i${i}` : null,
    })
  })
  return { members, partitionCounts }
}

/**
 * Ownership as a rebalance finds it: members own random partitions (some of
 * topics they dropped or that do not exist), in generation 10 or, for a few
 * stale members, 9, whose claims may collide with current ones.
 */
function withRandomOwnership(rng: Prng, members: MemberSubscription[], partitionCounts: Map<string, number>): MemberSubscription[] {
  const claims = members.map(() => [] as string[])
  for (const [topic, count] of partitionCounts) {
    for (let p = 0; p < count; p++) {
      if (rng.chance(0.3) || members.length === 0) continue
      claims[rng.int(members.length)].push(key(topic, p))
    }
  }
  return members.map((m, i) => {
    const stale = rng.chance(0.15)
    const mine = claims[i]
    if (stale) for (const [topic, count] of partitionCounts) if (rng.chance(0.5)) mine.push(key(topic, rng.int(count)))
    if (rng.chance(0.1)) mine.push(key('t0', 99))
    return { ...m, ownedPartitions: owned(...mine), generationId: stale ? 9 : mine.length > 0 ? 10 : -1 }
  })
}

/** Who keeps a claim, as the spec says: the newest generation; ties cancel. Only valid claims count. */
function effectiveOwners(members: MemberSubscription[], partitionCounts: Map<string, number>): Map<string, string> {
  const best = new Map<string, { id: string | null; gen: number }>()
  for (const m of members) {
    for (const { topic, partitions } of m.ownedPartitions) {
      if (!m.topics.includes(topic)) continue
      for (const p of partitions) {
        if (p >= (partitionCounts.get(topic) ?? 0)) continue
        const k = key(topic, p)
        const current = best.get(k)
        if (!current || m.generationId > current.gen) best.set(k, { id: m.memberId, gen: m.generationId })
        else if (m.generationId === current.gen && current.id !== m.memberId) current.id = null
      }
    }
  }
  return new Map([...best].filter(([, v]) => v.id !== null).map(([k, v]) => [k, v.id!]))
}

function checkCooperativeRounds(members: MemberSubscription[], partitionCounts: Map<string, number>, equal: boolean): void {
  const context = { members, partitionCounts, generationId: 11 }
  const first = cooperativeStickyAssignor.assign(context)
  expectValid(context, first, false)

  // The cooperative rule: nobody is given a partition another member still claims.
  const claimedBy = new Map<string, Set<string>>()
  for (const m of members) for (const k of keysOf(m.ownedPartitions)) claimedBy.set(k, (claimedBy.get(k) ?? new Set()).add(m.memberId))
  for (const [id, { partitions }] of first) {
    for (const k of keysOf(partitions))
      if (claimedBy.has(k)) expect(claimedBy.get(k)!.has(id), `${k} given to ${id} while others own it`).toBe(true)
  }

  // Follow-up rebalances until nothing is held back; mixed subscriptions may take a few.
  let result = first
  let generation = 11
  let current = members
  for (let follow = 0; follow < 6; follow++) {
    current = afterRound(current, result, generation)
    const next = cooperativeStickyAssignor.assign({ members: current, partitionCounts, generationId: ++generation })
    const settled = JSON.stringify(render(next)) === JSON.stringify(render(result))
    result = next
    if (settled) break
    if (equal) expect(follow, 'equal subscriptions settle in one follow-up').toBe(0)
  }
  expectValid({ members, partitionCounts, generationId: generation }, result, true)
  expectBalanced(members, result)
  const load = sizes(result)
  for (const a of members) {
    for (const b of members) {
      if (a.topics.join() === b.topics.join()) expect(Math.abs(load.get(a.memberId)! - load.get(b.memberId)!)).toBeLessThanOrEqual(1)
    }
  }

  if (!equal || partitionCounts.size === 0) return
  // Sticky: with equal subscriptions no more owned partitions move than balance forces.
  const owners = effectiveOwners(members, partitionCounts)
  const total = [...partitionCounts].filter(([t]) => members[0].topics.includes(t)).reduce((n, [, c]) => n + c, 0)
  const quota = Math.floor(total / members.length)
  const extra = total % members.length
  const ownedCount = members.map((m) => [...owners.values()].filter((id) => id === m.memberId).length)
  const mostRetainable =
    ownedCount.reduce((n, c) => n + Math.min(c, quota), 0) + Math.min(extra, ownedCount.filter((c) => c > quota).length)
  let retained = 0
  for (const [id, { partitions }] of result) for (const k of keysOf(partitions)) if (owners.get(k) === id) retained++
  expect(retained).toBe(mostRetainable)
}

describe('every assignor at the edges', () => {
  for (const assignor of [rangeAssignor, roundRobinAssignor, cooperativeStickyAssignor]) {
    it(`${assignor.name}: no members, no topics, topics without partitions`, () => {
      expect(assign(assignor, [], counts({ t: 3 })).size).toBe(0)
      const members = [member('a', []), member('b', ['missing', 'empty']), member('c', ['t'])]
      expect(render(assign(assignor, members, counts({ t: 2, empty: 0 })))).toEqual({ a: [], b: [], c: ['tp0', 'tp1'] })
    })
  }
})

describe('assignorByName', () => {
  it("finds the built-ins by their Java names, and round robin by KafkaJS's name too", () => {
    expect(assignorByName('range')).toBe(rangeAssignor)
    expect(assignorByName('roundrobin')).toBe(roundRobinAssignor)
    expect(assignorByName('cooperative-sticky')).toBe(cooperativeStickyAssignor)
    expect(assignorByName('sticky')).toBeUndefined()
    // KafkaJS's protocol name for round robin: a group of KafkaJS and wafka members agrees on it.
    expect(assignorByName('RoundRobinAssigner')).toBe(kafkaJSRoundRobinAssignor)
    expect(kafkaJSRoundRobinAssignor.name).toBe('RoundRobinAssigner')
    expect(kafkaJSRoundRobinAssignor.assign).toBe(roundRobinAssignor.assign)
    expect(cooperativeStickyAssignor.rebalanceProtocol).toBe('cooperative')
    expect(rangeAssignor.rebalanceProtocol).toBe('eager')
    expect(roundRobinAssignor.rebalanceProtocol).toBe('eager')
  })
})

describe('subscription and assignment bytes', () => {
  it('an eager subscription is v3 as Java 3.x writes it: sorted topics, null userData, no owned partitions', () => {
    const bytes = encodeSubscription(rangeAssignor, { topics: ['b', 'a', 'b'], owned: [], generationId: -1 })
    expect(bytes).toEqual(hex('0003 00000002 0001 61 0001 62 ffffffff 00000000 ffffffff ffff'))
    // KafkaJS (and any v0 reader) reads the prefix it knows.
    expect(MemberMetadata.decode(bytes)).toEqual({ version: 3, topics: ['a', 'b'], userData: null })
  })

  it('a cooperative-sticky subscription carries owned partitions, generation, rack and the generation in userData', () => {
    const bytes = encodeSubscription(cooperativeStickyAssignor, {
      topics: ['t'],
      owned: [
        { topic: 'u', partitions: [2] },
        { topic: 't', partitions: [1, 0] },
        { topic: 'u', partitions: [0, 2] },
      ],
      generationId: 5,
      rackId: 'r1',
    })
    expect(bytes).toEqual(
      hex(
        '0003 00000001 0001 74 00000004 00000005  00000002 0001 74 00000002 00000000 00000001  0001 75 00000002 00000000 00000002  00000005 0002 7231',
      ),
    )
    expect(decodeSubscription('m1', 'i1', bytes)).toEqual({
      memberId: 'm1',
      groupInstanceId: 'i1',
      topics: ['t'],
      userData: hex('00000005'),
      ownedPartitions: [
        { topic: 't', partitions: [0, 1] },
        { topic: 'u', partitions: [0, 2] },
      ],
      generationId: 5,
      rackId: 'r1',
    })
    expect(encodeSubscription(rangeAssignor, { topics: ['t'], owned: [], generationId: 1, rackId: '' }).subarray(-2)).toEqual(hex('ffff'))
  })

  it('decodes every version 0..3, defaulting what an older one lacks', () => {
    const v0 = MemberMetadata.encode({ version: 0, topics: ['a', 'b'], userData: hex('0102') })
    expect(decodeSubscription('m', null, v0)).toEqual(member('m', ['a', 'b'], { userData: hex('0102') }))
    const full = { topics: ['a'], userData: null, ownedPartitions: [{ topic: 'a', partitions: [3] }], generationId: 8, rackId: 'r' }
    expect(decodeSubscription('m', null, encodeData(ConsumerProtocolSubscription, 1, full))).toMatchObject({
      ownedPartitions: full.ownedPartitions,
      generationId: -1,
      rackId: null,
    })
    expect(decodeSubscription('m', null, encodeData(ConsumerProtocolSubscription, 2, full))).toMatchObject({
      generationId: 8,
      rackId: null,
    })
    expect(decodeSubscription('m', null, encodeData(ConsumerProtocolSubscription, 3, full))).toMatchObject({ generationId: 8, rackId: 'r' })
    // Java treats an empty rack as none.
    expect(decodeSubscription('m', null, encodeData(ConsumerProtocolSubscription, 3, { ...full, rackId: '' })).rackId).toBeNull()
    // A plain Uint8Array works too (not only Buffer).
    expect(decodeSubscription('m', null, new Uint8Array(v0)).topics).toEqual(['a', 'b'])
  })

  it('an assignment is what KafkaJS writes for the same version, and KafkaJS reads ours', () => {
    const assignment = {
      partitions: [
        { topic: 't', partitions: [0, 2] },
        { topic: 'u', partitions: [1] },
      ],
      userData: Buffer.alloc(0),
    }
    const ours = encodeAssignment(assignment)
    expect(ours).toEqual(KafkaJsAssignment.encode({ version: 3, assignment: { t: [0, 2], u: [1] }, userData: Buffer.alloc(0) }))
    expect(decodeAssignment(ours)).toEqual(assignment)
    // Java writes null userData when the assignor has none.
    const plain = encodeAssignment({ partitions: [{ topic: 't', partitions: [4] }] })
    expect(plain).toEqual(hex('0003 00000001 0001 74 00000001 00000004 ffffffff'))
    expect(KafkaJsAssignment.decode(plain)).toEqual({ version: 3, assignment: { t: [4] }, userData: null })
    expect(decodeAssignment(KafkaJsAssignment.encode({ version: 0, assignment: { x: [7] } }))).toEqual({
      partitions: [{ topic: 'x', partitions: [7] }],
      userData: Buffer.alloc(0),
    })
  })

  it('empty or absent assignment bytes mean no partitions', () => {
    expect(decodeAssignment(Buffer.alloc(0))).toEqual({ partitions: [], userData: null })
    expect(decodeAssignment(null)).toEqual({ partitions: [], userData: null })
    expect(decodeAssignment(encodeAssignment({ partitions: [] })).partitions).toEqual([])
  })

  it('garbage gives a ProtocolError that says whose bytes they were', () => {
    const truncated = ['ff', '0003', '0003 7fffffff', '0003 00000001 0005 61', 'ffff 00000000 ffffffff']
    for (const bad of [...truncated, '0001 00000000 ffffffff 00000001']) {
      expect(() => decodeSubscription('member-7', null, hex(bad))).toThrow(ProtocolError)
      expect(() => decodeSubscription('member-7', null, hex(bad))).toThrow(/member-7/)
    }
    for (const bad of truncated) expect(() => decodeAssignment(hex(bad))).toThrow(ProtocolError)
    expect(() => decodeSubscription('member-7', null, Buffer.alloc(0))).toThrow(ProtocolError)
    expect(() => decodeSubscription('member-7', null, null)).toThrow(ProtocolError)
  })

  it('random and damaged bytes decode or give a ProtocolError, never anything else', () => {
    const rng = new Prng(Prng.derive(seed, 3))
    const valid = [
      encodeSubscription(cooperativeStickyAssignor, { topics: ['a', 'b'], owned: owned('ap0', 'bp3'), generationId: 3, rackId: 'r' }),
      encodeAssignment({ partitions: owned('ap0', 'ap1', 'bp2'), userData: hex('00000003') }),
    ]
    for (let i = 0; i < 5000; i++) {
      let bytes: Buffer
      if (rng.chance(0.3)) bytes = rng.bytes(rng.int(40))
      else {
        bytes = Buffer.from(rng.pick(valid))
        for (let flips = rng.between(1, 3); flips > 0; flips--) bytes[rng.int(bytes.length)] = rng.int(256)
        if (rng.chance(0.3)) bytes = bytes.subarray(0, rng.int(bytes.length))
      }
      for (const decode of [() => decodeSubscription('m', null, bytes), () => decodeAssignment(bytes)]) {
        try {
          decode()
        } catch (err) {
          if (!(err instanceof ProtocolError)) throw new Error(`${bytes.toString('hex')}: ${err}`)
        }
      }
    }
  })
})
