import type { PartitionMetadata } from './cluster-types.js'
import type { KafkaJSError } from './errors.js'

/** The metadata KafkaJS's error classes take and carry, under KafkaJS's type names. */

export interface KafkaJSErrorMetadata {
  retriable?: boolean
  topic?: string
  partitionId?: number
  metadata?: PartitionMetadata
}
export interface KafkaJSOffsetOutOfRangeMetadata {
  topic: string
  partition: number
}
export interface KafkaJSNumberOfRetriesExceededMetadata {
  retryCount: number
  retryTime: number
}
export interface KafkaJSConnectionErrorMetadata {
  broker?: string
  code?: string
}
export interface KafkaJSRequestTimeoutErrorMetadata {
  broker: string
  clientId: string
  correlationId: number
  createdAt: number
  sentAt: number
  pendingDuration: number
}
export interface KafkaJSTopicMetadataNotLoadedMetadata {
  topic: string
}
export interface KafkaJSStaleTopicMetadataAssignmentMetadata {
  topic: string
  unknownPartitions: PartitionMetadata[]
}
export interface KafkaJSServerDoesNotSupportApiKeyMetadata {
  apiKey: number
  apiName: string
}
export interface KafkaJSDeleteGroupsErrorGroups {
  groupId: string
  errorCode: number
  error: KafkaJSError
}
export interface KafkaJSDeleteTopicRecordsErrorPartition {
  partition: number
  offset: string
  error: KafkaJSError
}
export interface KafkaJSDeleteTopicRecordsErrorTopic {
  topic: string
  partitions: KafkaJSDeleteTopicRecordsErrorPartition[]
}
