import { builtin } from '../node-builtins.js'
import { ConnectionError, KafkaError, UnsupportedApiError, WafkaError } from '../errors.js'
import { backoffMs, sleep } from '../net/backoff.js'
import { ConsumerGroupHeartbeat } from '../protocol/messages/index.js'
import type { ResolvedConsumerConfig } from './config.js'
import type { CoordinatorLink } from './coordinator-link.js'
import type { CommitIdentity, LeaveOptions, Membership, MembershipHooks } from './membership.js'
import { groupByTopic, partitionKey, type TopicPartition } from './partition-state.js'
import { COORDINATOR_MOVED, REJOIN_CONSUMER_PROTOCOL } from '../error-policy.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import type { Logger } from '../logger.js'
import type { ConsumerGroupHeartbeatRequest } from '../protocol/messages/index.js'
import { channels, type RebalanceContext } from '../observe/channels.js'

const LEAVE_EPOCH = -1
const STATIC_LEAVE_EPOCH = -2

/**
 * KIP-848's consumer group protocol: no JoinGroup/SyncGroup round, no
 * client-side assignor. The member heartbeats its subscription and what it
 * owns; the coordinator answers with a target assignment, which the member
 * reaches by revoking (and committing) what it must give up, then taking
 * what is new, and reporting it in the next heartbeat.
 */
export class ConsumerGroupProtocol implements Membership {
  /** Client-generated since ConsumerGroupHeartbeat v1 (KIP-1082). */
  memberId = builtin('node:crypto').randomBytes(16).toString('base64url')
  private memberEpoch = 0
  private intervalMs: number
  private owned: TopicPartition[] = []
  /** The last target the coordinator sent, not yet reached. */
  private target: Array<{ topicId: string; partitions: number[] }> | null = null
  private reconciling: Promise<void> | undefined
  /** Send the full member state (joining, or after an error). */
  private sendAll = true
  private ownedChanged = false
  private subscribed: string[] = []
  private stopped = false
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined

  constructor(
    private readonly coordinator: CoordinatorLink,
    private readonly config: ResolvedConsumerConfig,
    private readonly hooks: MembershipHooks,
  ) {
    this.intervalMs = config.heartbeatIntervalMs
  }

  private get log(): Logger {
    return this.coordinator.cluster.log('Group')
  }

  commitIdentity(): CommitIdentity {
    return { generationIdOrMemberEpoch: this.memberEpoch, memberId: this.memberId, groupInstanceId: this.config.groupInstanceId }
  }

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

  rejoin(): void {
    // A changed subscription goes out with the next heartbeat, now.
    this.wake?.()
  }

  async leave(options: LeaveOptions = {}): Promise<void> {
    this.stopped = true
    this.wake?.()
    // The loop and the reconciliation report their own failures; here they only have to end.
    await this.loop?.catch(() => {})
    await this.reconciling?.catch(() => {})
    if (this.owned.length > 0)
      await (options.unreachable ? this.hooks.lost(this.owned) : this.hooks.revoked(this.owned)).catch(
        this.log.caught('the revoke handler failed while leaving', 'warn', { groupId: this.coordinator.groupId }),
      )
    this.owned = []
    if (this.memberEpoch > 0 && !options.unreachable && !options.remain) {
      const epoch = this.config.groupInstanceId === null ? LEAVE_EPOCH : STATIC_LEAVE_EPOCH
      await this.coordinator
        .send(
          ConsumerGroupHeartbeat,
          () => ({
            groupId: this.coordinator.groupId,
            memberId: this.memberId,
            memberEpoch: epoch,
            instanceId: this.config.groupInstanceId,
            subscribedTopicNames: null,
            topicPartitions: null,
          }),
          5000,
        )
        .catch(
          this.log.caught('the leaving heartbeat failed: the group notices after the session timeout', 'info', {
            groupId: this.coordinator.groupId,
          }),
        )
    }
    this.memberEpoch = 0
  }

  private async run(joined: () => void, failed: (err: Error) => void): Promise<void> {
    let first = true
    let failures = 0
    while (!this.stopped) {
      try {
        await this.heartbeat()
        failures = 0
      } catch (err) {
        if (this.stopped) break
        if (!recoverable(err)) {
          const fatal = KafkaError.is(err, ErrorCodes.UNSUPPORTED_VERSION)
            ? new UnsupportedApiError(
                `groupProtocol 'consumer' needs a broker that serves ConsumerGroupHeartbeat (KIP-848): ${err.message}`,
              )
            : (err as Error)
          this.hooks.fatal(fatal)
          failed(fatal)
          return
        }
        await sleep(backoffMs(failures++, this.config.retryBackoffMs, this.config.retryBackoffMaxMs))
        continue
      }
      if (first && this.memberEpoch > 0 && this.target === null && this.reconciling === undefined) {
        first = false
        joined()
      }
      if (this.ownedChanged || this.stopped) continue
      await new Promise<void>((resolve) => {
        this.wake = resolve
        setTimeout(resolve, this.intervalMs).unref?.()
      })
      this.wake = undefined
    }
  }

