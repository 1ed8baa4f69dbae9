import { logLevel as levels, type LogCreator, type LogLevel } from '../logger.js'

/** KafkaJS's logLevel is an enum: a value and a type of one name. */
export const logLevel = levels
export type logLevel = LogLevel
/** KafkaJS's name for the log creator type. */
export type logCreator = LogCreator
