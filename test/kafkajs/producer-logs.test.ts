// What a KafkaJS producer logs as it is made, on KafkaJS 2.2.4 and on
// wafka/kafkajs alike: the default-partitioner warning (once a process, on
// the root logger), the idempotent producer's warning about limited retries,
// and its refusal of none. (What a failing send logs: producer-failures.test.ts.)
// Alone in its file: the partitioner warning is once a process.
import { createRequire } from 'node:module'
import { expect, it } from 'vitest'
import * as wafkajs from '../../src/kafkajs/index.js'
import type { KafkaJSModule } from './programs/program.js'

const require = createRequire(import.meta.url)
const kafkajs = require('kafkajs') as KafkaJSModule

function program(client: KafkaJSModule) {
  const entries: Array<{ namespace?: string; label: string; message: string }> = []
  const kafka = new client.Kafka({
    brokers: ['localhost:1'],
    logLevel: client.logLevel.INFO,
    logCreator: () => (e) => entries.push({ namespace: e.namespace, label: e.label, message: e.log.message }),
  })
  kafka.producer()
  kafka.producer()
  kafka.producer({ createPartitioner: client.Partitioners.DefaultPartitioner, idempotent: true })
  kafka.producer({ createPartitioner: client.Partitioners.DefaultPartitioner, idempotent: true, retry: { retries: 3 } })
  let refused: unknown
  try {
    kafka.producer({ createPartitioner: client.Partitioners.DefaultPartitioner, idempotent: true, retry: { retries: 0 } })
  } catch (e) {
    const err = e as Error & { retriable?: boolean }
    refused = { name: err.name, message: err.message, retriable: err.retriable }
  }
  return { entries, refused }
}

it('a producer logs and refuses as KafkaJS does as it is made', () => {
  delete process.env.KAFKAJS_NO_PARTITIONER_WARNING
  const theirs = program(kafkajs)
  expect(theirs.entries.map((e) => [e.namespace, e.label, e.message.slice(0, 48)])).toEqual([
    [undefined, 'WARN', 'KafkaJS v2.0.0 switched default partitioner. To '],
    ['Producer', 'WARN', 'Limiting retries for the idempotent producer may'],
  ])
  expect(theirs.refused).toMatchObject({ name: 'KafkaJSNonRetriableError', retriable: false })
  expect(program(wafkajs as unknown as KafkaJSModule)).toEqual(theirs)
})
