// Admin: the calls the Admin program does not make, on their success paths,
// with KafkaJS's result shapes: events/on/logger, offsets by timestamp, a
// group's offsets (set, fetch, resolve, reset), groups (list, describe,
// delete), alterConfigs, and partition reassignments.
import { quiet, type Program } from './program.js'
import { outcome, sameNames } from './admin-shape.js'

export const adminCalls: Program = async (mod, env) => {
  const { Kafka, logLevel, ConfigResourceTypes } = mod
  const kafka = new Kafka({ clientId: 'admin-calls', brokers: env.brokers, logLevel: logLevel.NOTHING, logCreator: quiet })
  const admin = kafka.admin()
  const topic = env.name('topic')
  const groupId = env.name('group')
  const o = <T>(call: () => Promise<T>, pick?: (r: T) => unknown) => outcome(mod, call, pick)
  let disconnects = 0
  const remove = admin.on(admin.events.DISCONNECT, () => void disconnects++)
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true })
  const producer = kafka.producer()
  await producer.connect()
  const before = Date.now() - 1000
  await producer.send({ topic, messages: [0, 1, 2].map((i) => ({ value: `v${i}`, partition: 0 })) })
  await producer.disconnect()
  const byPartition = (a: Array<{ partition: number }>) => [...a].sort((x, y) => x.partition - y.partition)
  const offsetsOf = async () =>
    (await admin.fetchOffsets({ groupId, topics: [topic] })).map((t) => ({
      topic: t.topic === topic,
      partitions: byPartition(t.partitions).map(({ partition, offset, metadata }) => ({ partition, offset, metadata })),
    }))

  const surface = {
    events: Object.keys(admin.events).sort(),
    logger: ['debug', 'info', 'warn', 'error'].every(
      (l) => typeof (admin.logger() as unknown as Record<string, unknown>)[l] === 'function',
    ),
    removeListener: typeof remove,
  }
  const offsets = {
    byTimestamp: await o(() => admin.fetchTopicOffsetsByTimestamp(topic, before), byPartition),
    byTimestampLatest: await o(() => admin.fetchTopicOffsetsByTimestamp(topic), byPartition),
    set: await o(() => admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '1' }] })),
    // Partition 1 has none committed (-1). (Not asked before a commit: KafkaJS's fetchOffsets does
    // not retry, and on real Kafka a group's coordinator may not be loaded yet: NOT_COORDINATOR.)
    afterSet: await o(() => offsetsOf()),
    resolved: await o(
      () => admin.fetchOffsets({ groupId, topics: [topic], resolveOffsets: true }),
      (r) => r.map((t) => byPartition(t.partitions).map(({ partition, offset }) => ({ partition, offset }))),
    ),
    reset: await o(() => admin.resetOffsets({ groupId, topic, earliest: true })),
    // KafkaJS commits -2 (its consumer reads it as "the earliest"); wafka commits the earliest
    // offset itself (README: KafkaJS section). Resolved, both say where a consumer starts.
    afterReset: await o(
      () => admin.fetchOffsets({ groupId, topics: [topic], resolveOffsets: true }),
      (r) => r.map((t) => byPartition(t.partitions).map(({ partition, offset }) => ({ partition, offset }))),
    ),
  }
  const groups = {
    // Listed, each with KafkaJS's fields. (Not its protocolType: KafkaJS's setOffsets joins the group
    // as a consumer to commit, so it says "consumer"; wafka commits from outside, so the broker says "".)
    listed: await o(
      () => admin.listGroups(),
      (r) => r.groups.filter((g) => g.groupId === groupId).map((g) => ['groupId', 'protocolType'].filter((f) => f in g)),
    ),
    described: await o(
      () => admin.describeGroups([groupId]),
      (r) => r.groups.map((g) => ({ groupId: g.groupId === groupId, errorCode: g.errorCode, state: g.state, members: g.members.length })),
    ),
    deleted: await o(() => admin.deleteGroups([groupId])),
    describedAfter: await o(
      () => admin.describeGroups([groupId]),
      (r) => r.groups.map((g) => ({ errorCode: g.errorCode, state: g.state })),
    ),
  }
  // AlterConfigs (33) is not served by the embedded broker (another issue
  // adds it): real Kafka only.
  const realKafkaOnly = env.embedded
    ? 'not served by the embedded broker'
    : {
        alterConfigs: await o(() =>
          admin.alterConfigs({
            validateOnly: false,
            resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'retention.ms', value: '86400000' }] }],
          }),
        ),
        alterConfigsValidateOnly: await o(() =>
          admin.alterConfigs({
            validateOnly: true,
            resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'retention.ms', value: '1000' }] }],
          }),
        ),
        altered: await o(
          () =>
            admin.describeConfigs({
              includeSynonyms: false,
              resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms'] }],
            }),
          (r) => r.resources.map((x) => x.configEntries.map((c) => ({ name: c.configName, value: c.configValue }))),
        ),
      }
  // Partition reassignments (both targets): partition 0 down to one replica, which completes at once.
  const reassignments = {
    reassign: await o(async () => {
      const { brokers } = await admin.describeCluster()
      return admin.alterPartitionReassignments({
        topics: [{ topic, partitionAssignment: [{ partition: 0, replicas: [brokers[0].nodeId] }] }],
      })
    }),
    reassignments: await o(() => admin.listPartitionReassignments({ topics: [{ topic, partitions: [0, 1] }] })),
    allReassignments: await o(
      () => admin.listPartitionReassignments({}),
      (r) => Object.keys(r),
    ),
  }
  await admin.deleteTopics({ topics: [topic] })
  await admin.disconnect()
  return sameNames({ surface, offsets, groups, realKafkaOnly, reassignments, disconnects }, env)
}
