import { KeptSnapshot } from './kept-snapshot.js'
import { epochCommitError, epochFetchError, type EpochCommit } from './member-epoch-checks.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { BrokerError } from '../broker-error.js'
import { GroupOffsets } from './group-offsets.js'
import { assignTasks, type TaskAssignment, type TaskSet } from './streams-assignor.js'
import type { StreamsGroupSnapshot, TaskIdsSnapshot } from './streams-group-records.js'
import { emptyTasks, reconcile, type OwnedTasks, type StreamsMemberState, type StreamsTasks, type TaskOwners } from './streams-reconcile.js'
import {
  checkTopology,
  configureTopology,
  StreamsStatus,
  type ConfiguredTopology,
  type InternalTopicToCreate,
  type StreamsStatusEntry,
  type StreamsTopology,
} from './streams-topology.js'

/** Kafka's streams group states; ListGroups' filter spells NotReady not_ready. */
export type StreamsGroupState = 'Empty' | 'NotReady' | 'Assigning' | 'Reconciling' | 'Stable'

export interface StreamsEndpoint {
  host: string
  port: number
}

export interface StreamsMember {
  memberId: string
  instanceId: string | null
  rackId: string | null
  clientId: string
  clientHost: string
  rebalanceTimeoutMs: number
  topologyEpoch: number
  processId: string
  userEndpoint: StreamsEndpoint | null
  clientTags: Map<string, string>
  memberEpoch: number
  previousMemberEpoch: number
  state: StreamsMemberState
  assigned: StreamsTasks
  pendingRevocation: StreamsTasks
  sessionTimer: NodeJS.Timeout | null
  rebalanceTimer: NodeJS.Timeout | null
}

export interface StreamsGroupTimings {
  /** streams.session.timeout.ms of the group (read at each use). */
  readonly sessionTimeoutMs: number
  readonly heartbeatIntervalMs: number
  readonly initialRebalanceDelayMs: number
  readonly assignmentIntervalMs: number
  readonly numStandbyReplicas: number
  readonly taskOffsetIntervalMs: number
  readonly acceptableRecoveryLag: number
}

export interface TaskIdsIn {
  subtopologyId: string
  partitions: number[]
}

export interface StreamsHeartbeatRequest {
  memberId: string
  memberEpoch: number
  endpointInformationEpoch: number
  instanceId: string | null
  rackId: string | null
  rebalanceTimeoutMs: number
  topology: StreamsTopology | null
  activeTasks: TaskIdsIn[] | null
  standbyTasks: TaskIdsIn[] | null
  warmupTasks: TaskIdsIn[] | null
  processId: string | null
  userEndpoint: StreamsEndpoint | null
  clientTags: Array<{ key: string; value: string }> | null
  shutdownApplication: boolean
  clientId: string
  clientHost: string
  /** Cumulative changelog offsets (and end offsets) of its tasks, as the member last reported them (null: unchanged). */
  taskOffsets?: TaskOffsetIn[] | null
  taskEndOffsets?: TaskOffsetIn[] | null
}

export interface TaskOffsetIn {
  subtopologyId: string
  partition: number
  offset: bigint
}

/** Offsets by subtopology and task (partition). */
export type TaskOffsets = Map<string, Map<number, bigint>>

export interface EndpointPartitions {
  userEndpoint: StreamsEndpoint
  activePartitions: Array<{ topic: string; partitions: number[] }>
  standbyPartitions: Array<{ topic: string; partitions: number[] }>
}

export interface StreamsHeartbeatResult {
  errorCode: number
  errorMessage: string | null
  memberId: string
  memberEpoch: number
  heartbeatIntervalMs: number
  taskOffsetIntervalMs: number
  acceptableRecoveryLag: number
  status: StreamsStatusEntry[] | null
  activeTasks: TaskIdsIn[] | null
  standbyTasks: TaskIdsIn[] | null
  warmupTasks: TaskIdsIn[] | null
  endpointInformationEpoch: number
  partitionsByUserEndpoint: EndpointPartitions[] | null
  /** Internal topics the broker is to create (Kafka's coordinator hands them to its topic creation). */
  toCreate: InternalTopicToCreate[]
}

export const STREAMS_LEAVE_EPOCH = -1
export const STREAMS_STATIC_LEAVE_EPOCH = -2
export const STREAMS_ASSIGNOR = 'sticky'

