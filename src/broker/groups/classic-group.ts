import { Buffer } from 'node:buffer'
import { randomUUID } from 'node:crypto'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { GroupOffsets } from './group-offsets.js'

export type { CommittedOffset } from './group-offsets.js'

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead'

export interface Protocol {
  name: string
  metadata: Buffer
}

export interface JoinResult {
  errorCode: number
  generationId: number
  protocolType: string | null
  protocolName: string | null
  leader: string
  memberId: string
  skipAssignment: boolean
  members: { memberId: string; groupInstanceId: string | null; metadata: Buffer }[]
}

export interface SyncResult {
  errorCode: number
  protocolType: string | null
  protocolName: string | null
  assignment: Buffer
}

export interface Member {
  memberId: string
  groupInstanceId: string | null
  clientId: string
  clientHost: string
  sessionTimeoutMs: number
  rebalanceTimeoutMs: number
  protocolType: string
  protocols: Protocol[]
  assignment: Buffer
  joinWaiter: ((r: JoinResult) => void) | null
  syncWaiter: ((r: SyncResult) => void) | null
  sessionTimer: NodeJS.Timeout | null
}

export interface JoinRequest {
  memberId: string
  groupInstanceId: string | null
  clientId: string
  clientHost: string
  sessionTimeoutMs: number
  rebalanceTimeoutMs: number
  protocolType: string
  protocols: Protocol[]
  /** JoinGroup v4+: a new dynamic member is first given its id (MEMBER_ID_REQUIRED). */
  requireKnownMemberId: boolean
  /** JoinGroup v9+ (KIP-814): a leader can be told to keep the current assignment rather than compute one. */
  canSkipAssignment: boolean
}

export interface GroupTimings {
  initialRebalanceDelayMs: number
}

const EMPTY = Buffer.alloc(0)

/**
 * A classic-protocol consumer group as Kafka's coordinator runs it:
 * Empty → PreparingRebalance (members (re)join, bounded by the largest
 * rebalance timeout) → CompletingRebalance (the leader's SyncGroup brings
 * the assignment) → Stable; session timeouts expel silent members; static
 * members (group.instance.id) keep their place across restarts. Committed
 * offsets live with the group.
 */
export class ClassicGroup extends GroupOffsets {
  readonly type = 'classic'
  state: GroupState = 'Empty'
  generationId = 0
  protocolType: string | null = null
  protocolName: string | null = null
  leaderId: string | null = null
  readonly members = new Map<string, Member>()
  /** group.instance.id -> member id */
  readonly staticMembers = new Map<string, string>()
  /** Member ids handed out with MEMBER_ID_REQUIRED, waiting for the member's second JoinGroup; value: its expiry timer. */
  private readonly pending = new Map<string, NodeJS.Timeout>()
  private phaseTimer: NodeJS.Timeout | null = null
  /** The join phase of a group that was Empty: only its delay timer ends it (see prepareRebalance). */
  private initialJoin = false
  /** A member was added since the initial join's timer was last armed: it is armed once more. */
  private newMemberAdded = false

  constructor(
    readonly groupId: string,
    private readonly timings: GroupTimings,
  ) {
    super()
  }

  // ---- JoinGroup ---------------------------------------------------------

  join(req: JoinRequest): Promise<JoinResult> {
    const fail = (errorCode: number, memberId = req.memberId): Promise<JoinResult> =>
      Promise.resolve({
        errorCode,
        generationId: -1,
        protocolType: null,
        protocolName: null,
        leader: '',
        memberId,
        skipAssignment: false,
        members: [],
      })
    if (this.state === 'Dead') return fail(ErrorCodes.COORDINATOR_NOT_AVAILABLE)
    if (!req.protocolType || req.protocols.length === 0 || !this.supports(req.protocolType, req.protocols)) {
      return fail(ErrorCodes.INCONSISTENT_GROUP_PROTOCOL)
    }
    if (req.memberId === '') {
      const newId = `${req.clientId}-${randomUUID()}`
      if (req.groupInstanceId !== null) return this.joinStatic(req, newId)
      if (req.requireKnownMemberId) {
        // KIP-394: the member must come back with this id; until then the join waits for it.
        this.pending.set(
          newId,
          setTimeout(() => this.expirePending(newId), req.sessionTimeoutMs),
        )
        return fail(ErrorCodes.MEMBER_ID_REQUIRED, newId)
      }
      return this.addMemberAndRebalance(req, newId)
    }
    const pendingTimer = this.pending.get(req.memberId)
    if (pendingTimer) {
      clearTimeout(pendingTimer)
      this.pending.delete(req.memberId)
      return this.addMemberAndRebalance(req, req.memberId)
    }
    const member = this.members.get(req.memberId)
    if (!member) return fail(ErrorCodes.UNKNOWN_MEMBER_ID)
    if (req.groupInstanceId !== null && this.staticMembers.get(req.groupInstanceId) !== req.memberId)
      return fail(ErrorCodes.FENCED_INSTANCE_ID)
    return this.rejoin(member, req)
  }

