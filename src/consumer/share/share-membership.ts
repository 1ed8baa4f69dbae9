import { builtin } from '../../node-builtins.js'
import { ConnectionError, KafkaError, UnsupportedApiError, WafkaError } from '../../errors.js'
import { backoffMs, sleep } from '../../net/backoff.js'
import { ShareGroupHeartbeat } from '../../protocol/messages/index.js'
import { COORDINATOR_MOVED, REJOIN_SHARE_GROUP, SHARE_GROUP_FATAL } from '../../error-policy.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import type { Logger } from '../../logger.js'
import type { CoordinatorLink } from '../coordinator-link.js'
import type { TopicPartition } from '../partition-state.js'
import type { ResolvedShareConsumerConfig } from './config.js'

const LEAVE_EPOCH = -1
/** Until the coordinator says otherwise (group.share.heartbeat.interval.ms's default). */
const FIRST_INTERVAL_MS = 5000

/**
 * Where a share-group member stands. Every change goes through
 * `transition()`, which says why at DEBUG.
 *  - unjoined: not a member (before start, or fenced: the next heartbeat joins with epoch 0)
 *  - joined: the coordinator gave an epoch; heartbeats keep it and bring assignments
 *  - leaving / left: the leave heartbeat (epoch -1) is on its way / was sent
 *  - failed: an error no heartbeat can fix (authorization, a group of another type); the consumer stops
 */
export type ShareMemberState = 'unjoined' | 'joined' | 'leaving' | 'left' | 'failed'

export interface ShareMembershipHooks {
  /** The partitions the coordinator assigns this member now (all of them: share assignments are not incremental). */
  assigned(partitions: TopicPartition[]): void
  /** The topics subscribed to. */
  topics(): string[]
  emit(event: string, payload: object): void
  /** An error that stops the consumer. */
  fatal(err: Error): void
}

/**
 * A member of a share group (KIP-932) by ShareGroupHeartbeat: the member id
 * is the client's own, epoch 0 joins, the coordinator assigns partitions
 * (by topic id) and several members may hold the same partition; there is
 * nothing to revoke or commit before a partition moves, since every record
 * is acknowledged on its own. Fenced (UNKNOWN_MEMBER_ID,
 * FENCED_MEMBER_EPOCH): join again with epoch 0, the assignment dropped.
 */
export class ShareMembership {
  readonly memberId = builtin('node:crypto').randomBytes(16).toString('base64url')
  private memberEpoch = 0
  private intervalMs = FIRST_INTERVAL_MS
  private state: ShareMemberState = 'unjoined'
  private subscribed: string[] | null = null
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined
  private assignment: TopicPartition[] = []

  constructor(
    private readonly coordinator: CoordinatorLink,
    private readonly config: ResolvedShareConsumerConfig,
    private readonly hooks: ShareMembershipHooks,
  ) {}

  private get log(): Logger {
    return this.coordinator.cluster.log('Group')
  }

  get current(): ShareMemberState {
    return this.state
  }

  get epoch(): number {
    return this.memberEpoch
  }

  get partitions(): TopicPartition[] {
    return this.assignment
  }

  private transition(to: ShareMemberState, why: string): void {
    if (this.state === to) return
    this.log.debug(`share member ${this.state} → ${to}: ${why}`, { groupId: this.coordinator.groupId, memberId: this.memberId })
    this.state = to
  }

  /** Heartbeats until leave(); resolves at the first epoch the coordinator gives, rejects on a fatal error before it. */
  start(): Promise<void> {
    let joined!: () => void
    let failed!: (err: Error) => void
    const first = new Promise<void>((resolve, reject) => {
      joined = resolve
      failed = reject
    })
    this.loop = this.run(joined, failed)
    return first
  }

  /** The subscription changed: it goes out with a heartbeat now. */
  subscriptionChanged(): void {
    this.wake?.()
  }

  async leave(): Promise<void> {
    const wasJoined = this.state === 'joined' && this.memberEpoch > 0
    if (this.state !== 'failed') this.transition('leaving', 'leave() called')
    this.wake?.()
    // The loop reports its own failures; here it only has to end.
    await this.loop?.catch(() => {})
    this.setAssignment([])
    if (wasJoined) {
      await this.coordinator
        .send(ShareGroupHeartbeat, () => ({ groupId: this.coordinator.groupId, memberId: this.memberId, memberEpoch: LEAVE_EPOCH }), 5000)
        .catch(
          this.log.caught('the leaving share heartbeat failed: the group notices after its session timeout', 'info', {
            groupId: this.coordinator.groupId,
          }),
        )
    }
    this.memberEpoch = 0
    if (this.state === 'leaving') this.transition('left', 'left the group')
  }

  private get stopping(): boolean {
    return this.state === 'leaving' || this.state === 'left' || this.state === 'failed'
  }

