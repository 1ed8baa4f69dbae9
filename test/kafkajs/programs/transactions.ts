// Transactions: a committed and an aborted transaction; the default consumer (readUncommitted: false) sees the committed one; sendOffsets.
import { quiet, until, type Program } from './program.js'

export const transactions: Program = async ({ Kafka, logLevel }, env) => {
  const kafka = new Kafka({ clientId: 'txn', brokers: env.brokers, logLevel: logLevel.ERROR, logCreator: quiet })
  const topic = env.name('topic')
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
  // The consumer whose progress the transaction commits (consume-transform-produce): it has joined its group.
  const source = kafka.consumer({ groupId: env.name('source-group'), maxWaitTimeInMs: 100 })
  let joined = false
  source.on(source.events.GROUP_JOIN, () => (joined = true))
  await source.connect()
  await source.subscribe({ topics: [topic] })
  await source.run({ eachMessage: async () => {} })
  await until(() => joined, 30_000, 'the source consumer in its group')
  await source.disconnect()
  const producer = kafka.producer({ transactionalId: env.name('txid'), maxInFlightRequests: 1, idempotent: true })
  await producer.connect()
  const committed = await producer.transaction()
  await committed.send({ topic, messages: [{ value: 'committed-1' }, { value: 'committed-2' }] })
  await committed.sendOffsets({
    consumerGroupId: env.name('source-group'),
    topics: [{ topic, partitions: [{ partition: 0, offset: '7' }] }],
  })
  await committed.commit()
  const aborted = await producer.transaction()
  await aborted.send({ topic, messages: [{ value: 'aborted' }] })
  await aborted.abort()
  const afterAbort = await producer.transaction()
  await afterAbort.send({ topic, messages: [{ value: 'committed-3' }] })
  await afterAbort.commit()
  const active = afterAbort.isActive()
  const idempotent = producer.isIdempotent()
  await producer.disconnect()

  const consumer = kafka.consumer({ groupId: env.name('group') })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  const read: string[] = []
  await consumer.run({ eachMessage: async ({ message }) => void read.push(`${message.offset}:${message.value}`) })
  await until(() => read.length >= 3, 30_000, 'three committed records')
  await consumer.disconnect()
  const sourceOffsets = await admin.fetchOffsets({ groupId: env.name('source-group'), topics: [topic] })
  await admin.disconnect()
  return { read, active, idempotent, sourceOffsets: sourceOffsets.map((t) => t.partitions.map((p) => p.offset)) }
}
