// Custom Assigner: an assigner written as KafkaJS's docs show (protocol + assign over AssignerProtocol), used by a group of two.
import { quiet, type Program } from './program.js'
import type { KafkaJSModule } from './program.js'

export const customAssigner: Program = async (kafkajs: KafkaJSModule, env) => {
  const { Kafka, logLevel, AssignerProtocol } = kafkajs
  const kafka = new Kafka({ clientId: 'assigner', brokers: env.brokers, logLevel: logLevel.NOTHING, logCreator: quiet })
  const topic = env.name('topic')
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true })

  // Every partition to the member whose id sorts first; the other gets none.
  const FirstTakesAll = ({ cluster }: { cluster: { findTopicPartitionMetadata(topic: string): Array<{ partitionId: number }> } }) => ({
    name: 'FirstTakesAll',
    version: 1,
    async assign({ members, topics }: { members: Array<{ memberId: string; memberMetadata: Buffer }>; topics: string[] }) {
      const ids = members.map((m) => m.memberId).sort()
      for (const m of members) {
        const meta = AssignerProtocol.MemberMetadata.decode(m.memberMetadata)
        if (!meta || !meta.topics.includes(topic) || String(meta.userData) !== 'hello') throw new Error('metadata did not round-trip')
      }
      const assignment: Record<string, number[]> = {}
      for (const t of topics) assignment[t] = cluster.findTopicPartitionMetadata(t).map((p) => p.partitionId)
      return ids.map((memberId, i) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: this.version,
          assignment: i === 0 ? assignment : {},
          userData: Buffer.from('x'),
        }),
      }))
    },
    protocol({ topics }: { topics: string[] }) {
      return {
        name: this.name,
        metadata: AssignerProtocol.MemberMetadata.encode({ version: this.version, topics, userData: Buffer.from('hello') }),
      }
    },
  })
  const groupId = env.name('group')
  const owned: Array<Record<string, number[]>> = []
  const consumers = [0, 1].map((i) => {
    const c = kafka.consumer({ groupId, partitionAssigners: [FirstTakesAll as never] })
    c.on(c.events.GROUP_JOIN, ({ payload }) => (owned[i] = payload.memberAssignment))
    return c
  })
  for (const c of consumers) {
    await c.connect()
    await c.subscribe({ topics: [topic] })
    await c.run({ eachMessage: async () => {} })
  }
  // Settled: the group stable with both members, and their latest assignments covering the topic once.
  const deadline = Date.now() + 60_000
  for (;;) {
    const { groups } = await admin.describeGroups([groupId])
    const total = owned.filter(Boolean).flatMap((o) => Object.values(o).flat()).length
    if (groups[0].state === 'Stable' && groups[0].members.length === 2 && owned.filter(Boolean).length === 2 && total === 4) break
    if (Date.now() > deadline) throw new Error(`the group did not settle: ${groups[0].state}, ${JSON.stringify(owned)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  // Counted before anyone leaves: a leaving member hands its partitions to the other.
  const counts = owned.map((o) => Object.values(o).flat().length).sort()
  const description = await admin.describeGroups([groupId])
  for (const c of consumers) await c.disconnect()
  await admin.disconnect()
  return { counts, protocol: description.groups[0].protocol, members: description.groups[0].members.length }
}
