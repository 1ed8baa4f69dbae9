import type { EmbeddedCluster } from '../cluster.js'
import { ClassicGroup } from './classic-group.js'

/** Kafka's offsets.topic.num.partitions: a group's coordinator is the leader of its __consumer_offsets partition. */
const OFFSETS_PARTITIONS = 50

/** Java's String.hashCode, which places a group on its __consumer_offsets partition. */
function javaHash(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

/**
 * The groups of the cluster and which broker coordinates each: the
 * group's __consumer_offsets partition is placed round-robin on the live
 * brokers, so a stopped coordinator's groups move to another broker (their
 * state with them, as a new coordinator loads it from the offsets topic).
 */
export class GroupCoordinator {
  readonly groups = new Map<string, ClassicGroup>()

  constructor(private readonly cluster: EmbeddedCluster) {}

  /** The broker id coordinating `key`, or -1 when no broker is up. */
  coordinatorFor(key: string): number {
    const live = this.cluster.controller.liveBrokers()
    if (live.length === 0) return -1
    const partition = (javaHash(key) & 0x7fffffff) % OFFSETS_PARTITIONS
    return live[partition % live.length].id
  }

  get(groupId: string): ClassicGroup | undefined {
    return this.groups.get(groupId)
  }

  getOrCreate(groupId: string): ClassicGroup {
    let g = this.groups.get(groupId)
    if (!g) this.groups.set(groupId, (g = new ClassicGroup(groupId, { initialRebalanceDelayMs: this.cluster.options.groupInitialRebalanceDelayMs })))
    return g
  }

  delete(groupId: string): void {
    this.groups.get(groupId)?.close()
    this.groups.delete(groupId)
  }

  close(): void {
    for (const g of this.groups.values()) g.close()
  }
}
