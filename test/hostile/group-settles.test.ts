// Defect 10 of issue 9: members of one group started at the same moment
// always settle. Rounds of 2 and of 5 members started together on
// librdkafka's 2.15 mock: every round must settle within 10 s with disjoint
// partitions covering the topic. With no initial rebalance delay, most
// rounds elect a leader before every member joined: the late JoinGroup
// aborts the sync, the mock answers SyncGroup REBALANCE_IN_PROGRESS with a
// null assignment (which wafka refused as malformed), and the members rejoin
// with backoff. The mock then holds the join for sessionTimeoutMs - 1 s (its
// rebalance timer; 44 s with the default 45 s session: the "no join for 40 s"
// of the report), hence the 3 s session here.
import { Buffer } from 'node:buffer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, type Consumer } from '../../src/index.js'
import { SyncGroup } from '../../src/protocol/messages/index.js'
import { Reader } from '../../src/protocol/reader.js'
import { requirePeers, startMockCluster, type MockCluster } from '../peers/mock-cluster.js'
import { prepareForGroups } from '../consumer/support.js'

const ROUNDS = Number(process.env.WAFKA_GROUP_ROUNDS ?? 50)
const PARTITIONS = 6
const SETTLE_MS = 10_000

describe('a SyncGroup answer with a null assignment', () => {
  // librdkafka's mock writes a null assignment with every error (its sync_done: `!err ? assignment : NULL`).
  it.each([
    ['v3', 3, Buffer.from([0, 0, 0, 0, 0, 27, 0xff, 0xff, 0xff, 0xff])],
    ['v5 (flexible)', 5, Buffer.from([0, 0, 0, 0, 0, 27, 0, 0, 0, 0])],
  ])('%s reads as its error code and no partitions, not a malformed response', (_name, version, body) => {
    const res = SyncGroup.decodeResponse(new Reader(body), version)
    expect(res.errorCode).toBe(27)
    expect(res.assignment.length).toBe(0)
  })
})

describe.skipIf(!requirePeers({ builds: ['modern'], kcat: false }))('a group started all at once settles (2.15 mock)', () => {
  let mock: MockCluster
  let kafka: Kafka
  beforeAll(async () => {
    mock = await startMockCluster({ brokers: 3, build: 'modern' })
    await prepareForGroups(mock, 'modern')
    await mock.createTopic('settle', { partitions: PARTITIONS, replicationFactor: 3 })
    kafka = new Kafka({ clientId: 'wafka-settle', brokers: mock.bootstrap.split(','), retryBackoffMs: 100, retryBackoffMaxMs: 1000 })
  })
  afterAll(async () => {
    await mock?.stop()
  })

  /** Partitions held, as "p" strings, when every member holds a disjoint share and together all of them; else null. */
  function settled(members: Consumer[]): string[] | null {
    const held = members.flatMap((m) => m.assignmentList().map((p) => `${p.topic}-${p.partition}`))
    if (new Set(held).size !== held.length || held.length !== PARTITIONS) return null
    return held.sort()
  }

  it.concurrent.each([2, 5])(
    `%i members, ${ROUNDS} rounds: each settles within 10 s, disjoint, covering the topic`,
    async (n) => {
      const slow: string[] = []
      for (let round = 0; round < ROUNDS; round++) {
        const groupId = `settle-${n}-${round}`
        const members = Array.from({ length: n }, () =>
          kafka.consumer({ groupId, heartbeatIntervalMs: 300, sessionTimeoutMs: 3000, maxWaitTimeInMs: 100 }),
        )
        const started = Date.now()
        const log: string[] = []
        if (process.env.WAFKA_GROUP_DEBUG) {
          members.forEach((m, i) => {
            for (const e of [m.events.REBALANCING, m.events.CRASH, m.events.GROUP_JOIN]) {
              m.on(e, (ev) =>
                log.push(
                  `${Date.now() - started} m${i} ${ev.type} ${JSON.stringify(ev.payload, (_k, v) => (v instanceof Error ? v.message : v))}`,
                ),
              )
            }
          })
        }
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
          const state = members
            .map((m) =>
              m
                .assignmentList()
                .map((p) => p.partition)
                .join(','),
            )
            .join(' | ')
          if (settled(members) === null) slow.push(`round ${round}: not settled after ${took} ms (${state})`)
          if (process.env.WAFKA_GROUP_DEBUG) console.log(`round ${round} settled in ${took} ms\n${log.join('\n')}`)
        } finally {
          const leaving = Date.now()
          await Promise.allSettled(members.map((m) => m.disconnect()))
          if (process.env.WAFKA_GROUP_DEBUG) console.log(`round ${round} left in ${Date.now() - leaving} ms`)
        }
      }
      expect(slow).toEqual([])
    },
    ROUNDS * 40_000,
  )
})
