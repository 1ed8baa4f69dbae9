// KIP-1071's streams group membership (Java's StreamsMembershipManager and
// StreamsGroupHeartbeatRequestManager): the broker assigns tasks. The member
// joins (epoch 0) with the topology, its process id, endpoint and client
// tags; each answer may carry a new target of active tasks, which the member
// reaches by revoking first (the consumer commits the tasks' partitions and
// Kafka Streams closes them), then taking the new tasks' partitions (source
// and repartition topics) by manual assignment, and reports what it owns in
// the next heartbeat, sent at once. Standby and warm-up tasks need no
// revocation: Kafka Streams is told the new set between the two steps
// (standby-tasks.ts keeps them) and they are reported as owned too. The task
// offsets (each task's changelog offsets summed, for the broker to rank
// standby candidates) and end offsets go as Java's HeartbeatState sends them:
// when joining, then when they changed and the assignment changed, the
// broker's task offset interval passed or a warm-up task caught up. Fenced or
// unknown: the active tasks are lost and the member joins again from epoch
// 0. Leaving: epoch -1. The consumer commits with this member's id and epoch
// (the group is a streams group).
import { randomBytes } from 'node:crypto'
import type { ResolvedConsumerConfig } from '../consumer/config.js'
import type { CoordinatorLink } from '../consumer/coordinator-link.js'
import type { CommitIdentity, LeaveOptions, Membership, MembershipHooks } from '../consumer/membership.js'
import { groupByTopic, type TopicPartition } from '../consumer/partition-state.js'
import { ConsumerEvents } from '../consumer/events.js'
import { COORDINATOR_MOVED, REJOIN_CONSUMER_PROTOCOL } from '../error-policy.js'
import { ConnectionError, KafkaError, UnsupportedApiError, WafkaError } from '../errors.js'
import type { Logger } from '../logger.js'
import { backoffMs, sleep } from '../net/backoff.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import {
  StreamsGroupHeartbeat,
  type StreamsGroupHeartbeatRequest,
  type StreamsGroupHeartbeatResponse,
  type StreamsGroupHeartbeatResponseTaskIds,
} from '../protocol/messages/index.js'
import { StatusWatch, StreamsGroupStatus } from './streams-group-status.js'
import { taskName, type StreamsRebalanceData, type TaskId } from './streams-rebalance-data.js'
import { ApplicationShutdownError, StreamsError } from './streams-error.js'
import { UNKNOWN_END } from './standby-tasks.js'

const LEAVE_EPOCH = -1

/** Java's MemberState, the part this member goes through. */
export type StreamsMemberState = 'UNSUBSCRIBED' | 'JOINING' | 'RECONCILING' | 'ACKNOWLEDGING' | 'STABLE' | 'FENCED' | 'LEAVING' | 'FATAL'

const NEXT: Record<StreamsMemberState, readonly StreamsMemberState[]> = {
  UNSUBSCRIBED: ['JOINING'],
  JOINING: ['RECONCILING', 'STABLE', 'FENCED', 'LEAVING', 'FATAL'],
  RECONCILING: ['ACKNOWLEDGING', 'RECONCILING', 'STABLE', 'FENCED', 'LEAVING', 'FATAL'],
  ACKNOWLEDGING: ['STABLE', 'RECONCILING', 'FENCED', 'LEAVING', 'FATAL'],
  STABLE: ['RECONCILING', 'FENCED', 'LEAVING', 'FATAL'],
  FENCED: ['JOINING', 'LEAVING', 'FATAL'],
  LEAVING: ['UNSUBSCRIBED'],
  FATAL: ['UNSUBSCRIBED'],
}

/** What the member needs of Kafka Streams beyond the consumer's partitions (the standby side of Java's onTasksAssigned, StreamsRebalanceData's task offsets). */
export interface StreamsTaskHooks {
  /** The standby and warm-up tasks to keep now (told after the revocations, before the new active tasks' partitions are taken); `active`: the new active tasks. */
  standbys(tasks: TaskId[], active: TaskId[]): Promise<void>
  /** Java's taskOffsetSum: by task name, the changelog offsets summed of the tasks this instance has state of but does not run as active. */
  taskOffsets(): Map<string, bigint>
  /** Java's taskEndOffsetSum: by task name, the end offsets of the changelogs being read, summed. */
  taskEndOffsets(): Map<string, bigint>
}

