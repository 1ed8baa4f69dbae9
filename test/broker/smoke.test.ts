import { expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { startCluster } from '../../src/broker/index.js'

it('smoke', async () => {
  const problems: string[] = []
  const cluster = await startCluster({ brokers: 3, topics: [{ name: 't', partitions: 3 }], onProblem: (m) => problems.push(m) })
  try {
    const kafka = new Kafka({ clientId: 'smoke', brokers: cluster.bootstrapServers.split(',') })
    const producer = kafka.producer({})
    await producer.connect()
    const r = await producer.send({ topic: 't', messages: Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) })
    console.log(JSON.stringify(r, (k, v) => (typeof v === 'bigint' ? String(v) : v)))
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: 'g1' })
    await consumer.connect()
    await consumer.subscribe({ topics: ['t'], fromBeginning: true })
    const seen: string[] = []
    await consumer.run({ eachMessage: async ({ message }) => { seen.push(message.value!.toString()) } })
    const deadline = Date.now() + 20000
    while (seen.length < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    await consumer.disconnect()
    expect(seen.length).toBe(30)
  } finally {
    console.log(problems.join('\n'))
    await cluster.stop()
  }
})
