import { KeptSnapshot } from './kept-snapshot.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import type { Controller } from '../controller.js'
import type { Assignment } from './assignors.js'
import { assignShares } from './share-assignor.js'

export type ShareGroupState = 'Empty' | 'Stable'

export interface ShareMember {
  memberId: string
  rackId: string | null
  clientId: string
  clientHost: string
  subscribedTopicNames: string[]
  memberEpoch: number
  assigned: Assignment
  sessionTimer: NodeJS.Timeout | null
}

export interface ShareHeartbeatRequest {
  memberId: string
  memberEpoch: number
  rackId: string | null
  subscribedTopicNames: string[] | null
  clientId: string
  clientHost: string
}

export interface ShareHeartbeatResult {
  errorCode: number
  errorMessage: string | null
  memberId: string | null
  memberEpoch: number
  heartbeatIntervalMs: number
  assignment: { topicPartitions: Array<{ topicId: string; partitions: number[] }> } | null
}

export interface ShareGroupTimings {
  /** share.session.timeout.ms of the group (read at each use). */
  readonly sessionTimeoutMs: number
  /** share.heartbeat.interval.ms of the group. */
  readonly heartbeatIntervalMs: number
}

/** A share group as __consumer_offsets keeps it (what Kafka's ShareGroup* records hold: see share-group-records.ts). */
export interface ShareGroupSnapshot {
  groupEpoch: number
  assignmentEpoch: number
  members: Array<{
    memberId: string
    memberEpoch: number
    rackId: string | null
    clientId: string
    clientHost: string
    subscribedTopicNames: string[]
    /** topic id → partitions: what the member has, and what the group's assignment epoch gives it. */
    assigned: Array<[string, number[]]>
    target: Array<[string, number[]]>
  }>
}

const pairs = (a: Assignment): Array<[string, number[]]> => [...a].map(([topicId, ps]) => [topicId, [...ps].sort((x, y) => x - y)])
const assignment = (p: Array<[string, number[]]>): Assignment => new Map(p.map(([t, ps]) => [t, new Set(ps)]))

export const SHARE_LEAVE_EPOCH = -1
export const SHARE_ASSIGNOR = 'simple'

/**
 * A share group (KIP-932) as Kafka's coordinator runs it: members join and
 * heartbeat with their subscriptions; any change of them (or of the
 * subscribed topics' partitions) bumps the group epoch and the assignor
 * computes the whole assignment again. Share assignments need no
 * reconciliation — a partition is shared, never revoked first — so a member
 * takes its new assignment and the group epoch at its next heartbeat.
 * A member that stops heartbeating for share.session.timeout.ms is removed;
 * `onMemberGone` lets the share partitions release what it held.
 */
export class ShareGroup {
  readonly type = 'share'
  groupEpoch = 0
  assignmentEpoch = 0
  readonly members = new Map<string, ShareMember>()
  private target = new Map<string, Assignment>()
  private signature = ''
  private closed = false
  /** Called when a member leaves or is timed out. */
  onMemberGone: (memberId: string) => void = () => {}
  /** Called when what __consumer_offsets keeps changed (epochs, members, assignments), with what it was: Kafka keeps them across a restart. */
  onChange: (snapshot: ShareGroupSnapshot, previous: ShareGroupSnapshot | null) => void = () => {}
  /** What was last given to onChange (or restored), and its text to compare with. */
  private readonly kept = new KeptSnapshot<ShareGroupSnapshot>()

  constructor(
    readonly groupId: string,
    private readonly controller: Controller,
    private readonly timings: ShareGroupTimings,
  ) {}

  get state(): ShareGroupState {
    return this.members.size === 0 ? 'Empty' : 'Stable'
  }

  heartbeat(req: ShareHeartbeatRequest): ShareHeartbeatResult {
    const fail = (errorCode: number, errorMessage: string | null = null): ShareHeartbeatResult => ({
      errorCode,
      errorMessage,
      memberId: null,
      memberEpoch: -1,
      heartbeatIntervalMs: 0,
      assignment: null,
    })
    if (!req.memberId) return fail(ErrorCodes.INVALID_REQUEST, "MemberId can't be empty.")
    let member = this.members.get(req.memberId)
    if (req.memberEpoch === SHARE_LEAVE_EPOCH) {
      if (!member) return fail(ErrorCodes.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${this.groupId}.`)
      this.remove(member)
      return { ...fail(ErrorCodes.NONE), memberId: req.memberId, memberEpoch: SHARE_LEAVE_EPOCH }
    }
    if (req.memberEpoch === 0) {
      if (req.subscribedTopicNames === null) return fail(ErrorCodes.INVALID_REQUEST, 'SubscribedTopicNames must be set in first request.')
      if (!member) {
        member = {
          memberId: req.memberId,
          rackId: req.rackId,
          clientId: req.clientId,
          clientHost: req.clientHost,
          subscribedTopicNames: [],
          memberEpoch: 0,
          assigned: new Map(),
          sessionTimer: null,
        }
        this.members.set(req.memberId, member)
      }
    } else {
      if (!member) return fail(ErrorCodes.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${this.groupId}.`)
      if (req.memberEpoch !== member.memberEpoch)
        return fail(
          ErrorCodes.FENCED_MEMBER_EPOCH,
          `The share group member has a member epoch (${req.memberEpoch}) different from the one the coordinator knows (${member.memberEpoch}).`,
        )
    }
    if (req.subscribedTopicNames !== null) member.subscribedTopicNames = [...req.subscribedTopicNames].sort()
    if (req.rackId !== null) member.rackId = req.rackId
    member.clientId = req.clientId
    member.clientHost = req.clientHost
    this.touch(member)
    this.reassignIfChanged()
    const full = req.memberEpoch === 0 || req.subscribedTopicNames !== null
    let changed = false
    if (member.memberEpoch !== this.assignmentEpoch) {
      member.memberEpoch = this.assignmentEpoch
      member.assigned = this.target.get(member.memberId) ?? new Map()
      changed = true
    }
    this.keep()
    return {
      errorCode: ErrorCodes.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.timings.heartbeatIntervalMs,
      assignment:
        changed || full
          ? { topicPartitions: [...member.assigned].map(([topicId, ps]) => ({ topicId, partitions: [...ps].sort((a, b) => a - b) })) }
          : null,
    }
  }