/** The tasks of an assignment, each kind. */
interface Tasks {
  active: TaskId[]
  standby: TaskId[]
  warmup: TaskId[]
}

const names = (tasks: TaskId[]) => tasks.map(taskName).sort().join(',')
const keyOfTasks = (t: Tasks) => `${names(t.active)}|${names(t.standby)}|${names(t.warmup)}`
const mapKey = (m: Map<string, bigint>) =>
  [...m]
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(',')

/** What the member says of itself when it joins (Java's StreamsRebalanceData fields, StreamsConfig's application.server, client.tag.*). */
export interface StreamsMemberIdentity {
  processId: string
  userEndpoint: { host: string; port: number } | null
  clientTags: Record<string, string>
}

export class StreamsMembership implements Membership {
  /** Client-generated, kept for the member's whole life. */
  readonly memberId = randomBytes(16).toString('base64url')
  private memberEpoch = 0
  private state: StreamsMemberState = 'UNSUBSCRIBED'
  private intervalMs: number
  private endpointInformationEpoch = -1
  /** The active tasks this member owns (reconciled), its standby and warm-up tasks, and the last target not yet reached. */
  private owned: TaskId[] = []
  private standby: TaskId[] = []
  private warmup: TaskId[] = []
  private target: Tasks | null = null
  private reconciling: Promise<void> | undefined
  /** The owned tasks as last reported (null: report them in the next heartbeat). */
  private reported: string | null = null
  /** The task offsets and end offsets as last sent, and when (Java's LastSentFields, lastTaskOffsetIntervalTs). */
  private sentOffsets: string | null = null
  private sentEnds: string | null = null
  private offsetsSentAt = -1
  /** The broker's group configs from its answers (Java keeps them in StreamsRebalanceData). */
  private taskOffsetIntervalMs = 0
  private acceptableRecoveryLag = 0n
  private shutdownRequested = false
  private stopped = false
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined
  /** start()'s failure, until the member has joined. */
  private failStart: ((err: Error) => void) | undefined
  /** Waiting for the next heartbeat's answer (requestShutdown). */
  private beaten: Array<() => void> = []
  private readonly statuses: StatusWatch

  constructor(
    private readonly coordinator: CoordinatorLink,
    private readonly config: ResolvedConsumerConfig,
    private readonly hooks: MembershipHooks,
    private readonly data: StreamsRebalanceData,
    private readonly identity: StreamsMemberIdentity,
    private readonly tasks: StreamsTaskHooks,
  ) {
    this.intervalMs = config.heartbeatIntervalMs
    this.statuses = new StatusWatch(this.log, coordinator.groupId)
  }

  private get log(): Logger {
    return this.coordinator.cluster.log('Streams')
  }

  commitIdentity(): CommitIdentity {
    return { generationIdOrMemberEpoch: this.memberEpoch, memberId: this.memberId, groupInstanceId: null }
  }

  start(): Promise<void> {
    let joined!: () => void
    let failed!: (err: Error) => void
    const first = new Promise<void>((resolve, reject) => {
      joined = resolve
      failed = reject
    })
    this.failStart = failed
    this.transitionTo('JOINING')
    this.loop = this.run(joined)
    return first
  }

  rejoin(): void {
    this.wake?.()
  }

  /** Java's StreamsRebalanceData.requestShutdown(): the next heartbeat asks every member of the application to shut down. */
  requestShutdown(): Promise<void> {
    this.shutdownRequested = true
    if (this.stopped) return Promise.resolve()
    const sent = new Promise<void>((resolve) => this.beaten.push(resolve))
    this.wake?.()
    return sent
  }

