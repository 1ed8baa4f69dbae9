// Admin: the error paths of KafkaJS's admin calls. What a program can tell
// apart is the error's class (`instanceof`, `e.name`), its KafkaJS fields
// (type, retriable, an aggregate's errors, the groups and partitions that
// failed, the cause, retryCount): those must be KafkaJS's. KafkaJS's own
// createTopics tells "already exists" apart by `instanceof KafkaJSAggregateError`.
// The admin retries nothing (retries: 0), so a retriable failure ends as
// KafkaJSNumberOfRetriesExceeded at once, as KafkaJS ends it.
import { quiet, type Program } from './program.js'
import { outcome, sameNames } from './admin-shape.js'

export const adminErrors: Program = async (mod, env) => {
  const { Kafka, logLevel, ConfigResourceTypes } = mod
  const kafka = new Kafka({ clientId: 'admin-errors', brokers: env.brokers, logLevel: logLevel.NOTHING, logCreator: quiet })
  const admin = kafka.admin({ retry: { retries: 0 } })
  const topic = env.name('topic')
  const missing = env.name('missing')
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true })
  const producer = kafka.producer()
  await producer.connect()
  await producer.send({ topic, messages: [0, 1, 2].map((i) => ({ value: `v${i}`, partition: 0 })) })
  await producer.disconnect()
  // A group's coordinator loaded (on a fresh real Kafka the offsets topic is created on first use,
  // and KafkaJS's deleteGroups does not retry NOT_COORDINATOR): a commit, retried until it is.
  const warmUp = kafka.admin()
  await warmUp.connect()
  await warmUp.setOffsets({ groupId: env.name('warm-up'), topic, partitions: [{ partition: 1, offset: '0' }] })
  await warmUp.deleteGroups([env.name('warm-up')])
  await warmUp.disconnect()
  const o = <T>(call: () => Promise<T>, pick?: (r: T) => unknown) => outcome(mod, call, pick)
  // Calls with arguments KafkaJS refuses before asking anything.
  const any = admin as unknown as Record<string, (arg?: unknown) => Promise<unknown>>
  const refused = {
    createTopicsNotArray: await o(() => any.createTopics({ topics: topic })),
    createTopicsTwice: await o(() => admin.createTopics({ topics: [{ topic: missing }, { topic: missing }] })),
    createPartitionsEmpty: await o(() => admin.createPartitions({ topicPartitions: [] })),
    deleteTopicsNotArray: await o(() => any.deleteTopics({ topics: topic })),
    fetchTopicOffsetsNoTopic: await o(() => any.fetchTopicOffsets('')),
    fetchOffsetsNoGroup: await o(() => any.fetchOffsets({ topics: [topic] })),
    setOffsetsNoPartitions: await o(() => admin.setOffsets({ groupId: env.name('group'), topic, partitions: [] })),
    resetOffsetsNoTopic: await o(() => any.resetOffsets({ groupId: env.name('group') })),
    describeConfigsEmpty: await o(() => admin.describeConfigs({ resources: [], includeSynonyms: false })),
    alterConfigsEmpty: await o(() => admin.alterConfigs({ resources: [] })),
    deleteGroupsNotArray: await o(() => any.deleteGroups('group')),
    deleteTopicRecordsNoPartitions: await o(() => admin.deleteTopicRecords({ topic, partitions: [] })),
    onUnknownEvent: await o(async () => admin.on('admin.bogus' as never, () => {})),
  }
  // Calls the broker refuses.
  const broker = {
    createTopicsBadConfig: await o(() =>
      admin.createTopics({ topics: [{ topic: missing, configEntries: [{ name: 'cleanup.policy', value: 'bogus' }] }] }),
    ),
    createTopicsExists: await o(() => admin.createTopics({ topics: [{ topic, numPartitions: 2 }] })),
    createPartitionsFewer: await o(() => admin.createPartitions({ topicPartitions: [{ topic, count: 1 }] })),
    deleteTopicsMissing: await o(() => admin.deleteTopics({ topics: [missing] })),
    fetchTopicOffsetsMissing: await o(() => admin.fetchTopicOffsets(missing)),
    fetchTopicOffsetsByTimestampMissing: await o(() => admin.fetchTopicOffsetsByTimestamp(missing, 0)),
    deleteGroupsUnknown: await o(() => admin.deleteGroups([env.name('no-such-group')])),
    deleteTopicRecordsPastEnd: await o(() => admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '100' }] })),
    deleteTopicRecordsNoPartition: await o(() => admin.deleteTopicRecords({ topic, partitions: [{ partition: 9, offset: '1' }] })),
    describeConfigsMissing: await o(() =>
      admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: missing }] }),
    ),
  }
  // AlterConfigs (33), AlterPartitionReassignments (45) and the ACL APIs are
  // not served by the embedded broker (another issue adds them): these run
  // on real Kafka only, where KafkaJS's answer is the reference.
  const realKafkaOnly = env.embedded
    ? 'not served by the embedded broker'
    : {
        alterConfigsBadValue: await o(() =>
          admin.alterConfigs({
            resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'retention.ms', value: 'soon' }] }],
          }),
        ),
        alterConfigsMissing: await o(() =>
          admin.alterConfigs({
            resources: [{ type: ConfigResourceTypes.TOPIC, name: missing, configEntries: [{ name: 'retention.ms', value: '1000' }] }],
          }),
        ),
        reassignToNoBroker: await o(() =>
          admin.alterPartitionReassignments({ topics: [{ topic, partitionAssignment: [{ partition: 0, replicas: [99] }] }] }),
        ),
        reassignMissingTopic: await o(() =>
          admin.alterPartitionReassignments({ topics: [{ topic: missing, partitionAssignment: [{ partition: 0, replicas: [1] }] }] }),
        ),
        // The rig's Kafka has no authorizer: every ACL call is refused (SECURITY_DISABLED).
        describeAclsNoAuthorizer: await o(() =>
          admin.describeAcls({
            resourceType: mod.AclResourceTypes.ANY,
            resourcePatternType: mod.ResourcePatternTypes.ANY,
            operation: mod.AclOperationTypes.ANY,
            permissionType: mod.AclPermissionTypes.ANY,
          }),
        ),
        createAclsNoAuthorizer: await o(() =>
          admin.createAcls({
            acl: [
              {
                resourceType: mod.AclResourceTypes.TOPIC,
                resourceName: topic,
                resourcePatternType: mod.ResourcePatternTypes.LITERAL,
                principal: 'User:bob',
                host: '*',
                operation: mod.AclOperationTypes.READ,
                permissionType: mod.AclPermissionTypes.ALLOW,
              },
            ],
          }),
        ),
        deleteAclsNoAuthorizer: await o(() =>
          admin.deleteAcls({
            filters: [
              {
                resourceType: mod.AclResourceTypes.TOPIC,
                resourceName: topic,
                resourcePatternType: mod.ResourcePatternTypes.LITERAL,
                operation: mod.AclOperationTypes.ANY,
                permissionType: mod.AclPermissionTypes.ANY,
              },
            ],
          }),
        ),
      }
  await admin.deleteTopics({ topics: [topic] }).catch(() => {})
  await admin.disconnect()
  return sameNames({ refused, broker, realKafkaOnly }, env)
}
