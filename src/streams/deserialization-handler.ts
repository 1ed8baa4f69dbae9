// What happens to a record its source serde cannot read, as Java's
// deserialization.exception.handler decides it: fail (the default, Java's
// LogAndFailExceptionHandler: the record stops the application and nothing
// past it is committed) or continue (LogAndContinueExceptionHandler: the
// record is skipped, and counts as processed). A function decides per record.
import type { Logger } from '../logger.js'
import { ConfigError } from '../errors.js'

/** The record a serde could not read. */
export interface DeserializationFailure {
  /** The task's id, `<subtopology>_<partition>`. */
  taskId: string
  topic: string
  partition: number
  offset: string
  error: Error
}

export type DeserializationResponse = 'continue' | 'fail'

export type DeserializationExceptionHandler =
  'logAndFail' | 'logAndContinue' | ((failure: DeserializationFailure) => DeserializationResponse)

/** The handler option as one function that logs as Java's handlers log and answers what to do. */
export function deserializationHandler(
  given: DeserializationExceptionHandler | undefined,
  log: Logger,
): (failure: DeserializationFailure) => DeserializationResponse {
  const say = (f: DeserializationFailure) => ({
    taskId: f.taskId,
    topic: f.topic,
    partition: f.partition,
    offset: f.offset,
    error: f.error.message,
  })
  const message = 'a record could not be deserialized'
  if (given === undefined || given === 'logAndFail')
    return (f) => {
      log.error(`${message}: failing`, say(f))
      return 'fail'
    }
  if (given === 'logAndContinue')
    return (f) => {
      log.warn(`${message}: skipped, processing goes on`, say(f))
      return 'continue'
    }
  if (typeof given === 'function')
    return (f) => {
      const answer = given(f)
      if (answer !== 'continue' && answer !== 'fail')
        throw new ConfigError(`deserializationExceptionHandler returned ${JSON.stringify(answer)}: it must return 'continue' or 'fail'`)
      return answer
    }
  throw new ConfigError(
    `deserializationExceptionHandler must be 'logAndFail', 'logAndContinue' or a function, not ${JSON.stringify(given)}`,
  )
}
