// A consume-transform-produce processor in its own process, for the test
// that kills it mid-transaction (test/kafka/transactions.test.ts): reads
// IN with read_committed, writes `out-<value>` to OUT and commits the
// consumed offsets in the same transaction. Prints one line per step:
// "in-txn <partition> <first> <last>" once a transaction holds records,
// "committed <partition> <next offset>" after each commit.
// argv: bootstrap groupId inTopic outTopic transactionalId holdMs
import { Kafka } from '../../src/index.js'

const [bootstrap, groupId, inTopic, outTopic, transactionalId, holdMs] = process.argv.slice(2)
const kafka = new Kafka({ clientId: 'ctp-child', brokers: bootstrap.split(','), retryBackoffMs: 100 })
const producer = kafka.producer({ transactionalId, transactionTimeoutMs: 30_000 })
const consumer = kafka.consumer({
  groupId,
  isolationLevel: 'read_committed',
  autoCommit: false,
  autoOffsetReset: 'earliest',
  sessionTimeoutMs: 6000,
  heartbeatIntervalMs: 500,
  maxBytesPerPartition: 4096,
  maxWaitTimeInMs: 200,
})
await producer.connect()
await consumer.connect()
await consumer.subscribe({ topics: [inTopic] })
// A crash is the test's business: say so on stderr, which it shows when it fails.
consumer.on('consumer.crash', (e) => console.error('crash:', e.payload?.error?.stack ?? e.payload))
await consumer.run({
  eachBatch: async ({ batch }) => {
    // At most 50 records a transaction, so a kill finds one open often.
    for (let i = 0; i < batch.messages.length; i += 50) {
      const chunk = batch.messages.slice(i, i + 50)
      const txn = await producer.transaction()
      await txn.send({ topic: outTopic, messages: chunk.map((m) => ({ key: m.key, value: `out-${m.value!.toString()}` })) })
      const last = chunk[chunk.length - 1]
      console.log(`in-txn ${batch.partition} ${chunk[0].offset} ${last.offset}`)
      await new Promise((r) => setTimeout(r, Number(holdMs)))
      const next = String(BigInt(last.offset) + 1n)
      await txn.sendOffsets({
        consumerGroupId: groupId,
        topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }],
      })
      await txn.commit()
      console.log(`committed ${batch.partition} ${next}`)
    }
  },
})