  private joinStatic(req: JoinRequest, newId: string): Promise<JoinResult> {
    const oldId = this.staticMembers.get(req.groupInstanceId!)
    const old = oldId === undefined ? undefined : this.members.get(oldId)
    if (!old) return this.addMemberAndRebalance(req, newId)
    // The same instance restarted: it takes over its old place under a new id, and the old id is fenced.
    this.members.delete(old.memberId)
    this.stopSession(old)
    old.joinWaiter?.(this.joinError(ErrorCodes.FENCED_INSTANCE_ID, old.memberId))
    old.syncWaiter?.({ errorCode: ErrorCodes.FENCED_INSTANCE_ID, protocolType: null, protocolName: null, assignment: EMPTY })
    const member: Member = { ...old, memberId: newId, joinWaiter: null, syncWaiter: null, sessionTimer: null }
    this.applyJoin(member, req)
    this.members.set(newId, member)
    this.staticMembers.set(req.groupInstanceId!, newId)
    const previousLeader = this.leaderId
    const wasLeader = previousLeader === old.memberId
    if (wasLeader) this.leaderId = newId
    // As Kafka: a restart that leaves the group's protocol as it is (its subscription metadata may differ:
    // a restarted consumer owns nothing yet) is no reason to rebalance. A restarted leader is given the
    // members with skipAssignment (KIP-814), so it keeps the plan; before v9 it cannot be told that, so it
    // is answered with the leader as it was (its old id): it takes itself for a follower and its SyncGroup
    // gets its current assignment.
    const sameProtocol = this.selectProtocol() === this.protocolName
    if (this.state === 'Stable' && sameProtocol) {
      this.touch(member)
      if (req.canSkipAssignment) return Promise.resolve(this.joinAnswer(member, wasLeader, wasLeader))
      return Promise.resolve({ ...this.joinAnswer(member, false), leader: previousLeader ?? '' })
    }
    return this.waitForJoin(member, () => this.prepareRebalance())
  }

  private addMemberAndRebalance(req: JoinRequest, memberId: string): Promise<JoinResult> {
    const member: Member = {
      memberId,
      groupInstanceId: req.groupInstanceId,
      clientId: req.clientId,
      clientHost: req.clientHost,
      sessionTimeoutMs: req.sessionTimeoutMs,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      protocolType: req.protocolType,
      protocols: req.protocols,
      assignment: EMPTY,
      joinWaiter: null,
      syncWaiter: null,
      sessionTimer: null,
    }
    if (this.members.size === 0) this.protocolType = req.protocolType
    if (this.initialJoin) this.newMemberAdded = true
    this.members.set(memberId, member)
    if (req.groupInstanceId !== null) this.staticMembers.set(req.groupInstanceId, memberId)
    return this.waitForJoin(member, () => this.prepareRebalance())
  }

  private rejoin(member: Member, req: JoinRequest): Promise<JoinResult> {
    const changed = !sameProtocolList(member.protocols, req.protocols)
    this.applyJoin(member, req)
    switch (this.state) {
      case 'PreparingRebalance':
        return this.waitForJoin(member, () => {})
      case 'CompletingRebalance':
        // A lost JoinGroup response retried: the same answer again — the leader with the
        // member list, or it would assign nothing (as Kafka's coordinator answers).
        if (!changed) return Promise.resolve(this.joinAnswer(member, member.memberId === this.leaderId))
        return this.waitForJoin(member, () => this.prepareRebalance())
      case 'Stable':
        if (!changed && member.memberId !== this.leaderId) {
          this.touch(member)
          return Promise.resolve(this.joinAnswer(member, false))
        }
        return this.waitForJoin(member, () => this.prepareRebalance())
      default:
        return this.waitForJoin(member, () => this.prepareRebalance())
    }
  }

  private applyJoin(member: Member, req: JoinRequest): void {
    member.protocols = req.protocols
    member.sessionTimeoutMs = req.sessionTimeoutMs
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs
    member.clientId = req.clientId
    member.clientHost = req.clientHost
  }

