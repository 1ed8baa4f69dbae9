// Client quotas on the embedded broker (issue 23): DescribeClientQuotas and
// AlterClientQuotas answered as Kafka 4.4's controller answers them (filters
// exact/default/any, strict; validateOnly; each refusal's code and message),
// kept in the metadata log across restarts and in its snapshots, Kafka's
// precedence of quota entities, and the throttle itself: Produce appended and
// answered with throttle_time_ms, Fetch answered empty, the connection muted
// for the throttle once the answer is sent.
import { Buffer } from 'node:buffer'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Controller } from '../../src/broker/controller.js'
import { snapshotRecords } from '../../src/broker/metadata-snapshot.js'
import { ClientQuotaManager } from '../../src/broker/quotas/client-quotas.js'
import { SampledRate } from '../../src/broker/quotas/sampled-rate.js'
import { alterClientQuotas } from '../../src/broker/quotas/client-quota-admin.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { AlterClientQuotas, ApiVersions, DescribeClientQuotas, Fetch, Produce } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'

let cluster: RunningCluster
let client: RawClient
const dataDirs: string[] = []

beforeEach(async () => {
  cluster = await startCluster({ brokers: 1, topics: [{ name: 't', partitions: 1 }], quotaWindowNum: 2, quotaWindowSizeSeconds: 1 })
  client = await RawClient.open(cluster.bootstrapServers)
})
afterEach(async () => {
  client.close()
  await cluster.stop()
  for (const d of dataDirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

type Entity = Array<{ entityType: string; entityName: string | null }>
const user = (name: string | null) => ({ entityType: 'user', entityName: name })
const clientId = (name: string | null) => ({ entityType: 'client-id', entityName: name })

const alter = (entries: Array<{ entity: Entity; ops: Array<{ key: string; value?: number; remove?: boolean }> }>, validateOnly = false) =>
  client.request(AlterClientQuotas, 1, {
    entries: entries.map((e) => ({
      entity: e.entity,
      ops: e.ops.map((o) => ({ key: o.key, value: o.value ?? 0, remove: o.remove ?? false })),
    })),
    validateOnly,
  })

const describeQuotas = (components: Array<{ entityType: string; matchType: number; match?: string | null }>, strict = false) =>
  client.request(DescribeClientQuotas, 1, { components: components.map((c) => ({ ...c, match: c.match ?? null })), strict })

/** The described entries, each as 'type=name,...' → values, sorted (the answer's order is the image's). */
function entries(res: Awaited<ReturnType<typeof describeQuotas>>): Record<string, Record<string, number>> {
  expect(res.errorCode, res.errorMessage ?? '').toBe(0)
  const out: Record<string, Record<string, number>> = {}
  for (const e of res.entries!) {
    const name = e.entity
      .map((p) => `${p.entityType}=${p.entityName ?? '<default>'}`)
      .sort()
      .join(',')
    out[name] = Object.fromEntries(e.values.map((v) => [v.key, v.value]))
  }
  return out
}

const EXACT = 0
const DEFAULT = 1
const ANY = 2

async function setSome(): Promise<void> {
  const res = await alter([
    { entity: [user('alice')], ops: [{ key: 'producer_byte_rate', value: 1024 }] },
    { entity: [user(null)], ops: [{ key: 'consumer_byte_rate', value: 2048 }] },
    { entity: [clientId('app')], ops: [{ key: 'request_percentage', value: 12.5 }] },
    { entity: [clientId(null)], ops: [{ key: 'producer_byte_rate', value: 4096 }] },
    { entity: [user('alice'), clientId('app')], ops: [{ key: 'producer_byte_rate', value: 512 }] },
    { entity: [user(null), clientId(null)], ops: [{ key: 'consumer_byte_rate', value: 256 }] },
  ])
  expect(res.entries.map((e) => [e.errorCode, e.errorMessage])).toEqual(Array(6).fill([0, null]))
}

describe('DescribeClientQuotas and AlterClientQuotas', () => {
  it('are advertised at v0-1', async () => {
    const res = await client.request(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' })
    expect(res.apiKeys.filter((k) => k.apiKey === 48 || k.apiKey === 49)).toEqual([
      expect.objectContaining({ apiKey: 48, minVersion: 0, maxVersion: 1 }),
      expect.objectContaining({ apiKey: 49, minVersion: 0, maxVersion: 1 }),
    ])
  })

  it('match exact names, defaults and any name; strict leaves out entities of other types', async () => {
    await setSome()
    // No component, not strict: everything.
    expect(Object.keys(entries(await describeQuotas([])))).toHaveLength(6)
    // No component, strict: nothing.
    expect(entries(await describeQuotas([], true))).toEqual({})
    expect(entries(await describeQuotas([{ entityType: 'user', matchType: EXACT, match: 'alice' }]))).toEqual({
      'user=alice': { producer_byte_rate: 1024 },
      'client-id=app,user=alice': { producer_byte_rate: 512 },
    })
    expect(entries(await describeQuotas([{ entityType: 'user', matchType: EXACT, match: 'alice' }], true))).toEqual({
      'user=alice': { producer_byte_rate: 1024 },
    })
    expect(entries(await describeQuotas([{ entityType: 'user', matchType: DEFAULT }]))).toEqual({
      'user=<default>': { consumer_byte_rate: 2048 },
      'client-id=<default>,user=<default>': { consumer_byte_rate: 256 },
    })
    // Any: every entity with the type, its default too (as Kafka's image matches it).
    expect(entries(await describeQuotas([{ entityType: 'client-id', matchType: ANY }]))).toEqual({
      'client-id=app': { request_percentage: 12.5 },
      'client-id=<default>': { producer_byte_rate: 4096 },
      'client-id=app,user=alice': { producer_byte_rate: 512 },
      'client-id=<default>,user=<default>': { consumer_byte_rate: 256 },
    })
    expect(entries(await describeQuotas([{ entityType: 'client-id', matchType: ANY }], true))).toEqual({
      'client-id=app': { request_percentage: 12.5 },
      'client-id=<default>': { producer_byte_rate: 4096 },
    })
    expect(
      entries(
        await describeQuotas([
          { entityType: 'user', matchType: ANY },
          { entityType: 'client-id', matchType: EXACT, match: 'app' },
        ]),
      ),
    ).toEqual({ 'client-id=app,user=alice': { producer_byte_rate: 512 } })
    expect(
      entries(
        await describeQuotas([
          { entityType: 'user', matchType: DEFAULT },
          { entityType: 'client-id', matchType: ANY },
        ]),
      ),
    ).toEqual({ 'client-id=<default>,user=<default>': { consumer_byte_rate: 256 } })
    expect(entries(await describeQuotas([{ entityType: 'user', matchType: EXACT, match: 'nobody' }]))).toEqual({})
  })

  it("refuses a bad filter with Kafka's code and message, and no entries", async () => {
    const refused = async (components: Parameters<typeof describeQuotas>[0], code: number, message: string) => {
      const res = await describeQuotas(components)
      expect([res.errorCode, res.errorMessage, res.entries]).toEqual([code, message, null])
    }
    const INVALID = ErrorCodes.INVALID_REQUEST
    await refused([{ entityType: '', matchType: ANY }], INVALID, 'Invalid empty entity type.')
    await refused(
      [
        { entityType: 'user', matchType: ANY },
        { entityType: 'user', matchType: DEFAULT },
      ],
      INVALID,
      'Entity type user cannot appear more than once in the filter.',
    )
    await refused([{ entityType: 'topic', matchType: ANY }], ErrorCodes.UNSUPPORTED_VERSION, 'Unsupported entity type topic')
    await refused([{ entityType: 'user', matchType: EXACT }], INVALID, 'Request specified MATCH_TYPE_EXACT, but set match string to null.')
    await refused(
      [{ entityType: 'user', matchType: DEFAULT, match: 'x' }],
      INVALID,
      'Request specified MATCH_TYPE_DEFAULT, but also specified a match string.',
    )
    await refused(
      [{ entityType: 'user', matchType: ANY, match: 'x' }],
      INVALID,
      'Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.',
    )
    await refused([{ entityType: 'user', matchType: 7 }], INVALID, 'Unknown match type 7')
    await refused(
      [
        { entityType: 'ip', matchType: ANY },
        { entityType: 'user', matchType: ANY },
      ],
      INVALID,
      'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
    )
  })

  it('validateOnly writes nothing; a removal removes; values change in place', async () => {
    const one = [{ entity: [clientId('v')], ops: [{ key: 'producer_byte_rate', value: 100 }] }]
    expect((await alter(one, true)).entries[0].errorCode).toBe(0)
    expect(entries(await describeQuotas([]))).toEqual({})
    await alter(one)
    await alter([
      {
        entity: [clientId('v')],
        ops: [
          { key: 'consumer_byte_rate', value: 300 },
          { key: 'producer_byte_rate', value: 200 },
        ],
      },
    ])
    expect(entries(await describeQuotas([]))).toEqual({ 'client-id=v': { producer_byte_rate: 200, consumer_byte_rate: 300 } })
    await alter([{ entity: [clientId('v')], ops: [{ key: 'producer_byte_rate', remove: true }] }])
    expect(entries(await describeQuotas([]))).toEqual({ 'client-id=v': { consumer_byte_rate: 300 } })
    // The last key removed: the entity is gone; removing a key not set is no error.
    await alter([
      {
        entity: [clientId('v')],
        ops: [
          { key: 'consumer_byte_rate', remove: true },
          { key: 'request_percentage', remove: true },
        ],
      },
    ])
    expect(entries(await describeQuotas([]))).toEqual({})
  })

  it("refuses each bad entity with Kafka's code and message, the others applied", async () => {
    const res = await alter([
      { entity: [clientId('ok')], ops: [{ key: 'request_percentage', value: 50 }] },
      { entity: [clientId('bad-key')], ops: [{ key: 'no_such_rate', value: 1 }] },
      { entity: [user('frac')], ops: [{ key: 'producer_byte_rate', value: 1.5 }] },
      { entity: [user('zero')], ops: [{ key: 'request_percentage', value: 0 }] },
      { entity: [user('huge')], ops: [{ key: 'consumer_byte_rate', value: 2 ** 64 }] },
      { entity: [{ entityType: 'ip', entityName: null }, user('u')], ops: [{ key: 'connection_creation_rate', value: 1 }] },
      { entity: [], ops: [{ key: 'producer_byte_rate', value: 1 }] },
      { entity: [{ entityType: 'group', entityName: 'g' }], ops: [{ key: 'producer_byte_rate', value: 1 }] },
      { entity: [user('')], ops: [{ key: 'producer_byte_rate', value: 1 }] },
      { entity: [user('x'), user('y')], ops: [{ key: 'producer_byte_rate', value: 1 }] },
      {
        entity: [clientId('dup')],
        ops: [
          { key: 'producer_byte_rate', value: 1 },
          { key: 'producer_byte_rate', value: 2 },
        ],
      },
      { entity: [{ entityType: 'ip', entityName: 'not-an-ip' }], ops: [{ key: 'connection_creation_rate', value: 1 }] },
      { entity: [{ entityType: 'ip', entityName: '10.0.0.1' }], ops: [{ key: 'producer_byte_rate', value: 1 }] },
      { entity: [clientId('ok')], ops: [{ key: 'producer_byte_rate', value: 1 }] },
    ])
    const INVALID = ErrorCodes.INVALID_REQUEST
    expect(res.entries.map((e) => [e.errorCode, e.errorMessage])).toEqual([
      [0, null],
      [INVALID, 'Invalid configuration key no_such_rate'],
      [INVALID, 'producer_byte_rate cannot be a fractional value.'],
      [INVALID, 'Quota request_percentage must be greater than 0'],
      [INVALID, 'Proposed value for consumer_byte_rate is too large for a LONG.'],
      [INVALID, 'Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId'],
      [INVALID, 'Invalid empty client quota entity'],
      [INVALID, 'Unhandled client quota entity type: group'],
      [INVALID, 'Empty user not supported'],
      [INVALID, 'Invalid client quota entity, duplicate entity entry user'],
      [INVALID, 'Duplicate quota key producer_byte_rate not updating quota for this entity client-id=dup'],
      [INVALID, 'not-an-ip is not a valid IP or resolvable host.'],
      [INVALID, 'Invalid configuration key producer_byte_rate'],
      [INVALID, 'Ignoring duplicate entity client-id=ok'],
    ])
    expect(entries(await describeQuotas([]))).toEqual({ 'client-id=ok': { request_percentage: 50 } })
  })

  it('are kept in the metadata log across restarts and in its snapshot', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wafka-quotas-'))
    dataDirs.push(dataDir)
    client.close()
    await cluster.stop()
    cluster = await startCluster({ brokers: 1, dataDir })
    client = await RawClient.open(cluster.bootstrapServers)
    await setSome()
    await alter([{ entity: [user(null)], ops: [{ key: 'consumer_byte_rate', remove: true }] }])
    const before = entries(await describeQuotas([]))
    expect(Object.keys(before)).toHaveLength(5)
    // Twice: once replaying the records appended, once the snapshot the first restart wrote.
    for (let i = 0; i < 2; i++) {
      client.close()
      await cluster.stop()
      cluster = await startCluster({ brokers: 1, dataDir })
      client = await RawClient.open(cluster.bootstrapServers)
      expect(entries(await describeQuotas([]))).toEqual(before)
    }
    // The snapshot's records alone give the same quotas back.
    const c = new Controller()
    alterClientQuotas(c, [{ entity: [user('u'), clientId('c')], ops: [{ key: 'request_percentage', value: 3, remove: false }] }], false)
    expect(Controller.replay(snapshotRecords(c)).clientQuotas).toEqual(c.clientQuotas)
  })
})

describe("the quota that applies: Kafka's precedence", () => {
  it('user+client-id, user+default client-id, user, default user+client-id, default user+default client-id, default user, client-id, default client-id', () => {
    const c = new Controller()
    const m = new ClientQuotaManager('producer_byte_rate', () => c, { samples: 11, windowMs: 1000 }, null)
    const levels: Entity[] = [
      [user('alice'), clientId('app')],
      [user('alice'), clientId(null)],
      [user('alice')],
      [user(null), clientId('app')],
      [user(null), clientId(null)],
      [user(null)],
      [clientId('app')],
      [clientId(null)],
    ]
    const set = (entity: Entity, value: number | null) =>
      alterClientQuotas(c, [{ entity, ops: [{ key: 'producer_byte_rate', value: value ?? 0, remove: value === null }] }], false)
    levels.forEach((entity, i) => set(entity, 100 + i))
    const alice = { user: 'alice', clientId: 'app' }
    // Each level removed in turn: the next one applies.
    levels.forEach((entity, i) => {
      expect(m.limitFor(alice)?.limit, JSON.stringify(entity)).toBe(100 + i)
      set(entity, null)
    })
    expect(m.limitFor(alice)).toBeNull()
    // Without SASL the user is Kafka's ANONYMOUS; another key's quota is not this one's.
    set([user('ANONYMOUS')], 7)
    alterClientQuotas(c, [{ entity: [clientId('app')], ops: [{ key: 'consumer_byte_rate', value: 9, remove: false }] }], false)
    expect(m.limitFor({ user: null, clientId: 'app' })?.limit).toBe(7)
  })

  it("a user's quota is shared by its client ids; a default gives each client id its own rate", () => {
    const c = new Controller()
    const m = new ClientQuotaManager('producer_byte_rate', () => c, { samples: 11, windowMs: 1000 }, null)
    alterClientQuotas(c, [{ entity: [user('bob')], ops: [{ key: 'producer_byte_rate', value: 10, remove: false }] }], false)
    alterClientQuotas(c, [{ entity: [clientId(null)], ops: [{ key: 'producer_byte_rate', value: 10, remove: false }] }], false)
    expect(m.limitFor({ user: 'bob', clientId: 'a' })?.rate).toBe(m.limitFor({ user: 'bob', clientId: 'b' })?.rate)
    expect(m.limitFor({ user: 'eve', clientId: 'a' })?.rate).not.toBe(m.limitFor({ user: 'eve', clientId: 'b' })?.rate)
  })
})

describe('the rate and the throttle (KIP-13, KIP-219)', () => {
  it("measures over the samples, at least samples - 1 windows, and throttles for Kafka's (rate - quota) / quota × window", () => {
    const r = new SampledRate(11, 1000)
    r.record(5000, 0)
    // 5000 over the 10 windows a fresh rate is measured over.
    expect(r.measure(0)).toBe(500)
    expect(r.windowSize(0)).toBe(10_000)
    r.record(5000, 12_500)
    // The first sample has expired (11 windows old): only the second counts, its window on the first one's grid
    // (from 12 000), still over at least 10 windows.
    expect(r.measure(12_500)).toBe(5000 / 10.5)
    const c = new Controller()
    const m = new ClientQuotaManager('producer_byte_rate', () => c, { samples: 11, windowMs: 1000 }, null)
    alterClientQuotas(c, [{ entity: [clientId('p')], ops: [{ key: 'producer_byte_rate', value: 100, remove: false }] }], false)
    // 3000 bytes over 10 s is 300/s: (300 - 100) / 100 × 10 s.
    expect(m.record({ user: null, clientId: 'p' }, 3000, 1000)).toBe(20_000)
    const request = new ClientQuotaManager('producer_byte_rate', () => c, { samples: 11, windowMs: 1000 }, 1000)
    // request_percentage's throttle is at most one window.
    expect(request.record({ user: null, clientId: 'p' }, 3000, 1000)).toBe(1000)
  })

  const batch = (n: number) =>
    encodeRecordBatch(
      Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: Buffer.alloc(1000, i) })),
      {},
    )
  const produce = (c: RawClient, n: number) =>
    c.request(Produce, 9, { acks: 1, timeoutMs: 5000, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch(n) }] }] })

  it('Produce over producer_byte_rate is appended, answered with throttle_time_ms, and its connection muted for it', async () => {
    await alter([{ entity: [clientId('raw')], ops: [{ key: 'producer_byte_rate', value: 4096 }] }])
    const first = await produce(client, 10)
    expect(first.responses[0].partitionResponses[0].errorCode).toBe(0)
    // ~10 KB over the 1 s a fresh rate is measured over (2 windows: at least 1), at 4 KB/s.
    expect(first.throttleTimeMs).toBeGreaterThan(1000)
    const sent = Date.now()
    // The next request waits in the socket until the throttle has passed.
    const second = await produce(client, 1)
    expect(Date.now() - sent).toBeGreaterThanOrEqual(first.throttleTimeMs - 50)
    expect(second.responses[0].partitionResponses[0].baseOffset).toBe(10n)
    // Another client id is not throttled.
    const other = await RawClient.open(cluster.bootstrapServers)
    try {
      const res = await other.request(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' })
      expect(res.throttleTimeMs).toBe(0)
    } finally {
      other.close()
    }
  })

  it('Fetch over consumer_byte_rate is answered empty and unrecorded; the read after the throttle gets the records', async () => {
    await produce(client, 10)
    await alter([{ entity: [clientId('raw')], ops: [{ key: 'consumer_byte_rate', value: 4096 }] }])
    const fetch = () => fetchAll(client)
    const throttled = await fetch()
    expect(throttled.throttleTimeMs).toBeGreaterThan(0)
    expect(throttled.responses).toEqual([])
    // Unrecorded: once the throttle has passed the same read is within the quota again... and over it once more.
    const after = await fetch()
    expect(after.responses).toEqual([])
    expect(after.throttleTimeMs).toBeGreaterThan(0)
    // A smaller read fits.
    await alter([{ entity: [clientId('raw')], ops: [{ key: 'consumer_byte_rate', value: 1 << 20 }] }])
    const read = await fetch()
    expect(read.throttleTimeMs).toBe(0)
    expect(read.responses[0].partitions[0].records).not.toBeNull()
  })

  it("a fetch reads no more than consumer_byte_rate lets through over the windows but one (Kafka's maxValueInQuotaWindow)", async () => {
    for (let i = 0; i < 10; i++) await produce(client, 1)
    // 2 windows of 1 s: 4096 bytes a fetch, about four of the ten 1 KB batches, and so within the quota.
    await alter([{ entity: [clientId('raw')], ops: [{ key: 'consumer_byte_rate', value: 4096 }] }])
    const res = await fetchAll(client)
    expect(res.throttleTimeMs).toBe(0)
    const bytes = (res.responses[0].partitions[0].records as Buffer).length
    expect(bytes).toBeGreaterThan(1000)
    expect(bytes).toBeLessThanOrEqual(4096)
  })

  it('request_percentage throttles any API by the time the broker spends on it, ApiVersions exempt', async () => {
    await alter([{ entity: [clientId('raw')], ops: [{ key: 'request_percentage', value: 0.0001 }] }])
    let throttle = 0
    for (let i = 0; i < 50 && throttle === 0; i++) throttle = (await describeQuotas([])).throttleTimeMs
    expect(throttle).toBeGreaterThan(0)
    expect(throttle).toBeLessThanOrEqual(1000)
    const res = await client.request(ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' })
    expect(res.throttleTimeMs).toBe(0)
  })
})

/** Fetch v12 of topic t partition 0 from offset 0, up to 1 MiB, answered at once. */
function fetchAll(client: RawClient) {
  return client.request(Fetch, 12, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 1,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: 't',
        topicId: '',
        partitions: [
          {
            partition: 0,
            currentLeaderEpoch: -1,
            fetchOffset: 0n,
            lastFetchedEpoch: -1,
            logStartOffset: -1n,
            partitionMaxBytes: 1 << 20,
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  })
}
