import type { Replica } from './broker.js'
import type { EmbeddedCluster } from './cluster.js'
import type { PartitionImage } from './controller.js'

/**
 * KIP-392's replica selector, at the leader of a partition: the replica a
 * consumer in `clientRack` should fetch from instead, or -1 for the leader
 * itself. 'rack-aware' (Kafka's RackAwareReplicaSelector) picks, when the
 * leader is not in the consumer's rack, a live in-sync replica that is and
 * already has `fetchOffset` — the one furthest along, then the one caught up
 * most recently. 'leader' (the default) always answers -1.
 */
export function preferredReadReplica(
  cluster: EmbeddedCluster,
  leaderId: number,
  p: PartitionImage,
  replica: Replica,
  clientRack: string,
  fetchOffset: number,
): number {
  if (cluster.options.replicaSelector !== 'rack-aware' || clientRack === '' || !replica.leader) return -1
  const { brokers } = cluster.controller
  if (brokers.get(leaderId)?.rack === clientRack) return -1
  let best = -1
  let bestEnd = -1
  let bestCaughtUp = -1
  for (const r of p.isr) {
    const b = brokers.get(r)
    const f = replica.leader.followers.get(r)
    if (r === leaderId || !b || b.fenced || b.rack !== clientRack || !f || f.logEnd < fetchOffset) continue
    if (f.logEnd > bestEnd || (f.logEnd === bestEnd && f.lastCaughtUpMs > bestCaughtUp)) {
      best = r
      bestEnd = f.logEnd
      bestCaughtUp = f.lastCaughtUpMs
    }
  }
  return best
}