  async leave(options: LeaveOptions = {}): Promise<void> {
    this.stopped = true
    this.wake?.()
    // The loop and the reconciliation report their own failures; here they only have to end.
    await this.loop?.catch(() => {})
    await this.reconciling?.catch(() => {})
    // A shutdown request no heartbeat carried: leaving ends the wait for it.
    for (const done of this.beaten.splice(0)) done()
    const partitions = this.data.partitionsOf(this.owned)
    if (partitions.length > 0)
      await (options.unreachable ? this.hooks.lost(partitions) : this.hooks.revoked(partitions)).catch(
        this.log.caught('closing the tasks failed while leaving', 'warn', { groupId: this.coordinator.groupId }),
      )
    this.owned = []
    const inGroup = this.memberEpoch > 0
    if (this.state !== 'UNSUBSCRIBED') this.transitionTo(this.state === 'FATAL' ? 'UNSUBSCRIBED' : 'LEAVING')
    if (inGroup && !options.unreachable && !options.remain) {
      await this.coordinator
        .send(StreamsGroupHeartbeat, () => ({ groupId: this.coordinator.groupId, memberId: this.memberId, memberEpoch: LEAVE_EPOCH }), 5000)
        .then(() => this.log.info('left the streams group', { groupId: this.coordinator.groupId, memberId: this.memberId }))
        .catch(
          this.log.caught('the leaving heartbeat failed: the group notices after the session timeout', 'info', {
            groupId: this.coordinator.groupId,
          }),
        )
    }
    if (this.state === 'LEAVING') this.transitionTo('UNSUBSCRIBED')
    this.memberEpoch = 0
  }

  private async run(joined: () => void): Promise<void> {
    let first = true
    let failures = 0
    while (!this.stopped) {
      try {
        await this.heartbeat()
        failures = 0
        for (const done of this.beaten.splice(0)) done()
      } catch (err) {
        if (this.stopped) break
        if (!recoverable(err)) {
          const fatal =
            err instanceof UnsupportedApiError || KafkaError.is(err, ErrorCodes.UNSUPPORTED_VERSION)
              ? new UnsupportedApiError(
                  `groupProtocol 'streams' needs a broker that serves StreamsGroupHeartbeat (KIP-1071, Kafka 4.2+): ${(err as Error).message}`,
                  { cause: err },
                )
              : (err as Error)
          this.fail(fatal)
          return
        }
        this.reported = this.sentOffsets = this.sentEnds = null
        await sleep(backoffMs(failures++, this.config.retryBackoffMs, this.config.retryBackoffMaxMs))
        continue
      }
      if (first && this.memberEpoch > 0 && this.target === null && this.reconciling === undefined) {
        first = false
        this.failStart = undefined
        joined()
      }
      // Acknowledging a reconciliation, or joining again: at once (Java's shouldHeartbeatBeforeIntervalExpires).
      if (this.stopped || this.state === 'ACKNOWLEDGING' || this.state === 'JOINING') continue
      await new Promise<void>((resolve) => {
        this.wake = resolve
        setTimeout(resolve, this.intervalMs).unref?.()
      })
      this.wake = undefined
    }
  }

  private ownedTasks(): Tasks {
    return { active: this.owned, standby: this.standby, warmup: this.warmup }
  }

  /** Java's HeartbeatState.buildRequestData: everything when joining, then the owned tasks only when they changed. */
  private request(): Partial<StreamsGroupHeartbeatRequest> {
    const base = {
      groupId: this.coordinator.groupId,
      memberId: this.memberId,
      memberEpoch: this.memberEpoch,
      endpointInformationEpoch: this.endpointInformationEpoch,
      shutdownApplication: this.shutdownRequested,
    }
    if (this.state === 'JOINING')
      return {
        ...base,
        topology: this.data.topology(),
        rebalanceTimeoutMs: this.config.rebalanceTimeoutMs,
        processId: this.identity.processId,
        userEndpoint: this.identity.userEndpoint,
        rackId: this.config.rackId,
        clientTags: Object.entries(this.identity.clientTags).map(([key, value]) => ({ key, value })),
        activeTasks: [],
        standbyTasks: [],
        warmupTasks: [],
        ...this.offsets(true),
      }
    const owned = this.ownedTasks()
    const changed = keyOfTasks(owned) !== this.reported
    const tasks = changed
      ? { activeTasks: toTaskIds(owned.active), standbyTasks: toTaskIds(owned.standby), warmupTasks: toTaskIds(owned.warmup) }
      : {}
    return { ...base, ...tasks, ...this.offsets(changed) }
  }

