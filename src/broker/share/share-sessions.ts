import { INT32_MAX } from '../../int32.js'

/** KIP-932 share session epochs: 0 opens a session, -1 closes it, others follow one another (wrapping to 1). */
export const SHARE_INITIAL_EPOCH = 0
export const SHARE_FINAL_EPOCH = -1

export function nextShareEpoch(epoch: number): number {
  return epoch >= INT32_MAX ? 1 : epoch + 1
}

/** A share partition as a session names it. */
export interface SessionPartition {
  topicId: string
  partition: number
}

/**
 * A member's share session with one broker: the partitions it fetches
 * (added by a fetch naming them, dropped when forgotten) and the epoch its
 * next request must carry.
 */
export interface ShareSession {
  /** The broker the session is with: a member keeps one with each leader it fetches from. */
  brokerId: number
  groupId: string
  memberId: string
  epoch: number
  readonly partitions: Map<string, SessionPartition>
}

export const partitionKey = (topicId: string, partition: number) => `${topicId}:${partition}`

/**
 * The share sessions of every broker of the cluster, one per broker, group
 * and member (each Kafka broker's ShareSessionCache keys them by group and
 * member): a member fetching from three leaders holds three sessions, each
 * with its own epoch, and opening one leaves the others alone.
 */
export class ShareSessions {
  private readonly sessions = new Map<string, ShareSession>()

  private static key(brokerId: number, groupId: string, memberId: string): string {
    return `${brokerId}\u0000${groupId}\u0000${memberId}`
  }

  get(brokerId: number, groupId: string, memberId: string): ShareSession | undefined {
    return this.sessions.get(ShareSessions.key(brokerId, groupId, memberId))
  }

  /** A new session at epoch 1 (what the request after the opening one carries), replacing any with that broker. */
  open(brokerId: number, groupId: string, memberId: string): ShareSession {
    const s: ShareSession = { brokerId, groupId, memberId, epoch: nextShareEpoch(SHARE_INITIAL_EPOCH), partitions: new Map() }
    this.sessions.set(ShareSessions.key(brokerId, groupId, memberId), s)
    return s
  }

  delete(session: ShareSession): void {
    const k = ShareSessions.key(session.brokerId, session.groupId, session.memberId)
    if (this.sessions.get(k) === session) this.sessions.delete(k)
  }

  /** Every broker's session of a member (it left its group). */
  deleteMember(groupId: string, memberId: string): void {
    for (const [k, s] of this.sessions) if (s.groupId === groupId && s.memberId === memberId) this.sessions.delete(k)
  }

  clear(): void {
    this.sessions.clear()
  }
}
