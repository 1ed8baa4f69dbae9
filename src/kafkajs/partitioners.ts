import type { PartitionFunction } from '../producer/partitioners/types.js'
import type { DefaultPartitioner, ICustomPartitioner, LegacyPartitioner } from './cluster-types.js'

/** The wafka partitioner a KafkaJS built-in stands for: the engine runs its own (same choices, no per-record closure). */
const ENGINE_NAME = Symbol('wafka.partitioner')

function builtIn(name: 'kafkajs-default' | 'kafkajs-legacy'): ICustomPartitioner {
  return () => Object.assign(() => -1, { [ENGINE_NAME]: name })
}

/** KafkaJS 2's partitioners: DefaultPartitioner is the Java-compatible murmur2 one, LegacyPartitioner KafkaJS 1's. */
export const Partitioners: {
  DefaultPartitioner: DefaultPartitioner
  LegacyPartitioner: LegacyPartitioner
  /** @deprecated in KafkaJS 2 too: DefaultPartitioner. */
  JavaCompatiblePartitioner: DefaultPartitioner
} = {
  DefaultPartitioner: builtIn('kafkajs-default'),
  JavaCompatiblePartitioner: builtIn('kafkajs-default'),
  LegacyPartitioner: builtIn('kafkajs-legacy'),
}

/**
 * The producer's `partitioner` option for KafkaJS's `createPartitioner`
 * (DefaultPartitioner when absent). The engine calls a custom one with
 * KafkaJS's arguments (topic, partitionMetadata, message).
 */
export function enginePartitioner(createPartitioner: ICustomPartitioner | undefined): string | PartitionFunction {
  const fn = (createPartitioner ?? Partitioners.DefaultPartitioner)()
  return (fn as unknown as Record<symbol, string>)[ENGINE_NAME] ?? (fn as unknown as PartitionFunction)
}
