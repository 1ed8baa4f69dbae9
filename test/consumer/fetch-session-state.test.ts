import { describe, expect, it } from 'vitest'
import { Prng } from '../../bench/support/prng.js'
import { FetchSessionState, type PartitionFetch, type SessionRequest } from '../../src/consumer/fetch-session-state.js'
import { seedFromEnv } from '../prng.js'

const seed = seedFromEnv('WAFKA_FETCH_SESSION_SEED')
console.log(`fetch-session seed ${seed} (replay: WAFKA_FETCH_SESSION_SEED=${seed})`)

const FETCH_SESSION_ID_NOT_FOUND = 70
const INVALID_FETCH_SESSION_EPOCH = 71

function part(topic: string, partition: number, fetchOffset: bigint, extra: Partial<PartitionFetch> = {}): PartitionFetch {
  return { topic, partition, fetchOffset, currentLeaderEpoch: 0, lastFetchedEpoch: -1, maxBytes: 1_048_576, ...extra }
}

const names = (ps: Array<{ topic: string; partition: number }>) => ps.map((p) => `${p.topic}-${p.partition}`).sort()

describe('FetchSessionState', () => {
  const a0 = part('a', 0, 10n)
  const a1 = part('a', 1, 20n)
  const b0 = part('b', 0, 30n)

  it('asks for a new session with a full fetch first', () => {
    const s = new FetchSessionState(true)
    const r = s.build([a0, a1])
    expect(r).toMatchObject({ sessionId: 0, sessionEpoch: 0, full: true, forgotten: [] })
    expect(names(r.partitions)).toEqual(['a-0', 'a-1'])
  })

  it('keeps sending full fetches with epoch 0 while the broker answers session id 0', () => {
    const s = new FetchSessionState(true)
    for (let i = 0; i < 3; i++) {
      const r = s.build([a0, a1])
      expect(r).toMatchObject({ sessionId: 0, sessionEpoch: 0, full: true })
      expect(r.partitions).toHaveLength(2)
      s.succeeded(0)
    }
    expect(s.sessionId).toBe(0)
  })

  it('goes incremental with epoch 1 once the broker opens a session', () => {
    const s = new FetchSessionState(true)
    s.build([a0, a1])
    s.succeeded(42)
    expect(s.sessionId).toBe(42)
    const r = s.build([a0, a1])
    expect(r).toMatchObject({ sessionId: 42, sessionEpoch: 1, full: false, partitions: [], forgotten: [] })
  })

  it('sends only new or changed partitions and forgets dropped ones', () => {
    const s = new FetchSessionState(true)
    s.build([a0, a1, b0])
    s.succeeded(7)
    const moved = { ...a1, fetchOffset: 25n }
    const c0 = part('c', 0, 0n)
    const r = s.build([a0, moved, c0])
    expect(r.full).toBe(false)
    expect(r.partitions).toEqual([moved, c0])
    expect(r.forgotten).toEqual([{ topic: 'b', partition: 0 }])
  })

  it.each([
    ['fetchOffset', { fetchOffset: 11n }],
    ['maxBytes', { maxBytes: 1024 }],
    ['currentLeaderEpoch', { currentLeaderEpoch: 3 }],
    ['lastFetchedEpoch', { lastFetchedEpoch: 2 }],
  ] as const)('resends a partition whose %s changed', (_field, change) => {
    const s = new FetchSessionState(true)
    s.build([a0, a1])
    s.succeeded(7)
    const changed = { ...a0, ...change }
    expect(s.build([changed, a1]).partitions).toEqual([changed])
  })

  it('compares against what the last successful fetch left, not the first', () => {
    const s = new FetchSessionState(true)
    s.build([a0])
    s.succeeded(7)
    const next = { ...a0, fetchOffset: 15n }
    expect(s.build([next]).partitions).toEqual([next])
    s.succeeded(7)
    expect(s.build([next]).partitions).toEqual([])
  })

  it('does not forget a partition again once forgotten', () => {
    const s = new FetchSessionState(true)
    s.build([a0, a1])
    s.succeeded(7)
    expect(s.build([a0]).forgotten).toEqual([{ topic: 'a', partition: 1 }])
    s.succeeded(7)
    expect(s.build([a0]).forgotten).toEqual([])
  })

  it('re-adds a forgotten partition as new', () => {
    const s = new FetchSessionState(true)
    s.build([a0, a1])
    s.succeeded(7)
    s.build([a0])
    s.succeeded(7)
    expect(s.build([a0, a1]).partitions).toEqual([a1])
  })

  it('increments the epoch on every successful incremental fetch', () => {
    const s = new FetchSessionState(true)
    s.build([a0])
    s.succeeded(9)
    const epochs: number[] = []
    for (let i = 0; i < 5; i++) {
      epochs.push(s.build([a0]).sessionEpoch)
      s.succeeded(9)
    }
    expect(epochs).toEqual([1, 2, 3, 4, 5])
  })

  it('wraps the epoch from 2^31-1 to 1, never 0 or negative', () => {
    const s = new FetchSessionState(true)
    s.build([a0])
    s.succeeded(9)
    // Reaching 2^31-1 by fetching would take billions of steps.
    ;(s as unknown as { epoch: number }).epoch = 0x7fffffff - 1
    const epochs: number[] = []
    for (let i = 0; i < 3; i++) {
      epochs.push(s.build([a0]).sessionEpoch)
      s.succeeded(9)
    }
    expect(epochs).toEqual([0x7fffffff - 1, 0x7fffffff, 1])
  })

  it('does not advance the epoch when a fetch is built but not answered', () => {
    const s = new FetchSessionState(true)
    s.build([a0])
    s.succeeded(9)
    expect(s.build([a0]).sessionEpoch).toBe(1)
    expect(s.build([a0]).sessionEpoch).toBe(1)
  })

  it('starts over with a full fetch for a new session after reset()', () => {
    const s = new FetchSessionState(true)
    s.build([a0, a1])
    s.succeeded(9)
    s.build([a0, a1])
    s.succeeded(9)
    s.build([a0])
    s.reset()
    expect(s.sessionId).toBe(0)
    const r = s.build([a0, a1])
    expect(r).toMatchObject({ sessionId: 0, sessionEpoch: 0, full: true, forgotten: [] })
    expect(r.partitions).toEqual([a0, a1])
    s.succeeded(10)
    expect(s.build([a0, a1])).toMatchObject({ sessionId: 10, sessionEpoch: 1, partitions: [] })
  })

  it('sends sessionless full fetches (epoch -1) to brokers without sessions (Fetch < v7)', () => {
    const s = new FetchSessionState(false)
    for (const id of [0, 5, 5]) {
      const r = s.build([a0, a1])
      expect(r).toMatchObject({ sessionId: 0, sessionEpoch: -1, full: true, forgotten: [] })
      expect(r.partitions).toEqual([a0, a1])
      s.succeeded(id)
    }
  })

  // KIP-227 and Java's FetchSessionHandler.handleResponse: an incremental
  // response with session id 0 means the broker closed the session; the next
  // fetch must be a full one asking for a new session.
  it('goes back to a full fetch when an incremental fetch is answered with session id 0 (the broker closed it)', () => {
    const s = new FetchSessionState(true)
    s.build([a0, a1])
    s.succeeded(9)
    s.build([a0, a1])
    s.succeeded(0)
    const r = s.build([a0, a1])
    expect(r).toMatchObject({ sessionId: 0, sessionEpoch: 0, full: true })
    expect(r.partitions).toEqual([a0, a1])
  })
})

