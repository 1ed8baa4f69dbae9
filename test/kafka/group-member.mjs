// A wafka group member in a process of its own, for tests that kill it with
// -9: it joins `group`, reads `topic` from the beginning, and prints one JSON
// line per assignment, revocation and message read.
//   node test/kafka/group-member.mjs <bootstrap> <group> <topic> <name> <sessionTimeoutMs> [classic|consumer]
import { Kafka } from '../../dist/index.js'

const [bootstrap, groupId, topic, name, sessionTimeoutMs, groupProtocol = 'classic'] = process.argv.slice(2)
const out = (o) => process.stdout.write(`${JSON.stringify(o)}\n`)
const consumer = new Kafka({ clientId: name, brokers: bootstrap.split(','), retryBackoffMs: 100 }).consumer({
  groupId,
  groupProtocol,
  ...(groupProtocol === 'classic' ? { sessionTimeoutMs: Number(sessionTimeoutMs), heartbeatIntervalMs: 500 } : {}),
  autoCommitIntervalMs: 200,
  maxWaitTimeInMs: 200,
})
const partitions = (e) => e.payload.partitions.flatMap((t) => t.partitions.map((p) => `${t.topic}-${p}`))
consumer.on(consumer.events.PARTITIONS_ASSIGNED, (e) => out({ assigned: partitions(e) }))
consumer.on(consumer.events.PARTITIONS_REVOKED, (e) => out({ revoked: partitions(e) }))
consumer.on(consumer.events.CRASH, (e) => out({ crash: String(e.payload.error?.message ?? e.payload.error) }))
await consumer.connect()
await consumer.subscribe({ topics: [topic], fromBeginning: true })
await consumer.run({
  eachMessage: async ({ partition, message }) => out({ read: message.value.toString(), partition, offset: String(message.offset) }),
})
out({ running: true })