  /**
   * The task offsets and end offsets, each when it differs from what was
   * last sent and it is time: joining, the assignment changed, the task
   * offset interval passed or a warm-up task is within the acceptable
   * recovery lag (Java's HeartbeatState).
   */
  private offsets(due: boolean): Partial<Pick<StreamsGroupHeartbeatRequest, 'taskOffsets' | 'taskEndOffsets'>> {
    const offsets = this.tasks.taskOffsets()
    const ends = this.tasks.taskEndOffsets()
    const joining = this.state === 'JOINING'
    const hot = this.warmup.some((t) => {
      const at = offsets.get(taskName(t))
      const end = ends.get(taskName(t))
      return at !== undefined && end !== undefined && end !== UNKNOWN_END && end - at <= this.acceptableRecoveryLag
    })
    if (!due && !joining && !hot && this.offsetsSentAt + this.taskOffsetIntervalMs > Date.now()) return {}
    const out: Partial<StreamsGroupHeartbeatRequest> = {}
    if (joining || mapKey(offsets) !== this.sentOffsets) out.taskOffsets = toTaskOffsets(offsets)
    if (joining || mapKey(ends) !== this.sentEnds) out.taskEndOffsets = toTaskOffsets(ends)
    return out
  }

  private async heartbeat(): Promise<void> {
    const sent = this.ownedTasks()
    const body = this.request()
    const joining = this.state === 'JOINING'
    const { res, broker } = await this.coordinator.send(StreamsGroupHeartbeat, () => body, this.config.requestTimeoutMs)
    if (this.stopped && this.state === 'LEAVING') return
    if (REJOIN_CONSUMER_PROTOCOL.has(res.errorCode)) return this.fenced(res)
    if (COORDINATOR_MOVED.has(res.errorCode)) {
      this.coordinator.stale()
      throw new KafkaError(`${res.errorMessage ?? 'coordinator moved'} (${res.errorCode})`, {
        code: res.errorCode,
        type: 'COORDINATOR',
        retriable: true,
      })
    }
    this.coordinator.check(res.errorCode, 'StreamsGroupHeartbeat', broker, res.errorMessage ?? undefined)
    if (body.activeTasks) this.reported = keyOfTasks(sent)
    if (body.taskOffsets) this.sentOffsets = mapKey(fromTaskOffsets(body.taskOffsets))
    if (body.taskEndOffsets) this.sentEnds = mapKey(fromTaskOffsets(body.taskEndOffsets))
    if (body.taskOffsets || body.taskEndOffsets) this.offsetsSentAt = Date.now()
    if (joining && res.memberEpoch > 0)
      this.log.info('joined the streams group', {
        groupId: this.coordinator.groupId,
        memberId: this.memberId,
        memberEpoch: res.memberEpoch,
      })
    this.memberEpoch = res.memberEpoch
    if (res.heartbeatIntervalMs > 0) this.intervalMs = res.heartbeatIntervalMs
    if (res.memberEpoch >= 0) {
      this.taskOffsetIntervalMs = res.taskOffsetIntervalMs
      this.acceptableRecoveryLag = res.acceptableRecoveryLag >= 0n ? res.acceptableRecoveryLag : BigInt(res.acceptableRecoveryLagLegacy)
    }
    this.endpointInformationEpoch = res.endpointInformationEpoch
    if (res.partitionsByUserEndpoint !== null) this.data.setPartitionsByHost(res.partitionsByUserEndpoint)
    this.statuses.update(res.status)
    this.hooks.emit(ConsumerEvents.HEARTBEAT, { groupId: this.coordinator.groupId, memberId: this.memberId, memberEpoch: this.memberEpoch })
    if (this.statuses.has(StreamsGroupStatus.SHUTDOWN_APPLICATION) && !this.shutdownRequested)
      return this.fail(
        new ApplicationShutdownError(
          `an instance of application ${this.coordinator.groupId} asked every instance to shut down (SHUTDOWN_APPLICATION)`,
        ),
      )
    if (res.activeTasks === null) {
      if (this.state === 'JOINING' || this.state === 'ACKNOWLEDGING') this.transitionTo('STABLE')
      return
    }
    this.assignmentReceived(res)
  }