/** A broker's fetch session cache as KIP-227 describes it, for one client. */
class ModelBroker {
  readonly sessions = new Map<number, { epoch: number; parts: Map<string, PartitionFetch> }>()
  private nextId = 1
  /** The partitions the last successful fetch was served for. */
  served = new Map<string, PartitionFetch>()

  constructor(
    private readonly rng: Prng,
    private readonly supported: boolean,
  ) {}

  handle(r: SessionRequest): { errorCode: number; sessionId: number } {
    const k = (p: { topic: string; partition: number }) => `${p.topic}-${p.partition}`
    if (!this.supported || r.sessionEpoch === -1) {
      expect(r.full).toBe(true)
      expect(r.forgotten).toEqual([])
      if (r.sessionId !== 0) this.sessions.delete(r.sessionId)
      this.served = new Map(r.partitions.map((p) => [k(p), p]))
      return { errorCode: 0, sessionId: 0 }
    }
    if (r.sessionEpoch === 0) {
      expect(r.full).toBe(true)
      expect(r.forgotten).toEqual([])
      if (r.sessionId !== 0) this.sessions.delete(r.sessionId)
      const parts = new Map(r.partitions.map((p) => [k(p), p]))
      expect(parts.size).toBe(r.partitions.length)
      this.served = parts
      // A broker whose session cache is full declines with id 0.
      if (this.rng.chance(0.1)) return { errorCode: 0, sessionId: 0 }
      const id = this.nextId++
      this.sessions.set(id, { epoch: 1, parts: new Map(parts) })
      return { errorCode: 0, sessionId: id }
    }
    expect(r.full).toBe(false)
    const session = this.sessions.get(r.sessionId)
    if (!session) return { errorCode: FETCH_SESSION_ID_NOT_FOUND, sessionId: 0 }
    if (session.epoch !== r.sessionEpoch) return { errorCode: INVALID_FETCH_SESSION_EPOCH, sessionId: 0 }
    const forgotten = new Set(r.forgotten.map(k))
    for (const f of r.forgotten) expect(session.parts.has(k(f)), `forgets ${k(f)}, not in the session`).toBe(true)
    for (const p of r.partitions) {
      expect(forgotten.has(k(p)), `${k(p)} both sent and forgotten`).toBe(false)
      // An incremental fetch names only what the broker does not already have.
      expect(session.parts.get(k(p)), `${k(p)} resent unchanged`).not.toEqual(p)
    }
    for (const f of r.forgotten) session.parts.delete(k(f))
    for (const p of r.partitions) session.parts.set(k(p), p)
    session.epoch = session.epoch === 0x7fffffff ? 1 : session.epoch + 1
    this.served = new Map(session.parts)
    return { errorCode: 0, sessionId: r.sessionId }
  }

