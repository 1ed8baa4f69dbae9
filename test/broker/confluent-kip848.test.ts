// librdkafka's KIP-848 consumer (@confluentinc/kafka-javascript,
// group.protocol=consumer) end to end against the embedded broker, where
// Kafka 4.4 and wafka answered differently: a commit before the consumer
// has joined (member epoch -1, librdkafka's own member id) is taken, as
// Kafka takes it; and a regex subscription beside a literal topic gets the
// literal topic's partitions first and the regex's with the next epoch
// (Kafka resolves regexes off the heartbeat path; librdkafka's
// 0045_resubscribe_with_regex expects exactly that).
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { Kafka as Wafka } from '../../src/index.js'
import { requirePeers } from '../peers/available.js'
import { ckjsDir } from '../peers/build.mjs'
import { until } from './support.js'

type Untyped = any

const peers = requirePeers({ builds: ['modern'], kcat: false })
const ckjs: Untyped = peers ? createRequire(join(ckjsDir, 'package.json'))(ckjsDir) : null

describe.skipIf(!peers)('librdkafka KIP-848 consumer against the embedded broker', () => {
  let cluster: RunningCluster | undefined
  const clients: Array<{ disconnect(): Promise<void> }> = []
  afterEach(async () => {
    await Promise.allSettled(
      clients
        .splice(0)
        .reverse()
        .map((c) => c.disconnect()),
    )
    await cluster?.stop()
    cluster = undefined
  })

  const start = async () => {
    cluster = await startCluster({
      brokers: 1,
      topics: [
        { name: 'rx-1', partitions: 4 },
        { name: 'rx-2', partitions: 4 },
        { name: 'lit', partitions: 2 },
      ],
    })
    return new ckjs.KafkaJS.Kafka({
      kafkaJS: { clientId: 'ckjs-kip848', brokers: cluster.bootstrapServers.split(','), logLevel: ckjs.KafkaJS.logLevel.NOTHING },
    })
  }
  const open = async <T extends { connect(): Promise<void>; disconnect(): Promise<void> }>(c: T): Promise<T> => {
    clients.push(c)
    await c.connect()
    return c
  }

  it('commits before joining (epoch -1, its own member id): the offsets are stored, as Kafka stores them', async () => {
    const kafka = await start()
    const consumer = await open(
      kafka.consumer({ kafkaJS: { groupId: 'ck-early-commit', autoCommit: false }, 'group.protocol': 'consumer' }),
    )
    await consumer.commitOffsets([{ topic: 'lit', partition: 0, offset: '5' }])
    const admin = await open(new Wafka({ clientId: 'check', brokers: cluster!.bootstrapServers.split(',') }).admin())
    const [lit] = await admin.fetchOffsets({ groupId: 'ck-early-commit', topics: ['lit'] })
    expect(lit.partitions.find((p) => p.partition === 0)?.offset).toBe('5')
  }, 60_000)

  it('a regex beside a literal topic: the literal topic’s partitions first, the regex’s with the next epoch', async () => {
    const kafka = await start()
    const assigned: string[][] = []
    const consumer = await open(
      kafka.consumer({
        kafkaJS: { groupId: 'ck-regex', fromBeginning: true },
        'group.protocol': 'consumer',
        rebalance_cb: (err: Untyped, assignment: Array<{ topic: string; partition: number }>) => {
          if (err.code === ckjs.CODES.ERRORS.ERR__ASSIGN_PARTITIONS)
            assigned.push(assignment.map((a) => `${a.topic}:${a.partition}`).sort())
        },
      }),
    )
    await consumer.subscribe({ topics: [/^rx-.*/, 'lit'] })
    consumer.run({ eachMessage: async () => {} })
    await until(
      () => assigned.flat().length >= 10,
      60_000,
      () => JSON.stringify(assigned),
    )
    expect(assigned[0]).toEqual(['lit:0', 'lit:1'])
    expect(assigned.flat().sort()).toEqual([
      'lit:0',
      'lit:1',
      'rx-1:0',
      'rx-1:1',
      'rx-1:2',
      'rx-1:3',
      'rx-2:0',
      'rx-2:1',
      'rx-2:2',
      'rx-2:3',
    ])
  }, 90_000)
})
