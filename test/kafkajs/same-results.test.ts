// KafkaJS's documented usage, section by section (test/kafkajs/programs),
// run unchanged against KafkaJS 2.2.4 and against wafka/kafkajs, on one real
// Kafka broker and on the embedded broker (src/broker, three brokers): on
// each, both clients must observe the same thing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as kafkajs from 'kafkajs'
import * as wafkajs from '../../src/kafkajs/index.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import type { KafkaJSModule, Program, ProgramEnv } from './programs/program.js'
import { gettingStarted } from './programs/getting-started.js'
import { producing } from './programs/producing.js'
import { consuming } from './programs/consuming.js'
import { failingHandler } from './programs/failing-handler.js'
import { adminProgram } from './programs/admin.js'
import { adminCalls } from './programs/admin-calls.js'
import { adminErrors } from './programs/admin-errors.js'
import { transactions } from './programs/transactions.js'
import { configuration } from './programs/configuration.js'
import { instrumentation } from './programs/instrumentation.js'
import { customLogger } from './programs/custom-logger.js'
import { customPartitioner } from './programs/custom-partitioner.js'
import { customAssigner } from './programs/custom-assigner.js'

const programs: Record<string, Program> = {
  'Getting Started': gettingStarted,
  Producing: producing,
  Consuming: consuming,
  'Consuming: a failing handler': failingHandler,
  Admin: adminProgram,
  'Admin: every other call': adminCalls,
  'Admin: errors': adminErrors,
  Transactions: transactions,
  Configuration: configuration,
  'Instrumentation Events': instrumentation,
  'Custom Logger': customLogger,
  'Custom Partitioner': customPartitioner,
  'Custom Assigner': customAssigner,
}

// Against the built package (WAFKA_BUILT) the embedded half alone: it runs
// the built client on the built broker, and the src run already holds the
// same client code to real Kafka (about 70 s less per built project).
const targets = brokerTargets().filter((t) => !process.env.WAFKA_BUILT || t.embedded)

for (const target of targets)
  describe.skipIf(!target.available)(`KafkaJS programs give the same results on kafkajs and wafka/kafkajs, on ${target.name}`, () => {
    let cluster: RunningTarget
    beforeAll(async () => {
      cluster = await target.start()
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    const env = (client: string, program: string): ProgramEnv => ({
      brokers: cluster.bootstrap.split(','),
      name: (what) => `${client}-${program.replace(/\W+/g, '-').toLowerCase()}-${what}`,
      embedded: target.embedded,
    })

    for (const [section, program] of Object.entries(programs)) {
      it(
        section,
        async () => {
          const expected = await program(kafkajs as unknown as KafkaJSModule, env('kafkajs', section))
          const actual = await program(wafkajs as unknown as KafkaJSModule, env('wafka', section))
          if (process.env.KAFKAJS_PROGRAMS_PRINT) console.log(target.name, section, JSON.stringify(expected))
          expect(actual).toEqual(expected)
        },
        120_000,
      )
    }
  })
