import type { MetadataResponse } from '../protocol/messages/index.js'

export interface BrokerInfo {
  nodeId: number
  host: string
  port: number
  rack: string | null
}

export interface PartitionInfo {
  partition: number
  leader: number
  /** -1 when the broker does not report epochs (Metadata < v7). */
  leaderEpoch: number
  replicas: number[]
  isr: number[]
  offlineReplicas: number[]
  errorCode: number
}

export interface TopicInfo {
  name: string
  topicId: string
  isInternal: boolean
  errorCode: number
  partitions: PartitionInfo[]
}

/**
 * What the cluster last told us: brokers, controller, and per topic its
 * partitions' leaders. Replaced wholesale for the topics a response covers.
 */
export class MetadataCache {
  brokers = new Map<number, BrokerInfo>()
  topics = new Map<string, TopicInfo>()
  clusterId: string | null = null
  controllerId = -1
  /** Date.now() of the last successful refresh. */
  updatedAt = 0

  /** Applies a response; `all` when it answered for every topic (so absent ones are gone). */
  apply(res: MetadataResponse, all: boolean): void {
    this.brokers = new Map(res.brokers.map((b) => [b.nodeId, { nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null }]))
    this.clusterId = res.clusterId ?? null
    this.controllerId = res.controllerId ?? -1
    if (all) this.topics.clear()
    for (const t of res.topics) {
      if (t.name === null) continue
      this.topics.set(t.name, {
        name: t.name,
        topicId: t.topicId,
        isInternal: t.isInternal,
        errorCode: t.errorCode,
        partitions: t.partitions
          .map((p) => ({
            partition: p.partitionIndex,
            leader: p.leaderId,
            leaderEpoch: p.leaderEpoch,
            replicas: p.replicaNodes,
            isr: p.isrNodes,
            offlineReplicas: p.offlineReplicas,
            errorCode: p.errorCode,
          }))
          .sort((a, b) => a.partition - b.partition),
      })
    }
    this.updatedAt = Date.now()
  }

  partition(topic: string, partition: number): PartitionInfo | undefined {
    return this.topics.get(topic)?.partitions[partition]
  }
}