  private async heartbeat(): Promise<void> {
    const topics = this.hooks.topics()
    const subscriptionChanged = topics.join('\u0000') !== this.subscribed.join('\u0000')
    const all = this.sendAll
    const reportOwned = all || this.ownedChanged
    this.ownedChanged = false
    const { res, broker } = await this.coordinator.send(
      ConsumerGroupHeartbeat,
      () => ({
        groupId: this.coordinator.groupId,
        memberId: this.memberId,
        memberEpoch: this.memberEpoch,
        instanceId: all ? this.config.groupInstanceId : null,
        rackId: all ? this.config.rackId : null,
        rebalanceTimeoutMs: all ? this.config.rebalanceTimeoutMs : -1,
        subscribedTopicNames: all || subscriptionChanged ? topics : null,
        // Regex subscriptions are resolved here, into names; an empty regex goes with them, as librdkafka
        // sends it (its mock insists that names and regex come together).
        ...(all || subscriptionChanged ? ({ subscribedTopicRegex: '' } satisfies Partial<ConsumerGroupHeartbeatRequest>) : {}),
        serverAssignor: all ? this.config.serverAssignor : null,
        topicPartitions: reportOwned ? this.ownedTopicIds() : null,
      }),
      this.config.requestTimeoutMs,
    )
    if (REJOIN_CONSUMER_PROTOCOL.has(res.errorCode)) {
      // Fenced: the partitions are lost (no commit can succeed); join again from epoch 0.
      await this.loseAll()
      return
    }
    if (COORDINATOR_MOVED.has(res.errorCode)) {
      this.coordinator.stale()
      this.sendAll = true
      throw new KafkaError(`${res.errorMessage ?? 'coordinator moved'} (${res.errorCode})`, {
        code: res.errorCode,
        type: 'COORDINATOR',
        retriable: true,
      })
    }
    this.coordinator.check(res.errorCode, 'ConsumerGroupHeartbeat', broker, res.errorMessage ?? undefined)
    if (all || subscriptionChanged) this.subscribed = topics
    if (res.memberId) this.memberId = res.memberId
    this.memberEpoch = res.memberEpoch
    // Until the coordinator gives an epoch, every heartbeat is a join and carries everything.
    this.sendAll = this.memberEpoch === 0
    if (res.heartbeatIntervalMs > 0) this.intervalMs = res.heartbeatIntervalMs
    this.hooks.emit('consumer.heartbeat', { groupId: this.coordinator.groupId, memberId: this.memberId, memberEpoch: this.memberEpoch })
    if (res.assignment) {
      this.target = res.assignment.topicPartitions.map((t) => ({ topicId: t.topicId, partitions: t.partitions }))
      this.reconciling ??= this.reconcile().finally(() => {
        this.reconciling = undefined
        this.wake?.()
      })
    }
  }

  /** Moves what this member owns to the latest target: revoke first (committing), then take the new. */
  private async reconcile(): Promise<void> {
    while (this.target !== null && !this.stopped) {
      const target = this.target
      const next = await this.resolveNames(target)
      if (next === undefined) {
        await sleep(this.config.retryBackoffMs)
        continue
      }
      if (this.target !== target) continue
      this.target = null
      const nextKeys = new Set(next.map((p) => partitionKey(p.topic, p.partition)))
      const ownedKeys = new Set(this.owned.map((p) => partitionKey(p.topic, p.partition)))
      const revoked = this.owned.filter((p) => !nextKeys.has(partitionKey(p.topic, p.partition)))
      const added = next.filter((p) => !ownedKeys.has(partitionKey(p.topic, p.partition)))
      if (revoked.length === 0 && added.length === 0) continue
      if (!channels.rebalance.active) await this.adopt(revoked, added, nextKeys)
      else {
        const context: RebalanceContext = {
          groupId: this.coordinator.groupId,
          protocol: 'consumer',
          memberId: this.memberId,
          memberEpoch: this.memberEpoch,
          assigned: added,
          revoked,
        }
        await channels.rebalance.trace(() => this.adopt(revoked, added, nextKeys), context)
      }
    }
  }

  /** Gives up `revoked` (committing first), then takes `added`. */
  private async adopt(revoked: TopicPartition[], added: TopicPartition[], nextKeys: Set<string>): Promise<void> {
    if (revoked.length > 0) {
      await this.hooks.revoked(revoked)
      this.owned = this.owned.filter((p) => nextKeys.has(partitionKey(p.topic, p.partition)))
    }
    if (added.length > 0) {
      this.owned = [...this.owned, ...added]
      await this.hooks.assigned(added)
    }
    this.ownedChanged = true
    this.hooks.emit('consumer.group_join', {
      groupId: this.coordinator.groupId,
      memberId: this.memberId,
      memberEpoch: this.memberEpoch,
      groupProtocol: 'consumer',
      memberAssignment: Object.fromEntries(groupByTopic(this.owned).map((t) => [t.topic, t.partitions])),
    })
  }

  /** Topic ids to names, refreshing metadata for ids not known yet (undefined: try again later). */
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

  private ownedTopicIds(): Array<{ topicId: string; partitions: number[] }> {
    const topics = this.coordinator.cluster.metadata.topics
    return groupByTopic(this.owned).flatMap((t) => {
      const id = topics.get(t.topic)?.topicId
      return id ? [{ topicId: id, partitions: t.partitions }] : []
    })
  }

  private async loseAll(): Promise<void> {
    this.memberEpoch = 0
    this.sendAll = true
    this.target = null
    // The reconciliation reports its own failure; here it only has to end.
    await this.reconciling?.catch(() => {})
    const owned = this.owned
    this.owned = []
    if (owned.length > 0) await this.hooks.lost(owned)
  }
}

function recoverable(err: unknown): boolean {
  if (err instanceof ConnectionError) return true
  return err instanceof WafkaError && err.retriable
}