  evict(): void {
    this.sessions.clear()
  }
}

describe('FetchSessionState against a model broker', () => {
  const topics = ['t0', 't1', 't2']

  function step(rng: Prng, wanted: Map<string, PartitionFetch>): void {
    for (const [k, p] of wanted) {
      if (rng.chance(0.05)) wanted.delete(k)
      else if (rng.chance(0.4)) wanted.set(k, { ...p, fetchOffset: p.fetchOffset + BigInt(rng.between(0, 50)) })
      else if (rng.chance(0.03)) wanted.set(k, { ...p, currentLeaderEpoch: p.currentLeaderEpoch + 1 })
      else if (rng.chance(0.03)) wanted.set(k, { ...p, lastFetchedEpoch: p.currentLeaderEpoch })
      else if (rng.chance(0.02)) wanted.set(k, { ...p, maxBytes: rng.pick([1024, 65_536, 1_048_576]) })
    }
    for (let i = rng.int(3); i > 0; i--) {
      const p = part(rng.pick(topics), rng.int(6), BigInt(rng.int(1000)))
      const k = `${p.topic}-${p.partition}`
      if (!wanted.has(k)) wanted.set(k, p)
    }
  }

  for (let round = 0; round < 20; round++) {
    const supported = round % 5 !== 4
    it(`leaves the broker with exactly the wanted partitions (round ${round}, ${supported ? 'sessions' : 'Fetch < v7'})`, () => {
      const rng = new Prng(Prng.derive(seed, round))
      const broker = new ModelBroker(rng, supported)
      const client = new FetchSessionState(supported)
      const wanted = new Map<string, PartitionFetch>()
      let incremental = 0
      for (let n = 0; n < 300; n++) {
        step(rng, wanted)
        const list = [...wanted.values()]
        const request = client.build(list)
        if (!supported) expect(request.sessionEpoch).toBe(-1)
        if (rng.chance(0.03)) {
          // Lost before the broker read it.
          client.reset()
          continue
        }
        const response = broker.handle(request)
        if (rng.chance(0.03)) {
          // Lost after the broker applied it.
          client.reset()
          continue
        }
        if (rng.chance(0.02)) broker.evict()
        if (response.errorCode !== 0) {
          client.reset()
          continue
        }
        client.succeeded(response.sessionId)
        if (!request.full) incremental++
        expect([...broker.served.keys()].sort(), `step ${n}`).toEqual([...wanted.keys()].sort())
        for (const [k, p] of wanted) expect(broker.served.get(k), `step ${n} ${k}`).toEqual(p)
      }
      if (supported) expect(incremental).toBeGreaterThan(100)
      else expect(incremental).toBe(0)
    })
  }
})
