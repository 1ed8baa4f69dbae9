import type { EmbeddedCluster } from '../cluster.js'
import { ClassicGroup } from './classic-group.js'
import type { GroupStore } from '../storage/group-store.js'

import { coordinatorFor } from '../coordinator-placement.js'

/** The groups of the cluster and which broker coordinates each. */
export class GroupCoordinator {
  readonly groups = new Map<string, ClassicGroup>()
  /** The group log in dataDir; null in memory. */
  store: GroupStore | null = null

  constructor(private readonly cluster: EmbeddedCluster) {}

  /** The broker id coordinating `key`, or -1 when no broker is up. */
  coordinatorFor(key: string): number {
    return coordinatorFor(this.cluster, key)
  }

  get(groupId: string): ClassicGroup | undefined {
    return this.groups.get(groupId)
  }

  getOrCreate(groupId: string): ClassicGroup {
    let g = this.groups.get(groupId)
    if (!g)
      this.groups.set(
        groupId,
        (g = new ClassicGroup(groupId, { initialRebalanceDelayMs: this.cluster.options.groupInitialRebalanceDelayMs })),
      )
    g.changes = this.store
    return g
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
