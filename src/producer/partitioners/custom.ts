// The application's own partitioner: a function taking KafkaJS's arguments
// (so KafkaJS partitioners move over unchanged), or an object with our
// Partitioner interface. A record with a fixed partition never reaches it (as
// in the Java client). Every answer is checked, since a partition outside the
// topic is a bug in the partitioner and the error should say which.
import { ConfigError } from '../../errors.js'
import type {
  CustomPartitioner,
  KafkaJSPartitionMetadata,
  Partitioner,
  PartitionerArgs,
  PartitionFn,
  PartitionFunction,
  PartitionView,
} from './types.js'

export function customPartitioner(custom: PartitionFunction | CustomPartitioner): Partitioner {
  return typeof custom === 'function' ? new FunctionPartitioner(custom) : new ObjectPartitioner(custom)
}

class FunctionPartitioner implements Partitioner {
  constructor(private readonly fn: PartitionFunction) {}

  readonly partition: PartitionFn = (topic, key, partitionCount, availablePartitions, message = { key }, metadata) => {
    const fixed = message.partition
    if (fixed != null) return fixed
    const args: PartitionerArgs = {
      topic,
      partitionCount,
      availablePartitions,
      message,
      // Built only for the partitioners that read it (KafkaJS's style), then cached per metadata.
      get partitionMetadata() {
        return kafkajsMetadata(partitionCount, availablePartitions, metadata)
      },
    }
    return checked(this.fn(args), partitionCount, topic, this.fn.name)
  }

  onBatchFull(): void {}
}

class ObjectPartitioner implements Partitioner {
  /** A class instance's class name, for the error message. */
  private readonly name: string

  constructor(private readonly custom: CustomPartitioner) {
    const ctor = (custom as object).constructor
    this.name = typeof ctor === 'function' && ctor !== Object ? ctor.name : ''
  }

  readonly partition: PartitionFn = (topic, key, partitionCount, availablePartitions, message, metadata) => {
    const fixed = message?.partition
    if (fixed != null) return fixed
    const p = this.custom.partition(topic, key, partitionCount, availablePartitions, message, metadata)
    return checked(p, partitionCount, topic, this.name)
  }

  onBatchFull(topic: string, partition: number): void {
    this.custom.onBatchFull?.(topic, partition)
  }
}

function checked(p: unknown, count: number, topic: string, name: string | undefined): number {
  if (typeof p === 'number' && Number.isInteger(p) && p >= 0 && p < count) return p
  const who = name ? `the custom partitioner "${name}"` : 'the custom partitioner'
  const got = typeof p === 'function' ? 'a function' : typeof p === 'string' ? JSON.stringify(p) : String(p)
  const hint =
    typeof p === 'function'
      ? ' (a KafkaJS partitioner factory such as Partitioners.DefaultPartitioner? pass what it returns: partitioner: Factory())'
      : ''
  throw new ConfigError(
    `${who} returned ${got} for topic "${topic}", which has ${count} partition${count === 1 ? '' : 's'}: ` +
      `it must return an integer from 0 to ${count - 1}${hint}`,
  )
}

const metadataCache = new WeakMap<object, { count: number; list: KafkaJSPartitionMetadata[] }>()

/** The topic's partitions as KafkaJS describes them, from the metadata when given, else from the available ids. */
function kafkajsMetadata(count: number, available: readonly number[], metadata?: readonly PartitionView[]): KafkaJSPartitionMetadata[] {
  const source = metadata ?? available
  const hit = metadataCache.get(source)
  if (hit !== undefined && hit.count === count) return hit.list
  let list: KafkaJSPartitionMetadata[]
  if (metadata) {
    list = metadata.map((p) => ({
      partitionErrorCode: p.errorCode ?? 0,
      partitionId: p.partition,
      leader: p.leader,
      replicas: [...(p.replicas ?? [])],
      isr: [...(p.isr ?? [])],
      offlineReplicas: [...(p.offlineReplicas ?? [])],
    }))
  } else {
    // Without metadata the leader's id is unknown: 0 stands for "has a leader", -1 for none.
    const led = new Set(available)
    list = Array.from({ length: count }, (_, id) => ({
      partitionErrorCode: 0,
      partitionId: id,
      leader: led.has(id) ? 0 : -1,
      replicas: [],
      isr: [],
      offlineReplicas: [],
    }))
  }
  metadataCache.set(source, { count, list })
  return list
}