  private waitForJoin(member: Member, then: () => void): Promise<JoinResult> {
    return new Promise((resolve) => {
      // A second JoinGroup from the same member replaces the first; that one is answered as superseded.
      member.joinWaiter?.(this.joinError(ErrorCodes.UNKNOWN_MEMBER_ID, member.memberId))
      member.joinWaiter = resolve
      this.stopSession(member)
      then()
      this.tryCompleteJoin()
    })
  }

  /**
   * Starts a join phase (a no-op while one runs). As Kafka's coordinator: the
   * first join of an empty group ends only when its delay timer fires
   * (group.initial.rebalance.delay.ms, even 0: never within the JoinGroup
   * that started it, so JoinGroups already received join the same
   * generation), and the timer is armed again for as long as each delay saw
   * a new member, up to the rebalance timeout. Any other join phase ends as
   * soon as every member has rejoined (tryCompleteJoin), or at the rebalance
   * timeout without the members that did not.
   */
  private prepareRebalance(): void {
    if (this.state === 'PreparingRebalance') return
    if (this.state === 'CompletingRebalance') {
      for (const m of this.members.values()) {
        m.assignment = EMPTY
        m.syncWaiter?.({ errorCode: ErrorCodes.REBALANCE_IN_PROGRESS, protocolType: null, protocolName: null, assignment: EMPTY })
        m.syncWaiter = null
      }
    }
    this.initialJoin = this.state === 'Empty'
    this.newMemberAdded = false
    this.state = 'PreparingRebalance'
    this.clearPhaseTimer()
    if (this.initialJoin) {
      const delay = this.timings.initialRebalanceDelayMs
      this.armInitialJoin(delay, Math.max(this.rebalanceTimeoutMs() - delay, 0))
    } else {
      this.phaseTimer = setTimeout(() => this.completeJoin(), this.rebalanceTimeoutMs())
    }
  }

  private armInitialJoin(delayMs: number, remainingMs: number): void {
    this.phaseTimer = setTimeout(() => {
      if (this.newMemberAdded && remainingMs > 0) {
        this.newMemberAdded = false
        this.armInitialJoin(Math.min(this.timings.initialRebalanceDelayMs, remainingMs), Math.max(remainingMs - delayMs, 0))
        return
      }
      this.initialJoin = false
      // Where Kafka ends the initial join here, members handed an id (MEMBER_ID_REQUIRED) whose
      // second JoinGroup has not come yet are still waited for, as in any other join phase
      // (bounded by their session timeout and the rebalance timeout): Kafka's leader stays in
      // CompletingRebalance until the group's record is replicated, a window in which such a
      // member still rebalances the group before anyone is assigned; here SyncGroup is instant.
      this.phaseTimer = setTimeout(() => this.completeJoin(), this.rebalanceTimeoutMs())
      this.tryCompleteJoin()
    }, delayMs)
  }

  private tryCompleteJoin(): void {
    if (this.state !== 'PreparingRebalance' || this.initialJoin || this.pending.size > 0) return
    for (const m of this.members.values()) if (!m.joinWaiter) return
    this.completeJoin()
  }

  /** Ends the join phase: members that did not rejoin are out, the rest get the new generation. */
  private completeJoin(): void {
    if (this.state !== 'PreparingRebalance') return
    this.clearPhaseTimer()
    this.initialJoin = false
    for (const m of [...this.members.values()]) if (!m.joinWaiter) this.removeMember(m)
    this.generationId++
    if (this.members.size === 0) {
      this.state = 'Empty'
      this.protocolName = null
      this.leaderId = null
      this.changes?.generation(this)
      return
    }
    this.protocolName = this.selectProtocol()
    if (!this.leaderId || !this.members.has(this.leaderId)) this.leaderId = this.members.keys().next().value!
    this.state = 'CompletingRebalance'
    for (const m of this.members.values()) {
      const answer = this.joinAnswer(m, m.memberId === this.leaderId)
      const w = m.joinWaiter!
      m.joinWaiter = null
      this.touch(m)
      w(answer)
    }
    // The leader has a rebalance timeout to send the assignment.
    this.phaseTimer = setTimeout(() => this.syncExpired(), this.rebalanceTimeoutMs())
  }

  private syncExpired(): void {
    if (this.state !== 'CompletingRebalance') return
    for (const m of [...this.members.values()]) if (!m.syncWaiter) this.removeMember(m)
    this.prepareRebalance()
    this.tryCompleteJoin()
  }