/**
 * A KIP-1071 streams group as Kafka 4.4's coordinator runs it. The first
 * member brings the topology; the group configures it against the
 * cluster's topics (deciding the internal topics' partition counts, which
 * the broker then creates) and, once it is ready, the sticky task
 * assignor computes a target for every member, at a new group epoch,
 * whenever a member joins, leaves or changes, or the topics change. The
 * first member of an empty group waits for the initial rebalance delay
 * (others may join). Each member reconciles towards its target: it
 * revokes first, and a task goes to its new owner only once the previous
 * one no longer holds it. Members that stop heartbeating (session timeout)
 * or do not revoke in time (rebalance timeout) are fenced out.
 */
export class StreamsGroup extends GroupOffsets {
  readonly type = 'streams'
  groupEpoch = 1
  assignmentEpoch = 1
  readonly members = new Map<string, StreamsMember>()
  /** instance id -> member id */
  readonly staticMembers = new Map<string, string>()
  /** What each member last reported of its tasks' changelog offsets (kept in memory only, as Kafka's coordinator does). */
  readonly taskOffsets = new Map<string, { offsets: TaskOffsets; ends: TaskOffsets }>()
  target = new Map<string, TaskAssignment>()
  topology: StreamsTopology | null = null
  configured: ConfiguredTopology | null = null
  /** The topology epoch the last target was computed for (-1: none ready). */
  private validatedTopologyEpoch = -1
  /** The topics the configured topology was computed from (Kafka's metadata hash). */
  private metadataSignature = ''
  private lastStandbyReplicas: number | null = null
  private assignedAtMs: number | null = null
  private initialDelay: NodeJS.Timeout | null = null
  endpointInformationEpoch = 0
  private shutdownRequestedBy: string | null = null
  private closed = false
  /** Called when what __consumer_offsets keeps of the group changed, with what it was: Kafka keeps it across a coordinator's restart or move. */
  onChange: (snapshot: StreamsGroupSnapshot, previous: StreamsGroupSnapshot | null) => void = () => {}
  private readonly kept = new KeptSnapshot<StreamsGroupSnapshot>()

  constructor(
    readonly groupId: string,
    private readonly partitionsOf: (topic: string) => number | undefined,
    private readonly timings: StreamsGroupTimings,
  ) {
    super()
  }

  get state(): StreamsGroupState {
    if (this.members.size === 0) return 'Empty'
    if (this.topology === null || this.topology.epoch !== this.validatedTopologyEpoch) return 'NotReady'
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning'
    for (const m of this.members.values()) if (!(m.state === 'stable' && m.memberEpoch === this.assignmentEpoch)) return 'Reconciling'
    return 'Stable'
  }

  heartbeat(req: StreamsHeartbeatRequest): StreamsHeartbeatResult {
    try {
      const result =
        req.memberEpoch === STREAMS_LEAVE_EPOCH || req.memberEpoch === STREAMS_STATIC_LEAVE_EPOCH ? this.leave(req) : this.beat(req)
      this.keep()
      return result
    } catch (err) {
      if (!(err instanceof BrokerError)) throw err
      return failure(err.code, err.message)
    }
  }

