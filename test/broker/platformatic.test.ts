// @platformatic/kafka, a client this project did not write that speaks the
// newest protocol versions (flexible Produce, Fetch with topic ids, Metadata
// v12), against the embedded broker: admin, produce every codec, a group.
import { afterEach, describe, expect, it } from 'vitest'
import { Admin, Consumer, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { until } from './support.js'

// Its zstd needs a newer Node's zlib than this one.
const CODECS = ['none', 'gzip', 'snappy', 'lz4'] as const

let cluster: RunningCluster | undefined
const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((c) => c()))
  await cluster?.stop()
  cluster = undefined
})

async function start(): Promise<string[]> {
  cluster = await startCluster({ brokers: 3 })
  return cluster.bootstrapServers.split(',')
}

function admin(bootstrapBrokers: string[]): Admin {
  const a = new Admin({ clientId: 'pk-admin', bootstrapBrokers })
  closers.push(() => a.close())
  return a
}

function producer(bootstrapBrokers: string[], compression: (typeof CODECS)[number]) {
  const p = new Producer({
    clientId: 'pk-producer',
    bootstrapBrokers,
    serializers: stringSerializers,
    compression,
    idempotent: true,
    acks: -1,
  } as any)
  closers.push(() => p.close())
  return p
}

interface Got {
  partition: number
  offset: bigint
  key: string
  value: string
  headers: Record<string, string>
  member: number
}

async function consume(bootstrapBrokers: string[], groupId: string, topic: string, into: Got[], member = 0) {
  const c = new Consumer({
    clientId: `pk-consumer-${member}`,
    groupId,
    bootstrapBrokers,
    deserializers: stringDeserializers,
    sessionTimeout: 10_000,
    heartbeatInterval: 500,
    maxWaitTime: 200,
  } as any)
  closers.unshift(() => c.close(true))
  const stream = await c.consume({ topics: [topic], mode: 'earliest', autocommit: 200 } as any)
  stream.on('data', (m: any) =>
    into.push({
      partition: m.partition,
      offset: m.offset,
      key: m.key,
      value: m.value,
      headers: Object.fromEntries([...m.headers.entries()]),
      member,
    }),
  )
  return c
}

const sample = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    key: `${tag}-k${i}`,
    value: i % 5 === 0 ? '' : `${tag} value ${i} ü 𝄞 ${'x'.repeat(i % 50)}`,
    headers: { seq: String(i), tag },
  }))

describe('@platformatic/kafka against the embedded broker', () => {
  it('admin: creates, lists and deletes topics, describes groups', async () => {
    const brokers = await start()
    const a = admin(brokers)
    const created = await a.createTopics({ topics: ['pk-a'], partitions: 3, replicas: 1 })
    expect(created.map((t) => [t.name, t.partitions])).toEqual([['pk-a', 3]])
    expect(created[0].id).toMatch(/^[0-9a-f-]{36}$|^[A-Za-z0-9_-]{22}$/)
    expect(await a.listTopics()).toContain('pk-a')
    const md = await a.metadata({ topics: ['pk-a'] })
    expect(md.topics.get('pk-a')!.partitionsCount).toBe(3)
    await a.deleteTopics({ topics: ['pk-a'] })
    expect(await a.listTopics()).not.toContain('pk-a')
  })

  it.each(CODECS)('%s: produced by @platformatic/kafka, consumed by it in a group, exactly', async (compression) => {
    const brokers = await start()
    const topic = `pk-${compression}`
    await admin(brokers).createTopics({ topics: [topic], partitions: 3, replicas: 1 })
    const sent = sample(150, compression)
    const p = producer(brokers, compression)
    for (let at = 0; at < sent.length; at += 30) await p.send({ messages: sent.slice(at, at + 30).map((m) => ({ ...m, topic })) })
    const got: Got[] = []
    await consume(brokers, `pk-group-${compression}`, topic, got)
    await until(
      () => got.length >= sent.length,
      30_000,
      () => `${got.length} of ${sent.length}`,
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(got.length).toBe(sent.length)
    const byKey = new Map(got.map((g) => [g.key, g]))
    for (const m of sent) expect(byKey.get(m.key)).toMatchObject({ value: m.value, headers: m.headers })
    // Each partition in send order.
    const last = new Map<number, number>()
    for (const g of got) {
      const seq = Number(g.headers.seq)
      expect(seq).toBeGreaterThan(last.get(g.partition) ?? -1)
      last.set(g.partition, seq)
    }
  })

  it('a group of two splits the partitions; the group is described as Stable', async () => {
    const brokers = await start()
    const a = admin(brokers)
    await a.createTopics({ topics: ['pk-g'], partitions: 4, replicas: 1 })
    const got: Got[] = []
    await consume(brokers, 'pk-two', 'pk-g', got, 0)
    await consume(brokers, 'pk-two', 'pk-g', got, 1)
    await until(
      async () => {
        const g = (await a.describeGroups({ groups: ['pk-two'] })).get('pk-two')
        return g?.state === 'STABLE' && g.members.size === 2
      },
      30_000,
      () => 'a stable group of two',
    )
    // A fetch the first member sent for its old assignment (before the rebalance) would deliver what is
    // produced while it waits, as it would from Kafka: let those long polls (200 ms) end first.
    await new Promise((r) => setTimeout(r, 1000))
    const sent = sample(80, 'g')
    await producer(brokers, 'none').send({ messages: sent.map((m) => ({ ...m, topic: 'pk-g' })) })
    await until(
      () => got.length >= sent.length,
      30_000,
      () => `${got.length} of ${sent.length}`,
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(new Set(got.map((g) => g.key)).size).toBe(sent.length)
    const owner = new Map<number, number>()
    for (const g of got) {
      expect(owner.get(g.partition) ?? g.member).toBe(g.member)
      owner.set(g.partition, g.member)
    }
    expect(new Set(owner.values()).size).toBe(2)
  })
})
