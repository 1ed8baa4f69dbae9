// The partitioners against the Java client's published murmur2 results,
// against independent implementations (KafkaJS's Java-compatible hash,
// librdkafka's murmur2 partitioners through kcat and the mock cluster), and
// the KafkaJS-named ones against KafkaJS itself on the same inputs.
import { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { Prng } from '../../bench/support/prng.js'
import { ConfigError } from '../../src/errors.js'
import {
  createPartitioner,
  DefaultPartitioner,
  kafkajsLegacyMurmur2,
  murmur2,
  murmur2Bytes,
  murmur2Partition,
  toPositive,
  type KafkaJSPartitionMetadata,
  type PartitionerArgs,
  type PartitionView,
} from '../../src/producer/partitioners/index.js'
import { kcatConsume, kcatProduce } from '../peers/kcat.js'
import { type MockCluster, requirePeers, startMockCluster } from '../peers/mock-cluster.js'
import { seedFromEnv } from '../prng.js'

const require = createRequire(import.meta.url)
type KafkaJSArgs = { topic: string; partitionMetadata: KafkaJSPartitionMetadata[]; message: { key?: unknown; partition?: number } }
const kafkajs = require('kafkajs') as { Partitioners: Record<'DefaultPartitioner' | 'LegacyPartitioner', () => (a: KafkaJSArgs) => number> }
const kafkajsJavaMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2.js') as (key: unknown) => number
const kafkajsLegacyHash = require('kafkajs/src/producer/partitioners/legacy/murmur2.js') as (key: unknown) => number

const seed = seedFromEnv('WAFKA_PARTITIONER_SEED')

/** ASCII, Latin, CJK, astral (surrogate pairs) and the odd lone surrogate, 0..maxLength code units. */
function randomKey(rng: Prng, maxLength: number): string | Buffer {
  const length = rng.int(maxLength + 1)
  const kind = rng.int(4)
  if (kind === 0) return rng.bytes(length)
  let s = ''
  while (s.length < length) {
    const r = rng.next()
    if (kind === 1 || r < 0.6) s += String.fromCharCode(rng.between(0x20, 0x7e))
    else if (r < 0.75) s += String.fromCharCode(rng.between(0xa0, 0x7ff))
    else if (r < 0.87) s += String.fromCharCode(rng.between(0x4e00, 0x9fff))
    else if (r < 0.97) s += String.fromCodePoint(rng.between(0x10000, 0x10ffff))
    else s += String.fromCharCode(rng.between(0xd800, 0xdfff))
  }
  return s
}

/** `count` partitions, those in `leaderless` without a leader. */
function layout(count: number, leaderless: number[] = []): { available: number[]; metadata: PartitionView[] } {
  const metadata = Array.from({ length: count }, (_, partition) => ({
    partition,
    leader: leaderless.includes(partition) ? -1 : 1 + (partition % 3),
    replicas: [1, 2, 3],
    isr: [1, 2, 3],
    offlineReplicas: [],
    errorCode: leaderless.includes(partition) ? 5 : 0,
  }))
  return { available: metadata.filter((p) => p.leader >= 0).map((p) => p.partition), metadata }
}

const asKafkaJS = (metadata: PartitionView[]): KafkaJSPartitionMetadata[] =>
  metadata.map((p) => ({
    partitionErrorCode: p.errorCode ?? 0,
    partitionId: p.partition,
    leader: p.leader,
    replicas: [...(p.replicas ?? [])],
    isr: [...(p.isr ?? [])],
    offlineReplicas: [],
  }))

describe('murmur2, as the Java client computes it', () => {
  it("matches Kafka's UtilsTest.testMurmur2 vectors", () => {
    const cases: [string | Uint8Array, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      [new Uint8Array([0x61, 0x62, 0x63]), 479470107],
    ]
    for (const [key, hash] of cases) {
      expect(murmur2(key)).toBe(hash)
      expect(murmur2(Buffer.from(key))).toBe(hash)
    }
  })

  it("matches librdkafka's java_murmur2_results, every alignment and the empty key", () => {
    const short = '1234'
    const unaligned = 'PreAmbleWillBeRemoved,ThePrePartThatIs'
    const cases: [string, number][] = [
      ['kafka', 0xd067cf64],
      ['giberish123456789', 0x8f552b0c],
      [short, 0x9fc97b14],
      [short.slice(1), 0xe7c009ca],
      [short.slice(2), 0x873930da],
      [short.slice(3), 0x5a4b5ca1],
      [unaligned, 0x78424f1c],
      [unaligned.slice(1), 0x4a62b377],
      [unaligned.slice(2), 0xe0e4e09e],
      [unaligned.slice(3), 0x62b8b43f],
      ['', 0x106e08d9],
    ]
    for (const [key, hash] of cases) {
      expect(murmur2(key)).toBe(hash | 0)
      // A view at an odd offset into a larger buffer.
      const backing = Buffer.from(`xyz${key}`)
      expect(murmur2(backing.subarray(3))).toBe(hash | 0)
    }
  })

  it('matches hashes printed by the Java client (KafkaJS Test.java, Akka Murmur2Spec)', () => {
    const cases: Record<string, number> = {
      '0': 971027396,
      '1': -1993445489,
      '12': 126087238,
      '123': -267702483,
      '1234': -1614185708,
      '12345': -1188365604,
      '128': -326012175,
      '2187': -1508407203,
      '16384': -325739742,
      '78125': -1654490814,
      '279936': 1462227128,
      '823543': -2014198330,
      '2097152': 607668903,
      '4782969': -1182699775,
      '10000000': -1830336757,
      '19487171': -1603849305,
      '35831808': -857013643,
      '62748517': -1167431028,
      '105413504': -381294639,
      '170859375': -1658323481,
      '100:48069': 1009543857,
    }
    for (const [key, hash] of Object.entries(cases)) expect(murmur2(key)).toBe(hash)
  })

  it("matches the Java partitioner's choices over 1000 partitions (kafka-python's compatibility test)", () => {
    const cases: [Uint8Array, number][] = [
      [Buffer.from(''), 681],
      [Buffer.from('a'), 524],
      [Buffer.from('ab'), 434],
      [Buffer.from('abc'), 107],
      [Buffer.from('123456789'), 566],
      [Buffer.from([0x00, 0x20]), 742],
    ]
    for (const [key, partition] of cases) expect(murmur2Partition(key, 1000)).toBe(partition)
  })

  it('keys "0".."9" over 10, 12 and 100 partitions: toPositive(hash) % n, as KafkaJS\'s Java-compatible hash gives', () => {
    // No published Java table for these; "0" and "1" follow from the Java-printed hashes above.
    expect([10, 12, 100].map((n) => murmur2Partition('0', n))).toEqual([971027396 % 10, 971027396 % 12, 971027396 % 100])
    expect([10, 12, 100].map((n) => murmur2Partition('1', n))).toEqual([10, 12, 100].map((n) => toPositive(-1993445489) % n))
    for (const n of [10, 12, 100]) {
      for (let d = 0; d < 10; d++) expect(murmur2Partition(String(d), n)).toBe(toPositive(kafkajsJavaMurmur2(String(d))) % n)
    }
  })

  it('toPositive clears the sign bit (not Math.abs)', () => {
    expect(toPositive(-1)).toBe(0x7fffffff)
    expect(toPositive(-2147483648)).toBe(0)
    expect(toPositive(-973932308)).toBe(-973932308 & 0x7fffffff)
    expect(toPositive(5)).toBe(5)
  })

  it("hashes a string's UTF-8 bytes: non-ASCII, astral, lone surrogates as U+FFFD, keys past the scratch buffer", () => {
    const keys = ['é', 'aé', 'abcé', 'ü-key', '日本語のキー', '𝄞 clef', 'a\ud800b', '\udfff', 'x'.repeat(300) + 'é', 'é'.repeat(30_000)]
    for (const key of keys) {
      expect(murmur2(key)).toBe(murmur2(Buffer.from(key, 'utf8')))
      expect(murmur2(key)).toBe(kafkajsJavaMurmur2(key))
    }
    expect(murmur2('a\ud800')).toBe(murmur2(Buffer.from([0x61, 0xef, 0xbf, 0xbd])))
    // The scratch buffer is reused: a short key after a long one must not see stale bytes.
    expect(murmur2('é')).toBe(murmur2(Buffer.from([0xc3, 0xa9])))
    expect(murmur2Bytes(Buffer.from('foobar!!'), 6)).toBe(-790332482)
  })

  it(`agrees with KafkaJS's Java-compatible murmur2 on 10,000 random keys and partition counts (seed ${seed})`, () => {
    const rng = new Prng(seed)
    const partitioner = kafkajs.Partitioners.DefaultPartitioner()
    for (let i = 0; i < 10_000; i++) {
      const key = randomKey(rng, i < 9_000 ? 40 : 600)
      const count = 1 + rng.int(i % 2 ? 16 : 1000)
      expect(murmur2(key)).toBe(kafkajsJavaMurmur2(key))
      const { metadata } = layout(count)
      expect(murmur2Partition(key, count)).toBe(partitioner({ topic: 't', partitionMetadata: asKafkaJS(metadata), message: { key } }))
      expect(murmur2Partition(key, count)).toBe(toPositive(kafkajsJavaMurmur2(key)) % count)
    }
  })
})

describe.skipIf(!requirePeers({ builds: ['modern'] }))("librdkafka's murmur2 partitioners (kcat, mock cluster)", () => {
  let cluster: MockCluster

  beforeAll(async () => {
    cluster = await startMockCluster({ brokers: 3, build: 'modern' })
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('murmur2_random puts 500 keyed messages exactly where our murmur2 says (every partition of 7 used)', async () => {
    const rng = new Prng(Prng.derive(seed, 1))
    await cluster.createTopic('keyed', { partitions: 7, replicationFactor: 3 })
    const messages = Array.from({ length: 500 }, (_, i) => {
      let key = randomKey(rng, 24)
      if (key.length === 0) key = `k${i}` // an empty key is not a key to kcat
      return { key, value: `v${i}` }
    })
    await kcatProduce(cluster.bootstrap, 'keyed', messages, { config: { partitioner: 'murmur2_random' } })
    const got = await kcatConsume(cluster.bootstrap, 'keyed', { count: 500 })
    expect(got).toHaveLength(500)
    const expected = createPartitioner('default')
    const layout7 = layout(7)
    for (const m of got) {
      const key = m.key!
      expect(m.partition, `key ${key.toString('hex')}`).toBe(murmur2Partition(key, 7))
      expect(m.partition).toBe(expected.partition('keyed', key, 7, layout7.available))
      const sent = messages[Number(m.value!.toString().slice(1))]
      expect(Buffer.from(sent.key).equals(key)).toBe(true)
    }
    expect(new Set(got.map((m) => m.partition)).size).toBe(7)
  })

  it("'murmur2' matches librdkafka's murmur2: keyed by hash, keyless all to murmur2('') % n", async () => {
    const rng = new Prng(Prng.derive(seed, 2))
    await cluster.createTopic('hashed', { partitions: 5, replicationFactor: 3 })
    const messages = Array.from({ length: 100 }, (_, i) => ({ key: i % 2 ? null : `key-${rng.u32().toString(36)}`, value: `v${i}` }))
    await kcatProduce(cluster.bootstrap, 'hashed', messages, { config: { partitioner: 'murmur2' } })
    const got = await kcatConsume(cluster.bootstrap, 'hashed', { count: 100 })
    expect(got).toHaveLength(100)
    const ours = createPartitioner('murmur2')
    const { available } = layout(5)
    for (const m of got) expect(m.partition).toBe(ours.partition('hashed', m.key, 5, available))
    const keyless = got.filter((m) => m.key === null)
    expect(keyless).toHaveLength(50)
    expect(new Set(keyless.map((m) => m.partition))).toEqual(new Set([toPositive(0x106e08d9) % 5]))
  })
})

describe("the default partitioner (Java's, KIP-794)", () => {
  const { available: four } = layout(4)

  it('a fixed partition wins; keys go by murmur2 whatever the sticky partition; an empty key is a key', () => {
    const p = createPartitioner('default', { random: () => 0.99 })
    expect(p.partition('t', 'foobar', 4, four, { key: 'foobar', partition: 2 })).toBe(2)
    expect(p.partition('t', 'foobar', 4, four)).toBe(murmur2Partition('foobar', 4))
    expect(p.partition('t', Buffer.from('foobar'), 4, four)).toBe(murmur2Partition('foobar', 4))
    expect(p.partition('t', '', 1000, layout(1000).available)).toBe(681)
    expect(p.partition('t', null, 4, four)).toBe(3)
    expect(p.partition('t', undefined, 4, four)).toBe(3)
  })

  it('keyless records stay on one partition until its batch is full, then move to another', () => {
    const rng = new Prng(Prng.derive(seed, 3))
    const p = new DefaultPartitioner({ random: () => rng.next() })
    let current = p.partition('t', null, 4, four)
    for (let batch = 0; batch < 200; batch++) {
      for (let i = 0; i < 20; i++) expect(p.partition('t', null, 4, four)).toBe(current)
      // Other partitions' batches filling (keyed records) do not move it.
      p.onBatchFull('t', (current + 1) % 4)
      p.onBatchFull('other-topic', current)
      expect(p.partition('t', null, 4, four)).toBe(current)
      p.onBatchFull('t', current)
      const next = p.partition('t', null, 4, four)
      expect(next).not.toBe(current)
      current = next
    }
  })

  it('is deterministic for an injected random: uniform pick, skipping the partition just left', () => {
    const p = new DefaultPartitioner({ random: () => 0 })
    const seen: number[] = []
    for (let i = 0; i < 6; i++) {
      seen.push(p.partition('t', null, 4, four))
      p.onBatchFull('t', seen[i])
    }
    expect(seen).toEqual([0, 1, 0, 1, 0, 1])
    const q = new DefaultPartitioner({ random: () => 0.999 })
    const last: number[] = []
    for (let i = 0; i < 4; i++) {
      last.push(q.partition('t', null, 4, four))
      q.onBatchFull('t', last[i])
    }
    expect(last).toEqual([3, 2, 3, 2])
  })

  it('uses every partition over many batches, about evenly', () => {
    const rng = new Prng(Prng.derive(seed, 4))
    const p = new DefaultPartitioner({ random: () => rng.next() })
    const { available } = layout(12)
    const batches = new Array<number>(12).fill(0)
    for (let b = 0; b < 12_000; b++) {
      const at = p.partition('t', null, 12, available)
      batches[at]++
      p.onBatchFull('t', at)
    }
    for (const n of batches) expect(n).toBeGreaterThan(800) // 1000 expected each
  })

  it('avoids partitions without a leader; with none led, uses any; leaves one that loses its leader at once', () => {
    const rng = new Prng(Prng.derive(seed, 5))
    const p = new DefaultPartitioner({ random: () => rng.next() })
    const some = layout(6, [1, 3, 4]).available
    const used = new Set<number>()
    for (let b = 0; b < 300; b++) {
      const at = p.partition('t', null, 6, some)
      used.add(at)
      p.onBatchFull('t', at)
    }
    expect([...used].sort()).toEqual([0, 2, 5])

    const none = layout(3, [0, 1, 2]).available
    const anyUsed = new Set<number>()
    for (let b = 0; b < 100; b++) {
      const at = p.partition('u', null, 3, none)
      anyUsed.add(at)
      p.onBatchFull('u', at)
    }
    expect([...anyUsed].sort()).toEqual([0, 1, 2])

    // The sticky partition loses its leader: the next metadata moves keyless records off it.
    const v = new DefaultPartitioner({ random: () => 0 })
    expect(v.partition('v', null, 4, four)).toBe(0)
    expect(v.partition('v', null, 4, layout(4, [0]).available)).toBe(1)
    // The same list again, or a new list still leading it: it stays.
    expect(v.partition('v', null, 4, layout(4, [3]).available)).toBe(1)
    // The topic was recreated with fewer partitions.
    expect(v.partition('v', null, 1, layout(1).available)).toBe(0)
  })

  it('keeps one sticky partition per topic, and a single partition stays put', () => {
    const p = new DefaultPartitioner({ random: () => 0.5 })
    expect(p.partition('a', null, 4, four)).toBe(2)
    expect(p.partition('b', null, 8, layout(8).available)).toBe(4)
    p.onBatchFull('a', 2)
    expect(p.partition('a', null, 4, four)).not.toBe(2)
    expect(p.partition('b', null, 8, layout(8).available)).toBe(4)
    const one = layout(1).available
    for (let i = 0; i < 5; i++) {
      expect(p.partition('single', null, 1, one)).toBe(0)
      p.onBatchFull('single', 0)
    }
  })

  it('ignoreKeys (Java partitioner.ignore.keys) sticks keyed records too', () => {
    const p = createPartitioner('default', { ignoreKeys: true, random: () => 0 })
    expect(p.partition('t', 'foobar', 4, four)).toBe(0)
    expect(p.partition('t', 'anything', 4, four)).toBe(0)
  })
})

describe("KafkaJS's partitioners, by name", () => {
  // KafkaJS seeds each topic's counter with randomBytes(32).readUInt32BE(0),
  // through globalThis.crypto.getRandomValues: the stub hands it seeded bytes
  // and hands ours the same number.
  const drawn: number[] = []
  afterEach(() => {
    vi.restoreAllMocks()
    drawn.length = 0
  })
  function stubKafkaJSRandom(rng: Prng): () => number {
    vi.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      const bytes = new Uint8Array(array!.buffer, array!.byteOffset, array!.byteLength)
      bytes.set(rng.bytes(bytes.length))
      drawn.push(Buffer.from(bytes.buffer, bytes.byteOffset, 4).readUInt32BE(0))
      return array
    })
    return () => drawn.shift()! / 2 ** 32
  }

  for (const [name, factory] of [
    ['kafkajs-default', 'DefaultPartitioner'],
    ['kafkajs-legacy', 'LegacyPartitioner'],
  ] as const) {
    it(`'${name}' makes KafkaJS's ${factory} choices exactly: keys, keyless round-robin, leaderless, fixed`, () => {
      const rng = new Prng(Prng.derive(seed, name.length))
      const random = stubKafkaJSRandom(rng)
      const theirs = kafkajs.Partitioners[factory]()
      const ours = createPartitioner(name, { random })
      const topics = [
        { topic: 'a', ...layout(6) },
        { topic: 'b', ...layout(5, [0, 2]) },
        { topic: 'c', ...layout(3, [0, 1, 2]) },
        { topic: 'd', ...layout(1) },
      ]
      for (let i = 0; i < 5_000; i++) {
        const t = rng.pick(topics)
        const r = rng.next()
        const key = r < 0.5 ? randomKey(rng, 30) : r < 0.55 ? '' : r < 0.6 ? undefined : null
        const message = rng.chance(0.05) ? { key, partition: rng.int(t.metadata.length) } : { key }
        const expected = theirs({ topic: t.topic, partitionMetadata: asKafkaJS(t.metadata), message })
        expect(ours.partition(t.topic, key, t.metadata.length, t.available, message)).toBe(expected)
      }
      expect(drawn).toEqual([]) // each topic drew once, on both sides
      expect(globalThis.crypto.getRandomValues).toHaveBeenCalledTimes(4)
    })
  }

  it(`'kafkajs-legacy' hashes as KafkaJS's legacy murmur2 on 10,000 random keys, and unlike Java's (seed ${seed})`, () => {
    const rng = new Prng(Prng.derive(seed, 6))
    let differ = 0
    for (let i = 0; i < 10_000; i++) {
      const key = randomKey(rng, i < 9_000 ? 40 : 300)
      expect(kafkajsLegacyMurmur2(key)).toBe(kafkajsLegacyHash(key))
      if (kafkajsLegacyMurmur2(key) !== murmur2(key)) differ++
    }
    expect(differ).toBeGreaterThan(5_000)
    // KafkaJS's own published legacy values.
    const published: Record<string, number> = {
      '0': 272173970,
      '1': 1311020360,
      '128': 2053105854,
      '2187': -2081355488,
      '16384': 204404061,
      '78125': -677491393,
      '279936': -622460209,
      '823543': 651276451,
      '2097152': 944683677,
      '4782969': -892695770,
      '10000000': -1778616326,
      '19487171': -518311627,
      '35831808': 556972389,
      '62748517': -233806557,
      '105413504': -109398538,
      '170859375': 102939717,
    }
    for (const [key, hash] of Object.entries(published)) {
      expect(kafkajsLegacyMurmur2(key)).toBe(hash)
      expect(kafkajsLegacyMurmur2(Buffer.from(key))).toBe(hash)
    }
  })

  it("a KafkaJS partitioner works as a custom one, seeing KafkaJS's partitionMetadata", () => {
    const theirs = kafkajs.Partitioners.DefaultPartitioner()
    const custom = createPartitioner(theirs as (args: PartitionerArgs) => number)
    const { available, metadata } = layout(10, [4])
    for (const key of ['a', 'b', 'foobar', Buffer.from('xyz')]) {
      expect(custom.partition('t', key, 10, available, { key }, metadata)).toBe(murmur2Partition(key, 10))
    }
    // Keyless: KafkaJS round-robins over the led partitions only, whether or not metadata is given.
    for (let i = 0; i < 20; i++) {
      expect(custom.partition('t', null, 10, available, { key: null }, metadata)).not.toBe(4)
      expect(custom.partition('t', null, 10, available, { key: null })).not.toBe(4)
    }
  })
})

describe('createPartitioner and custom partitioners', () => {
  const { available, metadata } = layout(4)

  it('resolves the names', () => {
    expect(createPartitioner()).toBeInstanceOf(DefaultPartitioner)
    expect(createPartitioner('default')).toBeInstanceOf(DefaultPartitioner)
    for (const name of ['murmur2', 'kafkajs-default', 'kafkajs-legacy'] as const) {
      expect(createPartitioner(name).partition('t', 'foobar', 4, available)).toBeGreaterThanOrEqual(0)
    }
  })

  it('refuses an unknown name with a ConfigError listing the valid ones, and suggests for known aliases', () => {
    expect(() => createPartitioner('round-robin' as never)).toThrow(ConfigError)
    expect(() => createPartitioner('round-robin' as never)).toThrow(
      /unknown partitioner "round-robin": use 'default', 'murmur2', 'kafkajs-default', 'kafkajs-legacy'/,
    )
    expect(() => createPartitioner('LegacyPartitioner' as never)).toThrow(/did you mean 'kafkajs-legacy'/)
    expect(() => createPartitioner('murmur2_random' as never)).toThrow(/did you mean 'default'/)
    expect(() => createPartitioner(42 as never)).toThrow(/unknown partitioner a value of type number/)
    expect(() => createPartitioner(null as never)).toThrow(/unknown partitioner null/)
    expect(() => createPartitioner({} as never)).toThrow(ConfigError)
    expect(() => createPartitioner('default', { random: 1 as never })).toThrow(/random must be a function/)
  })

  it('a custom function gets topic, counts, available ids, KafkaJS partitionMetadata and the message', () => {
    const calls: PartitionerArgs[] = []
    const p = createPartitioner((args) => {
      calls.push(args)
      return args.partitionCount - 1
    })
    const message = { key: 'k', value: 'v', headers: { h: '1' } }
    expect(p.partition('orders', 'k', 4, available, message, metadata)).toBe(3)
    const args = calls[0]
    expect(args.topic).toBe('orders')
    expect(args.partitionCount).toBe(4)
    expect(args.availablePartitions).toBe(available)
    expect(args.message).toBe(message)
    expect(args.partitionMetadata).toEqual(asKafkaJS(metadata))
    expect({ ...args }.partitionMetadata).toHaveLength(4) // an own property: survives a spread
    // Without metadata: 0 stands for a leader, -1 for none.
    p.partition('orders', 'k', 3, layout(3, [1]).available)
    expect(calls[1].partitionMetadata.map((m) => [m.partitionId, m.leader])).toEqual([
      [0, 0],
      [1, -1],
      [2, 0],
    ])
  })

  it('a fixed partition never reaches the custom partitioner', () => {
    const fn = vi.fn(() => 0)
    const p = createPartitioner(fn)
    expect(p.partition('t', 'k', 4, available, { key: 'k', partition: 3 })).toBe(3)
    expect(fn).not.toHaveBeenCalled()
  })

  it('a custom object gets the same arguments as the built-ins, and its onBatchFull', () => {
    const full: [string, number][] = []
    const p = createPartitioner({
      partition: (_topic, key, count) => (key == null ? 0 : count - 1),
      onBatchFull: (topic, partition) => full.push([topic, partition]),
    })
    expect(p.partition('t', 'k', 4, available)).toBe(3)
    expect(p.partition('t', null, 4, available)).toBe(0)
    p.onBatchFull('t', 0)
    expect(full).toEqual([['t', 0]])
    createPartitioner({ partition: () => 0 }).onBatchFull('t', 0) // optional
  })

  it('a custom partitioner answering outside the topic gets a ConfigError saying what it returned', () => {
    const returning = (value: unknown) =>
      function byRegion() {
        return value as number
      }
    expect(() => createPartitioner(returning(-1)).partition('orders', 'k', 4, available)).toThrow(ConfigError)
    expect(() => createPartitioner(returning(-1)).partition('orders', 'k', 4, available)).toThrow(
      'the custom partitioner "byRegion" returned -1 for topic "orders", which has 4 partitions: it must return an integer from 0 to 3',
    )
    for (const bad of [4, 100, 1.5, Number.NaN, undefined, '1', null]) {
      expect(() => createPartitioner(returning(bad)).partition('orders', 'k', 4, available)).toThrow(/returned .* for topic "orders"/)
    }
    expect(() => createPartitioner(returning(1)).partition('one', 'k', 1, [0])).toThrow(
      /which has 1 partition: it must return an integer from 0 to 0/,
    )
    class Broken {
      partition() {
        return 9
      }
    }
    expect(() => createPartitioner(new Broken()).partition('t', null, 4, available)).toThrow(/the custom partitioner "Broken" returned 9/)
    // A KafkaJS factory passed where its partitioner was meant.
    const factory = kafkajs.Partitioners.DefaultPartitioner as unknown as (args: PartitionerArgs) => number
    expect(() => createPartitioner(factory).partition('t', 'k', 4, available)).toThrow(/returned a function .*KafkaJS partitioner factory/)
  })
})
