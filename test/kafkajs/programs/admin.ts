// Admin: topics, partitions, metadata, offsets, deleteTopicRecords, configs, groups, and KafkaJS's errors.
import { errorShape, quiet, type Program } from './program.js'

export const adminProgram: Program = async ({ Kafka, logLevel, ConfigResourceTypes }, env) => {
  const kafka = new Kafka({ clientId: 'admin', brokers: env.brokers, logLevel: logLevel.NOTHING, logCreator: quiet })
  const admin = kafka.admin()
  const topic = env.name('topic')
  await admin.connect()
  const created = await admin.createTopics({
    topics: [{ topic, numPartitions: 2, configEntries: [{ name: 'cleanup.policy', value: 'delete' }] }],
    waitForLeaders: true,
  })
  const createdAgain = await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true })
  const listed = (await admin.listTopics()).includes(topic)
  await admin.createPartitions({ topicPartitions: [{ topic, count: 3 }] })
  const metadata = await admin.fetchTopicMetadata({ topics: [topic] })
  const producer = kafka.producer()
  await producer.connect()
  await producer.send({ topic, messages: [0, 1, 2, 3].map((i) => ({ value: `v${i}`, partition: 0 })) })
  await producer.disconnect()
  await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '2' }] })
  const offsets = await admin.fetchTopicOffsets(topic)
  const configs = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['cleanup.policy'] }],
  })
  const missing = await admin.fetchTopicMetadata({ topics: [env.name('missing')] }).then(
    () => null,
    (e) => errorShape(e),
  )
  const cluster = await admin.describeCluster()
  // The fields KafkaJS's docs give each result (more are fine): none may be missing.
  const absent = (o: object | undefined, fields: string[]) => fields.filter((f) => !(f in (o ?? {})))
  const shapes = {
    metadataPartition: absent(metadata.topics[0].partitions[0], [
      'partitionErrorCode',
      'partitionId',
      'leader',
      'replicas',
      'isr',
      'offlineReplicas',
    ]),
    offsets: absent(offsets[0], ['partition', 'offset', 'high', 'low']),
    cluster: absent(cluster, ['brokers', 'controller', 'clusterId']),
    broker: absent(cluster.brokers[0], ['nodeId', 'host', 'port']),
    configResource: absent(configs.resources[0], ['configEntries', 'errorCode', 'errorMessage', 'resourceName', 'resourceType']),
    configEntry: absent(configs.resources[0].configEntries[0], [
      'configName',
      'configValue',
      'isDefault',
      'configSource',
      'isSensitive',
      'readOnly',
    ]),
  }
  await admin.deleteTopics({ topics: [topic] })
  // Deletion reaches every broker's metadata soon after the call returns: wait for it (bounded).
  const deadline = Date.now() + 15_000
  let listedAfter = true
  while (listedAfter && Date.now() < deadline) {
    listedAfter = (await admin.listTopics()).includes(topic)
    if (listedAfter) await new Promise((r) => setTimeout(r, 200))
  }
  await admin.disconnect()
  return {
    created,
    createdAgain,
    listed,
    listedAfter,
    partitions: metadata.topics[0].partitions.map((p) => p.partitionId).sort(),
    offsets: offsets
      .map(({ partition, offset, high, low }) => ({ partition, offset, high, low }))
      .sort((a, b) => a.partition - b.partition),
    config: configs.resources[0].configEntries.map((c) => ({ name: c.configName, value: c.configValue })),
    missing,
    brokers: cluster.brokers.length,
    shapes,
  }
}
