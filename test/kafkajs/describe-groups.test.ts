// describeGroups() gives each member's metadata and assignment as Buffers, as
// KafkaJS does, so AssignerProtocol decodes them: for a classic group (a
// KafkaJS member) and for a KIP-848 group (a wafka member with
// groupProtocol: 'consumer'), on the embedded broker, compared with kafkajs's
// own admin where it can describe the group.
import { Buffer } from 'node:buffer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import * as wafkajs from '../../src/kafkajs/index.js'
import { Kafka as Wafka } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { until } from './programs/program.js'

describe("describeGroups(): members' bytes as KafkaJS gives them", () => {
  let cluster: RunningCluster
  let brokers: string[]
  const quiet = { logLevel: kafkajs.logLevel.NOTHING, logCreator: () => () => {} }
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, topics: [{ name: 'described', partitions: 2 }] } as never)
    brokers = cluster.bootstrapServers.split(',')
  })
  afterAll(() => cluster?.stop())

  /** The group's members as each admin describes them: bytes, and the assignment AssignerProtocol reads from them. */
  const described = async (lib: typeof kafkajs | typeof wafkajs, groupId: string) => {
    const admin = new lib.Kafka({ brokers, ...quiet }).admin()
    await admin.connect()
    try {
      const { groups } = await admin.describeGroups([groupId])
      return groups[0].members.map((m) => ({
        buffers: [Buffer.isBuffer(m.memberMetadata), Buffer.isBuffer(m.memberAssignment)],
        assignment: lib.AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? null,
      }))
    } finally {
      await admin.disconnect()
    }
  }

  it('a classic group: the same Buffers and decoded assignment as kafkajs sees', async () => {
    const consumer = new kafkajs.Kafka({ brokers, ...quiet }).consumer({ groupId: 'described-classic' })
    await consumer.connect()
    await consumer.subscribe({ topics: ['described'] })
    let joined = false
    consumer.on(consumer.events.GROUP_JOIN, () => void (joined = true))
    await consumer.run({ eachMessage: async () => {} })
    try {
      await until(() => joined, 30_000, 'the KafkaJS member joins')
      const expected = await described(kafkajs, 'described-classic')
      expect(expected).toEqual([{ buffers: [true, true], assignment: { described: [0, 1] } }])
      expect(await described(wafkajs, 'described-classic')).toEqual(expected)
    } finally {
      await consumer.disconnect()
    }
  })

  it('a KIP-848 group: Buffers too (empty: its assignment is the broker’s, not in the bytes)', async () => {
    const consumer = new Wafka({ brokers, logLevel: 0 }).consumer({ groupId: 'described-848', groupProtocol: 'consumer' })
    await consumer.connect()
    await consumer.subscribe({ topics: ['described'] })
    await consumer.run({ eachMessage: async () => {} })
    try {
      // Bounded: the member shows once its first heartbeat is in.
      let members = await described(wafkajs, 'described-848')
      for (const deadline = Date.now() + 30_000; members.length === 0 && Date.now() < deadline;) {
        await new Promise((r) => setTimeout(r, 100))
        members = await described(wafkajs, 'described-848')
      }
      expect(members).toEqual([{ buffers: [true, true], assignment: null }])
    } finally {
      await consumer.disconnect()
    }
  })
})