  private beat(req: StreamsHeartbeatRequest): StreamsHeartbeatResult {
    const joining = req.memberEpoch === 0
    const owned: OwnedTasks =
      req.activeTasks === null || req.standbyTasks === null || req.warmupTasks === null
        ? null
        : { active: toTaskSet(req.activeTasks), standby: toTaskSet(req.standbyTasks) }
    let member: StreamsMember | undefined
    /** A static member whose instance came back under a new member id: the new one takes its place and tasks. */
    let replaced: StreamsMember | null = null
    if (req.instanceId === null) {
      member = this.members.get(req.memberId)
      if (!joining) {
        if (!member) throw new BrokerError(ErrorCodes.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${this.groupId}.`)
        checkEpoch(member, req.memberEpoch, owned)
      }
    } else {
      const currentId = this.staticMembers.get(req.instanceId)
      const current = currentId === undefined ? undefined : this.members.get(currentId)
      if (joining) {
        if (current) {
          if (current.memberEpoch !== STREAMS_STATIC_LEAVE_EPOCH)
            throw new BrokerError(
              ErrorCodes.UNRELEASED_INSTANCE_ID,
              `Static member ${req.memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by member ${current.memberId}.`,
            )
          replaced = current
        } else member = this.members.get(req.memberId)
      } else {
        if (!current) throw new BrokerError(ErrorCodes.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`)
        if (current.memberId !== req.memberId)
          throw new BrokerError(
            ErrorCodes.FENCED_INSTANCE_ID,
            `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${current.memberId}.`,
          )
        checkEpoch(current, req.memberEpoch, owned)
        member = current
      }
    }
    if (joining && req.topology) checkTopology(req.topology)
    const wasEmpty = this.members.size === 0
    let isNew = !member
    if (replaced) {
      // Its tasks and target go with it, at epoch 0 (Kafka's replaceStreamsMember).
      member = { ...replaced, memberId: req.memberId, memberEpoch: 0, previousMemberEpoch: 0, sessionTimer: null, rebalanceTimer: null }
      this.stopTimer(replaced, 'sessionTimer')
      this.stopTimer(replaced, 'rebalanceTimer')
      this.members.delete(replaced.memberId)
      this.taskOffsets.delete(replaced.memberId)
      const t = this.target.get(replaced.memberId)
      this.target.delete(replaced.memberId)
      if (t) this.target.set(member.memberId, t)
      this.members.set(member.memberId, member)
      isNew = false
    }
    member ??= newMember(req.memberId)
    if (req.instanceId !== null) this.staticMembers.set(req.instanceId, member.memberId)
    const before = metadataKey(member, req.instanceId !== null)
    const changedAssignmentBefore = tasksKey(member.assigned)
    const endpointBefore = JSON.stringify(member.userEndpoint)
    if (req.instanceId !== null) member.instanceId = req.instanceId
    if (req.rackId !== null) member.rackId = req.rackId
    if (req.rebalanceTimeoutMs !== -1) member.rebalanceTimeoutMs = req.rebalanceTimeoutMs
    if (req.topology) member.topologyEpoch = req.topology.epoch
    member.clientId = req.clientId
    member.clientHost = req.clientHost
    if (req.processId !== null) member.processId = req.processId
    if (req.clientTags !== null) member.clientTags = new Map(req.clientTags.map((t) => [t.key, t.value]))
    if (joining || req.userEndpoint !== null) member.userEndpoint = req.userEndpoint
    const topology = this.updateTopology(req.topology)
    if (isNew) this.members.set(member.memberId, member)
    // A static member bumps the epoch only by what the assignor sees (Kafka's hasEpochRelevantMemberConfigChanged).
    let recompute = (isNew && req.instanceId === null) || metadataKey(member, req.instanceId !== null) !== before

    const status: StreamsStatusEntry[] = []
    if (member.topologyEpoch < topology.epoch)
      status.push({
        statusCode: StreamsStatus.STALE_TOPOLOGY,
        statusDetail: `The member's topology epoch ${member.topologyEpoch} is behind the group's topology epoch ${topology.epoch}.`,
      })
    const signature = this.signature(topology)
    if (this.configured === null || signature !== this.metadataSignature) {
      if (signature !== this.metadataSignature) recompute = true
      this.metadataSignature = signature
      this.configured = configureTopology(topology, this.partitionsOf)
    }
    const configured = this.configured
    let validated = -1
    if (configured.status === null && configured.subtopologies) {
      validated = topology.epoch
      for (const list of [req.activeTasks, req.standbyTasks, req.warmupTasks]) checkTasks(configured, list)
    }
    if (req.taskOffsets || req.taskEndOffsets) {
      const was = this.taskOffsets.get(member.memberId)
      this.taskOffsets.set(member.memberId, {
        offsets: req.taskOffsets ? offsetsOf(req.taskOffsets) : (was?.offsets ?? new Map()),
        ends: req.taskEndOffsets ? offsetsOf(req.taskEndOffsets) : (was?.ends ?? new Map()),
      })
    }
    if (validated !== this.validatedTopologyEpoch) recompute = true
    const standbys = this.timings.numStandbyReplicas
    if (!recompute && this.lastStandbyReplicas !== null && standbys !== this.lastStandbyReplicas) recompute = true
    if (recompute) {
      this.groupEpoch++
      this.validatedTopologyEpoch = validated
      this.lastStandbyReplicas = standbys
    }
    if (wasEmpty && this.timings.initialRebalanceDelayMs > 0 && !this.initialDelay && !this.closed) {
      this.initialDelay = setTimeout(() => {
        this.initialDelay = null
        if (this.members.size > 0 && this.groupEpoch > this.assignmentEpoch) this.computeTarget()
        this.keep()
      }, this.timings.initialRebalanceDelayMs)
      this.initialDelay.unref?.()
    }
    let target: TaskAssignment | undefined
    if (this.initialDelay) {
      status.push({
        statusCode: StreamsStatus.ASSIGNMENT_DELAYED,
        statusDetail: 'Assignment delayed due to the configured initial rebalance delay.',
      })
    } else if (this.assignmentEpoch < this.groupEpoch) {
      const interval = this.timings.assignmentIntervalMs
      if (this.assignedAtMs !== null && interval > 0 && Date.now() < this.assignedAtMs + interval)
        status.push({
          statusCode: StreamsStatus.ASSIGNMENT_DELAYED,
          statusDetail: 'Assignment delayed due to the configured assignment interval.',
        })
      else this.computeTarget()
    }
    if (!this.initialDelay) target = this.target.get(member.memberId)

    const next = reconcile(member, this.assignmentEpoch, target ?? { active: new Map(), standby: new Map() }, this.owners(), owned)
    if (next) {
      member.previousMemberEpoch = member.memberEpoch
      Object.assign(member, next)
      if (member.state === 'unrevoked') this.startRebalanceTimer(member)
      else this.stopTimer(member, 'rebalanceTimer')
    }
    this.touch(member)
    if (req.shutdownApplication) this.shutdownRequestedBy ??= member.memberId

    const assignmentChanged = tasksKey(member.assigned) !== changedAssignmentBefore
    const endpointChanged = JSON.stringify(member.userEndpoint) !== endpointBefore
    if (endpointChanged || (assignmentChanged && member.userEndpoint !== null)) this.endpointInformationEpoch++
    if (configured.status) status.push(configured.status)
    if (this.shutdownRequestedBy !== null)
      status.push({
        statusCode: StreamsStatus.SHUTDOWN_APPLICATION,
        statusDetail: `Streams group member ${this.shutdownRequestedBy} encountered a fatal error and requested a shutdown for the entire application.`,
      })
    const send = joining || assignmentChanged
    return {
      errorCode: ErrorCodes.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.timings.heartbeatIntervalMs,
      taskOffsetIntervalMs: this.timings.taskOffsetIntervalMs,
      acceptableRecoveryLag: this.timings.acceptableRecoveryLag,
      status,
      activeTasks: send ? taskIds(activeSet(member.assigned.active)) : null,
      standbyTasks: send ? taskIds(member.assigned.standby) : null,
      warmupTasks: send ? [] : null,
      endpointInformationEpoch: this.endpointInformationEpoch,
      partitionsByUserEndpoint: req.endpointInformationEpoch !== this.endpointInformationEpoch ? this.endpointPartitions() : null,
      toCreate: configured.toCreate,
    }
  }

  /** The group's topology: the first member's, then kept (a different one at the same or a newer epoch is refused, as Kafka 4.4). */
  private updateTopology(t: StreamsTopology | null): StreamsTopology {
    if (t) {
      if (this.topology === null) {
        this.topology = t
        return t
      }
      if (this.topology.epoch > t.epoch) return this.topology
      if (JSON.stringify(normalized(this.topology)) !== JSON.stringify(normalized(t)))
        throw new BrokerError(ErrorCodes.INVALID_REQUEST, 'Topology updates are not supported yet.')
      return this.topology
    }
    if (this.topology === null)
      throw new BrokerError(ErrorCodes.INVALID_REQUEST, 'The topology is null and the group topology is also null.')
    return this.topology
  }

  /** The partition counts of every topic the topology names (Kafka's metadata hash of them). */
  private signature(t: StreamsTopology): string {
    const names = new Set<string>()
    for (const s of t.subtopologies) {
      for (const n of s.sourceTopics) names.add(n)
      for (const r of [...s.repartitionSourceTopics, ...s.stateChangelogTopics]) names.add(r.name)
    }
    return [...names]
      .sort()
      .map((n) => `${n}:${this.partitionsOf(n) ?? -1}`)
      .join(',')
  }

  /** The sticky assignor's target for every member, at the group epoch (empty while the topology is not ready). */
  private computeTarget(): void {
    const ready = this.configured?.status === null ? this.configured.subtopologies : null
    const members = [...this.members.values()].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))
    if (ready) {
      const stateful = new Set(this.topology!.subtopologies.filter((s) => s.stateChangelogTopics.length > 0).map((s) => s.subtopologyId))
      this.target = assignTasks({
        members: members.map((m) => ({
          memberId: m.memberId,
          processId: m.processId,
          active: activeSet(m.assigned.active),
          standby: m.assigned.standby,
          taskOffsets: this.taskOffsets.get(m.memberId)?.offsets,
        })),
        subtopologies: ready.map((s) => ({ subtopologyId: s.subtopologyId, tasks: s.tasks, stateful: stateful.has(s.subtopologyId) })),
        numStandbyReplicas: this.timings.numStandbyReplicas,
      })
    } else this.target = new Map(members.map((m) => [m.memberId, { active: new Map(), standby: new Map() }]))
    this.assignmentEpoch = this.groupEpoch
    this.assignedAtMs = Date.now()
  }

  /** Which process holds each task now (assigned or still to revoke), for reconciliation. */
  private owners(): TaskOwners {
    const active = new Map<string, string>()
    const standby = new Map<string, Set<string>>()
    for (const m of this.members.values())
      for (const t of [m.assigned, m.pendingRevocation]) {
        for (const [sub, ps] of t.active) for (const p of ps.keys()) active.set(`${sub}/${p}`, m.processId)
        for (const [sub, ps] of t.standby)
          for (const p of ps) {
            const k = `${sub}/${p}`
            let s = standby.get(k)
            if (!s) standby.set(k, (s = new Set()))
            s.add(m.processId)
          }
      }
    return {
      activeProcess: (sub, p) => active.get(`${sub}/${p}`),
      standbyProcesses: (sub, p) => standby.get(`${sub}/${p}`) ?? new Set(),
    }
  }

  /**
   * For Interactive Queries: each member with an endpoint, and the source
   * partitions of its tasks (a topic's only below its partition count, as
   * Kafka's EndpointToPartitionsManager: a task may outnumber a co-read topic's partitions).
   */
  private endpointPartitions(): EndpointPartitions[] {
    const out: EndpointPartitions[] = []
    const subs = new Map((this.topology?.subtopologies ?? []).map((s) => [s.subtopologyId, s]))
    const partitionsOf = (tasks: TaskSet) => {
      const byTopic = new Map<string, Set<number>>()
      for (const [sub, ps] of tasks) {
        const s = subs.get(sub)
        if (!s) continue
        for (const topic of [...s.sourceTopics, ...s.repartitionSourceTopics.map((r) => r.name)]) {
          let set = byTopic.get(topic)
          if (!set) byTopic.set(topic, (set = new Set()))
          const count = this.partitionsOf(topic)
          for (const p of ps) if (count === undefined || p < count) set.add(p)
        }
      }
      return [...byTopic]
        .filter(([, ps]) => ps.size > 0)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([topic, ps]) => ({ topic, partitions: [...ps].sort((a, b) => a - b) }))
    }
    for (const m of this.members.values())
      if (m.userEndpoint)
        out.push({
          userEndpoint: m.userEndpoint,
          activePartitions: partitionsOf(activeSet(m.assigned.active)),
          standbyPartitions: partitionsOf(m.assigned.standby),
        })
    return out
  }

  private leave(req: StreamsHeartbeatRequest): StreamsHeartbeatResult {
    let member: StreamsMember | undefined
    if (req.instanceId === null) {
      member = this.members.get(req.memberId)
      if (!member) throw new BrokerError(ErrorCodes.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${this.groupId}.`)
    } else {
      const id = this.staticMembers.get(req.instanceId)
      member = id === undefined ? undefined : this.members.get(id)
      if (!member) throw new BrokerError(ErrorCodes.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`)
      if (member.memberId !== req.memberId)
        throw new BrokerError(
          ErrorCodes.FENCED_INSTANCE_ID,
          `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${member.memberId}.`,
        )
    }
    if (req.shutdownApplication) this.shutdownRequestedBy ??= member.memberId
    if (req.memberEpoch === STREAMS_STATIC_LEAVE_EPOCH && req.instanceId !== null) {
      // A static member leaving for a while keeps its place and tasks (their epochs reset), revoking nothing: no new group epoch.
      member.memberEpoch = STREAMS_STATIC_LEAVE_EPOCH
      member.pendingRevocation = emptyTasks()
      for (const ps of member.assigned.active.values()) for (const p of ps.keys()) ps.set(p, 0)
      this.stopTimer(member, 'rebalanceTimer')
      return { ...failure(ErrorCodes.NONE, null), memberId: member.memberId, memberEpoch: STREAMS_STATIC_LEAVE_EPOCH, status: [] }
    }
    this.fence(member)
    return { ...failure(ErrorCodes.NONE, null), memberId: req.memberId, memberEpoch: req.memberEpoch, status: [] }
  }

  /** A member is out (it left, or its session or rebalance timeout passed): a new group epoch, and the others a new target. */
  private fence(m: StreamsMember): void {
    if (this.members.get(m.memberId) !== m) return
    this.stopTimer(m, 'sessionTimer')
    this.stopTimer(m, 'rebalanceTimer')
    this.members.delete(m.memberId)
    this.taskOffsets.delete(m.memberId)
    if (m.instanceId !== null && this.staticMembers.get(m.instanceId) === m.memberId) this.staticMembers.delete(m.instanceId)
    this.target.delete(m.memberId)
    this.groupEpoch++
    if (m.userEndpoint) this.endpointInformationEpoch++
    if (this.members.size === 0) {
      // Empty: the (empty) target is at the group epoch, and a shutdown request is forgotten.
      this.target = new Map()
      this.assignmentEpoch = this.groupEpoch
      this.assignedAtMs = null
      this.shutdownRequestedBy = null
      if (this.initialDelay) clearTimeout(this.initialDelay)
      this.initialDelay = null
    }
  }

  private touch(m: StreamsMember): void {
    this.stopTimer(m, 'sessionTimer')
    if (this.closed) return
    m.sessionTimer = setTimeout(() => {
      m.sessionTimer = null
      this.fence(m)
      this.keep()
    }, this.timings.sessionTimeoutMs)
    m.sessionTimer.unref?.()
  }

  private startRebalanceTimer(m: StreamsMember): void {
    if (m.rebalanceTimer || this.closed) return
    const epoch = m.memberEpoch
    m.rebalanceTimer = setTimeout(() => {
      m.rebalanceTimer = null
      if (m.state === 'unrevoked' && m.memberEpoch === epoch) this.fence(m)
      this.keep()
    }, m.rebalanceTimeoutMs)
    m.rebalanceTimer.unref?.()
  }

  private stopTimer(m: StreamsMember, which: 'sessionTimer' | 'rebalanceTimer'): void {
    const t = m[which]
    if (t) clearTimeout(t)
    m[which] = null
  }

  // ---- what __consumer_offsets keeps ------------------------------------

  snapshot(): StreamsGroupSnapshot {
    return {
      groupEpoch: this.groupEpoch,
      validatedTopologyEpoch: this.validatedTopologyEpoch,
      standbyReplicas: this.lastStandbyReplicas,
      assignmentEpoch: this.assignmentEpoch,
      assignedAtMs: this.assignedAtMs ?? 0,
      topology: this.topology,
      members: [...this.members.values()].map((m) => {
        const t = this.target.get(m.memberId)
        return {
          memberId: m.memberId,
          instanceId: m.instanceId,
          rackId: m.rackId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          rebalanceTimeoutMs: m.rebalanceTimeoutMs,
          topologyEpoch: m.topologyEpoch,
          processId: m.processId,
          userEndpoint: m.userEndpoint,
          clientTags: [...m.clientTags].map(([key, value]) => ({ key, value })),
          memberEpoch: m.memberEpoch,
          previousMemberEpoch: m.previousMemberEpoch,
          state: m.state,
          active: activeSnapshot(m.assigned.active),
          standby: taskIds(m.assigned.standby),
          revokeActive: activeSnapshot(m.pendingRevocation.active),
          revokeStandby: taskIds(m.pendingRevocation.standby),
          target: { active: taskIds(t?.active ?? new Map()), standby: taskIds(t?.standby ?? new Map()) },
        }
      }),
    }
  }

  /**
   * The group as its records left it: its topology, epochs, members with
   * their epochs, states and tasks, the target; each member's session (and
   * a pending revocation's rebalance timeout) starting now, as Kafka's
   * coordinator loads a group. The topology is configured again at the
   * next heartbeat.
   */
  restore(s: StreamsGroupSnapshot): void {
    for (const m of this.members.values()) {
      this.stopTimer(m, 'sessionTimer')
      this.stopTimer(m, 'rebalanceTimer')
    }
    this.members.clear()
    this.staticMembers.clear()
    this.target = new Map()
    this.groupEpoch = s.groupEpoch
    this.validatedTopologyEpoch = s.validatedTopologyEpoch
    this.lastStandbyReplicas = s.standbyReplicas
    this.assignmentEpoch = s.assignmentEpoch
    this.assignedAtMs = s.assignedAtMs > 0 ? s.assignedAtMs : null
    this.topology = s.topology
    this.configured = null
    this.metadataSignature = ''
    for (const r of s.members) {
      const m: StreamsMember = {
        ...newMember(r.memberId),
        instanceId: r.instanceId,
        rackId: r.rackId,
        clientId: r.clientId,
        clientHost: r.clientHost,
        rebalanceTimeoutMs: r.rebalanceTimeoutMs,
        topologyEpoch: r.topologyEpoch,
        processId: r.processId,
        userEndpoint: r.userEndpoint,
        clientTags: new Map(r.clientTags.map((t) => [t.key, t.value])),
        memberEpoch: r.memberEpoch,
        previousMemberEpoch: r.previousMemberEpoch,
        state: r.state,
        assigned: { active: activeTasks(r.active), standby: toTaskSet(r.standby) },
        pendingRevocation: { active: activeTasks(r.revokeActive), standby: toTaskSet(r.revokeStandby) },
      }
      this.members.set(m.memberId, m)
      if (m.instanceId !== null) this.staticMembers.set(m.instanceId, m.memberId)
      this.target.set(m.memberId, { active: toTaskSet(r.target.active), standby: toTaskSet(r.target.standby) })
      this.touch(m)
      if (m.state === 'unrevoked') this.startRebalanceTimer(m)
    }
    if (this.topology) this.metadataSignature = this.signature(this.topology)
    this.kept.restore(s)
  }

  /** What __consumer_offsets holds of the group (null before its first change). */
  get lastKept(): StreamsGroupSnapshot | null {
    return this.kept.last
  }

  /** Tells onChange when what is kept of the group changed. */
  private keep(): void {
    if (this.closed) return
    const s = this.snapshot()
    const changed = this.kept.replace(s)
    if (changed) this.onChange(s, changed.previous)
  }

  /** The source topics of the topology (OffsetDelete keeps their offsets while the group has members). */
  subscribedTopics(): Set<string> {
    const out = new Set<string>()
    if (this.members.size === 0) return out
    for (const s of this.topology?.subtopologies ?? []) {
      for (const n of s.sourceTopics) out.add(n)
      for (const r of s.repartitionSourceTopics) out.add(r.name)
    }
    return out
  }

  // ---- offsets (Kafka's StreamsGroup.validateOffsetCommit / validateOffsetFetch) ----

  /** The error an OffsetCommit (or TxnOffsetCommit) gets, or null (epochCommitError); a partition is held since its task came to the member. */
  validateOffsetCommit(commit: EpochCommit, partitions: Iterable<{ topic: string; partition: number }>): number | null {
    return epochCommitError(this.members, commit, partitions, (m, topic, partition) => {
      const sub = this.topology?.subtopologies.find(
        (s) => s.sourceTopics.includes(topic) || s.repartitionSourceTopics.some((r) => r.name === topic),
      )
      if (!sub) return undefined
      return m.assigned.active.get(sub.subtopologyId)?.get(partition) ?? m.pendingRevocation.active.get(sub.subtopologyId)?.get(partition)
    })
  }

  /** The error an OffsetFetch by a member gets, or null (epochFetchError). */
  validateOffsetFetch(memberId: string | null, epoch: number): number | null {
    return epochFetchError(this.members, memberId, epoch)
  }

  close(): void {
    this.closed = true
    if (this.initialDelay) clearTimeout(this.initialDelay)
    this.initialDelay = null
    for (const m of this.members.values()) {
      this.stopTimer(m, 'sessionTimer')
      this.stopTimer(m, 'rebalanceTimer')
    }
  }
}