  private joinAnswer(m: Member, asLeader: boolean, skipAssignment = false): JoinResult {
    return {
      errorCode: ErrorCodes.NONE,
      generationId: this.generationId,
      protocolType: this.protocolType,
      protocolName: this.protocolName,
      leader: this.leaderId ?? '',
      memberId: m.memberId,
      skipAssignment,
      members: asLeader
        ? [...this.members.values()].map((x) => ({
            memberId: x.memberId,
            groupInstanceId: x.groupInstanceId,
            metadata: x.protocols.find((p) => p.name === this.protocolName)?.metadata ?? EMPTY,
          }))
        : [],
    }
  }

  private joinError(errorCode: number, memberId: string): JoinResult {
    return { errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', memberId, skipAssignment: false, members: [] }
  }

  /** Whether a member with these protocols could join: same protocol type, and one protocol every member has. */
  private supports(protocolType: string, protocols: Protocol[]): boolean {
    if (this.members.size === 0) return true
    if (protocolType !== this.protocolType) return false
    return protocols.some((p) => [...this.members.values()].every((m) => m.protocols.some((q) => q.name === p.name)))
  }

  /** The protocol every member supports that most members prefer (each votes for its first supported one). */
  private selectProtocol(): string {
    const members = [...this.members.values()]
    const candidates = members[0].protocols
      .map((p) => p.name)
      .filter((name) => members.every((m) => m.protocols.some((p) => p.name === name)))
    const votes = new Map<string, number>()
    for (const m of members) {
      const choice = m.protocols.find((p) => candidates.includes(p.name))!.name
      votes.set(choice, (votes.get(choice) ?? 0) + 1)
    }
    let best = candidates[0]
    for (const c of candidates) if ((votes.get(c) ?? 0) > (votes.get(best) ?? 0)) best = c
    return best
  }

  private rebalanceTimeoutMs(): number {
    let max = 0
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs)
    return max
  }

  // ---- SyncGroup, Heartbeat, LeaveGroup ------------------------------------

  /** The error a member's request gets before its state is looked at, or null when it is a current member. */
  validateMember(memberId: string, groupInstanceId: string | null, generationId: number | null): number | null {
    if (groupInstanceId !== null) {
      const current = this.staticMembers.get(groupInstanceId)
      if (current !== undefined && current !== memberId) return ErrorCodes.FENCED_INSTANCE_ID
    }
    if (!this.members.has(memberId)) return ErrorCodes.UNKNOWN_MEMBER_ID
    if (generationId !== null && generationId !== this.generationId) return ErrorCodes.ILLEGAL_GENERATION
    return null
  }

  sync(
    memberId: string,
    groupInstanceId: string | null,
    generationId: number,
    protocolType: string | null,
    protocolName: string | null,
    assignments: { memberId: string; assignment: Buffer }[],
  ): Promise<SyncResult> {
    const fail = (errorCode: number) => Promise.resolve({ errorCode, protocolType: null, protocolName: null, assignment: EMPTY })
    if (this.state === 'Dead' || this.state === 'Empty') return fail(ErrorCodes.UNKNOWN_MEMBER_ID)
    const invalid = this.validateMember(memberId, groupInstanceId, generationId)
    if (invalid !== null) return fail(invalid)
    if ((protocolType !== null && protocolType !== this.protocolType) || (protocolName !== null && protocolName !== this.protocolName)) {
      return fail(ErrorCodes.INCONSISTENT_GROUP_PROTOCOL)
    }
    const member = this.members.get(memberId)!
    this.touch(member)
    if (this.state === 'PreparingRebalance') return fail(ErrorCodes.REBALANCE_IN_PROGRESS)
    const answer = (m: Member): SyncResult => ({
      errorCode: ErrorCodes.NONE,
      protocolType: this.protocolType,
      protocolName: this.protocolName,
      assignment: m.assignment,
    })
    if (this.state === 'Stable') return Promise.resolve(answer(member))
    return new Promise((resolve) => {
      member.syncWaiter = resolve
      if (memberId !== this.leaderId) return
      for (const m of this.members.values()) m.assignment = EMPTY
      for (const a of assignments) {
        const m = this.members.get(a.memberId)
        if (m) m.assignment = Buffer.from(a.assignment)
      }
      this.clearPhaseTimer()
      // As Kafka's: the group's record with the assignment is written, and the members answered once the ISR holds it.
      const generation = this.generationId
      this.changes?.generation(this)
      void (this.changes?.written(this.groupId) ?? Promise.resolve(ErrorCodes.NONE)).then((code) => {
        // A rebalance begun meanwhile has answered the waiters already.
        if (this.state !== 'CompletingRebalance' || this.generationId !== generation) return
        if (code === ErrorCodes.NONE) this.state = 'Stable'
        else for (const m of this.members.values()) m.assignment = EMPTY
        for (const m of this.members.values()) {
          const w = m.syncWaiter
          m.syncWaiter = null
          w?.(code === ErrorCodes.NONE ? answer(m) : { errorCode: code, protocolType: null, protocolName: null, assignment: EMPTY })
        }
      })
    })
  }

