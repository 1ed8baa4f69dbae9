import { KeptSnapshot } from './kept-snapshot.js'
import { epochCommitError, epochFetchError, type EpochCommit } from './member-epoch-checks.js'
import { randomBytes } from 'node:crypto'
import { ErrorCodes } from '../../protocol/error-codes.js'
import type { Controller } from '../controller.js'
import { SERVER_ASSIGNORS, type Assignment } from './assignors.js'
import { GroupOffsets } from './group-offsets.js'
import { BrokerError } from '../broker-error.js'

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable'

/**
 * Where a member is on its way to its target: stable (it has it, at the
 * assignment epoch), unrevoked (it must give partitions up first, and stays
 * at its epoch until it says it has), unreleased (at the new epoch, waiting
 * for partitions others still hold).
 */
export type MemberState = 'stable' | 'unrevoked' | 'unreleased'

export interface ConsumerMember {
  memberId: string
  instanceId: string | null
  rackId: string | null
  clientId: string
  clientHost: string
  rebalanceTimeoutMs: number
  subscribedTopicNames: string[]
  subscribedTopicRegex: string | null
  serverAssignor: string | null
  memberEpoch: number
  previousMemberEpoch: number
  state: MemberState
  /** What it may consume now. */
  assigned: Assignment
  /** What it must give up; still its own (nobody else gets it) until it says it has. */
  pendingRevocation: Assignment
  /** The member epoch at which it got each partition it holds ("topicId/partition"): a commit at an older epoch is checked against it. */
  partitionEpochs: Map<string, number>
  sessionTimer: NodeJS.Timeout | null
  rebalanceTimer: NodeJS.Timeout | null
}

export interface TopicPartitionsIn {
  topicId: string
  partitions: number[]
}

export interface HeartbeatRequest {
  version: number
  memberId: string
  memberEpoch: number
  instanceId: string | null
  rackId: string | null
  rebalanceTimeoutMs: number
  subscribedTopicNames: string[] | null
  subscribedTopicRegex: string | null
  serverAssignor: string | null
  topicPartitions: TopicPartitionsIn[] | null
  clientId: string
  clientHost: string
  /** Whether the heartbeat's principal may DESCRIBE a topic: a regex it makes the group resolve matches only those (absent: every topic). */
  mayDescribeTopic?: (topic: string) => boolean
}

export interface HeartbeatResult {
  errorCode: number
  errorMessage: string | null
  memberId: string | null
  memberEpoch: number
  heartbeatIntervalMs: number
  assignment: { topicPartitions: TopicPartitionsIn[] } | null
}

export interface ConsumerGroupTimings {
  /** group.consumer.session.timeout.ms */
  sessionTimeoutMs: number
  /** group.consumer.heartbeat.interval.ms */
  heartbeatIntervalMs: number
  /** group.consumer.assignment.interval.ms: the least time between two target assignments (default 1000). */
  assignmentIntervalMs?: number
  /** The least time between two resolutions of the group's regexes (Kafka batches them: 10 s). */
  regexBatchIntervalMs?: number
  /** group.consumer.regex.refresh.interval.ms: regexes are resolved again at least this often (default 10 minutes). */
  regexRefreshIntervalMs?: number
}

/** A subscribed regex resolved against the topics: which matched, when, and how far into the metadata log. */
interface ResolvedRegex {
  topics: Set<string>
  resolvedAtMs: number
  metadataOffset: number
}

/** Partitions of one topic, each with the member epoch it came to the member at (Kafka's AssignmentEpochs). */
export interface TopicPartitionEpochs {
  topicId: string
  partitions: number[]
  assignmentEpochs: number[]
}

/** A member as __consumer_offsets keeps it: its subscription, epochs and assignments (Kafka's ConsumerGroup* records). */
export interface ConsumerMemberSnapshot {
  memberId: string
  instanceId: string | null
  rackId: string | null
  clientId: string
  clientHost: string
  subscribedTopicNames: string[]
  subscribedTopicRegex: string | null
  rebalanceTimeoutMs: number
  serverAssignor: string | null
  memberEpoch: number
  previousMemberEpoch: number
  state: MemberState
  assigned: TopicPartitionEpochs[]
  pendingRevocation: TopicPartitionEpochs[]
  /** What the group's target assignment gives it. */
  target: TopicPartitionsIn[]
}

/** A consumer group as __consumer_offsets keeps it (what a coordinator that loads the group goes on from). */
export interface ConsumerGroupSnapshot {
  groupEpoch: number
  assignmentEpoch: number
  /** When the target assignment was computed (Kafka 4.3's AssignmentTimestamp; 0: never). */
  assignedAtMs: number
  members: ConsumerMemberSnapshot[]
}