function failure(errorCode: number, errorMessage: string | null): StreamsHeartbeatResult {
  return {
    errorCode,
    errorMessage,
    memberId: '',
    memberEpoch: -1,
    heartbeatIntervalMs: 0,
    taskOffsetIntervalMs: 0,
    acceptableRecoveryLag: 0,
    status: null,
    activeTasks: null,
    standbyTasks: null,
    warmupTasks: null,
    endpointInformationEpoch: 0,
    partitionsByUserEndpoint: null,
    toCreate: [],
  }
}

/**
 * The epoch a heartbeat carries must be the member's; one behind is still
 * accepted when the tasks it says it owns are within its assignment (the
 * answer that gave it the new epoch was lost).
 */
function checkEpoch(m: StreamsMember, epoch: number, owned: OwnedTasks): void {
  if (epoch > m.memberEpoch)
    throw new BrokerError(
      ErrorCodes.FENCED_MEMBER_EPOCH,
      `The streams group member has a greater member epoch (${epoch}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    )
  if (epoch < m.memberEpoch && (epoch !== m.previousMemberEpoch || owned === null || !within(owned, m.assigned)))
    throw new BrokerError(
      ErrorCodes.FENCED_MEMBER_EPOCH,
      `The streams group member has a smaller member epoch (${epoch}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    )
}

function within(owned: NonNullable<OwnedTasks>, assigned: StreamsTasks): boolean {
  for (const [sub, ps] of owned.active) for (const p of ps) if (!assigned.active.get(sub)?.has(p)) return false
  for (const [sub, ps] of owned.standby) for (const p of ps) if (!assigned.standby.get(sub)?.has(p)) return false
  return true
}

/** Owned tasks must be tasks of the configured topology. */
function checkTasks(c: ConfiguredTopology, tasks: TaskIdsIn[] | null): void {
  for (const t of tasks ?? []) {
    const s = c.subtopologies!.find((x) => x.subtopologyId === t.subtopologyId)
    if (!s) throw new BrokerError(ErrorCodes.INVALID_REQUEST, `Subtopology ${t.subtopologyId} does not exist in the topology.`)
    for (const p of t.partitions)
      if (p < 0 || p >= s.tasks)
        throw new BrokerError(
          ErrorCodes.INVALID_REQUEST,
          `Task ${p} for subtopology ${t.subtopologyId} is invalid. Number of tasks for this subtopology: ${s.tasks}`,
        )
  }
}

function newMember(memberId: string): StreamsMember {
  return {
    memberId,
    instanceId: null,
    rackId: null,
    clientId: '',
    clientHost: '',
    rebalanceTimeoutMs: -1,
    topologyEpoch: -1,
    processId: '',
    userEndpoint: null,
    clientTags: new Map(),
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: 'stable',
    assigned: emptyTasks(),
    pendingRevocation: emptyTasks(),
    sessionTimer: null,
    rebalanceTimer: null,
  }
}

/** What a change of bumps the group epoch: any field of a dynamic member's record (Kafka compares the records), what the assignor sees of a static one's. */
function metadataKey(m: StreamsMember, isStatic = false): string {
  if (isStatic) return JSON.stringify([m.topologyEpoch, m.rackId, [...m.clientTags].sort(), m.processId])
  return JSON.stringify([
    m.instanceId,
    m.rackId,
    m.clientId,
    m.clientHost,
    m.rebalanceTimeoutMs,
    m.topologyEpoch,
    m.processId,
    m.userEndpoint,
    [...m.clientTags].sort(),
  ])
}

function tasksKey(t: StreamsTasks): string {
  return JSON.stringify([taskIds(activeSet(t.active)), taskIds(t.standby)])
}

export function activeSet(a: Map<string, Map<number, number>>): TaskSet {
  return new Map([...a].map(([sub, ps]) => [sub, new Set(ps.keys())]))
}

/** A heartbeat's task offsets by task; a task twice is INVALID_REQUEST, as Kafka's. */
function offsetsOf(list: TaskOffsetIn[]): TaskOffsets {
  const out: TaskOffsets = new Map()
  for (const t of list) {
    let m = out.get(t.subtopologyId)
    if (!m) out.set(t.subtopologyId, (m = new Map()))
    if (m.has(t.partition))
      throw new BrokerError(
        ErrorCodes.INVALID_REQUEST,
        `Task offsets contain a duplicate entry for subtopology ${t.subtopologyId} and partition ${t.partition}.`,
      )
    m.set(t.partition, t.offset)
  }
  return out
}

/** Task offsets as StreamsGroupDescribe lists them: by subtopology id, then partition. */
export function taskOffsetList(o: TaskOffsets | undefined): TaskOffsetIn[] {
  return [...(o ?? new Map<string, Map<number, bigint>>())]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([subtopologyId, ps]) =>
      [...ps].sort(([a], [b]) => a - b).map(([partition, offset]) => ({ subtopologyId, partition, offset })),
    )
}

