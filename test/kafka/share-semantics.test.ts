// Share-group semantics beyond the basics of share-groups.test.ts, on real
// Apache Kafka 4.4 and on the embedded broker with the same assertions:
// renewing acquisition locks (KIP-1222, AcknowledgeType.RENEW), the group's
// share.isolation.level, and share.auto.offset.reset by_duration.
import { describe, expect, it } from 'vitest'
import { type AcknowledgementResult, Kafka } from '../../src/index.js'
import { startCluster } from '../../src/broker/index.js'
import { ShareFetch } from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { requireKafka, SHARE_GROUP_TEST_CONFIG, startKafka } from '../peers/kafka.js'
import { produce, until } from './consumer-support.js'
import { configureShareGroup, deliveries, shareBroker, type ShareTarget, text } from './share-support.js'

const targets: Array<[string, () => Promise<ShareTarget>]> = [
  [
    'Apache Kafka 4.4',
    async () => {
      const k = await startKafka({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
      return { bootstrap: k.bootstrap, stop: () => k.stop() }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 1, config: SHARE_GROUP_TEST_CONFIG })
      return { bootstrap: c.bootstrapServers, stop: () => c.stop() }
    },
  ],
]

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

for (const [target, start] of targets)
  describe.skipIf(!requireKafka())(`share-group semantics on ${target}`, () => {
    const share = shareBroker(start, { clientId: 'share-semantics', startTimeoutMs: 120_000 })
    const { member } = share
    let n = 0

    /** A topic of one partition and a share group with these group configs (reading from the start unless told otherwise). */
    async function setUp(groupConfig: Record<string, string> = {}) {
      const topic = `semantics-${++n}`
      const groupId = `semantics-queue-${n}`
      await share.admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
      await configureShareGroup(share.admin, groupId, groupConfig)
      return { topic, groupId }
    }

    describe('renew (KIP-1222)', () => {
      it('a record renewed past its lock stays with its member: handed to it again, never to another, then accepted once', async () => {
        // Locks of 2 s; the holder works 1.2 s, renews, works 1.2 s more, renews, then accepts: 3.6 s in all.
        const { topic, groupId } = await setUp({ 'share.record.lock.duration.ms': '2000' })
        await produce(share.target.bootstrap, topic, 3)
        const holder = member(groupId, { acknowledgementMode: 'explicit', maxPollRecords: 3, shareAcquireMode: 'record_limit' })
        expect(holder.acquisitionLockTimeoutMs()).toBeUndefined()
        const results: AcknowledgementResult[] = []
        holder.on(holder.events.ACKNOWLEDGED, (e) => void results.push(...e.payload.results))
        const rounds: Array<Array<{ value: string; deliveryCount: number }>> = []
        let done = false
        await holder.subscribe({ topics: [topic] })
        await holder.run({
          eachBatch: async ({ batch }) => {
            rounds.push(batch.messages.map((m) => ({ value: text(m), deliveryCount: m.deliveryCount })))
            await sleep(1200)
            const type = rounds.length < 3 ? 'renew' : 'accept'
            for (const m of batch.messages) holder.acknowledge(m, type)
            if (type === 'accept') {
              await holder.commitSync()
              done = true
            }
          },
        })
        await until(
          () => rounds.length > 0,
          30_000,
          () => 'the holder got nothing',
        )
        // Another member fetches all the while: the records are never its.
        const other = member(groupId)
        const otherGot: Array<{ value: string; deliveryCount: number }> = []
        await other.subscribe({ topics: [topic] })
        await other.run({
          eachMessage: async ({ message }) => void otherGot.push({ value: text(message), deliveryCount: message.deliveryCount }),
        })
        await until(
          () => done,
          30_000,
          () => `rounds ${JSON.stringify(rounds)}; other ${JSON.stringify(otherGot)}`,
        )
        // New records after: the other member reads them (it was fetching), delivered once.
        await holder.disconnect()
        await produce(share.target.bootstrap, topic, 2, 'v', { from: 3 })
        await until(
          () => otherGot.length >= 2,
          30_000,
          () => `other ${JSON.stringify(otherGot)}`,
        )
        const first = [
          { value: 'v0', deliveryCount: 1 },
          { value: 'v1', deliveryCount: 1 },
          { value: 'v2', deliveryCount: 1 },
        ]
        expect(rounds).toEqual([first, first, first])
        expect(holder.acquisitionLockTimeoutMs()).toBe(2000)
        expect(otherGot).toEqual([
          { value: 'v3', deliveryCount: 1 },
          { value: 'v4', deliveryCount: 1 },
        ])
        expect(results.filter((r) => r.error !== null).map((r) => r.error!.message)).toEqual([])
        expect(results.reduce((a, r) => a + r.count, 0)).toBe(9)
      }, 90_000)

      it('renewing a record whose lock expired (another member holds it) is refused with INVALID_RECORD_STATE; it is not handed out again', async () => {
        const { topic, groupId } = await setUp({ 'share.record.lock.duration.ms': '1500' })
        await produce(share.target.bootstrap, topic, 2)
        const late = member(groupId, { acknowledgementMode: 'explicit', maxPollRecords: 2, shareAcquireMode: 'record_limit' })
        const refused: string[] = []
        late.on(late.events.ACKNOWLEDGED, (e) => {
          for (const r of e.payload.results) if (r.error) refused.push(r.error.type ?? r.error.message)
        })
        const lateRounds: string[][] = []
        let letGo!: () => void
        const hold = new Promise<void>((r) => (letGo = r))
        await late.subscribe({ topics: [topic] })
        await late.run({
          eachBatch: async ({ batch }) => {
            lateRounds.push(batch.messages.map(text))
            if (lateRounds.length > 1) {
              for (const m of batch.messages) late.acknowledge(m, 'accept')
              return
            }
            await hold
            for (const m of batch.messages) late.acknowledge(m, 'renew')
          },
        })
        await until(
          () => lateRounds.length > 0,
          30_000,
          () => 'the first member got nothing',
        )
        // The lock runs out; another member takes the records and holds them.
        const other = member(groupId, { acknowledgementMode: 'explicit', maxPollRecords: 2, shareAcquireMode: 'record_limit' })
        const otherGot: Array<{ value: string; deliveryCount: number }> = []
        let otherMayAccept!: () => void
        const otherWaits = new Promise<void>((r) => (otherMayAccept = r))
        await other.subscribe({ topics: [topic] })
        await other.run({
          eachBatch: async ({ batch }) => {
            otherGot.push(...batch.messages.map((m) => ({ value: text(m), deliveryCount: m.deliveryCount })))
            await otherWaits
            for (const m of batch.messages) other.acknowledge(m, 'accept')
            await other.commitSync()
          },
        })
        await until(
          () => otherGot.length >= 2,
          30_000,
          () => JSON.stringify(otherGot),
        )
        letGo()
        await until(
          () => refused.length > 0,
          15_000,
          () => 'no refusal of the late renewal',
        )
        otherMayAccept()
        // Another second of fetching: the refused records do not come back to the late member.
        await sleep(1000)
        expect(refused).toEqual(['INVALID_RECORD_STATE'])
        expect(lateRounds).toEqual([['v0', 'v1']])
        expect(otherGot).toEqual([
          { value: 'v0', deliveryCount: 2 },
          { value: 'v1', deliveryCount: 2 },
        ])
      }, 60_000)

      it('a group with share.renew.acknowledge.enable=false refuses renewals (INVALID_RECORD_STATE)', async () => {
        const { topic, groupId } = await setUp({ 'share.renew.acknowledge.enable': 'false' })
        await produce(share.target.bootstrap, topic, 1)
        const c = member(groupId, { acknowledgementMode: 'explicit' })
        const refused: string[] = []
        c.on(c.events.ACKNOWLEDGED, (e) => {
          for (const r of e.payload.results) if (r.error) refused.push(`${r.error.type}: ${r.error.message}`)
        })
        const rounds: string[][] = []
        await c.subscribe({ topics: [topic] })
        await c.run({
          eachBatch: async ({ batch }) => {
            rounds.push(batch.messages.map(text))
            for (const m of batch.messages) c.acknowledge(m, 'renew')
          },
        })
        await until(
          () => refused.length > 0,
          30_000,
          () => `rounds ${JSON.stringify(rounds)}`,
        )
        // Refused as a record-state error, in Kafka's words; the record stays held (its lock runs on), not handed out again.
        expect(refused).toEqual([expect.stringMatching(/^INVALID_RECORD_STATE: .*Renewing acquisition locks is not enabled for the group/)])
        expect(rounds).toEqual([['v0']])
      }, 60_000)

      it('a renewing ShareFetch asks for nothing: Kafka refuses fetch limits with IsRenewAck', async () => {
        const { groupId } = await setUp()
        const raw = await RawClient.open(share.target.bootstrap.split(',')[0])
        try {
          const fetch = (limits: { maxWaitMs: number; minBytes: number; maxBytes: number; maxRecords: number }) =>
            raw.request(ShareFetch, 2, {
              groupId,
              memberId: 'AAAAAAAAAAAAAAAAAAAAAA',
              shareSessionEpoch: 0,
              ...limits,
              batchSize: 0,
              shareAcquireMode: 0,
              isRenewAck: true,
              topics: [],
              forgottenTopicsData: [],
            })
          const refused = await fetch({ maxWaitMs: 0, minBytes: 0, maxBytes: 0, maxRecords: 5 })
          expect(refused.errorCode).toBe(42) // INVALID_REQUEST
          // Kafka says why in its log only.
          expect(refused.errorMessage).toBeNull()
        } finally {
          raw.close()
        }
      }, 30_000)
    })

    it('share.isolation.level read_committed: aborted transactions never delivered, nothing past an open transaction until it commits', async () => {
      const { topic, groupId } = await setUp({ 'share.isolation.level': 'read_committed' })
      // A group left at read_uncommitted beside it, over the same records.
      const uncommittedGroup = `${groupId}-uncommitted`
      await configureShareGroup(share.admin, uncommittedGroup)
      const producer = new Kafka({ clientId: 'share-txn', brokers: share.target.bootstrap.split(',') }).producer({
        transactionalId: `share-txn-${n}`,
        idempotent: true,
        acks: 'all',
      })
      await producer.connect()
      try {
        const send = async (prefix: string, end: 'commit' | 'abort' | 'open') => {
          const txn = await producer.transaction()
          await txn.send({ topic, messages: Array.from({ length: 5 }, (_, i) => ({ value: `${prefix}${i}` })) })
          if (end === 'commit') await txn.commit()
          else if (end === 'abort') await txn.abort()
          return txn
        }
        await send('c', 'commit')
        await send('a', 'abort')
        const open = await send('o', 'open')
        const committed = await deliveries(member(groupId), topic)
        const uncommitted = await deliveries(member(uncommittedGroup), topic)
        await until(
          () => committed.length >= 5 && uncommitted.length >= 15,
          30_000,
          () => `read_committed ${JSON.stringify(committed)}; read_uncommitted ${JSON.stringify(uncommitted)}`,
        )
        // A second more: the open transaction's records stay past the last stable offset.
        await sleep(1000)
        expect(committed.map((g) => g.value)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4'])
        expect(uncommitted.map((g) => g.value).sort()).toEqual(['a', 'c', 'o'].flatMap((p) => [0, 1, 2, 3, 4].map((i) => `${p}${i}`)))
        await open.commit()
        await until(
          () => committed.length >= 10,
          30_000,
          () => `read_committed ${JSON.stringify(committed)}`,
        )
        await sleep(500)
        expect(committed).toEqual(['c', 'o'].flatMap((p) => [0, 1, 2, 3, 4].map((i) => ({ value: `${p}${i}`, deliveryCount: 1 }))))
      } finally {
        await producer.disconnect()
      }
    }, 60_000)

    it('share.auto.offset.reset by_duration:<ISO-8601>: a share partition starts at the first record no older than the duration; bad durations refused', async () => {
      const { topic, groupId } = await setUp({ 'share.auto.offset.reset': 'by_duration:PT1H' })
      for (const bad of ['by_duration:', 'by_duration:-PT1H', 'by_duration:one-hour', 'sometime'])
        await expect(configureShareGroup(share.admin, groupId, { 'share.auto.offset.reset': bad }), bad).rejects.toMatchObject({
          type: 'INVALID_CONFIG',
        })
      const producer = new Kafka({ clientId: 'share-times', brokers: share.target.bootstrap.split(',') }).producer()
      await producer.connect()
      try {
        const now = Date.now()
        // Two hours old, then fresh: only the fresh ones are within the hour.
        await producer.send({ topic, messages: [0, 1, 2].map((i) => ({ value: `old${i}`, timestamp: String(now - 2 * 3_600_000 + i) })) })
        await producer.send({ topic, messages: [0, 1, 2].map((i) => ({ value: `new${i}`, timestamp: String(now + i) })) })
      } finally {
        await producer.disconnect()
      }
      const c = member(groupId)
      const got: string[] = []
      await c.subscribe({ topics: [topic] })
      await c.run({ eachMessage: async ({ message }) => void got.push(text(message)) })
      await until(
        () => got.length >= 3,
        30_000,
        () => `got ${got}`,
      )
      await sleep(500)
      expect(got).toEqual(['new0', 'new1', 'new2'])
    }, 60_000)
  })
