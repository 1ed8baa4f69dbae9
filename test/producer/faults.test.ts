// Idempotent producing under faults: while 200,000 messages go out through
// many concurrent send() calls (wafka's default config: idempotent, acks=all),
// the mock cluster answers Produce with NOT_LEADER_OR_FOLLOWER (6),
// NOT_ENOUGH_REPLICAS (19) and dropped connections (-195), cluster-wide and
// per broker, moves partition leaders and takes brokers down and up again.
//
// Every send must resolve (none rejects, none hangs past a bound), and the
// log, read back as raw batches and judged the way a broker judges
// idempotent batches — by (producerId, producerEpoch, baseSequence) — must
// hold exactly the messages sent, once, each partition in send order. The
// mock checks sequences only for transactional producers, so it appends a
// batch again when its first answer was lost (a dropped connection after the
// write) and appends an in-flight batch that follows a failed one ahead of
// it: both are what a real broker would refuse (DUPLICATE_SEQUENCE_NUMBER,
// OUT_OF_ORDER_SEQUENCE_NUMBER), so copies with the same identity (and the
// same records) are dropped, and order is judged by sequence. What wafka
// itself must never do: send records under two identities, or leave a gap
// or an overlap in a partition's sequences within one (producerId, epoch).
//
// Randomized but replayable: the seed is printed; WAFKA_FAULTS_SEED replays it.
import { Buffer } from 'node:buffer'
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka, type Message } from '../../src/index.js'
import { type RecordBatch } from '../../src/public/codec.js'
import { Prng } from '../../bench/support/prng.js'
import { DISCONNECT, requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { seedFromEnv } from '../prng.js'
import { fingerprint, sendAll, wireOf } from './load.js'
import { readBatches } from './support.js'

const seed = seedFromEnv('WAFKA_FAULTS_SEED')
const COUNT = Number(process.env.WAFKA_FAULTS_COUNT ?? 200_000)
const PARTITIONS = 12
const CHUNK = 250
const WINDOW = 48
/** Longer than deliveryTimeoutMs (120 s): a batch wafka gives up on rejects its send before this. */
const SEND_DEADLINE_MS = 150_000
const PRODUCE = 0
const NOT_LEADER_OR_FOLLOWER = 6
const NOT_ENOUGH_REPLICAS = 19
const MAX_REPORTED = 8

console.log(`producer faults seed ${seed}, ${COUNT} messages a build (replay: WAFKA_FAULTS_SEED=${seed})`)

const peers = requirePeers()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Message i's value starts with "i:", so a record names the message it is. */
function messages(rng: Prng, count: number): Message[] {
  return Array.from({ length: count }, (_, i) => {
    const k = rng.next()
    const key = k < 0.1 ? null : k < 0.15 ? rng.bytes(rng.between(1, 12)) : `key-${rng.int(3000)}`
    const value = Buffer.concat([Buffer.from(`${i}:`), rng.bytes(rng.int(60))])
    const headers = rng.chance(0.3) ? [['i', `${i}`] as [string, string], ['bin', rng.bytes(rng.int(8))] as [string, Buffer]] : undefined
    return { key, value, headers }
  })
}

const indexOf = (value: Buffer | null): number => {
  const colon = value ? value.indexOf(0x3a) : -1
  return colon > 0 ? Number(value!.subarray(0, colon).toString('latin1')) : -1
}

interface Fault {
  /** Injected once this share of the messages' sends have settled. */
  at: number
  name: string
  run(mock: MockCluster): Promise<void>
}

const moveLeaders = (round: number) => async (mock: MockCluster) => {
  for (let p = 0; p < PARTITIONS; p += 2) await mock.setLeader('faults', p, ((p + round) % 3) + 1)
}

const FAULTS: Fault[] = [
  {
    at: 0.04,
    name: 'errors 6,19,-195 on any broker',
    run: (m) => m.pushRequestErrors(PRODUCE, [6, 19, DISCONNECT, 6, 0, 19, DISCONNECT, 0, 6, 19]),
  },
  { at: 0.12, name: 'move half the leaders', run: moveLeaders(1) },
  {
    at: 0.2,
    name: 'errors on broker 1 (one delayed)',
    run: (m) =>
      m.pushBrokerRequestErrors(1, PRODUCE, [
        NOT_LEADER_OR_FOLLOWER,
        { code: NOT_ENOUGH_REPLICAS, rttMs: 150 },
        DISCONNECT,
        NOT_ENOUGH_REPLICAS,
        0,
        DISCONNECT,
      ]),
  },
  {
    at: 0.3,
    name: 'broker 2 down for 1.5 s',
    run: async (m) => {
      await m.brokerDown(2)
      await sleep(1500)
      await m.brokerUp(2)
    },
  },
  {
    at: 0.42,
    name: 'disconnects and errors on any broker',
    run: (m) => m.pushRequestErrors(PRODUCE, [DISCONNECT, DISCONNECT, 19, 6, 0, DISCONNECT]),
  },
  {
    at: 0.52,
    name: 'move leaders while broker 3 drops connections',
    run: async (m) => {
      await m.pushBrokerRequestErrors(3, PRODUCE, [DISCONNECT, NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, DISCONNECT])
      await moveLeaders(2)(m)
    },
  },
  {
    at: 0.65,
    name: 'broker 3 down for 1 s, a partition moved off it meanwhile',
    run: async (m) => {
      await m.brokerDown(3)
      await sleep(400)
      await m.setLeader('faults', 1, 1)
      await sleep(600)
      await m.brokerUp(3)
    },
  },
  {
    at: 0.8,
    name: 'errors on brokers 1 and 2',
    run: async (m) => {
      await m.pushBrokerRequestErrors(1, PRODUCE, [NOT_ENOUGH_REPLICAS, DISCONNECT])
      await m.pushBrokerRequestErrors(2, PRODUCE, [NOT_LEADER_OR_FOLLOWER, DISCONNECT, NOT_ENOUGH_REPLICAS])
    },
  },
  { at: 0.9, name: 'move leaders back', run: moveLeaders(0) },
]

describe.skipIf(!peers)(`idempotent producing under faults (seed ${seed})`, () => {
  let mock: MockCluster | undefined
  const open: Array<{ disconnect(): Promise<void> }> = []
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((p) => p.disconnect()))
    await mock?.stop()
    mock = undefined
  })

  it.each(['modern', 'legacy'] as const)(
    '%s mock: every send resolves; exactly once by batch identity, in order, sequences contiguous',
    async (build) => {
      const rng = new Prng(Prng.derive(seed, build === 'modern' ? 0 : 1))
      const sent = messages(rng, COUNT)
      const fingerprints = sent.map((m) => {
        const w = wireOf(m)
        return fingerprint(w.key, w.value, w.headers)
      })
      mock = await startMockCluster({ brokers: 3, build })
      await mock.createTopic('faults', { partitions: PARTITIONS, replicationFactor: 3 })
      const kafka = new Kafka({ clientId: 'wafka-faults', brokers: mock.bootstrap.split(',') })
      const producer = kafka.producer()
      open.push(producer)
      await producer.connect()

      const started = Date.now()
      let settled = 0
      const waiters: Array<{ at: number; wake(): void }> = []
      const progress = (n: number) => {
        settled = n
        for (const w of waiters.filter((w) => settled >= w.at * COUNT)) {
          waiters.splice(waiters.indexOf(w), 1)
          w.wake()
        }
      }
      const untilProgress = (share: number) =>
        settled >= share * COUNT ? Promise.resolve() : new Promise<void>((wake) => waiters.push({ at: share, wake }))
      const sending = sendAll(producer, 'faults', sent, {
        chunk: CHUNK,
        window: WINDOW,
        deadlineMs: SEND_DEADLINE_MS,
        onProgress: (n) => progress(n),
      })
      let finished = false
      const injected: string[] = []
      const faults = (async () => {
        for (const f of FAULTS) {
          await Promise.race([untilProgress(f.at), sending.then(() => undefined)])
          if (finished) {
            injected.push(`${f.name}: not injected, every send had settled`)
            continue
          }
          const at = settled
          const t = Date.now()
          await f.run(mock!)
          injected.push(`${f.name}: at ${at} settled, ${Date.now() - started} ms (took ${Date.now() - t} ms)`)
        }
      })()
      const outcome = await sending
      finished = true
      await faults
      console.log(`${build}: ${COUNT} messages in ${outcome.ms} ms under faults:\n  ${injected.join('\n  ')}`)
      expect(
        outcome.rejected.map((r) => `chunk ${r.chunk}: ${(r.error as Error)?.stack ?? r.error}`).slice(0, MAX_REPORTED),
        'sends rejected',
      ).toEqual([])
      expect(outcome.pending.length, `sends still pending after ${SEND_DEADLINE_MS} ms`).toBe(0)
      // The per-broker errors were all used (the cluster-wide ones cannot be counted).
      for (const b of [1, 2, 3]) expect(await mock.brokerErrorCount(b, PRODUCE), `broker ${b} errors left`).toBe(0)
      await mock.clearRequestErrors(PRODUCE)

      // Per kind of failure: how many, and the first few.
      const problems = {
        noProducerId: 0,
        identityReusedForOtherRecords: 0,
        sequenceGapOrOverlap: 0,
        notSent: 0,
        writtenTwice: 0,
        outOfOrder: 0,
        missing: 0,
        examples: [] as string[],
      }
      const report = (kind: Exclude<keyof typeof problems, 'examples'>, s: string) => {
        if (problems[kind]++ < 3 && problems.examples.length < MAX_REPORTED) problems.examples.push(s)
      }
      const seen = new Int32Array(COUNT).fill(-1)
      let batchCount = 0
      let copies = 0
      let logInversions = 0
      const epochs = new Set<string>()
      for (let partition = 0; partition < PARTITIONS; partition++) {
        const batches = await readBatches(mock.bootstrap, 'faults', partition)
        batchCount += batches.length
        // Identity -> first copy; copies must carry the same records.
        const unique = new Map<string, RecordBatch>()
        const firstSeen = new Map<string, number>()
        for (const b of batches) {
          if (b.producerId < 0n) {
            report('noProducerId', `${partition}@${b.baseOffset}: a batch without a producer id`)
            continue
          }
          const id = `${b.producerId}/${b.producerEpoch}/${b.baseSequence}`
          const first = unique.get(id)
          if (!first) {
            unique.set(id, b)
            if (!firstSeen.has(`${b.producerId}`)) firstSeen.set(`${b.producerId}`, firstSeen.size)
            continue
          }
          copies++
          const a = first.records.map((r) => fingerprint(r.key, r.value, r.headerList)).join()
          const c = b.records.map((r) => fingerprint(r.key, r.value, r.headerList)).join()
          if (a !== c)
            report(
              'identityReusedForOtherRecords',
              `${partition}: batch ${id} at offsets ${first.baseOffset} and ${b.baseOffset} holds different records`,
            )
        }
        // The broker's order: producer ids as they came, then epoch, then sequence.
        const list = [...unique.values()].sort(
          (x, y) =>
            firstSeen.get(`${x.producerId}`)! - firstSeen.get(`${y.producerId}`)! ||
            x.producerEpoch - y.producerEpoch ||
            x.baseSequence - y.baseSequence,
        )
        for (let i = 1; i < list.length; i++) if (list[i].baseOffset < list[i - 1].baseOffset) logInversions++
        // Sequences within one (producerId, epoch): from 0, each batch where the previous one ended.
        let last: RecordBatch | undefined
        for (const b of list) {
          epochs.add(`${b.producerId}/${b.producerEpoch}`)
          const sameEpoch = last && last.producerId === b.producerId && last.producerEpoch === b.producerEpoch
          const expected = sameEpoch ? last!.baseSequence + last!.records.length : 0
          if (b.baseSequence !== expected) {
            report(
              'sequenceGapOrOverlap',
              `${partition}: batch ${b.producerId}/${b.producerEpoch}/${b.baseSequence} (${b.records.length} records, offset ${b.baseOffset}) ` +
                (sameEpoch
                  ? `follows ${last!.baseSequence}+${last!.records.length}: expected sequence ${expected}`
                  : 'starts its epoch: expected sequence 0'),
            )
          }
          last = b
        }
        // The records, in that order: each message once, in the order sent.
        let previous = -1
        for (const b of list) {
          for (const r of b.records) {
            const i = indexOf(r.value)
            if (i < 0 || i >= COUNT || fingerprints[i] !== fingerprint(r.key, r.value, r.headerList)) {
              report(
                'notSent',
                `${partition}: batch ${b.producerId}/${b.producerEpoch}/${b.baseSequence} holds a record that was not sent (value ${r.value?.subarray(0, 16).toString('hex')})`,
              )
              continue
            }
            if (seen[i] >= 0)
              report(
                'writtenTwice',
                `message ${i} twice: in partition ${seen[i]} and again in ${partition} (batch ${b.producerId}/${b.producerEpoch}/${b.baseSequence})`,
              )
            seen[i] = partition
            if (i < previous)
              report(
                'outOfOrder',
                `${partition}: message ${i} after message ${previous} (batch ${b.producerId}/${b.producerEpoch}/${b.baseSequence})`,
              )
            previous = i
          }
        }
      }
      const missing: number[] = []
      for (let i = 0; i < COUNT; i++) if (seen[i] < 0) missing.push(i)
      for (const i of missing) report('missing', `message ${i} was never written`)
      console.log(
        `${build}: ${batchCount} batches read, ${copies} copies of a batch already written (dropped as a broker would), ` +
          `${logInversions} places where the mock's log order differs from sequence order, producer id/epochs: ${[...epochs].join(', ')}`,
      )
      expect(problems, `seed ${seed} (${build})`).toEqual({
        noProducerId: 0,
        identityReusedForOtherRecords: 0,
        sequenceGapOrOverlap: 0,
        notSent: 0,
        writtenTwice: 0,
        outOfOrder: 0,
        missing: 0,
        examples: [],
      })
    },
    240_000,
  )
})
