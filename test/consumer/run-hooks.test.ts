// The seam the KafkaJS drop-in runs on (RunHooks, set with the engine
// consumer's useRunHooks): the engine's loop calls batchStarted and its
// BatchEnd around each batch, reports a handler's error through
// handlerFailed, gives a handler up after handlerRetries failures in a row,
// and restarts the run when runFailed says so, with the same handlers.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import type { RunFailure } from '../../src/consumer/delivery-runner.js'
import { topicWith, until } from './support.js'

let cluster: RunningCluster
beforeAll(async () => {
  cluster = await startCluster({ brokers: 1, groupInitialRebalanceDelayMs: 0 } as never)
})
afterAll(async () => {
  await cluster?.stop()
})

it('batch hooks around each batch, a handler given up after its retries, and a restart the hook asks for', async () => {
  const kafka = new Kafka({ clientId: 'run-hooks', brokers: cluster.bootstrapServers.split(','), logCreator: () => () => {} })
  const topic = 'run-hooks'
  await topicWith(kafka, topic, ['a', 'b', 'c'])

  const consumer = kafka.consumer({ groupId: 'g-run-hooks', maxWaitTimeInMs: 100, autoOffsetReset: 'earliest', retryBackoffMs: 20 })
  const calls: string[] = []
  const events: string[] = []
  const failures: RunFailure[] = []
  const crashes: Array<{ restart: boolean; retryCount?: number }> = []
  consumer.on(
    consumer.events.CRASH,
    (e) => void crashes.push({ restart: e.payload.restart, retryCount: e.payload.retriesExceeded?.retryCount }),
  )
  consumer.useRunHooks({
    batchStarted: (batch) => {
      events.push(`start ${batch.firstOffset()}`)
      return async ({ stale, commitOffsetsIfNecessary }) => {
        events.push(`end ${stale}`)
        await commitOffsetsIfNecessary()
      }
    },
    handlerFailed: (handler, _topic, _partition, offset) => void events.push(`${handler} failed at ${offset}`),
    handlerRetries: 2,
    runFailed: async (failure) => {
      failures.push(failure)
      return { error: new Error('reported'), restartInMs: 50 }
    },
  })
  let bFailures = 0
  try {
    await consumer.connect()
    await consumer.subscribe({ topics: [topic] })
    await consumer.run({
      eachMessage: async ({ message }) => {
        const v = String(message.value)
        calls.push(v)
        if (v === 'b' && bFailures < 3) {
          bFailures++
          throw new Error('handler failed')
        }
      },
    })
    await until(
      () => calls.includes('c'),
      20_000,
      () => calls.join(','),
    )
  } finally {
    await consumer.disconnect()
  }
  // Two retries, then the third failure ends the run; the restart reads 'b' again and goes on.
  expect(calls.filter((v) => v === 'b')).toHaveLength(4)
  expect(failures).toEqual([
    expect.objectContaining({
      topic,
      partition: 0,
      retriesExceeded: { retryCount: 2 },
      error: expect.objectContaining({ message: 'handler failed' }),
    }),
  ])
  // Each retried failure is a CRASH the consumer recovers from; the last one reports the restart.
  expect(crashes).toEqual([
    { restart: true, retryCount: undefined },
    { restart: true, retryCount: undefined },
    { restart: true, retryCount: 2 },
  ])
  expect(events.filter((e) => e.includes('failed'))).toEqual(Array(3).fill('eachMessage failed at 1'))
  expect(events[0]).toBe('start 0')
  expect(events).toContain('end false')
})
