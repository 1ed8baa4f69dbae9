import { ErrorCodes } from '../../protocol/error-codes.js'
import type { RequestContext } from '../handler.js'
import type { PartitionLog } from '../partition-log.js'
import { groupConfig } from '../dynamic-configs.js'
import { ACK_RENEW, type AckBatch } from '../share/share-partition.js'
import { SHARE_FINAL_EPOCH, SHARE_INITIAL_EPOCH, nextShareEpoch, type ShareSession } from '../share/share-sessions.js'

/** The partition's log when this broker leads it, or the error a share request gets for it. */
export function ledLog(
  ctx: RequestContext,
  topicId: string,
  partition: number,
): { log: PartitionLog; leaderEpoch: number; leaderId: number } | number {
  const t = ctx.cluster.controller.topicsById.get(topicId)
  if (!t) return ErrorCodes.UNKNOWN_TOPIC_ID
  const led = ctx.cluster.leaderReplica(ctx.broker, t, partition)
  if (typeof led === 'number') return led
  return { log: led.replica.log, leaderEpoch: led.p.leaderEpoch, leaderId: led.p.leader }
}

/** The partition's current leader as share responses tell it ({-1, -1} when none is known). */
export function currentLeader(ctx: RequestContext, topicId: string, partition: number): { leaderId: number; leaderEpoch: number } {
  const p = ctx.cluster.controller.topicsById.get(topicId)?.partitions[partition]
  return p ? { leaderId: p.leader, leaderEpoch: p.leaderEpoch } : { leaderId: -1, leaderEpoch: -1 }
}

/** What became of a member's acknowledgements of one partition: NONE when all applied. */
export interface AckOutcome {
  errorCode: number
  errorMessage: string | null
}

/** A member's acknowledgements of one partition applied (all or none). */
export function acknowledge(
  ctx: RequestContext,
  groupId: string,
  memberId: string,
  topicId: string,
  partition: number,
  batches: AckBatch[],
): AckOutcome {
  const outcome = (errorCode: number, errorMessage: string | null = null): AckOutcome => ({ errorCode, errorMessage })
  if (batches.length === 0) return outcome(ErrorCodes.NONE)
  // RENEW (KIP-1222) is version 2's; a group may turn it off (share.renew.acknowledge.enable), refused then as Kafka does.
  if (batches.some((b) => b.acknowledgeTypes.includes(ACK_RENEW))) {
    if (ctx.version < 2) return outcome(ErrorCodes.INVALID_REQUEST)
    if (groupConfig(ctx.cluster, groupId, 'share.renew.acknowledge.enable') !== 'true')
      return outcome(ErrorCodes.INVALID_RECORD_STATE, 'Renewing acquisition locks is not enabled for the group.')
  }
  const led = ledLog(ctx, topicId, partition)
  if (typeof led === 'number') return outcome(led)
  const sp = ctx.cluster.groups.shares.existing(groupId, topicId, partition)
  if (!sp) return outcome(ErrorCodes.INVALID_RECORD_STATE)
  const refused = sp.acknowledge(memberId, batches)
  return outcome(refused === null ? ErrorCodes.NONE : ErrorCodes[refused])
}

/**
 * The member's share session for a request at `epoch` (not the opening 0):
 * the session, or the top-level error — not found, or the wrong epoch. The
 * session's epoch moves on (a final request closes it afterwards).
 */
export function continuedSession(ctx: RequestContext, groupId: string, memberId: string, epoch: number): ShareSession | number {
  const session = ctx.cluster.groups.shares.sessions.get(ctx.broker.id, groupId, memberId)
  if (!session) return ErrorCodes.SHARE_SESSION_NOT_FOUND
  if (epoch === SHARE_INITIAL_EPOCH) return ErrorCodes.INVALID_SHARE_SESSION_EPOCH
  if (epoch !== SHARE_FINAL_EPOCH) {
    if (epoch !== session.epoch) return ErrorCodes.INVALID_SHARE_SESSION_EPOCH
    session.epoch = nextShareEpoch(session.epoch)
  }
  return session
}

export const toAckBatches = (bs: Array<{ firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] }>): AckBatch[] =>
  bs.map((b) => ({ firstOffset: Number(b.firstOffset), lastOffset: Number(b.lastOffset), acknowledgeTypes: b.acknowledgeTypes }))