export const LEAVE_EPOCH = -1
export const STATIC_LEAVE_EPOCH = -2
const DEFAULT_ASSIGNOR = 'uniform'

/**
 * A KIP-848 consumer group as Kafka's coordinator runs it. A member's
 * heartbeat updates its subscription; a change of any subscription (or of
 * the subscribed topics' partitions, or a member leaving) bumps the group
 * epoch, and the server assignor computes the target assignment for it at
 * the first heartbeat at least group.consumer.assignment.interval.ms after
 * the previous one (Kafka 4.3's KIP-1263: changes in between are batched,
 * the group stays Assigning and members stay at the last target). Each member then
 * reconciles towards its target, one heartbeat at a time: it first gives up
 * what is no longer its (keeping its epoch until it says it has), then takes
 * the new epoch and the partitions that are free — a partition is never
 * given to a member while another still holds it. Members that stop
 * heartbeating (session timeout) or do not revoke in time (rebalance
 * timeout) are fenced out.
 */
export class ConsumerGroup extends GroupOffsets {
  readonly type = 'consumer'
  /** Kafka's coordinator makes a group at epoch 1 with an empty target (KAFKA-20268): its first member joins at 2. */
  groupEpoch = 1
  assignmentEpoch = 1
  assignorName = DEFAULT_ASSIGNOR
  readonly members = new Map<string, ConsumerMember>()
  /** instance id -> member id */
  readonly staticMembers = new Map<string, string>()
  /** The target assignment of assignmentEpoch, by member id. */
  target = new Map<string, Assignment>()
  /** The subscribed topics' names, ids and partition counts the group epoch covers. */
  private subscriptionSignature = ''
  /** When the last target assignment was computed (null: never). */
  private assignedAtMs: number | null = null
  /**
   * The members' regexes as last resolved. Kafka resolves them off the
   * heartbeat path: a regex new to the group matches nothing until its
   * resolution lands (a moment later, with a new group epoch), and topics
   * created later are found by the next resolution.
   */
  private readonly regexes = new Map<string, ResolvedRegex>()
  private regexResolution: NodeJS.Timeout | null = null
  private closed = false
  /** Called when what __consumer_offsets keeps of the group changed, with what it was: Kafka keeps it across a coordinator's restart or move. */
  onChange: (snapshot: ConsumerGroupSnapshot, previous: ConsumerGroupSnapshot | null) => void = () => {}
  /** What was last given to onChange (or restored), and its text to compare with. */
  private readonly kept = new KeptSnapshot<ConsumerGroupSnapshot>()

  constructor(
    readonly groupId: string,
    private readonly controller: Controller,
    private readonly timings: ConsumerGroupTimings,
  ) {
    super()
  }

  get state(): ConsumerGroupState {
    if (this.members.size === 0) return 'Empty'
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning'
    for (const m of this.members.values()) if (!this.reconciled(m)) return 'Reconciling'
    return 'Stable'
  }

  // ---- ConsumerGroupHeartbeat ------------------------------------------

  heartbeat(req: HeartbeatRequest): HeartbeatResult {
    try {
      validate(req)
      const result = req.memberEpoch === LEAVE_EPOCH || req.memberEpoch === STATIC_LEAVE_EPOCH ? this.leave(req) : this.beat(req)
      this.keep()
      return result
    } catch (err) {
      if (!(err instanceof BrokerError)) throw err
      return {
        errorCode: err.code,
        errorMessage: err.message,
        memberId: null,
        memberEpoch: -1,
        heartbeatIntervalMs: 0,
        assignment: null,
      }
    }
  }

