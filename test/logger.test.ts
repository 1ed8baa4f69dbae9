import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Kafka } from '../src/kafka.js'
import { createLogger, logLevel, type LogEntry } from '../src/logger.js'
import { requirePeers, startMockCluster, type MockCluster } from './peers/mock-cluster.js'

const collect = () => {
  const entries: LogEntry[] = []
  return { entries, logCreator: () => (e: LogEntry) => void entries.push(e) }
}

describe('the logger (KafkaJS shape)', () => {
  it('writes WARN and above by default, with namespace, label and a timestamped log', () => {
    const { entries, logCreator } = collect()
    const log = createLogger({ logCreator }).namespace('Cluster')
    log.debug('hidden')
    log.info('hidden too')
    log.warn('metadata refresh failed', { broker: 'b1' })
    log.error('gave up')
    expect(entries.map((e) => [e.namespace, e.label, e.level, e.log.message])).toEqual([
      ['Cluster', 'WARN', logLevel.WARN, 'metadata refresh failed'],
      ['Cluster', 'ERROR', logLevel.ERROR, 'gave up'],
    ])
    expect(entries[0].log).toMatchObject({ logger: 'wafka', broker: 'b1' })
    expect(Number.isNaN(Date.parse(entries[0].log.timestamp))).toBe(false)
  })

  it('follows setLogLevel, and NOTHING writes nothing', () => {
    const { entries, logCreator } = collect()
    const log = createLogger({ logLevel: logLevel.NOTHING, logCreator })
    log.error('x')
    expect(entries).toHaveLength(0)
    log.setLogLevel(logLevel.DEBUG)
    log.namespace('a').namespace('b').debug('y')
    expect(entries.map((e) => [e.namespace, e.log.message])).toEqual([['a.b', 'y']])
  })

  it('caught() logs a dropped error by its message and code at the level asked', () => {
    const { entries, logCreator } = collect()
    const log = createLogger({ logLevel: logLevel.DEBUG, logCreator })
    log.caught('background refresh failed')(Object.assign(new Error('boom'), { code: 6 }))
    log.caught('leave failed', 'warn', { groupId: 'g' })('not an error')
    expect(entries.map((e) => [e.label, e.log.message, e.log.error, e.log.errorCode, e.log.groupId])).toEqual([
      ['DEBUG', 'background refresh failed', 'boom', 6, undefined],
      ['WARN', 'leave failed', 'not an error', undefined, 'g'],
    ])
  })

  it('the default writes one JSON line to stderr', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      createLogger().namespace('Connection').warn('slow', { ms: 12, offset: 5n })
      expect(spy).toHaveBeenCalledTimes(1)
      const line = spy.mock.calls[0][0] as string
      expect(line).not.toContain('\n')
      expect(JSON.parse(line)).toMatchObject({
        level: 'WARN',
        logger: 'wafka',
        namespace: 'Connection',
        message: 'slow',
        ms: 12,
        offset: '5',
      })
    } finally {
      spy.mockRestore()
    }
  })

  it('a throwing log creator does not break the caller', () => {
    const log = createLogger({
      logCreator: () => () => {
        throw new Error('sink down')
      },
    })
    expect(() => log.error('x')).not.toThrow()
  })
})

describe('clients log what they decide', () => {
  let mock: MockCluster
  beforeAll(async () => {
    requirePeers()
    mock = await startMockCluster({ brokers: 1 })
    await mock.createTopic('logged', { partitions: 1, replicationFactor: 1 })
  })
  afterAll(async () => {
    await mock?.stop()
  })

  it('at DEBUG: connection, negotiation and metadata', async () => {
    const { entries, logCreator } = collect()
    const kafka = new Kafka({ brokers: mock.bootstrap.split(','), logLevel: logLevel.DEBUG, logCreator })
    expect(kafka.logger().namespace).toBeTypeOf('function')
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic: 'logged', messages: [{ value: 'x' }] })
    await producer.disconnect()
    const messages = entries.map((e) => `${e.namespace}: ${e.log.message}`)
    expect(messages.some((m) => /^Connection: connected/.test(m))).toBe(true)
    expect(messages.some((m) => /^Connection: negotiated API versions/.test(m))).toBe(true)
    expect(messages.some((m) => /^Cluster: metadata refreshed/.test(m))).toBe(true)
    expect(entries.every((e) => e.level === logLevel.DEBUG || e.level === logLevel.INFO)).toBe(true)
  })

  it('refuses a logLevel that is not one of the levels', () => {
    expect(() => new Kafka({ brokers: ['127.0.0.1:1'], logLevel: 3 as never })).toThrow(/logLevel must be one of/)
  })
})
