// A share-group member in its own process, for the test that kills one with
// records in flight (test/kafka/share-groups.test.ts): takes one batch,
// prints "held <value>,<value>,..." and never acknowledges it.
// argv: bootstrap groupId topic
import { Kafka } from '../../src/index.js'

const [bootstrap, groupId, topic] = process.argv.slice(2)
const consumer = new Kafka({ clientId: 'share-child', brokers: bootstrap.split(','), retryBackoffMs: 100 }).shareConsumer({
  groupId,
  acknowledgementMode: 'explicit',
  maxPollRecords: 10,
  shareAcquireMode: 'record_limit',
  maxWaitTimeInMs: 200,
})
consumer.on('consumer.crash', (e) => console.error('crash:', e.payload?.error?.stack ?? e.payload))
await consumer.subscribe({ topics: [topic] })
await consumer.run({
  eachBatch: async ({ batch }) => {
    console.log(`held ${batch.messages.map((m) => m.value!.toString()).join(',')}`)
    await new Promise(() => {})
  },
})
