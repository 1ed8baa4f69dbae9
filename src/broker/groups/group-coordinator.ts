import type { EmbeddedCluster } from '../cluster.js'
import { ClassicGroup } from './classic-group.js'
import { ConsumerGroup } from './consumer-group.js'
import type { GroupStore } from '../storage/group-store.js'

import { groupCoordinatorFor } from '../coordinator-placement.js'
import { groupConfig } from '../dynamic-configs.js'

/** A group speaks one protocol: the classic one (JoinGroup/SyncGroup) or KIP-848's (ConsumerGroupHeartbeat). */
export type Group = ClassicGroup | ConsumerGroup

/**
 * The groups of the cluster and which broker coordinates each. A group id
 * names one group of one type; an empty group of one type becomes the other
 * when a member of the other protocol arrives (its offsets stay), as Kafka's
 * coordinator converts them.
 */
export class GroupCoordinator {
  readonly groups = new Map<string, Group>()
  /** The group log in dataDir; null in memory. */
  store: GroupStore | null = null

  constructor(private readonly cluster: EmbeddedCluster) {}

  /** The broker id coordinating `key` (its __consumer_offsets partition's leader), or -1 while there is none. */
  coordinatorFor(key: string): number {
    return groupCoordinatorFor(this.cluster, key)
  }

  get(groupId: string): Group | undefined {
    return this.groups.get(groupId)
  }

  classic(groupId: string): ClassicGroup | undefined {
    const g = this.groups.get(groupId)
    return g?.type === 'classic' ? g : undefined
  }

  consumer(groupId: string): ConsumerGroup | undefined {
    const g = this.groups.get(groupId)
    return g?.type === 'consumer' ? g : undefined
  }

  /** The classic group of that id, created (or converted from an empty consumer group); undefined while a consumer group has members. */
  classicOrCreate(groupId: string): ClassicGroup | undefined {
    const g = this.groups.get(groupId)
    if (g?.type === 'classic') return g
    if (g && g.state !== 'Empty') return undefined
    const created = new ClassicGroup(groupId, { initialRebalanceDelayMs: this.cluster.options.groupInitialRebalanceDelayMs })
    if (g) {
      created.takeOffsetsFrom(g)
      g.close()
    }
    created.changes = this.store
    this.groups.set(groupId, created)
    return created
  }

  /** The consumer group of that id, created (or converted from an empty classic group); undefined while a classic group has members. */
  consumerOrCreate(groupId: string): ConsumerGroup | undefined {
    const g = this.groups.get(groupId)
    if (g?.type === 'consumer') return g
    if (g && g.state !== 'Empty') return undefined
    const cluster = this.cluster
    // The group's own configs (IncrementalAlterConfigs on GROUP), else the broker's, read at each use as Kafka does.
    const created = new ConsumerGroup(groupId, cluster.controller, {
      get sessionTimeoutMs() {
        return Number(groupConfig(cluster, groupId, 'consumer.session.timeout.ms'))
      },
      get heartbeatIntervalMs() {
        return Number(groupConfig(cluster, groupId, 'consumer.heartbeat.interval.ms'))
      },
      get assignmentIntervalMs() {
        return Number(groupConfig(cluster, groupId, 'consumer.assignment.interval.ms'))
      },
    })
    if (g) {
      created.takeOffsetsFrom(g)
      g.close()
    }
    created.changes = this.store
    this.groups.set(groupId, created)
    return created
  }

  delete(groupId: string): void {
    this.groups.get(groupId)?.close()
    if (this.groups.delete(groupId)) this.store?.deleted(groupId)
  }

  close(): void {
    for (const g of this.groups.values()) g.close()
    this.store?.close()
    this.store = null
  }
}
