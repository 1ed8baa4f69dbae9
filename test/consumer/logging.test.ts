// What the consumer logs at INFO and above in a session on the embedded
// broker: it starts, joins (with its assignment) and stops at INFO; a
// handler that throws and a commit the group refuses are ERRORs (a refused
// commit used to surface only as an event, which looked like a silent loss).
import { afterAll, beforeAll, expect, it } from 'vitest'
import { Kafka, logLevel, type LogEntry } from '../../src/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { OffsetCommit } from '../../src/protocol/messages/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { topicWith, until } from './support.js'

let cluster: RunningCluster
beforeAll(async () => {
  cluster = await startCluster({ brokers: 1, groupInitialRebalanceDelayMs: 0 } as never)
})
afterAll(async () => {
  await cluster?.stop()
})

it('logs the start, the join, a handler error, a refused commit and the stop', async () => {
  const entries: LogEntry[] = []
  const kafka = new Kafka({
    clientId: 'logging',
    brokers: cluster.bootstrapServers.split(','),
    logLevel: logLevel.INFO,
    logCreator: () => (e) => void entries.push(e),
  })
  const topic = 'logging'
  await topicWith(kafka, topic, ['a', 'bad', 'c'])

  const consumer = kafka.consumer({ groupId: 'g-logging', maxWaitTimeInMs: 100, autoOffsetReset: 'earliest', retryBackoffMs: 50 })
  const seen: string[] = []
  let failed = false
  const refused: unknown[] = []
  consumer.on(consumer.events.COMMIT_OFFSETS, (e) => void (e.payload.error && refused.push(e.payload.error)))
  const start = entries.length
  try {
    await consumer.connect()
    await consumer.subscribe({ topics: [topic] })
    // The first automatic commit is refused as it is at a rebalance.
    cluster.injectError(OffsetCommit.apiKey, ErrorCodes.REBALANCE_IN_PROGRESS, 1)
    await consumer.run({
      autoCommitInterval: 200,
      eachMessage: async ({ message }) => {
        const v = String(message.value)
        if (v === 'bad' && !failed) {
          failed = true
          throw new Error('poison message')
        }
        seen.push(v)
      },
    })
    await until(
      () => seen.includes('c') && refused.length > 0,
      20_000,
      () => `read ${seen.join(' ')}, ${refused.length} refused commit(s)`,
    )
  } finally {
    await consumer.disconnect()
  }
  const logged = entries.slice(start).filter((e) => e.namespace === 'Consumer')
  const find = (label: string, message: RegExp) => logged.filter((e) => e.label === label && message.test(e.log.message))
  expect(find('INFO', /^Starting$/)).toHaveLength(1)
  const joined = find('INFO', /^Consumer has joined the group$/)
  expect(joined).toHaveLength(1)
  expect(joined[0].log).toMatchObject({ groupId: 'g-logging', isLeader: true, memberAssignment: { logging: [0] } })
  expect(joined[0].log.memberId).toEqual(joined[0].log.leaderId)
  expect(typeof joined[0].log.duration).toBe('number')
  const handlerErrors = find('ERROR', /^Error when calling eachMessage$/)
  expect(handlerErrors).toHaveLength(1)
  expect(handlerErrors[0].log).toMatchObject({ topic, partition: 0, offset: '1', error: 'poison message' })
  const refusedLogged = find('ERROR', /refused the offset commit/)
  expect(refusedLogged).toHaveLength(1)
  expect(refusedLogged[0].log).toMatchObject({ groupId: 'g-logging', partitions: [{ topic, partitions: [0] }] })
  expect(String(refusedLogged[0].log.error)).toMatch(/REBALANCE_IN_PROGRESS/)
  expect(find('INFO', /^Stopped$/)).toHaveLength(1)
  expect(find('ERROR', /^Crash/)).toHaveLength(0)
})