function activeSnapshot(a: Map<string, Map<number, number>>): TaskIdsSnapshot[] {
  return taskIds(activeSet(a)).map((t) => ({ ...t, assignmentEpochs: t.partitions.map((p) => a.get(t.subtopologyId)!.get(p)!) }))
}

function activeTasks(list: TaskIdsSnapshot[]): Map<string, Map<number, number>> {
  return new Map(list.map((t) => [t.subtopologyId, new Map(t.partitions.map((p, i) => [p, t.assignmentEpochs?.[i] ?? 0]))]))
}

function toTaskSet(list: TaskIdsIn[]): TaskSet {
  const out: TaskSet = new Map()
  for (const t of list) {
    let s = out.get(t.subtopologyId)
    if (!s) out.set(t.subtopologyId, (s = new Set()))
    for (const p of t.partitions) s.add(p)
  }
  return out
}

/** Tasks as the protocol lists them: by subtopology id, partitions ascending. */
export function taskIds(t: TaskSet): TaskIdsIn[] {
  return [...t]
    .filter(([, ps]) => ps.size > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([subtopologyId, ps]) => ({ subtopologyId, partitions: [...ps].sort((a, b) => a - b) }))
}

/** A topology in a canonical form, to compare two members' (Kafka compares them as records). */
function normalized(t: StreamsTopology): unknown {
  return [...t.subtopologies]
    .sort((a, b) => (a.subtopologyId < b.subtopologyId ? -1 : 1))
    .map((s) => [
      s.subtopologyId,
      s.sourceTopics,
      s.sourceTopicRegex,
      s.stateChangelogTopics,
      s.repartitionSinkTopics,
      s.repartitionSourceTopics,
      s.copartitionGroups,
    ])
}
