// An idempotent producer whose first batch to a partition fails with a
// retriable error after a later batch has already been written: a real broker
// takes the later batch's sequence as the producer's start (it accepts any
// first sequence from a producer it has no state for), so the retried first
// batch is out of order for good. Seen for real: producing to a topic just
// created, on a loaded machine (bench/consumer.ts on Kafka hung there). The
// failure of the first batch is made here by a wrapped connection that holds
// it back and answers NOT_LEADER_OR_FOLLOWER once the later batch is in; the
// broker decides the rest. The producer must bump its epoch and resend, not
// retry the same sequence until the delivery timeout.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Admin, Kafka } from '../../src/index.js'
import { Connection } from '../../src/net/connection.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until } from './consumer-support.js'

const NOT_LEADER_OR_FOLLOWER = 6

for (const target of brokerTargets({ kafka: { brokers: 1 } }))
  describe.skipIf(!target.available)(`idempotent producer: a first batch failed after a later one was written, on ${target.name}`, () => {
    let cluster: RunningTarget
    let admin: Admin
    beforeAll(async () => {
      cluster = await target.start()
      admin = new Kafka({ brokers: cluster.bootstrap.split(',') }).admin()
      await admin.connect()
    })
    afterAll(async () => {
      vi.restoreAllMocks()
      await admin?.disconnect()
      await cluster?.stop()
    })

    it('bumps the epoch and writes the held-back batch: every send resolves, nothing lost or written twice', async () => {
      const topic = 'sequence-gap'
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
      const original = Connection.prototype.request
      let held: 'waiting' | 'holding' | 'done' = 'waiting'
      let laterWritten!: () => void
      const later = new Promise<void>((r) => (laterWritten = r))
      vi.spyOn(Connection.prototype, 'request').mockImplementation(function (this: Connection, api, body: any, options) {
        if (api.name !== 'Produce' || !body.topicData?.some((t: any) => t.name === topic)) return original.call(this, api, body, options)
        if (held === 'waiting') {
          held = 'holding'
          // The first batch never reaches the broker; its answer comes once a later batch is written.
          const rest = body.topicData.filter((t: any) => t.name !== topic)
          const sent = rest.length
            ? (original.call(this, api, { ...body, topicData: rest }, options) as Promise<any>)
            : Promise.resolve({ responses: [], throttleTimeMs: 0, nodeEndpoints: [] })
          return Promise.all([sent, Promise.race([later, new Promise((r) => setTimeout(r, 5000))])]).then(([res]) => {
            held = 'done'
            return {
              ...res,
              responses: [
                ...res.responses,
                {
                  name: topic,
                  partitionResponses: [
                    {
                      index: 0,
                      errorCode: NOT_LEADER_OR_FOLLOWER,
                      baseOffset: -1n,
                      logAppendTimeMs: -1n,
                      logStartOffset: -1n,
                      recordErrors: [],
                      errorMessage: null,
                    },
                  ],
                },
              ],
            }
          })
        }
        const result = original.call(this, api, body, options) as Promise<any>
        if (held === 'holding')
          void result.then(
            () => laterWritten(),
            () => {},
          )
        return result
      })

      const producer = new Kafka({ brokers: cluster.bootstrap.split(','), retryBackoffMs: 50 }).producer({
        lingerMs: 0,
        batchSize: 256,
        requestTimeoutMs: 5000,
        deliveryTimeoutMs: 10_000,
      })
      await producer.connect()
      const sends = Array.from({ length: 20 }, (_, s) =>
        producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `m${s * 10 + i}` })) }),
      )
      const outcomes = await Promise.allSettled(sends)
      await producer.disconnect()
      vi.restoreAllMocks()
      expect(held).toBe('done')
      expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([])

      // What the broker holds: all 200, once each (their order is the broker's: it wrote the later batch first).
      const values: string[] = []
      const consumer = new Kafka({ brokers: cluster.bootstrap.split(',') }).consumer({ maxWaitTimeInMs: 100 })
      await consumer.connect()
      consumer.assign([{ topic, partitions: [0] }])
      consumer.seek({ topic, partition: 0, offset: 0 })
      await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value!.toString()) })
      await until(
        () => values.length >= 200,
        15_000,
        () => `read ${values.length}`,
      )
      await new Promise((r) => setTimeout(r, 300))
      await consumer.disconnect()
      expect(values.length).toBe(200)
      expect(new Set(values).size).toBe(200)
    })
  })