  private beat(req: HeartbeatRequest): HeartbeatResult {
    let memberId = req.memberId
    // v0: the coordinator names a new member; from v1 the client does (KIP-1082).
    if (memberId === '') memberId = randomBytes(16).toString('base64url')
    const owned = req.topicPartitions === null ? null : toAssignment(req.topicPartitions)
    let member: ConsumerMember | undefined
    /** The member before this heartbeat changed it (its subscription decides a bump); null for a new one. */
    let before: ConsumerMember | null
    let replaced: ConsumerMember | null = null
    if (req.instanceId === null) {
      member = this.members.get(memberId)
      if (req.memberEpoch !== 0) {
        if (!member) throw new BrokerError(ErrorCodes.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${this.groupId}.`)
        this.checkEpoch(member, req.memberEpoch, owned)
      }
      before = member ? { ...member } : null
    } else {
      const currentId = this.staticMembers.get(req.instanceId)
      const current = currentId === undefined ? undefined : this.members.get(currentId)
      if (req.memberEpoch === 0) {
        if (current && current.memberId !== memberId) {
          if (current.memberEpoch !== STATIC_LEAVE_EPOCH)
            throw new BrokerError(
              ErrorCodes.UNRELEASED_INSTANCE_ID,
              `Static member ${memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by member ${current.memberId}.`,
            )
          // The instance came back under a new member id: it takes over the old member's place and partitions.
          replaced = current
          member = undefined
          before = { ...current }
        } else {
          member = current ?? this.members.get(memberId)
          before = member ? { ...member } : null
        }
      } else {
        if (!current) throw new BrokerError(ErrorCodes.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`)
        if (current.memberId !== memberId)
          throw new BrokerError(
            ErrorCodes.FENCED_INSTANCE_ID,
            `Static member ${memberId} with instance id ${req.instanceId} was fenced by member ${current.memberId}.`,
          )
        this.checkEpoch(current, req.memberEpoch, owned)
        member = current
        before = { ...current }
      }
    }
    if (req.serverAssignor !== null && !SERVER_ASSIGNORS.has(req.serverAssignor))
      throw new BrokerError(ErrorCodes.UNSUPPORTED_ASSIGNOR, `Assignor ${req.serverAssignor} is not supported.`)
    const regex = req.subscribedTopicRegex === '' ? null : req.subscribedTopicRegex
    if (regex !== null) compileRegex(regex)
    const assignorBefore = this.preferredAssignor()

    if (!member) {
      member = newMember(memberId, replaced)
      if (replaced) this.removeMember(replaced)
      this.members.set(memberId, member)
    }
    if (req.instanceId !== null) {
      member.instanceId = req.instanceId
      this.staticMembers.set(req.instanceId, memberId)
    }
    if (replaced) {
      // Its target goes with it; the group epoch stays (nothing the assignor sees has changed).
      const t = this.target.get(replaced.memberId)
      this.target.delete(replaced.memberId)
      if (t) this.target.set(memberId, t)
    }
    if (req.rackId !== null) member.rackId = req.rackId
    if (req.rebalanceTimeoutMs !== -1) member.rebalanceTimeoutMs = req.rebalanceTimeoutMs
    if (req.serverAssignor !== null) member.serverAssignor = req.serverAssignor
    if (req.subscribedTopicNames !== null) member.subscribedTopicNames = [...req.subscribedTopicNames]
    if (req.subscribedTopicRegex !== null) member.subscribedTopicRegex = regex
    member.clientId = req.clientId
    member.clientHost = req.clientHost
    const regexBefore = before?.subscribedTopicRegex ?? null
    // As Kafka: a regex new to the group is not a new epoch until it is resolved (resolving it bumps it).
    const regexSettled =
      regexBefore !== member.subscribedTopicRegex && (member.subscribedTopicRegex === null || this.regexes.has(member.subscribedTopicRegex))
    this.maybeResolveRegexes(regexBefore, member.subscribedTopicRegex, req.mayDescribeTopic)

    let bump =
      !sameNames(before?.subscribedTopicNames ?? [], member.subscribedTopicNames) ||
      regexSettled ||
      this.preferredAssignor() !== assignorBefore
    // Topics created, deleted or grown since the last target count as a change too (Kafka's subscription metadata).
    const signature = this.signature()
    if (signature !== this.subscriptionSignature) bump = true
    if (bump) this.bumpGroupEpoch(signature)
    this.maybeComputeTarget()

    const assignedBefore = assignmentKey(member.assigned)
    this.reconcile(member, owned)
    this.touch(member)
    // Kafka sends the assignment on a full request (a join, or every field a
    // join carries) or when the member's partitions changed; not for an epoch
    // alone, and not because the member said what it owns.
    const fullRequest =
      req.memberEpoch === 0 ||
      (req.rebalanceTimeoutMs !== -1 && (req.subscribedTopicNames !== null || req.subscribedTopicRegex !== null) && owned !== null)
    const sendAssignment = fullRequest || assignmentKey(member.assigned) !== assignedBefore
    return {
      errorCode: ErrorCodes.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.timings.heartbeatIntervalMs,
      assignment: sendAssignment ? { topicPartitions: fromAssignment(member.assigned) } : null,
    }
  }

  /**
   * The epoch a heartbeat carries must be the member's. One behind is still
   * accepted when what it owns is within its assignment: the response that
   * gave it the new epoch was lost.
   */
  private checkEpoch(member: ConsumerMember, epoch: number, owned: Assignment | null): void {
    if (epoch > member.memberEpoch)
      throw new BrokerError(
        ErrorCodes.FENCED_MEMBER_EPOCH,
        `The consumer group member has a greater member epoch (${epoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      )
    if (epoch < member.memberEpoch && (epoch !== member.previousMemberEpoch || owned === null || !isSubset(owned, member.assigned)))
      throw new BrokerError(
        ErrorCodes.FENCED_MEMBER_EPOCH,
        `The consumer group member has a smaller member epoch (${epoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      )
  }

  private leave(req: HeartbeatRequest): HeartbeatResult {
    let member: ConsumerMember | undefined
    if (req.instanceId === null) {
      member = this.members.get(req.memberId)
      if (!member) throw new BrokerError(ErrorCodes.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${this.groupId}.`)
      this.fence(member)
    } else {
      const id = this.staticMembers.get(req.instanceId)
      member = id === undefined ? undefined : this.members.get(id)
      if (!member) throw new BrokerError(ErrorCodes.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`)
      if (member.memberId !== req.memberId)
        throw new BrokerError(
          ErrorCodes.FENCED_INSTANCE_ID,
          `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${member.memberId}.`,
        )
      if (req.memberEpoch === STATIC_LEAVE_EPOCH) {
        // Gone for now, back soon (within the session timeout): its partitions wait for it.
        member.memberEpoch = STATIC_LEAVE_EPOCH
        member.pendingRevocation = new Map()
        keepPartitionEpochs(member)
        this.stopTimer(member, 'rebalanceTimer')
      } else {
        this.fence(member)
      }
    }
    return {
      errorCode: ErrorCodes.NONE,
      errorMessage: null,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      heartbeatIntervalMs: 0,
      assignment: null,
    }
  }

  // ---- target assignment and reconciliation ---------------------------

  /** The topics a member's subscription names, as they exist now (name -> topic). */
  private resolved(m: ConsumerMember): Map<string, { id: string; partitions: number }> {
    const out = new Map<string, { id: string; partitions: number }>()
    for (const name of m.subscribedTopicNames) {
      const t = this.controller.topics.get(name)
      if (t) out.set(name, { id: t.id, partitions: t.partitions.length })
    }
    if (m.subscribedTopicRegex !== null) {
      for (const name of this.regexes.get(m.subscribedTopicRegex)?.topics ?? []) {
        const t = this.controller.topics.get(name)
        if (t) out.set(name, { id: t.id, partitions: t.partitions.length })
      }
    }
    return out
  }

  // ---- regex subscriptions -----------------------------------------------

  /**
   * After a member's heartbeat: forget a regex nobody subscribes to any
   * more, and resolve the group's regexes again (all of them, together, as
   * Kafka does) when one is new to the group, when topics were created since
   * the last resolution, or when the refresh interval has passed — never
   * twice within the batch interval. As Kafka's, the resolution sees only the
   * topics the principal of the heartbeat that started it may DESCRIBE.
   */
  private maybeResolveRegexes(
    oldRegex: string | null,
    newRegex: string | null,
    mayDescribeTopic: (topic: string) => boolean = () => true,
  ): void {
    const subscribed = this.subscribedRegexes()
    let required = false
    if (oldRegex !== newRegex) {
      if (oldRegex !== null && !subscribed.has(oldRegex)) this.regexes.delete(oldRegex)
      if (newRegex !== null && !this.regexes.has(newRegex)) required = true
    }
    if (subscribed.size === 0 || this.regexResolution !== null || this.closed) return
    const now = Date.now()
    const last = this.lastRegexResolution()
    if (last !== null && now <= last.resolvedAtMs + (this.timings.regexBatchIntervalMs ?? 10_000)) return
    required ||=
      subscribed.size !== this.regexes.size ||
      last === null ||
      this.topicsCreatedSince(last.metadataOffset) ||
      now > last.resolvedAtMs + (this.timings.regexRefreshIntervalMs ?? 600_000)
    if (!required) return
    this.regexResolution = setTimeout(() => {
      this.regexResolution = null
      this.resolveRegexes(mayDescribeTopic)
    }, 0)
  }

  /** Every subscribed regex matched against the topics now; a change of what they match is a new group epoch. */
  private resolveRegexes(mayDescribeTopic: (topic: string) => boolean): void {
    if (this.closed) return
    this.resolveRegexesNow(mayDescribeTopic)
    const signature = this.signature()
    if (signature !== this.subscriptionSignature) this.bumpGroupEpoch(signature)
    this.keep()
  }

  /** The group's regexes matched against the topics now. */
  private resolveRegexesNow(mayDescribeTopic: (topic: string) => boolean): void {
    const now = Date.now()
    const metadataOffset = this.controller.log.length
    this.regexes.clear()
    for (const regex of this.subscribedRegexes()) {
      const re = compileRegex(regex)
      const topics = new Set<string>()
      // Internal topics too: Kafka's coordinator does not skip them (a client that does not want them filters them itself).
      for (const name of this.controller.topics.keys()) if (re.test(name) && mayDescribeTopic(name)) topics.add(name)
      this.regexes.set(regex, { topics, resolvedAtMs: now, metadataOffset })
    }
  }

  private subscribedRegexes(): Set<string> {
    const out = new Set<string>()
    for (const m of this.members.values()) if (m.subscribedTopicRegex !== null) out.add(m.subscribedTopicRegex)
    return out
  }

  /** When the regexes were last resolved (they are resolved together); null if never. */
  private lastRegexResolution(): ResolvedRegex | null {
    for (const r of this.regexes.values()) return r
    return null
  }

  private topicsCreatedSince(metadataOffset: number): boolean {
    const log = this.controller.log
    for (let i = metadataOffset; i < log.length; i++) if (log[i].type === 'topic') return true
    return false
  }

  /** Every subscribed topic's name, id and partition count: a change means a new target. */
  private signature(): string {
    const all = new Map<string, string>()
    for (const m of this.members.values()) for (const [name, t] of this.resolved(m)) all.set(name, `${name}:${t.id}:${t.partitions}`)
    return [...all.values()].sort().join(',')
  }

  /** The names of the topics members subscribe to (OffsetDelete keeps their offsets). */
  subscribedTopics(): Set<string> {
    const names = new Set<string>()
    for (const m of this.members.values()) for (const name of this.resolved(m).keys()) names.add(name)
    return names
  }

  /** What the assignor sees has changed: a new group epoch, assigned at a heartbeat once the interval allows. */
  private bumpGroupEpoch(signature = this.signature()): void {
    this.groupEpoch++
    this.subscriptionSignature = signature
  }

  /** Kafka's canComputeNextTargetAssignment: a first target at once, later ones at most once per interval. */
  private maybeComputeTarget(): void {
    if (this.groupEpoch <= this.assignmentEpoch) return
    const interval = this.timings.assignmentIntervalMs ?? 1000
    if (this.assignedAtMs !== null && interval > 0 && Date.now() < this.assignedAtMs + interval) return
    this.computeTarget()
  }

  private computeTarget(): void {
    this.assignorName = this.preferredAssignor()
    const partitions = new Map<string, number>()
    const members = [...this.members.values()]
      .sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))
      .map((m) => {
        const topics = new Set<string>()
        for (const t of this.resolved(m).values()) {
          topics.add(t.id)
          partitions.set(t.id, t.partitions)
        }
        return { memberId: m.memberId, topics }
      })
    this.target = SERVER_ASSIGNORS.get(this.assignorName)!({ members, partitions, previous: this.target })
    this.assignmentEpoch = this.groupEpoch
    this.assignedAtMs = Date.now()
  }

  /** The assignor most members asked for; uniform when none did. */
  private preferredAssignor(): string {
    const votes = new Map<string, number>()
    for (const m of this.members.values()) if (m.serverAssignor) votes.set(m.serverAssignor, (votes.get(m.serverAssignor) ?? 0) + 1)
    let best = DEFAULT_ASSIGNOR
    let most = 0
    for (const [name, n] of votes) if (n > most) [best, most] = [name, n]
    return best
  }

  private reconciled(m: ConsumerMember): boolean {
    return m.state === 'stable' && m.memberEpoch === this.assignmentEpoch
  }

  /**
   * Moves the member one step towards its target (Kafka's
   * CurrentAssignmentBuilder). The target may lag behind the member's
   * subscription (it is computed at most once per assignment interval), so
   * partitions of topics the member no longer subscribes to are revoked at
   * once, as Kafka 4.3 does (KIP-1263).
   */
  private reconcile(m: ConsumerMember, owned: Assignment | null): void {
    const subscribed = new Set([...this.resolved(m).values()].map((t) => t.id))
    const unsubscribed = [...m.assigned.keys()].some((topic) => !subscribed.has(topic))
    if (this.reconciled(m) && !unsubscribed) return
    // Until it says it no longer owns what it must revoke, it stays where it is.
    if (m.state === 'unrevoked' && ownsAny(owned, m.pendingRevocation)) return
    const target = new Map<string, Set<number>>()
    for (const [topic, parts] of this.target.get(m.memberId) ?? []) if (subscribed.has(topic)) target.set(topic, parts)
    const kept: Assignment = new Map()
    const revoke: Assignment = new Map()
    for (const [topic, parts] of m.assigned) for (const p of parts) addTo(target.get(topic)?.has(p) ? kept : revoke, topic, p)
    // Each step of it (Kafka's CurrentAssignmentBuilder) makes the epoch the member had its previous one.
    if (revoke.size > 0 && ownsAny(owned, revoke)) {
      m.previousMemberEpoch = m.memberEpoch
      m.state = 'unrevoked'
      m.assigned = kept
      m.pendingRevocation = revoke
      keepPartitionEpochs(m)
      this.startRebalanceTimer(m)
      return
    }
    const held = this.heldByOthers(m)
    let waiting = false
    for (const [topic, parts] of target)
      for (const p of parts) {
        if (kept.get(topic)?.has(p)) continue
        if (held.has(`${topic}/${p}`)) waiting = true
        else addTo(kept, topic, p)
      }
    m.previousMemberEpoch = m.memberEpoch
    m.memberEpoch = this.assignmentEpoch
    m.assigned = kept
    m.pendingRevocation = new Map()
    keepPartitionEpochs(m)
    m.state = waiting ? 'unreleased' : 'stable'
    this.stopTimer(m, 'rebalanceTimer')
  }

  /** Partitions other members hold: assigned to them, or theirs until they revoke them. */
  private heldByOthers(m: ConsumerMember): Set<string> {
    const held = new Set<string>()
    for (const o of this.members.values()) {
      if (o === m) continue
      for (const a of [o.assigned, o.pendingRevocation]) for (const [topic, parts] of a) for (const p of parts) held.add(`${topic}/${p}`)
    }
    return held
  }

  // ---- members leaving --------------------------------------------------

  /**
   * A member is out (it left, or its session or rebalance timeout passed):
   * its target goes, and the others get a new one at their next heartbeat.
   */
  private fence(m: ConsumerMember): void {
    if (this.members.get(m.memberId) !== m) return
    this.removeMember(m)
    this.target.delete(m.memberId)
    // Its regex, if nobody else subscribes to it, is forgotten: subscribed again, it is resolved again.
    if (m.subscribedTopicRegex !== null && !this.subscribedRegexes().has(m.subscribedTopicRegex))
      this.regexes.delete(m.subscribedTopicRegex)
    this.bumpGroupEpoch()
    if (this.members.size === 0) {
      // Empty: the (empty) target is at the group epoch, and the next member's join is assigned at once.
      this.target = new Map()
      this.assignmentEpoch = this.groupEpoch
      this.assignedAtMs = null
    }
    this.keep()
  }

  private removeMember(m: ConsumerMember): void {
    this.stopTimer(m, 'sessionTimer')
    this.stopTimer(m, 'rebalanceTimer')
    this.members.delete(m.memberId)
    if (m.instanceId !== null && this.staticMembers.get(m.instanceId) === m.memberId) this.staticMembers.delete(m.instanceId)
  }

  /** Restarts the member's session: it must heartbeat again within the session timeout. */
  private touch(m: ConsumerMember): void {
    this.stopTimer(m, 'sessionTimer')
    if (this.closed) return
    m.sessionTimer = setTimeout(() => {
      m.sessionTimer = null
      this.fence(m)
    }, this.timings.sessionTimeoutMs)
  }

  private startRebalanceTimer(m: ConsumerMember): void {
    if (m.rebalanceTimer || this.closed) return
    const epoch = m.memberEpoch
    m.rebalanceTimer = setTimeout(() => {
      m.rebalanceTimer = null
      // Still holding what it was asked to give up, at the same epoch: out.
      if (m.state === 'unrevoked' && m.memberEpoch === epoch) this.fence(m)
    }, m.rebalanceTimeoutMs)
  }

  private stopTimer(m: ConsumerMember, which: 'sessionTimer' | 'rebalanceTimer'): void {
    const t = m[which]
    if (t) clearTimeout(t)
    m[which] = null
  }

  // ---- what __consumer_offsets keeps ------------------------------------

  snapshot(): ConsumerGroupSnapshot {
    return {
      groupEpoch: this.groupEpoch,
      assignmentEpoch: this.assignmentEpoch,
      assignedAtMs: this.assignedAtMs ?? 0,
      members: [...this.members.values()].map((m) => ({
        memberId: m.memberId,
        instanceId: m.instanceId,
        rackId: m.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames,
        subscribedTopicRegex: m.subscribedTopicRegex,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        serverAssignor: m.serverAssignor,
        memberEpoch: m.memberEpoch,
        previousMemberEpoch: m.previousMemberEpoch,
        state: m.state,
        assigned: withEpochs(m.assigned, m),
        pendingRevocation: withEpochs(m.pendingRevocation, m),
        target: fromAssignment(this.target.get(m.memberId) ?? new Map()),
      })),
    }
  }

  /**
   * The group as its records left it: epochs, members with their epochs,
   * states and assignments, the target; each member's session (and a
   * member's pending revocation's rebalance timeout) starting now, as
   * Kafka's coordinator loads a group. Heartbeats go on from there: nothing
   * is bumped, fenced or reassigned unless something changed. Regexes are
   * resolved again at once (Kafka keeps their resolution in records of
   * their own, which the embedded broker does not write).
   */
  restore(s: ConsumerGroupSnapshot): void {
    for (const m of this.members.values()) {
      this.stopTimer(m, 'sessionTimer')
      this.stopTimer(m, 'rebalanceTimer')
    }
    this.members.clear()
    this.staticMembers.clear()
    this.target = new Map()
    this.groupEpoch = s.groupEpoch
    this.assignmentEpoch = s.assignmentEpoch
    this.assignedAtMs = s.assignedAtMs > 0 ? s.assignedAtMs : null
    for (const r of s.members) {
      const partitionEpochs = new Map<string, number>()
      for (const t of [...r.assigned, ...r.pendingRevocation])
        t.partitions.forEach((p, i) => partitionEpochs.set(`${t.topicId}/${p}`, t.assignmentEpochs[i] ?? r.memberEpoch))
      const m: ConsumerMember = {
        memberId: r.memberId,
        instanceId: r.instanceId,
        rackId: r.rackId,
        clientId: r.clientId,
        clientHost: r.clientHost,
        rebalanceTimeoutMs: r.rebalanceTimeoutMs,
        subscribedTopicNames: [...r.subscribedTopicNames],
        subscribedTopicRegex: r.subscribedTopicRegex,
        serverAssignor: r.serverAssignor,
        memberEpoch: r.memberEpoch,
        previousMemberEpoch: r.previousMemberEpoch,
        state: r.state,
        assigned: toAssignment(r.assigned),
        pendingRevocation: toAssignment(r.pendingRevocation),
        partitionEpochs,
        sessionTimer: null,
        rebalanceTimer: null,
      }
      this.members.set(m.memberId, m)
      if (m.instanceId !== null) this.staticMembers.set(m.instanceId, m.memberId)
      this.target.set(m.memberId, toAssignment(r.target))
      this.touch(m)
      if (m.state === 'unrevoked') this.startRebalanceTimer(m)
    }
    this.assignorName = this.preferredAssignor()
    this.regexes.clear()
    if (this.subscribedRegexes().size > 0) this.resolveRegexesNow(() => true)
    this.subscriptionSignature = this.signature()
    this.kept.restore(s)
  }

  /** What __consumer_offsets holds of the group (null before its first change). */
  get lastKept(): ConsumerGroupSnapshot | null {
    return this.kept.last
  }

  /** Tells onChange when what is kept of the group changed. */
  private keep(): void {
    if (this.closed) return
    const s = this.snapshot()
    const changed = this.kept.replace(s)
    if (changed) this.onChange(s, changed.previous)
  }

  // ---- offsets -----------------------------------------------------------

  /** The error an OffsetCommit (or TxnOffsetCommit) gets, or null (epochCommitError); a partition is held since its epoch in the member's assignment. */
  validateOffsetCommit(commit: EpochCommit, partitions: Iterable<{ topic: string; partition: number }>): number | null {
    return epochCommitError(this.members, commit, partitions, (m, topic, partition) => {
      const id = this.controller.topics.get(topic)?.id
      return id === undefined ? undefined : m.partitionEpochs.get(`${id}/${partition}`)
    })
  }

  /** The error an OffsetFetch by a member gets, or null (epochFetchError). */
  validateOffsetFetch(memberId: string | null, epoch: number): number | null {
    return epochFetchError(this.members, memberId, epoch)
  }

  /** Stops every timer (the coordinator is going away). */
  close(): void {
    this.closed = true
    if (this.regexResolution) clearTimeout(this.regexResolution)
    this.regexResolution = null
    for (const m of this.members.values()) {
      this.stopTimer(m, 'sessionTimer')
      this.stopTimer(m, 'rebalanceTimer')
    }
  }
}

/**
 * Kafka's checks of a heartbeat before the group is looked at (4.4:
 * GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid).
 * A blank string counts as empty; the member id is required from v1, and at
 * v0 on every heartbeat but a join.
 */
function validate(req: HeartbeatRequest): void {
  const invalid = (message: string) => new BrokerError(ErrorCodes.INVALID_REQUEST, message)
  const blank = (s: string | null) => s !== null && s.trim() === ''
  if ((req.version >= 1 || req.memberEpoch > 0 || req.memberEpoch === LEAVE_EPOCH) && blank(req.memberId))
    throw invalid("MemberId can't be empty.")
  if (blank(req.instanceId)) throw invalid("InstanceId can't be empty.")
  if (blank(req.rackId)) throw invalid("RackId can't be empty.")
  if (req.memberEpoch === 0) {
    if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.')
    if (req.topicPartitions === null || req.topicPartitions.length > 0) throw invalid('TopicPartitions must be empty when (re-)joining.')
    if (req.subscribedTopicNames === null && req.subscribedTopicRegex === null)
      throw invalid('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.')
  } else if (req.memberEpoch === STATIC_LEAVE_EPOCH) {
    if (req.instanceId === null) throw invalid("InstanceId can't be null.")
  } else if (req.memberEpoch < STATIC_LEAVE_EPOCH) {
    throw invalid('MemberEpoch is invalid.')
  }
}

const regexCache = new Map<string, RegExp>()

/** A subscription regex matches whole topic names (as Java's Matcher.matches). */
function compileRegex(source: string): RegExp {
  let re = regexCache.get(source)
  if (re) return re
  try {
    re = new RegExp(`^(?:${source})$`)
  } catch (err) {
    throw new BrokerError(
      ErrorCodes.INVALID_REGULAR_EXPRESSION,
      `SubscribedTopicRegex \`${source}\` is not a valid regular expression: ${(err as Error).message}.`,
    )
  }
  if (regexCache.size > 1000) regexCache.clear()
  regexCache.set(source, re)
  return re
}

function newMember(memberId: string, replacing: ConsumerMember | null): ConsumerMember {
  return {
    memberId,
    instanceId: replacing?.instanceId ?? null,
    rackId: replacing?.rackId ?? null,
    clientId: '',
    clientHost: '',
    rebalanceTimeoutMs: replacing?.rebalanceTimeoutMs ?? 300_000,
    subscribedTopicNames: replacing ? [...replacing.subscribedTopicNames] : [],
    subscribedTopicRegex: replacing?.subscribedTopicRegex ?? null,
    serverAssignor: replacing?.serverAssignor ?? null,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: 'stable',
    // A returning static member holds what its previous incarnation held.
    assigned: replacing ? copy(replacing.assigned) : new Map(),
    pendingRevocation: new Map(),
    partitionEpochs: replacing ? new Map(replacing.partitionEpochs) : new Map(),
    sessionTimer: null,
    rebalanceTimer: null,
  }
}

/** Each partition the member holds keeps the epoch it came at; one new to it takes its current epoch. */
function keepPartitionEpochs(m: ConsumerMember): void {
  const epochs = new Map<string, number>()
  for (const a of [m.assigned, m.pendingRevocation])
    for (const [topic, parts] of a)
      for (const p of parts) {
        const key = `${topic}/${p}`
        epochs.set(key, m.partitionEpochs.get(key) ?? m.memberEpoch)
      }
  m.partitionEpochs = epochs
}

/** An assignment with the epoch each partition came to the member at. */
function withEpochs(a: Assignment, m: ConsumerMember): TopicPartitionEpochs[] {
  return fromAssignment(a).map(({ topicId, partitions }) => ({
    topicId,
    partitions,
    assignmentEpochs: partitions.map((p) => m.partitionEpochs.get(`${topicId}/${p}`) ?? m.memberEpoch),
  }))
}

function toAssignment(tps: readonly TopicPartitionsIn[]): Assignment {
  const a: Assignment = new Map()
  for (const t of tps) for (const p of t.partitions) addTo(a, t.topicId, p)
  return a
}

export function fromAssignment(a: Assignment): TopicPartitionsIn[] {
  return [...a.entries()].map(([topicId, parts]) => ({ topicId, partitions: [...parts].sort((x, y) => x - y) }))
}

function addTo(a: Assignment, topic: string, p: number): void {
  let s = a.get(topic)
  if (!s) a.set(topic, (s = new Set()))
  s.add(p)
}

function copy(a: Assignment): Assignment {
  return new Map([...a].map(([t, s]) => [t, new Set(s)]))
}

function isSubset(a: Assignment, b: Assignment): boolean {
  for (const [topic, parts] of a) for (const p of parts) if (!b.get(topic)?.has(p)) return false
  return true
}

/** Whether the member still owns any of `a`; not knowing (it did not say) counts as yes. */
function ownsAny(owned: Assignment | null, a: Assignment): boolean {
  if (owned === null) return true
  for (const [topic, parts] of a) for (const p of parts) if (owned.get(topic)?.has(p)) return true
  return false
}

function assignmentKey(a: Assignment): string {
  return [...a.entries()]
    .map(([t, s]) => `${t}:${[...s].sort((x, y) => x - y).join('.')}`)
    .sort()
    .join(',')
}

function sameNames(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false
  const s = new Set(a)
  return b.every((x) => s.has(x))
}
