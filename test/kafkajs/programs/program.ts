// What every program gets: the module under test (`kafkajs` or
// `wafka/kafkajs`, the program cannot tell which), the brokers, and names
// unique to this run. A program returns what it observed, as plain data, in
// a form that does not depend on which client ran it.
import type * as KafkaJS from 'kafkajs'
import { untilTrue } from '../../support/until.js'

export type KafkaJSModule = typeof KafkaJS

export interface ProgramEnv {
  brokers: string[]
  /** A prefix for topic and group names: the two clients' runs never share one. */
  name: (what: string) => string
  /**
   * On the embedded broker (src/broker): the few calls whose API it does not
   * serve (AlterConfigs, partition reassignments, ACLs) run on real Kafka only.
   */
  embedded?: boolean
  /** Secured listeners (the SSL/SASL program only). */
  secured?: { saslBrokers: string[]; saslSslBrokers: string[]; sslBrokers: string[]; ca: string; users: Record<string, string> }
}

export type Program = (kafkajs: KafkaJSModule, env: ProgramEnv) => Promise<unknown>

/** Resolves when `check()` holds, polling every 50 ms; rejects after `timeoutMs` naming `what` (the shared wait). */
export const until = (check: () => boolean, timeoutMs = 30_000, what = 'condition'): Promise<void> =>
  untilTrue(check, timeoutMs, () => what, 50)

/** The class name and KafkaJS fields of an error, for comparing. */
export function errorShape(e: unknown) {
  const err = e as { name?: string; type?: string; retriable?: boolean; constructor?: { name?: string } }
  return { name: err?.name, type: err?.type, retriable: err?.retriable }
}

/** A quiet logCreator: the programs' output is what they return. */
export const quiet = () => () => {}
