// Issue 9, item 10, on real Kafka: members of one group started at the same
// moment always settle. Rounds of 2 and of 5 members started together, each
// round a fresh group: every round settles within 10 s with disjoint
// partitions covering the topic. (WAFKA_GROUP_ROUNDS sets the rounds; 50.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Consumer, Kafka } from '../../src/index.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'

const ROUNDS = Number(process.env.WAFKA_GROUP_ROUNDS ?? 50)
const PARTITIONS = 6
const SETTLE_MS = 10_000

for (const target of brokerTargets({ kafka: { brokers: 1 } }))
  describe.skipIf(!target.available)(`a group started all at once settles, on ${target.name}`, () => {
    let cluster: RunningTarget
    let client: Kafka
    beforeAll(async () => {
      cluster = await target.start()
      client = new Kafka({ clientId: 'wafka-settle', brokers: cluster.bootstrap.split(','), retryBackoffMs: 100, retryBackoffMaxMs: 1000 })
      const admin = client.admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: 'settle', numPartitions: PARTITIONS, replicationFactor: 1 }] })
      await admin.disconnect()
    })
    afterAll(async () => {
      await cluster?.stop()
    })

    /**
     * The partitions held, when every member holds a share (with more partitions than members, a
     * settled group leaves nobody out), the shares are disjoint and they cover the topic; else null.
     */
    function settled(members: Consumer[]): string[] | null {
      if (members.some((m) => m.assignmentList().length === 0)) return null
      const held = members.flatMap((m) => m.assignmentList().map((p) => `${p.topic}-${p.partition}`))
      if (new Set(held).size !== held.length || held.length !== PARTITIONS) return null
      return held.sort()
    }

    it.concurrent.each([2, 5])(
      `%i members, ${ROUNDS} rounds: each settles within 10 s, disjoint, covering the topic`,
      async (n) => {
        const slow: string[] = []
        const times: number[] = []
        for (let round = 0; round < ROUNDS; round++) {
          const groupId = `settle-${n}-${round}`
          const members = Array.from({ length: n }, () =>
            client.consumer({ groupId, heartbeatIntervalMs: 300, sessionTimeoutMs: 6000, maxWaitTimeInMs: 100 }),
          )
          const started = Date.now()
          try {
            await Promise.all(
              members.map(async (m) => {
                await m.connect()
                await m.subscribe({ topics: ['settle'] })
                void m.run({ eachMessage: async () => {} }).catch(() => {})
              }),
            )
            while (settled(members) === null && Date.now() - started < SETTLE_MS) await new Promise((r) => setTimeout(r, 25))
            const took = Date.now() - started
            times.push(took)
            if (settled(members) === null)
              slow.push(
                `round ${round}: not settled after ${took} ms (${members
                  .map((m) =>
                    m
                      .assignmentList()
                      .map((p) => p.partition)
                      .join(','),
                  )
                  .join(' | ')})`,
              )
          } finally {
            await Promise.allSettled(members.map((m) => m.disconnect()))
          }
        }
        times.sort((a, b) => a - b)
        console.log(`${n} members: settled in ${times[0]}–${times.at(-1)} ms, median ${times[times.length >> 1]} ms over ${ROUNDS} rounds`)
        expect(slow).toEqual([])
      },
      ROUNDS * 40_000,
    )
  })
