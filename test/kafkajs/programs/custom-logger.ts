// Custom Logger: a logCreator receiving { namespace, level, label, log }, the level filter, and logger() on each client.
import type { Program } from './program.js'

export const customLogger: Program = async ({ Kafka, logLevel }, env) => {
  const entries: Array<{ namespace: string; level: number; label: string; message: string; extra: unknown; fields: string[] }> = []
  let createdWith: number | undefined
  const logCreator = (level: number) => {
    createdWith = level
    return ({
      namespace,
      level,
      label,
      log,
    }: {
      namespace: string
      level: number
      label: string
      log: { message: string; [k: string]: unknown }
    }) => {
      const { message, timestamp, logger, ...extra } = log
      if (typeof timestamp !== 'string') throw new Error('an entry without a timestamp')
      entries.push({
        namespace,
        level,
        label,
        message,
        extra,
        fields: Object.keys(log)
          .filter((k) => k === 'message' || k === 'timestamp')
          .sort(),
      })
    }
  }
  const kafka = new Kafka({ clientId: 'logger', brokers: env.brokers, logLevel: logLevel.WARN, logCreator })
  const logger = kafka.logger()
  logger.info('not written: below WARN')
  logger.warn('written', { extra: 1 })
  logger.error('also written', { code: 'E1' })
  logger.setLogLevel(logLevel.DEBUG)
  logger.debug('written after setLogLevel')
  const mine = entries.filter((x) => x.message.includes('written'))
  const producer = kafka.producer()
  const consumer = kafka.consumer({ groupId: env.name('g') })
  const admin = kafka.admin()
  return {
    createdWith,
    entries: mine,
    clientLoggers: [producer.logger(), consumer.logger(), admin.logger()].map(
      (l) => typeof l.info === 'function' && typeof l.namespace === 'function',
    ),
    levels: logLevel,
  }
}