  /** The group epoch moves and the assignment is computed again when a subscription, a member or a subscribed topic changed. */
  private reassignIfChanged(): void {
    const { members, partitions, ids, signature } = this.inputs()
    if (signature === this.signature) return
    this.signature = signature
    this.groupEpoch++
    this.target = assignShares({
      members: members.map((m) => ({
        memberId: m.memberId,
        topics: new Set(m.subscribedTopicNames.flatMap((n) => (ids.has(n) ? [ids.get(n)!] : []))),
      })),
      partitions,
      previous: this.target,
    })
    this.assignmentEpoch = this.groupEpoch
  }

  /** What the assignment is computed from, and its signature (a change of it bumps the group epoch). */
  private inputs() {
    const members = [...this.members.values()].sort((a, b) => (a.memberId < b.memberId ? -1 : 1))
    const topics = new Set(members.flatMap((m) => m.subscribedTopicNames))
    const partitions = new Map<string, number>()
    const ids = new Map<string, string>()
    for (const name of [...topics].sort()) {
      const t = this.controller.topics.get(name)
      if (!t) continue
      partitions.set(t.id, t.partitions.length)
      ids.set(name, t.id)
    }
    const signature = JSON.stringify([members.map((m) => [m.memberId, m.subscribedTopicNames]), [...partitions]])
    return { members, partitions, ids, signature }
  }

  snapshot(): ShareGroupSnapshot {
    return {
      groupEpoch: this.groupEpoch,
      assignmentEpoch: this.assignmentEpoch,
      members: [...this.members.values()].map((m) => ({
        memberId: m.memberId,
        memberEpoch: m.memberEpoch,
        rackId: m.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames,
        assigned: pairs(m.assigned),
        target: pairs(this.target.get(m.memberId) ?? new Map()),
      })),
    }
  }

  /**
   * The group as the log kept it: its epochs, its members with theirs and
   * their assignments, each member's session starting now (as Kafka's
   * coordinator does when it loads a group); the next heartbeats go on
   * from there, nothing fenced or reassigned unless something changed.
   */
  restore(s: ShareGroupSnapshot): void {
    for (const m of this.members.values()) if (m.sessionTimer) clearTimeout(m.sessionTimer)
    this.members.clear()
    this.groupEpoch = s.groupEpoch
    this.assignmentEpoch = s.assignmentEpoch
    this.target = new Map()
    for (const m of s.members) {
      const member: ShareMember = {
        memberId: m.memberId,
        memberEpoch: m.memberEpoch,
        rackId: m.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: [...m.subscribedTopicNames],
        assigned: assignment(m.assigned),
        sessionTimer: null,
      }
      this.members.set(m.memberId, member)
      this.target.set(m.memberId, assignment(m.target))
      this.touch(member)
    }
    this.signature = this.inputs().signature
    this.kept.restore(s)
  }

  /** What __consumer_offsets holds of the group (null before its first change). */
  get lastKept(): ShareGroupSnapshot | null {
    return this.kept.last
  }

  /** Tells onChange when the kept form changed. */
  private keep(): void {
    const s = this.snapshot()
    const changed = this.kept.replace(s)
    if (changed) this.onChange(s, changed.previous)
  }

  /** The member's session starts again: share.session.timeout.ms without a heartbeat and it is removed. */
  private touch(member: ShareMember): void {
    if (member.sessionTimer) clearTimeout(member.sessionTimer)
    if (this.closed) return
    member.sessionTimer = setTimeout(() => {
      if (this.members.get(member.memberId) === member) this.remove(member)
    }, this.timings.sessionTimeoutMs)
    member.sessionTimer.unref?.()
  }

  private remove(member: ShareMember): void {
    if (member.sessionTimer) clearTimeout(member.sessionTimer)
    this.members.delete(member.memberId)
    this.reassignIfChanged()
    this.keep()
    this.onMemberGone(member.memberId)
  }

  /** Whether `memberId` is a member now (share fetches of others are refused). */
  has(memberId: string): boolean {
    return this.members.has(memberId)
  }

  close(): void {
    this.closed = true
    for (const m of this.members.values()) if (m.sessionTimer) clearTimeout(m.sessionTimer)
  }
}
