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
  groupId: string
  memberId: string
  epoch: number
  readonly partitions: Map<string, SessionPartition>
}

export const partitionKey = (topicId: string, partition: number) => `${topicId}:${partition}`

/** The share sessions, one per group and member (as Kafka's ShareSessionCache keys them). */
export class ShareSessions {
  private readonly sessions = new Map<string, ShareSession>()

  private static key(groupId: string, memberId: string): string {
    return `${groupId}\u0000${memberId}`
  }

  get(groupId: string, memberId: string): ShareSession | undefined {
    return this.sessions.get(ShareSessions.key(groupId, memberId))
  }

  /** A new session at epoch 1 (what the request after the opening one carries), replacing any. */
  open(groupId: string, memberId: string): ShareSession {
    const s: ShareSession = { groupId, memberId, epoch: nextShareEpoch(SHARE_INITIAL_EPOCH), partitions: new Map() }
    this.sessions.set(ShareSessions.key(groupId, memberId), s)
    return s
  }

  delete(groupId: string, memberId: string): ShareSession | undefined {
    const k = ShareSessions.key(groupId, memberId)
    const s = this.sessions.get(k)
    this.sessions.delete(k)
    return s
  }

  clear(): void {
    this.sessions.clear()
  }
}