  /** A new target: reconciled in the background (revoke, then assign), acknowledged by the next heartbeat. */
  private assignmentReceived(res: StreamsGroupHeartbeatResponse): void {
    const all = [...res.activeTasks!, ...(res.standbyTasks ?? []), ...(res.warmupTasks ?? [])]
    const unknown = [...new Set(all.map((t) => t.subtopologyId).filter((id) => !this.data.knows(id)))]
    if (unknown.length > 0)
      return this.fail(
        new StreamsError(
          `streams group ${this.coordinator.groupId} assigned tasks of sub-topologies ${unknown.join(', ')}, which this topology does not have: is another topology running under this applicationId?`,
        ),
      )
    const target = dedupe(fromTaskIds(res.activeTasks!), fromTaskIds(res.standbyTasks ?? []), fromTaskIds(res.warmupTasks ?? []), this.log)
    if (keyOfTasks(target) === keyOfTasks(this.ownedTasks()) && this.reconciling === undefined) {
      this.target = null
      if (this.state !== 'STABLE') this.transitionTo('STABLE')
      this.hooks.emit(ConsumerEvents.GROUP_JOIN, this.joinPayload())
      return
    }
    this.target = target
    // Tasks move: Kafka Streams is REBALANCING until they run (GROUP_JOIN after the reconciliation).
    if (this.state !== 'RECONCILING')
      this.hooks.emit(ConsumerEvents.REBALANCING, {
        groupId: this.coordinator.groupId,
        memberId: this.memberId,
        reason: 'the streams group assigned other tasks',
      })
    this.transitionTo('RECONCILING')
    this.reconciling ??= this.reconcile().finally(() => {
      this.reconciling = undefined
      this.wake?.()
    })
  }

  private async reconcile(): Promise<void> {
    while (this.target !== null && !this.stopped) {
      const target = this.target
      this.target = null
      const next = new Set(target.active.map(taskName))
      const had = new Set(this.owned.map(taskName))
      const revoked = this.owned.filter((t) => !next.has(taskName(t)))
      const added = target.active.filter((t) => !had.has(taskName(t)))
      this.log.info('the streams group assigned tasks', {
        groupId: this.coordinator.groupId,
        memberId: this.memberId,
        memberEpoch: this.memberEpoch,
        activeTasks: target.active.map(taskName),
        standbyTasks: target.standby.map(taskName),
        warmupTasks: target.warmup.map(taskName),
        revoking: revoked.map(taskName),
      })
      try {
        if (revoked.length > 0) {
          await this.hooks.revoked(this.data.partitionsOf(revoked))
          this.owned = this.owned.filter((t) => next.has(taskName(t)))
        }
        if (names(target.standby) !== names(this.standby) || names(target.warmup) !== names(this.warmup)) {
          await this.tasks.standbys([...target.standby, ...target.warmup], target.active)
          this.standby = target.standby
          this.warmup = target.warmup
        }
        if (added.length > 0) {
          const partitions = await this.existing(this.data.partitionsOf(added))
          this.owned = [...this.owned, ...added]
          await this.hooks.assigned(partitions)
        }
      } catch (err) {
        this.log.error('reconciling the assignment failed: the next heartbeat reports what this member owns', {
          groupId: this.coordinator.groupId,
          error: (err as Error).message,
        })
      }
      // Fenced or failed meanwhile: that path owns the state now.
      if (this.stopped || this.state !== 'RECONCILING') return
      if (this.target === null) {
        this.transitionTo('ACKNOWLEDGING')
        this.hooks.emit(ConsumerEvents.GROUP_JOIN, this.joinPayload())
      }
    }
  }

  /**
   * The partitions among `partitions` the cluster has, after a metadata
   * refresh (so the fetcher knows their leaders): a sub-topology whose
   * topics differ in partition count has tasks some of them lack.
   */
  private async existing(partitions: TopicPartition[]): Promise<TopicPartition[]> {
    const cluster = this.coordinator.cluster
    const topics = [...new Set(partitions.map((p) => p.topic))]
    await cluster.refreshMetadata(topics).catch(this.log.caught('metadata refresh for assigned topics failed; the fetcher retries', 'info'))
    return partitions.filter((p) => {
      const count = cluster.metadata.topics.get(p.topic)?.partitions.length
      return count === undefined || count === 0 || p.partition < count
    })
  }

