// The producer's `partitioner` option, resolved to a Partitioner.
import { ConfigError } from '../../errors.js'
import { customPartitioner } from './custom.js'
import { DefaultPartitioner } from './default.js'
import { KafkaJSPartitioner } from './legacy.js'
import { Murmur2Partitioner } from './murmur2-partitioner.js'
import type { CustomPartitioner, Partitioner, PartitionerOptions, PartitionFunction } from './types.js'

export type * from './types.js'
export { DefaultPartitioner } from './default.js'
export { KafkaJSPartitioner } from './legacy.js'
export { Murmur2Partitioner } from './murmur2-partitioner.js'
export { murmur2, murmur2Bytes, murmur2Partition, toPositive } from './murmur2.js'
export { kafkajsLegacyMurmur2 } from './kafkajs-murmur2.js'

export type PartitionerName = 'default' | 'murmur2' | 'kafkajs-default' | 'kafkajs-legacy'
export type PartitionerOption = PartitionerName | PartitionFunction | CustomPartitioner

const NAMES: readonly PartitionerName[] = ['default', 'murmur2', 'kafkajs-default', 'kafkajs-legacy']

/** Other clients' names for ours, to say which one was meant. */
const ALIASES: Record<string, PartitionerName> = {
  DefaultPartitioner: 'kafkajs-default',
  JavaCompatiblePartitioner: 'kafkajs-default',
  LegacyPartitioner: 'kafkajs-legacy',
  murmur2_random: 'default',
  sticky: 'default',
}

/**
 * - 'default': the Java client's (murmur2 for keys, sticky for keyless records);
 * - 'murmur2': librdkafka's (murmur2 for keys, keyless records all to one partition);
 * - 'kafkajs-default' / 'kafkajs-legacy': KafkaJS's DefaultPartitioner / LegacyPartitioner;
 * - a function `({ topic, partitionCount, availablePartitions, partitionMetadata, message }) => partition`
 *   (a KafkaJS partitioner works as is), or an object `{ partition(...), onBatchFull?(...) }`.
 */
export function createPartitioner(option: PartitionerOption = 'default', options: PartitionerOptions = {}): Partitioner {
  if (options.random !== undefined && typeof options.random !== 'function') {
    throw new ConfigError(`partitioner random must be a function returning a number in [0, 1), got ${typeof options.random}`)
  }
  if (typeof option === 'function') return customPartitioner(option)
  if (typeof option === 'object' && option !== null && typeof option.partition === 'function') return customPartitioner(option)
  switch (option) {
    case 'default':
      return new DefaultPartitioner(options)
    case 'murmur2':
      return new Murmur2Partitioner()
    case 'kafkajs-default':
      return new KafkaJSPartitioner('default', options)
    case 'kafkajs-legacy':
      return new KafkaJSPartitioner('legacy', options)
  }
  const alias = typeof option === 'string' && Object.hasOwn(ALIASES, option) ? ` (did you mean '${ALIASES[option]}'?)` : ''
  const got = typeof option === 'string' ? `"${option}"` : option === null ? 'null' : `a value of type ${typeof option}`
  throw new ConfigError(
    `unknown partitioner ${got}${alias}: use ${NAMES.map((n) => `'${n}'`).join(', ')}, ` +
      'a function ({ topic, partitionCount, partitionMetadata, message }) => partition, ' +
      'or an object with partition(topic, key, partitionCount, availablePartitions, message)',
  )
}
