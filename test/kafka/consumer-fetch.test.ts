// What the consumer reads, against one real Apache Kafka broker: incremental
// fetch sessions (KIP-227) as the broker keeps them, read_committed against
// the broker's last stable offset and aborted-transaction lists, offsets by
// timestamp from the broker's time index, and OFFSET_OUT_OF_RANGE after
// deleteRecords moved the log start.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Admin, type Consumer, Kafka } from '../../src/index.js'
import { Connection } from '../../src/net/connection.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { produce, until } from './consumer-support.js'

interface FetchCall {
  sessionId: number
  sessionEpoch: number
  partitions: Array<{ topic: string; partition: number; fetchOffset: bigint }>
  forgotten: number
  responseSessionId?: number
  responsePartitions?: string[]
  errorCode?: number
}

for (const target of brokerTargets({ kafka: { brokers: 1 }, embedded: { brokers: 1 } }))
  describe.skipIf(!target.available)(`consumer fetching on ${target.name}`, () => {
    let cluster: RunningTarget
    let admin: Admin
    let client: Kafka
    const open: Consumer[] = []

    beforeAll(async () => {
      cluster = await target.start()
      client = new Kafka({ clientId: 'fetch-test', brokers: cluster.bootstrap.split(','), retryBackoffMs: 100 })
      admin = client.admin()
      await admin.connect()
    })
    afterEach(async () => {
      vi.restoreAllMocks()
      await Promise.allSettled(open.splice(0).map((c) => c.disconnect()))
    })
    afterAll(async () => {
      await admin?.disconnect()
      await cluster?.stop()
    })

    const topic = async (name: string, partitions: number, configEntries: Array<{ name: string; value: string }> = []) => {
      await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions, replicationFactor: 1, configEntries }] })
    }
    const consumer = (config: Parameters<Kafka['consumer']>[0]) => {
      const c = client.consumer({ maxWaitTimeInMs: 200, ...config })
      open.push(c)
      return c
    }

    it('fetch sessions: after a full first fetch, every fetch carries the session the broker opened, and names only the partitions whose position moved', async () => {
      const name = 'sessions'
      await topic(name, 4)
      const calls: FetchCall[] = []
      const original = Connection.prototype.request
      vi.spyOn(Connection.prototype, 'request').mockImplementation(function (this: Connection, api, body: any, options) {
        const result = original.call(this, api, body, options)
        if (api.name !== 'Fetch') return result
        const topicName = (t: any) => t.topic ?? name
        const call: FetchCall = {
          sessionId: body.sessionId,
          sessionEpoch: body.sessionEpoch,
          partitions: body.topics.flatMap((t: any) =>
            t.partitions.map((p: any) => ({ topic: topicName(t), partition: p.partition, fetchOffset: p.fetchOffset })),
          ),
          forgotten: (body.forgottenTopicsData ?? []).reduce((n: number, t: any) => n + t.partitions.length, 0),
        }
        calls.push(call)
        return (result as Promise<any>).then((res) => {
          call.responseSessionId = res.sessionId
          call.errorCode = res.errorCode
          call.responsePartitions = res.responses.flatMap((t: any) => t.partitions.map((p: any) => `${p.partitionIndex}`))
          return res
        })
      })
      const c = consumer({ groupId: 'sessions-group' })
      const seen: string[] = []
      await c.connect()
      await c.subscribe({ topics: [name], fromBeginning: true })
      await c.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) })
      await until(
        () => calls.filter((x) => x.responseSessionId !== undefined).length >= 3,
        15_000,
        () => `${calls.length} fetches`,
      )
      await produce(cluster.bootstrap, name, 50, 'p2-', { partition: 2 })
      await until(
        () => seen.length === 50,
        15_000,
        () => `read ${seen.length}`,
      )
      const afterData = calls.length
      await until(
        () => calls.filter((x) => x.responseSessionId !== undefined).length >= afterData + 2,
        15_000,
        () => `${calls.length} fetches`,
      )
      await c.stop()

      const done = calls.filter((x) => x.responseSessionId !== undefined)
      expect(done.every((x) => x.errorCode === 0)).toBe(true)
      // The first: a full fetch of all four partitions asking for a session (id 0, epoch 0); the broker opens one.
      expect(done[0]).toMatchObject({ sessionId: 0, sessionEpoch: 0, forgotten: 0 })
      expect(done[0].partitions.map((p) => p.partition).sort()).toEqual([0, 1, 2, 3])
      const session = done[0].responseSessionId!
      expect(session).not.toBe(0)
      // Every later one: that session, the epoch counting up from 1, and only partitions whose fetch offset changed.
      const later = done.slice(1)
      expect(later.length).toBeGreaterThanOrEqual(4)
      later.forEach((x, i) => {
        expect(x.sessionId).toBe(session)
        expect(x.sessionEpoch).toBe(i + 1)
        expect(x.responseSessionId).toBe(session)
      })
      const named = later.flatMap((x) => x.partitions)
      expect(named.every((p) => p.partition === 2)).toBe(true)
      expect(named.length).toBeGreaterThan(0)
      expect(later.filter((x) => x.partitions.length === 0).length).toBeGreaterThan(0)
      // The broker answers an incremental fetch with only the partitions that have something to say.
      expect(later.flatMap((x) => x.responsePartitions!).every((p) => p === '2')).toBe(true)
      expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => `p2-${i}`))
    })

    it('read_committed: stops at the last stable offset while a transaction is open, skips aborted transactions, and reads the rest once committed', async () => {
      const name = 'txn-read'
      await topic(name, 1)
      const producer = client.producer({ transactionalId: 'txn-read-producer', idempotent: true, acks: 'all' })
      await producer.connect()
      const batch = async (prefix: string, n: number, commit: boolean | 'open') => {
        const txn = await producer.transaction()
        await txn.send({ topic: name, messages: Array.from({ length: n }, (_, i) => ({ value: `${prefix}${i}` })) })
        if (commit === 'open') return txn
        if (commit) await txn.commit()
        else await txn.abort()
        return txn
      }
      await batch('c1-', 100, true)
      await batch('a1-', 100, false)
      // Non-transactional records between transactions, from another producer.
      await produce(cluster.bootstrap, name, 10, 'plain-')
      await batch('c2-', 100, true)
      await batch('a2-', 50, false)
      const open = await batch('o-', 30, 'open')

      const [lso] = [...(await admin.listOffsets(name, [0], -1n, 1)).values()]
      const [high] = [...(await admin.listOffsets(name, [0], -1n, 0)).values()]
      expect(lso).toBeLessThan(high)

      const read = async (isolationLevel: 'read_committed' | 'read_uncommitted', groupId: string, until_: (n: string[]) => boolean) => {
        const c = consumer({ groupId, isolationLevel })
        const values: string[] = []
        await c.connect()
        await c.subscribe({ topics: [name], fromBeginning: true })
        await c.run({ eachMessage: async ({ message }) => void values.push(message.value!.toString()) })
        await until(
          () => until_(values),
          15_000,
          () => `${groupId} read ${values.length}`,
        )
        return { c, values }
      }
      const committed = await read('read_committed', 'rc', (v) => v.length >= 210)
      const uncommitted = await read('read_uncommitted', 'ru', (v) => v.length >= 390)
      // Give read_committed time to go wrong: it must not pass the open transaction's first offset.
      await new Promise((r) => setTimeout(r, 1500))
      const expectCommitted = [
        ...Array.from({ length: 100 }, (_, i) => `c1-${i}`),
        ...Array.from({ length: 10 }, (_, i) => `plain-${i}`),
        ...Array.from({ length: 100 }, (_, i) => `c2-${i}`),
      ]
      expect(committed.values).toEqual(expectCommitted)
      expect(uncommitted.values).toHaveLength(390)
      expect(uncommitted.values.filter((v) => v.startsWith('a')).length).toBe(150)

      await open.commit()
      await until(
        () => committed.values.length >= 240,
        15_000,
        () => `read_committed read ${committed.values.length}`,
      )
      await new Promise((r) => setTimeout(r, 500))
      expect(committed.values).toEqual([...expectCommitted, ...Array.from({ length: 30 }, (_, i) => `o-${i}`)])
      await producer.disconnect()
    })

    it('offsets by timestamp come from the broker’s time index: the first offset at or after the time, the end past the last', async () => {
      const name = 'by-time'
      // A time-index entry every batch, and several batches: the broker looks up the index, then scans one batch.
      await topic(name, 1, [{ name: 'index.interval.bytes', value: '1' }])
      const producer = client.producer({ lingerMs: 0 })
      await producer.connect()
      const t0 = 1_700_000_000_000
      for (let b = 0; b < 20; b++) {
        await producer.send({
          topic: name,
          messages: Array.from({ length: 10 }, (_, i) => ({ value: `m${b * 10 + i}`, timestamp: t0 + (b * 10 + i) * 1000 })),
        })
      }
      await producer.disconnect()
      const at = async (ts: number) => (await admin.fetchTopicOffsetsByTimestamp(name, ts))[0].offset
      expect(await at(t0)).toBe('0')
      expect(await at(t0 + 1)).toBe('1')
      expect(await at(t0 + 55_000)).toBe('55')
      expect(await at(t0 + 55_500)).toBe('56')
      expect(await at(t0 + 199_000)).toBe('199')
      // Past the newest timestamp: none found, and (as KafkaJS's admin) the partition's end instead.
      expect(await at(t0 + 500_000)).toBe('200')
      const raw = await admin.listOffsets(name, [0], BigInt(t0 + 500_000))
      expect(raw.get(0)).toBe(-1n)

      // The consumer starts there.
      const c = consumer({})
      const values: string[] = []
      await c.connect()
      c.assign([{ topic: name, partitions: [0] }])
      c.seek({ topic: name, partition: 0, offset: await at(t0 + 123_000) })
      await c.run({ eachMessage: async ({ message }) => void values.push(`${message.value}@${message.timestamp}`) })
      await until(
        () => values.length >= 77,
        15_000,
        () => `read ${values.length}`,
      )
      expect(values[0]).toBe(`m123@${t0 + 123_000}`)
      expect(values.at(-1)).toBe(`m199@${t0 + 199_000}`)
    })

    it('OFFSET_OUT_OF_RANGE after deleteRecords: a committed offset below the new log start is reset by the topic’s policy', async () => {
      const name = 'deleted'
      await topic(name, 1)
      await produce(cluster.bootstrap, name, 100)
      await admin.setOffsets({ groupId: 'oor-earliest', topic: name, partitions: [{ partition: 0, offset: 10 }] })
      await admin.setOffsets({ groupId: 'oor-latest', topic: name, partitions: [{ partition: 0, offset: 10 }] })
      await admin.setOffsets({ groupId: 'oor-none', topic: name, partitions: [{ partition: 0, offset: 10 }] })
      await admin.deleteRecords({ topic: name, partitions: [{ partition: 0, offset: 60 }] })
      const offsets = await admin.fetchTopicOffsets(name)
      expect(offsets[0]).toMatchObject({ low: '60', high: '100' })

      const earliest = consumer({ groupId: 'oor-earliest', autoOffsetReset: 'earliest' })
      const values: string[] = []
      await earliest.connect()
      await earliest.subscribe({ topics: [name] })
      await earliest.run({ eachMessage: async ({ message }) => void values.push(message.value!.toString()) })
      await until(
        () => values.length >= 40,
        15_000,
        () => `read ${values.length}`,
      )
      expect(values).toEqual(Array.from({ length: 40 }, (_, i) => `v${60 + i}`))

      const latest = consumer({ groupId: 'oor-latest', autoOffsetReset: 'latest' })
      const later: string[] = []
      await latest.connect()
      await latest.subscribe({ topics: [name] })
      await latest.run({ eachMessage: async ({ message }) => void later.push(message.value!.toString()) })
      await until(
        () => latest.assignmentList().length === 1,
        15_000,
        () => 'no assignment',
      )
      await new Promise((r) => setTimeout(r, 1000))
      await produce(cluster.bootstrap, name, 5, 'new-')
      await until(
        () => later.length >= 5,
        15_000,
        () => `read ${later.length}`,
      )
      expect(later).toEqual(Array.from({ length: 5 }, (_, i) => `new-${i}`))

      // 'none': no reset; the consumer reports the out-of-range offset instead of skipping anything.
      const none = consumer({ groupId: 'oor-none', autoOffsetReset: 'none' })
      const errors: Error[] = []
      none.on(none.events.CRASH, (e) => void errors.push(e.payload.error))
      const got: string[] = []
      await none.connect()
      await none.subscribe({ topics: [name] })
      await none.run({ eachMessage: async ({ message }) => void got.push(message.value!.toString()) }).catch((e) => void errors.push(e))
      await until(
        () => errors.length > 0,
        15_000,
        () => 'no error',
      )
      expect(got).toEqual([])
      expect(errors.map((e) => `${(e as { type?: string }).type ?? ''} ${e.message}`).join('\n')).toMatch(/OFFSET_OUT_OF_RANGE/)
    })
  })