  /** Fenced or unknown: the tasks are lost (no commit can succeed), and the member joins again from epoch 0. */
  private async fenced(res: StreamsGroupHeartbeatResponse): Promise<void> {
    this.log.info('fenced by the streams group: dropping its tasks and joining again', {
      groupId: this.coordinator.groupId,
      memberId: this.memberId,
      memberEpoch: this.memberEpoch,
      error: res.errorMessage ?? res.errorCode,
    })
    this.transitionTo('FENCED')
    this.memberEpoch = 0
    this.target = null
    // The reconciliation reports its own failure; here it only has to end.
    await this.reconciling?.catch(() => {})
    const lost = this.data.partitionsOf(this.owned)
    this.owned = []
    this.reported = null
    this.sentOffsets = this.sentEnds = null
    if (lost.length > 0) await this.hooks.lost(lost)
    if (!this.stopped) this.transitionTo('JOINING')
  }

  private fail(error: Error): void {
    this.stopped = true
    this.transitionTo('FATAL')
    for (const done of this.beaten.splice(0)) done()
    this.hooks.fatal(error)
    this.failStart?.(error)
  }

  private joinPayload(): object {
    return {
      groupId: this.coordinator.groupId,
      memberId: this.memberId,
      memberEpoch: this.memberEpoch,
      groupProtocol: 'streams',
      activeTasks: this.owned.map(taskName),
      memberAssignment: Object.fromEntries(groupByTopic(this.data.partitionsOf(this.owned)).map((t) => [t.topic, t.partitions])),
    }
  }

  private transitionTo(next: StreamsMemberState): void {
    if (next === this.state) return
    if (!NEXT[this.state].includes(next)) throw new StreamsError(`a streams group member cannot go from ${this.state} to ${next}`)
    this.log.debug('streams member state', { groupId: this.coordinator.groupId, from: this.state, to: next })
    this.state = next
  }
}

function toTaskIds(tasks: TaskId[]): Array<{ subtopologyId: string; partitions: number[] }> {
  const by = new Map<string, number[]>()
  for (const t of tasks) by.set(t.subtopologyId, [...(by.get(t.subtopologyId) ?? []), t.partition])
  return [...by].map(([subtopologyId, partitions]) => ({ subtopologyId, partitions: partitions.sort((a, b) => a - b) }))
}

function toTaskOffsets(sums: Map<string, bigint>): Array<{ subtopologyId: string; partition: number; offset: bigint }> {
  return [...sums].map(([name, offset]) => {
    const at = name.lastIndexOf('_')
    return { subtopologyId: name.slice(0, at), partition: Number(name.slice(at + 1)), offset }
  })
}

function fromTaskOffsets(list: Array<{ subtopologyId: string; partition: number; offset: bigint }>): Map<string, bigint> {
  return new Map(list.map((t) => [taskName(t), t.offset]))
}

/**
 * Java's DefaultStreamsRebalanceListener.deduplicateTasks: a task assigned
 * as active is not also a standby or warm-up task, and one both standby and
 * warm-up is kept once, as a standby (each with a WARN, as Java's).
 */
function dedupe(active: TaskId[], standby: TaskId[], warmup: TaskId[], log: Logger): Tasks {
  const act = new Set(active.map(taskName))
  const sb = new Set(standby.map(taskName))
  const both = standby.filter((t) => warmup.some((w) => taskName(w) === taskName(t)))
  if (both.length > 0)
    log.warn('tasks assigned as standby and as warm-up tasks are kept once, as standby tasks', { tasks: both.map(taskName) })
  const replicas = [...standby, ...warmup].filter((t) => act.has(taskName(t)))
  if (replicas.length > 0)
    log.warn('tasks assigned as active and as standby or warm-up tasks are run as active tasks', { tasks: replicas.map(taskName) })
  return {
    active,
    standby: standby.filter((t) => !act.has(taskName(t))),
    warmup: warmup.filter((t) => !act.has(taskName(t)) && !sb.has(taskName(t))),
  }
}

function fromTaskIds(ids: StreamsGroupHeartbeatResponseTaskIds[]): TaskId[] {
  return ids.flatMap((t) => t.partitions.map((partition) => ({ subtopologyId: t.subtopologyId, partition })))
}

function recoverable(err: unknown): boolean {
  if (err instanceof ConnectionError) return true
  return err instanceof WafkaError && err.retriable
}
