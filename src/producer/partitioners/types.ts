// What the producer and a partitioner say to each other.
import type { Bytes } from '../../codec/types.js'

/** A record as the partitioner sees it; the producer's messages fit. */
export interface PartitionerMessage {
  readonly key?: Bytes
  readonly value?: Bytes
  /** Set: the record goes there, whatever the partitioner. */
  readonly partition?: number | null
  readonly headers?: unknown
  readonly timestamp?: unknown
}

/** One partition of the topic's metadata; the cluster cache's PartitionInfo fits. */
export interface PartitionView {
  readonly partition: number
  /** The leader's broker id; -1 without one. */
  readonly leader: number
  readonly replicas?: readonly number[]
  readonly isr?: readonly number[]
  readonly offlineReplicas?: readonly number[]
  readonly errorCode?: number
}

/**
 * Chooses each record's partition. The producer calls `partition` for every
 * record without a fixed one, and `onBatchFull` when a partition's open batch
 * is sealed, which is when a sticky partitioner moves its keyless records on.
 */
export interface Partitioner {
  readonly partition: PartitionFn
  /** The open batch of `topic`/`partition` is full (sealed): keyless records should go elsewhere now. */
  onBatchFull(topic: string, partition: number): void
}

/**
 * One record's partition; the one signature every partitioner implements.
 * @param key the record's key, null/undefined when it has none
 * @param partitionCount how many partitions the topic has (ids 0..count-1)
 * @param availablePartitions ids of the partitions with a leader, ascending;
 *   the same array object while metadata is unchanged (a new one tells a
 *   sticky partitioner to re-check its partition)
 * @param message the whole record, for custom partitioners
 * @param metadata the topic's partitions, for custom partitioners written
 *   for KafkaJS (its `partitionMetadata`)
 * @returns a partition id in [0, partitionCount)
 */
export type PartitionFn = (
  topic: string,
  key: string | Uint8Array | null | undefined,
  partitionCount: number,
  availablePartitions: readonly number[],
  message?: PartitionerMessage,
  metadata?: readonly PartitionView[],
) => number

/** A partition in KafkaJS's shape, for partitioners written for KafkaJS. */
export interface KafkaJSPartitionMetadata {
  partitionErrorCode: number
  partitionId: number
  leader: number
  replicas: number[]
  isr: number[]
  offlineReplicas: number[]
}

/** What a custom partition function is given: KafkaJS's arguments plus the count and available ids. */
export interface PartitionerArgs {
  topic: string
  partitionCount: number
  availablePartitions: readonly number[]
  /** KafkaJS's `partitionMetadata`, built when first read. */
  readonly partitionMetadata: KafkaJSPartitionMetadata[]
  message: PartitionerMessage
}

/** A custom partitioner as KafkaJS takes them (the function its `createPartitioner()` returns). */
export type PartitionFunction = (args: PartitionerArgs) => number

/** A custom partitioner of ours: the Partitioner interface, `onBatchFull` optional. */
export interface CustomPartitioner {
  partition: PartitionFn
  onBatchFull?: Partitioner['onBatchFull']
}

/** The options the built-in partitioners share. */
export interface PartitionerOptions {
  /** In [0, 1); Math.random by default. Tests inject a seeded one. */
  random?: () => number
  /** 'default' only: hash no keys, stick every record (Java's partitioner.ignore.keys). */
  ignoreKeys?: boolean
}