  heartbeat(memberId: string, groupInstanceId: string | null, generationId: number): number {
    if (this.state === 'Dead' || this.state === 'Empty') return ErrorCodes.UNKNOWN_MEMBER_ID
    const invalid = this.validateMember(memberId, groupInstanceId, generationId)
    if (invalid !== null) return invalid
    this.touch(this.members.get(memberId)!)
    return this.state === 'PreparingRebalance' ? ErrorCodes.REBALANCE_IN_PROGRESS : ErrorCodes.NONE
  }

  /** A member leaves (by member id, or by instance id for a static member). */
  leave(memberId: string, groupInstanceId: string | null): { errorCode: number; memberId: string } {
    if (groupInstanceId !== null) {
      const current = this.staticMembers.get(groupInstanceId)
      if (current === undefined) return { errorCode: ErrorCodes.UNKNOWN_MEMBER_ID, memberId }
      if (memberId !== '' && memberId !== current) return { errorCode: ErrorCodes.FENCED_INSTANCE_ID, memberId }
      memberId = current
    }
    const pendingTimer = this.pending.get(memberId)
    if (pendingTimer) {
      clearTimeout(pendingTimer)
      this.pending.delete(memberId)
      this.tryCompleteJoin()
      return { errorCode: ErrorCodes.NONE, memberId }
    }
    const member = this.members.get(memberId)
    if (!member) return { errorCode: ErrorCodes.UNKNOWN_MEMBER_ID, memberId }
    this.memberGone(member)
    return { errorCode: ErrorCodes.NONE, memberId }
  }

  /** A member left or its session expired: out, and the others rebalance. */
  private memberGone(member: Member): void {
    member.joinWaiter?.(this.joinError(ErrorCodes.UNKNOWN_MEMBER_ID, member.memberId))
    member.syncWaiter?.({ errorCode: ErrorCodes.UNKNOWN_MEMBER_ID, protocolType: null, protocolName: null, assignment: EMPTY })
    this.removeMember(member)
    if (this.state === 'Stable' || this.state === 'CompletingRebalance') this.prepareRebalance()
    this.tryCompleteJoin()
  }

  private removeMember(m: Member): void {
    this.stopSession(m)
    m.joinWaiter = null
    m.syncWaiter = null
    this.members.delete(m.memberId)
    if (m.groupInstanceId !== null && this.staticMembers.get(m.groupInstanceId) === m.memberId) this.staticMembers.delete(m.groupInstanceId)
    if (this.leaderId === m.memberId) this.leaderId = null
  }

  private expirePending(memberId: string): void {
    this.pending.delete(memberId)
    this.tryCompleteJoin()
  }

  /** (Re)starts a member's session timer: it must be heard from within its session timeout. */
  touch(m: Member): void {
    this.stopSession(m)
    m.sessionTimer = setTimeout(() => {
      m.sessionTimer = null
      // A member waiting for its JoinGroup or SyncGroup answer is alive by definition
      // (the phase timers bound those waits).
      if (m.joinWaiter || m.syncWaiter || !this.members.has(m.memberId)) return
      this.memberGone(m)
    }, m.sessionTimeoutMs)
  }

  private stopSession(m: Member): void {
    if (m.sessionTimer) clearTimeout(m.sessionTimer)
    m.sessionTimer = null
  }

  private clearPhaseTimer(): void {
    if (this.phaseTimer) clearTimeout(this.phaseTimer)
    this.phaseTimer = null
  }

  // ---- lifecycle -------------------------------------------------------

  /** Stops every timer and answers every waiting request (the coordinator is going away). */
  close(): void {
    this.clearPhaseTimer()
    for (const t of this.pending.values()) clearTimeout(t)
    this.pending.clear()
    for (const m of this.members.values()) {
      this.stopSession(m)
      m.joinWaiter?.(this.joinError(ErrorCodes.COORDINATOR_NOT_AVAILABLE, m.memberId))
      m.syncWaiter?.({ errorCode: ErrorCodes.COORDINATOR_NOT_AVAILABLE, protocolType: null, protocolName: null, assignment: EMPTY })
      m.joinWaiter = null
      m.syncWaiter = null
    }
  }
}

function sameProtocolList(a: Protocol[], b: Protocol[]): boolean {
  return a.length === b.length && a.every((p, i) => p.name === b[i].name && Buffer.compare(p.metadata, b[i].metadata) === 0)
}