  private async run(joined: () => void, failed: (err: Error) => void): Promise<void> {
    let first = true
    let failures = 0
    while (!this.stopping) {
      try {
        await this.heartbeat()
        failures = 0
      } catch (err) {
        if (this.stopping) break
        if (!recoverable(err)) {
          const fatal = KafkaError.is(err, ErrorCodes.UNSUPPORTED_VERSION)
            ? new UnsupportedApiError(
                `a share consumer needs a broker that serves ShareGroupHeartbeat (KIP-932): ${(err as Error).message}`,
              )
            : (err as Error)
          this.transition('failed', fatal.message)
          this.hooks.fatal(fatal)
          failed(fatal)
          return
        }
        this.log.debug('share heartbeat failed; retrying', { groupId: this.coordinator.groupId, error: (err as Error).message })
        await sleep(backoffMs(failures++, this.config.retryBackoffMs, this.config.retryBackoffMaxMs))
        continue
      }
      if (first && this.state === 'joined') {
        first = false
        joined()
      }
      if (this.stopping) break
      await new Promise<void>((resolve) => {
        this.wake = resolve
        setTimeout(resolve, this.intervalMs).unref?.()
      })
      this.wake = undefined
    }
  }

  private async heartbeat(): Promise<void> {
    const topics = this.hooks.topics()
    const joining = this.memberEpoch === 0
    const changed = this.subscribed === null || topics.join('\u0000') !== this.subscribed.join('\u0000')
    const { res, broker } = await this.coordinator.send(
      ShareGroupHeartbeat,
      () => ({
        groupId: this.coordinator.groupId,
        memberId: this.memberId,
        memberEpoch: this.memberEpoch,
        rackId: joining ? this.config.rackId : null,
        subscribedTopicNames: joining || changed ? topics : null,
      }),
      this.config.requestTimeoutMs,
    )
    if (this.stopping) return
    if (REJOIN_SHARE_GROUP.has(res.errorCode)) {
      // Fenced: the assignment is gone; join again from epoch 0 with the same member id, as Java's does.
      this.memberEpoch = 0
      this.subscribed = null
      this.setAssignment([])
      this.transition('unjoined', `fenced (${res.errorCode}): ${res.errorMessage ?? 'rejoining'}`)
      this.log.info('share member fenced; rejoining', { groupId: this.coordinator.groupId, memberId: this.memberId, code: res.errorCode })
      return
    }
    if (COORDINATOR_MOVED.has(res.errorCode)) {
      this.coordinator.stale()
      throw new KafkaError(`${res.errorMessage ?? 'coordinator moved'} (${res.errorCode})`, {
        code: res.errorCode,
        type: 'COORDINATOR',
        retriable: true,
      })
    }
    this.coordinator.check(res.errorCode, 'ShareGroupHeartbeat', broker, res.errorMessage ?? undefined)
    if (joining || changed) this.subscribed = topics
    this.memberEpoch = res.memberEpoch
    if (res.heartbeatIntervalMs > 0) this.intervalMs = res.heartbeatIntervalMs
    if (this.memberEpoch > 0) this.transition('joined', `epoch ${this.memberEpoch}`)
    this.hooks.emit('consumer.heartbeat', { groupId: this.coordinator.groupId, memberId: this.memberId, memberEpoch: this.memberEpoch })
    if (res.assignment) {
      const next = await this.resolveNames(res.assignment.topicPartitions)
      if (next !== undefined) this.setAssignment(next)
      else {
        // Ids not in metadata yet: the next heartbeat (full) brings the assignment again.
        this.memberEpoch = 0
        this.subscribed = null
      }
    }
  }

  private setAssignment(next: TopicPartition[]): void {
    const key = (l: TopicPartition[]) =>
      l
        .map((p) => `${p.topic}:${p.partition}`)
        .sort()
        .join(',')
    if (key(next) === key(this.assignment)) return
    this.assignment = next
    this.hooks.assigned(next)
    this.hooks.emit('consumer.group_join', {
      groupId: this.coordinator.groupId,
      memberId: this.memberId,
      memberEpoch: this.memberEpoch,
      groupProtocol: 'share',
      memberAssignment: groupTopics(next),
    })
  }

  /** Topic ids to names, refreshing metadata for ids not known yet (undefined: still unknown). */
  private async resolveNames(target: Array<{ topicId: string; partitions: number[] }>): Promise<TopicPartition[] | undefined> {
    const cluster = this.coordinator.cluster
    const byId = () => new Map([...cluster.metadata.topics.values()].map((t) => [t.topicId, t.name]))
    let names = byId()
    if (target.some((t) => !names.has(t.topicId))) {
      await cluster
        .refreshMetadata(this.hooks.topics())
        .catch(this.log.caught('metadata refresh for unknown topic ids failed; the next heartbeat tries again'))
      names = byId()
      if (target.some((t) => !names.has(t.topicId))) return undefined
    }
    return target.flatMap((t) => t.partitions.map((partition) => ({ topic: names.get(t.topicId)!, partition })))
  }
}

function groupTopics(list: TopicPartition[]): Record<string, number[]> {
  const out: Record<string, number[]> = {}
  for (const p of list) (out[p.topic] ??= []).push(p.partition)
  return out
}

function recoverable(err: unknown): boolean {
  if (err instanceof ConnectionError) return true
  // Whatever the code's retriability, these end the membership (as Java's ShareHeartbeatRequestManager ends on them).
  if (KafkaError.is(err, SHARE_GROUP_FATAL)) return false
  return err instanceof WafkaError && err.retriable
}
