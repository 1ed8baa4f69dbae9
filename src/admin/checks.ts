import { KafkaError, UnsupportedApiError, kafkaError } from '../errors.js'
import type { Answered } from '../cluster/client.js'
import { asAnswer } from '../cluster/retry.js'
import { ErrorCodes } from '../protocol/error-codes.js'

/** What the admin calls share in reading an answer: per-item error codes, version floors, a missing topic. */

/** The version, when it is at least `min`; else a clear error naming what needs a newer broker. */
export function requireVersion(version: number, min: number, what: string): true {
  if (version < min)
    throw new UnsupportedApiError(`${what} needs a broker that speaks a newer protocol version (v${min}+, this one: v${version})`)
  return true
}

/** Throws the first non-zero error code of a per-item answer, naming the item (and the broker, when known). */
export function check(errorCode: number, api: string, detail: string, message?: string | null, from?: Answered): void {
  if (errorCode !== 0) throw kafkaError(errorCode, { api, broker: from?.broker, detail: message ? `${detail}: ${message}` : detail })
}

/** A topic that does not exist is the answer about it, not a reason to retry until the timeout (see asAnswer). */
export function unknownTopicIsAnswer(err: unknown): never {
  if (err instanceof KafkaError && err.is(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)) throw asAnswer(err)
  throw err
}
