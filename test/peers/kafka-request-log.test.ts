// The rig's requestLog option, which franz-go-suite.mjs --timings reads for
// Kafka's side of the request timings: each completed request in the
// broker's request.log with its totalTimeMs, the client's apart from the
// broker's own (its controller-listener heartbeats, the partition leader's
// AddPartitionsToTxn to the transaction coordinator), the rig's server.log
// kept; and the suite's new-connection probe answered.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { readRequestLogs } from './franz-go-suite/kafka-request-log.mjs'
import { probe } from './franz-go-suite/load-watch.mjs'
import { type KafkaCluster, requireKafka, startKafka } from './kafka.js'

const kafka = requireKafka('4')

describe.skipIf(!kafka)('real Kafka rig: requestLog', () => {
  let cluster: KafkaCluster
  beforeAll(async () => {
    cluster = await startKafka({ requestLog: true })
  })
  afterAll(() => cluster?.stop())

  it('logs each request with its totalTimeMs; the summary counts the client apart from the broker', async () => {
    const [host, port] = cluster.bootstrap.split(':')
    const probes = []
    for (let i = 0; i < 3; i++) probes.push(await probe(host, Number(port)))
    for (const p of probes) expect(p.roundTripMs).toBeGreaterThan(0)
    const logs = cluster.logDirs.map((d) => join(d, 'request.log'))
    const timings = await readRequestLogs(logs)
    // ApiVersions (18): the rig's own readiness checks and the three probes, all on the client listener.
    expect(timings.clients[18].count).toBeGreaterThanOrEqual(3)
    expect(timings.clients[18].max).toBeGreaterThanOrEqual(timings.clients[18].p50)
    // BrokerHeartbeat (63) goes to the controller listener: the broker's own, not a client's.
    expect(timings.brokers[63].count).toBeGreaterThan(0)
    expect(timings.clients[63]).toBeUndefined()
    expect(timings.unparsed).toBe(0)
    expect(readFileSync(join(cluster.logDirs[0], 'server.log'), 'utf8')).toMatch(/Kafka Server started/)
  })

  it("counts the partition leader's AddPartitionsToTxn to the coordinator as the broker's own, the producer's as the client's", async () => {
    const clientId = 'request-log-txn'
    const kafka = new Kafka({ clientId, brokers: [cluster.bootstrap] })
    const admin = kafka.admin()
    const producer = kafka.producer({ transactionalId: 'request-log-txn' })
    try {
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: 'request-log-txn', numPartitions: 2, replicationFactor: 1 }] })
      await producer.connect()
      const txn = await producer.transaction()
      await txn.send({
        topic: 'request-log-txn',
        messages: [
          { value: 'a', partition: 0 },
          { value: 'b', partition: 1 },
        ],
      })
      await txn.commit()
    } finally {
      await producer.disconnect()
      await admin.disconnect()
    }
    const logs = cluster.logDirs.map((d) => join(d, 'request.log'))
    // AddPartitionsToTxn (24) as logged: wafka's producer keeps to transaction.version 1 and sends its own; the
    // partition leader then verifies the partitions with the coordinator (KIP-890 part 1), another client id.
    const lines = logs.flatMap((f) => readFileSync(f, 'utf8').split('\n')).filter((l) => l.includes('"requestApiKey":24,'))
    const fromProducer = lines.filter((l) => l.includes(`"clientId":"${clientId}"`)).length
    const fromLeader = lines.filter((l) => /"clientId":"AddPartitionsManager-client-\d+"/.test(l)).length
    expect(fromProducer).toBeGreaterThan(0)
    expect(fromLeader).toBeGreaterThan(0)
    expect(fromProducer + fromLeader).toBe(lines.length)
    const timings = await readRequestLogs(logs)
    expect(timings.clients[24].count).toBe(fromProducer)
    expect(timings.brokers[24].count).toBe(fromLeader)
  })
})
