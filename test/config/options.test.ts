import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { KAFKA_OPTIONS } from '../../src/cluster/options.js'
import { nearest } from '../../src/config/option.js'
import { REFERENCE_BEGIN, REFERENCE_END } from '../../src/config/reference.js'
import { configurationReference, documentedFiles, withGeneratedJsDoc } from '../../src/build/option-docs.js'
import { CONSUMER_OPTIONS, resolveConsumerConfig } from '../../src/consumer/config.js'
import { Kafka, resolveKafkaConfig } from '../../src/kafka.js'
import { PRODUCER_OPTIONS, resolveProducerConfig } from '../../src/producer/config.js'
import { refusal } from '../support/refusal.js'

const brokers = ['127.0.0.1:1']
describe('options are validated', () => {
  it('an unknown key is refused, naming the nearest valid one', () => {
    expect(refusal(() => new Kafka({ brokers, clientID: 'x' } as never))).toMatch(/^unknown Kafka option clientID: did you mean clientId\?/)
    expect(refusal(() => resolveProducerConfig({ lingerMS: 5 } as never))).toMatch(
      /^unknown producer option lingerMS: did you mean lingerMs\?/,
    )
    expect(refusal(() => resolveConsumerConfig({ groupId: 'g', sessionTimeoutMS: 10 } as never))).toMatch(/did you mean sessionTimeoutMs\?/)
    expect(refusal(() => resolveConsumerConfig({ groupId: 'g', sesionTimeoutMs: 10 } as never))).toMatch(/did you mean sessionTimeoutMs\?/)
    // Nothing near: the valid names are listed instead.
    expect(refusal(() => resolveProducerConfig({ zzzzzzzzzz: 1 } as never))).toMatch(
      /^unknown producer option zzzzzzzzzz \(valid: acks, lingerMs,/,
    )
    expect(refusal(() => new Kafka({ brokers, onRequest: 'log' } as never))).toMatch(/^onRequest must be a function/)
    const kafka = new Kafka({ brokers })
    expect(refusal(() => kafka.admin({ requestTimeotMs: 5 } as never))).toMatch(
      /^unknown admin option requestTimeotMs: did you mean requestTimeoutMs\?/,
    )
  })

  it("takes KafkaJS's names where they mean the same, and says what to use where they do not", () => {
    expect(resolveKafkaConfig({ brokers, connectionTimeout: 1234, requestTimeout: 999, maxInFlightRequests: 2 } as never)).toMatchObject({
      connectTimeoutMs: 1234,
      requestTimeoutMs: 999,
      maxInFlight: 2,
    })
    expect(resolveProducerConfig({ maxInFlightRequests: 3, transactionTimeout: 5000 } as never)).toMatchObject({
      maxInFlight: 3,
      transactionTimeoutMs: 5000,
    })
    expect(resolveConsumerConfig({ groupId: 'g', sessionTimeout: 20_000, heartbeatInterval: 1000 } as never)).toMatchObject({
      sessionTimeoutMs: 20_000,
      heartbeatIntervalMs: 1000,
    })
    expect(refusal(() => new Kafka({ brokers, retry: { retries: 5 } } as never))).toMatch(
      /retry \(KafkaJS\) is not supported: .*retryBackoffMs/,
    )
    expect(refusal(() => resolveConsumerConfig({ groupId: 'g', readUncommitted: true } as never))).toMatch(/isolationLevel/)
    // A KafkaJS name on a client of a Kafka object that passes requestTimeoutMs on is still one name, not two.
    const kafka = new Kafka({ brokers, requestTimeoutMs: 5000 })
    expect(() => kafka.producer({ requestTimeout: 1000 } as never)).not.toThrow()
    expect(() => kafka.consumer({ groupId: 'g', requestTimeout: 1000 } as never)).not.toThrow()
    expect(refusal(() => resolveProducerConfig({ requestTimeout: 1, requestTimeoutMs: 2 } as never))).toMatch(
      /requestTimeout is KafkaJS's name for requestTimeoutMs: give one of them, not both/,
    )
  })

  it('caps millisecond fields at int32 and keeps the minimums', () => {
    expect(refusal(() => resolveProducerConfig({ lingerMs: 2 ** 31 }))).toMatch(
      /^lingerMs must be a number from 0 to 2147483647, not 2147483648/,
    )
    expect(resolveProducerConfig({ maxBlockMs: 2 ** 31 - 1 }).maxBlockMs).toBe(2 ** 31 - 1)
    expect(refusal(() => new Kafka({ brokers, requestTimeoutMs: 3e9 }))).toMatch(/requestTimeoutMs must be a number from 1 to 2147483647/)
    expect(refusal(() => resolveConsumerConfig({ groupId: 'g', sessionTimeoutMs: 0 }))).toMatch(/sessionTimeoutMs must be a number from 1/)
  })

  it('takes its defaults from the table', () => {
    const p = resolveProducerConfig({})
    for (const name of [
      'lingerMs',
      'batchSize',
      'bufferMemory',
      'maxBlockMs',
      'maxRequestSize',
      'transactionTimeoutMs',
      'maxInFlight',
      'deliveryTimeoutMs',
      'requestTimeoutMs',
    ] as const) {
      expect(p[name]).toBe(PRODUCER_OPTIONS[name].default)
    }
    const c = resolveConsumerConfig({ groupId: 'g' })
    for (const name of [
      'sessionTimeoutMs',
      'heartbeatIntervalMs',
      'maxPollIntervalMs',
      'maxBytes',
      'minBytes',
      'maxWaitTimeInMs',
      'autoCommitIntervalMs',
      'metadataMaxAgeMs',
    ] as const) {
      expect(c[name]).toBe(CONSUMER_OPTIONS[name].default)
    }
    expect(KAFKA_OPTIONS.requestTimeoutMs.default).toBe(30_000)
  })

  it('suggests only names that are close', () => {
    expect(nearest('requestTimeout', ['requestTimeoutMs', 'retryBackoffMs'])).toBe('requestTimeoutMs')
    expect(nearest('compresion', ['compression', 'acks'])).toBe('compression')
    expect(nearest('logLevel', ['acks', 'lingerMs'])).toBeUndefined()
  })
})

describe("the README's configuration reference", () => {
  it('is what src/config/reference.ts generates from the defaults table (npm run generate:readme)', () => {
    const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../README.md'), 'utf8')
    const start = readme.indexOf(REFERENCE_BEGIN)
    const end = readme.indexOf(REFERENCE_END)
    expect(start).toBeGreaterThan(0)
    expect(readme.slice(start, end + REFERENCE_END.length)).toBe(configurationReference())
  })
})

describe("the options interfaces' JSDoc", () => {
  it('is what each option table writes (npm run generate:readme): one place describes an option', () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '../..')
    const files = documentedFiles()
    expect(files).toEqual([
      'src/net/connection-options.ts',
      'src/cluster/options.ts',
      'src/producer/config.ts',
      'src/consumer/config.ts',
      'src/consumer/share/config.ts',
    ])
    for (const file of files) {
      const source = readFileSync(join(root, file), 'utf8')
      expect(withGeneratedJsDoc(file, source), file).toBe(source)
    }
  })
})
