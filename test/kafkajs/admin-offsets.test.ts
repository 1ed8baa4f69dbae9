// admin.fetchOffsets({ resolveOffsets }) as KafkaJS answers it: a partition
// the group never committed reads -1, or with resolveOffsets its end offset;
// a committed one reads its commit either way. Both clients on one embedded
// broker, the same answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import * as wafkajs from '../../src/kafkajs/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'

describe('admin.fetchOffsets on kafkajs and wafka/kafkajs', () => {
  let cluster: RunningCluster
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, topics: [{ name: 'offsets', partitions: 2 }] } as never)
  })
  afterAll(async () => {
    await cluster?.stop()
  })

  it('resolveOffsets turns "none committed" into the end offset, and leaves commits alone', async () => {
    const quiet = { logLevel: kafkajs.logLevel.NOTHING, logCreator: () => () => {} }
    const libs = [kafkajs, wafkajs as unknown as typeof kafkajs]
    const brokers = cluster.bootstrapServers.split(',')
    const producer = new kafkajs.Kafka({ brokers, ...quiet }).producer()
    await producer.connect()
    await producer.send({ topic: 'offsets', messages: [0, 0, 0, 1].map((partition) => ({ partition, value: 'v' })) })
    await producer.disconnect()

    const answers = []
    for (const [i, lib] of libs.entries()) {
      const admin = new lib.Kafka({ brokers, ...quiet }).admin()
      await admin.connect()
      const groupId = `g${i}`
      await admin.setOffsets({ groupId, topic: 'offsets', partitions: [{ partition: 0, offset: '2' }] })
      const sort = (r: Array<{ partitions: Array<{ partition: number; offset: string }> }>) =>
        r[0].partitions.map(({ partition, offset }) => ({ partition, offset })).sort((a, b) => a.partition - b.partition)
      const plain = sort(await admin.fetchOffsets({ groupId, topics: ['offsets'] }))
      const resolved = sort(await admin.fetchOffsets({ groupId, topics: ['offsets'], resolveOffsets: true }))
      answers.push({ plain, resolved })
      await admin.disconnect()
    }
    expect(answers[0]).toEqual({
      plain: [
        { partition: 0, offset: '2' },
        { partition: 1, offset: '-1' },
      ],
      resolved: [
        { partition: 0, offset: '2' },
        { partition: 1, offset: '1' },
      ],
    })
    expect(answers[1]).toEqual(answers[0])
  }, 60_000)
})
