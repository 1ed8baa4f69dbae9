import type { EmbeddedCluster } from '../cluster.js'
import { ClassicGroup } from './classic-group.js'
import { ConsumerGroup } from './consumer-group.js'
import type { GroupStore } from '../storage/group-store.js'
import { ShareGroup, type ShareGroupSnapshot } from './share-group.js'
import { SharePartitions } from '../share/share-partitions.js'

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
  /**
   * Share groups (KIP-932), apart from the others: they have no offsets to
   * carry over and are never converted. A group id names one group of one
   * type across both maps.
   */
  readonly shareGroups = new Map<string, ShareGroup>()
  /** The share partitions' in-flight records and the share sessions. */
  readonly shares: SharePartitions
  /** The group log in dataDir; null in memory. */
  store: GroupStore | null = null

  constructor(private readonly cluster: EmbeddedCluster) {
    this.shares = new SharePartitions(cluster)
  }

  share(groupId: string): ShareGroup | undefined {
    return this.shareGroups.get(groupId)
  }

  /** The share group of that id, created; undefined while a classic or consumer group holds the id. */
  shareOrCreate(groupId: string): ShareGroup | undefined {
    const existing = this.shareGroups.get(groupId)
    if (existing) return existing
    if (this.groups.has(groupId)) return undefined
    const cluster = this.cluster
    const created = new ShareGroup(groupId, cluster.controller, {
      get sessionTimeoutMs() {
        return Number(groupConfig(cluster, groupId, 'share.session.timeout.ms'))
      },
      get heartbeatIntervalMs() {
        return Number(groupConfig(cluster, groupId, 'share.heartbeat.interval.ms'))
      },
    })
    created.onMemberGone = (memberId) => this.shares.memberGone(groupId, memberId)
    created.onChange = (snapshot) => this.keepShareGroup(groupId, snapshot)
    this.shareGroups.set(groupId, created)
    return created
  }

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
    if ((g && g.state !== 'Empty') || this.shareGroups.has(groupId)) return undefined
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
    if ((g && g.state !== 'Empty') || this.shareGroups.has(groupId)) return undefined
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

  /** A share group's change written to the group log; a failed write is logged (the group goes on; a restart would lose the change). */
  private keepShareGroup(groupId: string, snapshot: ShareGroupSnapshot): void {
    try {
      this.store?.shareGroup(groupId, snapshot)
    } catch (err) {
      this.cluster.problem(null, `group log: share group ${groupId}: ${(err as Error).message}`, 'error')
    }
  }

  delete(groupId: string): void {
    const share = this.shareGroups.get(groupId)
    if (share) {
      share.close()
      this.shareGroups.delete(groupId)
      this.shares.dropGroup(groupId)
      this.store?.deleted(groupId)
      return
    }
    this.groups.get(groupId)?.close()
    if (this.groups.delete(groupId)) this.store?.deleted(groupId)
  }

  close(): void {
    for (const g of this.groups.values()) g.close()
    for (const g of this.shareGroups.values()) g.close()
    this.shares.close()
    this.store?.close()
    this.store = null
  }
}
