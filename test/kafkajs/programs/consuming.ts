// Consuming: eachBatch with manual resolveOffset and commits, uncommittedOffsets(), pause/resume, seek, committed offsets.
import { quiet, until, type Program } from './program.js'

export const consuming: Program = async ({ Kafka, logLevel }, env) => {
  const kafka = new Kafka({ clientId: 'consuming', brokers: env.brokers, logLevel: logLevel.ERROR, logCreator: quiet })
  const topic = env.name('topic')
  const groupId = env.name('group')
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true })
  const producer = kafka.producer()
  await producer.connect()
  for (let i = 0; i < 10; i++) await producer.send({ topic, messages: [{ value: `m${i}`, partition: i % 2 }] })

  // eachBatch, resolving offsets by hand and committing without autoCommit.
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  const seen: string[] = []
  const uncommitted: unknown[] = []
  const fields = new Set<string>()
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale, uncommittedOffsets }) => {
      for (const k of ['topic', 'partition', 'highWatermark', 'messages']) if (k in batch) fields.add(k)
      for (const message of batch.messages) {
        if (!isRunning() || isStale()) break
        seen.push(`${batch.partition}@${message.offset}=${message.value}`)
        // Stop resolving at offset 3: the commit below writes 3 for each partition.
        if (Number(message.offset) < 3) resolveOffset(message.offset)
        await heartbeat()
      }
      const u = uncommittedOffsets()
      if (u.topics.length > 0) uncommitted.push(u.topics.map((t) => ({ partitions: t.partitions.length })))
    },
  })
  await until(() => new Set(seen).size >= 10 && seen.filter((x) => x === '0@3=m6').length > 1, 30_000, 'ten messages, some twice')
  await consumer.commitOffsets([
    { topic, partition: 0, offset: '3' },
    { topic, partition: 1, offset: '3' },
  ])
  await consumer.stop()

  // A new run: pause one partition, seek the other back to 4.
  const after: string[] = []
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      after.push(`${partition}@${message.offset}`)
    },
  })
  consumer.pause([{ topic, partitions: [1] }])
  await until(() => after.filter((x) => x.startsWith('0@')).length >= 2, 30_000, 'partition 0 after the restart')
  const pausedWhileStopped = consumer.paused()
  consumer.seek({ topic, partition: 0, offset: '4' })
  await until(() => after.includes('0@4') && after.lastIndexOf('0@4') > after.indexOf('0@4'), 30_000, 'the seek')
  consumer.resume([{ topic, partitions: [1] }])
  await until(() => after.includes('1@4'), 30_000, 'partition 1 after resume')
  await consumer.disconnect()

  const committed = await admin.fetchOffsets({ groupId, topics: [topic] })
  await producer.disconnect()
  await admin.disconnect()
  return {
    seen: [...new Set(seen)].sort(),
    // What the handler left unresolved is fetched again (KafkaJS fetches from the last resolved offset).
    redelivered: seen.filter((x) => x === '0@3=m6').length > 1,
    fields: [...fields].sort(),
    uncommittedSeen: uncommitted.length > 0,
    after: [...new Set(after)].sort(),
    paused: pausedWhileStopped.map((p) => p.partitions),
    committed: committed.map((t) => ({
      partitions: t.partitions.map((p) => ({ partition: p.partition, offset: p.offset })).sort((x, y) => x.partition - y.partition),
    })),
  }
}
