import { Buffer } from 'node:buffer'
import { backoffMs, sleep } from '../net/backoff.js'
import { AuthenticationError, AuthorizationError, ConnectionError, KafkaError, ProtocolError, TlsError, WafkaError } from '../errors.js'
import { Heartbeat, JoinGroup, LeaveGroup, SyncGroup } from '../protocol/messages/index.js'
import type { PartitionAssignor, TopicPartitions } from './assignors/index.js'
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from './assignors/index.js'
import type { ResolvedConsumerConfig } from './config.js'
import type { CoordinatorLink } from './coordinator-link.js'
import type { CommitIdentity, LeaveOptions, Membership, MembershipHooks } from './membership.js'
import { groupByTopic, partitionKey, type TopicPartition } from './partition-state.js'
import { COORDINATOR_MOVED, GROUP_FATAL, REJOIN } from '../error-policy.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { describeError, type Logger } from '../logger.js'
import type { HeartbeatRequest, JoinGroupRequest, SyncGroupRequest } from '../protocol/messages/index.js'
import { channels, type RebalanceContext } from '../observe/channels.js'

const { UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS, MEMBER_ID_REQUIRED, FENCED_INSTANCE_ID } = ErrorCodes

/**
 * The classic group protocol (KIP-62 heartbeats, KIP-345 static membership,
 * KIP-429 cooperative rebalancing): JoinGroup, then the leader assigns with
 * a client-side assignor and SyncGroup hands out the result; Heartbeat on its
 * own timer until the coordinator says a rebalance is on.
 */
export class ClassicMembership implements Membership {
  memberId = ''
  private generationId = -1
  private owned: TopicPartition[] = []
  private rejoinReason: string | null = 'joining'
  private stopped = false
  private heartbeatTimer: ReturnType<typeof setTimeout> | undefined
  /** A rebalance the assignor scheduled (Kafka Streams' probing rebalance). */
  private followUpTimer: ReturnType<typeof setTimeout> | undefined
  /** Bumped when heartbeats stop or restart: a tick of an older run does not reschedule. */
  private heartbeatToken = 0
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined
  /** Partition counts of subscribed topics when this member (as leader) last assigned. */
  private assignedSnapshot = new Map<string, number>()
  private readonly cooperative: boolean

  constructor(
    private readonly coordinator: CoordinatorLink,
    private readonly config: ResolvedConsumerConfig,
    private readonly hooks: MembershipHooks,
    /** A member id the group may still know (the consumer restarts after losing the cluster): rejoining with it spares the group a wait for the old member. */
    memberId = '',
  ) {
    this.memberId = memberId
    // Cooperative only when every assignor offered is (Java's rule): the group may pick any of them.
    this.cooperative = config.assignors.every((a) => a.rebalanceProtocol === 'cooperative')
  }

  commitIdentity(): CommitIdentity {
    return { generationIdOrMemberEpoch: this.generationId, memberId: this.memberId, groupInstanceId: this.config.groupInstanceId }
  }

  start(): Promise<void> {
    let firstAssignment!: () => void
    let failed!: (err: Error) => void
    const first = new Promise<void>((resolve, reject) => {
      firstAssignment = resolve
      failed = reject
    })
    this.loop = this.run(firstAssignment, failed)
    return first
  }

  private get log(): Logger {
    return this.coordinator.cluster.log('Group')
  }

  rejoin(reason: string): void {
    this.rejoinReason ??= reason
    this.wake?.()
  }

  async leave(options: LeaveOptions = {}): Promise<void> {
    this.stopped = true
    clearTimeout(this.followUpTimer)
    clearTimeout(this.heartbeatTimer)
    this.wake?.()
    // A JoinGroup or SyncGroup may be held until the whole group rejoins: give it a moment, then drop it.
    // The loop reports its own failures (failed()); here it only has to end.
    const settled = await Promise.race([this.loop?.catch(() => {}).then(() => true), sleep(1000).then(() => false)])
    if (!settled) {
      await this.coordinator.abort()
      await this.loop?.catch(() => {})
    }
    if (this.owned.length > 0)
      await (options.unreachable ? this.hooks.lost(this.owned) : this.hooks.revoked(this.owned)).catch(
        this.log.caught('the revoke handler failed while leaving', 'warn', { groupId: this.coordinator.groupId }),
      )
    this.owned = []
    // A static member does not leave: a restart within the session timeout takes its place without a rebalance.
    if (this.memberId !== '' && this.config.groupInstanceId === null && !options.unreachable && !options.remain) {
      await this.coordinator
        .send(
          LeaveGroup,
          (v) =>
            v >= 3
              ? {
                  groupId: this.coordinator.groupId,
                  members: [{ memberId: this.memberId, groupInstanceId: null, reason: 'the consumer is closing' }],
                }
              : { groupId: this.coordinator.groupId, memberId: this.memberId },
          5000,
        )
        .catch(
          this.log.caught('LeaveGroup failed: the group notices after the session timeout', 'info', { groupId: this.coordinator.groupId }),
        )
    }
    // Unreachable: no leave request went out, so the group may still know this id (see the constructor).
    if (!options.unreachable) this.memberId = ''
    this.generationId = -1
  }

  private async run(joined: () => void, failed: (err: Error) => void): Promise<void> {
    let attempt = 0
    while (!this.stopped) {
      if (this.rejoinReason === null) {
        this.checkSubscription()
        if (this.rejoinReason === null) {
          await new Promise<void>((resolve) => {
            this.wake = resolve
            setTimeout(resolve, Math.min(this.config.metadataMaxAgeMs, 60_000)).unref?.()
          })
          this.wake = undefined
          continue
        }
      }
      try {
        this.log.debug('joining the group', { groupId: this.coordinator.groupId, memberId: this.memberId, reason: this.rejoinReason })
        await this.tracedRebalance(this.rejoinReason!)
        attempt = 0
        joined()
      } catch (err) {
        if (this.stopped) break
        if (!isRecoverable(err)) {
          this.log.error('the group join failed for good', { groupId: this.coordinator.groupId, ...describeError(err) })
          this.hooks.fatal(err as Error)
          failed(err as Error)
          return
        }
        this.rejoinReason ??= `retrying after: ${(err as Error).message}`
        this.log.debug('the join failed: rejoining after backoff', { groupId: this.coordinator.groupId, attempt, ...describeError(err) })
        await sleep(backoffMs(attempt++, this.config.retryBackoffMs, this.config.retryBackoffMaxMs))
      }
    }
  }

  /** A round traced on `wafka:consumer:rebalance` when it has subscribers. */
  private tracedRebalance(reason: string): Promise<void> {
    if (!channels.rebalance.active) return this.rebalance(reason)
    const context: RebalanceContext = { groupId: this.coordinator.groupId, protocol: 'classic', memberId: this.memberId, reason }
    return channels.rebalance.trace(() => this.rebalance(reason, context), context)
  }

  /** One round: revoke (eager), JoinGroup, assign if leader, SyncGroup, adopt the assignment. */
  private async rebalance(reason: string, traced?: RebalanceContext): Promise<void> {
    this.hooks.emit('consumer.rebalancing', { groupId: this.coordinator.groupId, memberId: this.memberId, reason })
    let gaveUp: TopicPartition[] = []
    if (!this.cooperative && this.owned.length > 0) {
      // Eager: everything goes back before joining; the heartbeat keeps the session alive meanwhile.
      const owned = this.owned
      await this.hooks.revoked(owned)
      this.owned = []
      gaveUp = owned
    }
    if (this.stopped) return
    this.stopHeartbeat()
    this.rejoinReason = null
    const topics = this.hooks.topics()
    const join = await this.joinGroup(topics, reason)
    const isLeader = join.leader === join.memberId
    let assignments: Array<{ memberId: string; assignment: Buffer }> = []
    if (isLeader && !join.skipAssignment) assignments = await this.assign(join.protocolName!, join.members)
    const { res, broker } = await this.coordinator.send(
      SyncGroup,
      (v) => ({
        groupId: this.coordinator.groupId,
        generationId: this.generationId,
        memberId: this.memberId,
        ...(v >= 3 && this.config.groupInstanceId
          ? ({ groupInstanceId: this.config.groupInstanceId } satisfies Partial<SyncGroupRequest>)
          : {}),
        protocolType: 'consumer',
        protocolName: join.protocolName,
        assignments,
      }),
      this.config.rebalanceTimeoutMs + 5000,
    )
    this.handleMemberError(res.errorCode)
    this.coordinator.check(res.errorCode, 'SyncGroup', broker)
    const assignment = decodeAssignment(res.assignment)
    this.followUp(this.config.assignors.find((a) => a.name === join.protocolName)?.onAssignment?.(assignment, this.generationId))
    const next = flatten(assignment.partitions)
    const nextKeys = new Set(next.map((p) => partitionKey(p.topic, p.partition)))
    const ownedKeys = new Set(this.owned.map((p) => partitionKey(p.topic, p.partition)))
    const revoked = this.owned.filter((p) => !nextKeys.has(partitionKey(p.topic, p.partition)))
    const added = next.filter((p) => !ownedKeys.has(partitionKey(p.topic, p.partition)))
    this.startHeartbeat()
    if (revoked.length > 0) {
      await this.hooks.revoked(revoked)
      // Cooperative: what was given up goes to its new owner in a follow-up rebalance (KIP-429).
      this.rejoinReason ??= `revoked ${revoked.length} partition(s) to be reassigned`
    }
    this.owned = next
    if (added.length > 0) await this.hooks.assigned(added)
    if (traced) {
      traced.memberId = this.memberId
      traced.generationId = this.generationId
      traced.isLeader = isLeader
      traced.assigned = added
      traced.revoked = [...gaveUp, ...revoked]
    }
    this.log.debug('joined', {
      groupId: this.coordinator.groupId,
      memberId: this.memberId,
      generationId: this.generationId,
      isLeader,
      protocol: join.protocolName,
      added: added.length,
      revoked: revoked.length,
    })
    this.hooks.emit('consumer.group_join', {
      groupId: this.coordinator.groupId,
      memberId: this.memberId,
      leaderId: join.leader,
      isLeader,
      groupProtocol: join.protocolName,
      generationId: this.generationId,
      memberAssignment: Object.fromEntries(groupByTopic(next).map((t) => [t.topic, t.partitions])),
    })
  }

  /** The assignor asked for another rebalance in `ms` (0: as soon as this one ends). */
  private followUp(ms: number | undefined): void {
    clearTimeout(this.followUpTimer)
    this.followUpTimer = undefined
    if (ms === undefined) return
    if (ms <= 0) this.rejoinReason ??= 'the assignor asked for a follow-up rebalance'
    else {
      this.followUpTimer = setTimeout(() => !this.stopped && this.rejoin('the assignor scheduled a rebalance'), Math.min(ms, 2 ** 31 - 1))
      this.followUpTimer.unref?.()
    }
  }

  private async joinGroup(topics: string[], reason: string) {
    for (;;) {
      const protocols = this.config.assignors.map((a) => ({
        name: a.name,
        metadata: encodeSubscription(a, {
          topics,
          owned: groupByTopic(this.owned),
          generationId: this.generationId,
          rackId: this.config.rackId,
        }),
      }))
      const { res, broker } = await this.coordinator.send(
        JoinGroup,
        (v) => ({
          groupId: this.coordinator.groupId,
          sessionTimeoutMs: this.config.sessionTimeoutMs,
          rebalanceTimeoutMs: this.config.rebalanceTimeoutMs,
          memberId: this.memberId,
          // Not ignorable, so the encoder would refuse it before v5: guarded (an older broker gets a dynamic member).
          ...(v >= 5 && this.config.groupInstanceId
            ? ({ groupInstanceId: this.config.groupInstanceId } satisfies Partial<JoinGroupRequest>)
            : {}),
          protocolType: 'consumer',
          protocols,
          reason,
        }),
        this.config.rebalanceTimeoutMs + 5000,
      )
      if (res.errorCode === MEMBER_ID_REQUIRED) {
        // KIP-394: the coordinator names us first, then we join with that id.
        this.memberId = res.memberId
        continue
      }
      if (res.errorCode === UNKNOWN_MEMBER_ID) {
        this.memberId = ''
        continue
      }
      this.coordinator.check(res.errorCode, 'JoinGroup', broker)
      this.memberId = res.memberId
      this.generationId = res.generationId
      return res
    }
  }

  /** The leader's part: run the chosen assignor over every member's subscription. */
  private async assign(protocolName: string, members: Array<{ memberId: string; groupInstanceId: string | null; metadata: Buffer }>) {
    const assignor = this.config.assignors.find((a) => a.name === protocolName)
    if (!assignor)
      throw new WafkaError(`the group chose assignor '${protocolName}', which this consumer did not offer`, { retriable: false })
    const subscriptions = members.map((m) => decodeSubscription(m.memberId, m.groupInstanceId ?? null, m.metadata))
    const allTopics = [...new Set(subscriptions.flatMap((s) => s.topics))]
    const partitionCounts = await this.partitionCounts(allTopics)
    this.assignedSnapshot = partitionCounts
    const result = await assignor.assign({ members: subscriptions, partitionCounts, generationId: this.generationId })
    return members.map((m) => ({ memberId: m.memberId, assignment: encodeAssignment(result.get(m.memberId) ?? { partitions: [] }) }))
  }

  private async partitionCounts(topics: string[]): Promise<Map<string, number>> {
    const cluster = this.coordinator.cluster
    await cluster.refreshMetadata(topics).catch(this.log.caught('metadata refresh before assigning failed; assigning from what is cached'))
    const counts = new Map<string, number>()
    for (const t of topics) {
      const info = cluster.metadata.topics.get(t)
      if (info && info.errorCode === 0 && info.partitions.length > 0) counts.set(t, info.partitions.length)
    }
    return counts
  }

  /** Java's rule: a rebalance when the subscribed topics' partition counts differ from what the leader assigned. */
  private checkSubscription(): void {
    if (this.assignedSnapshot.size === 0) return
    const cluster = this.coordinator.cluster
    for (const [topic, count] of this.assignedSnapshot) {
      const info = cluster.metadata.topics.get(topic)
      if (info && info.errorCode === 0 && info.partitions.length !== count) {
        this.rejoinReason ??= `${topic} now has ${info.partitions.length} partitions (was ${count})`
        return
      }
    }
  }

  private handleMemberError(code: number): void {
    if (code === UNKNOWN_MEMBER_ID) this.memberId = ''
    if (code === FENCED_INSTANCE_ID) {
      throw new KafkaError(
        `FENCED_INSTANCE_ID: another consumer runs with groupInstanceId '${this.config.groupInstanceId}' in group ${this.coordinator.groupId}`,
        {
          code,
          type: 'FENCED_INSTANCE_ID',
          retriable: false,
        },
      )
    }
  }

  private startHeartbeat(): void {
    this.stopHeartbeat()
    const token = ++this.heartbeatToken
    const tick = async () => {
      if (this.stopped || token !== this.heartbeatToken) return
      const overdue = this.hooks.processingFor()
      if (overdue > this.config.maxPollIntervalMs) {
        // As Java when poll() is not called in time: leave, so the group moves on without us.
        await this.expire(overdue)
        return
      }
      try {
        const { res, broker } = await this.coordinator.send(
          Heartbeat,
          (v) => ({
            groupId: this.coordinator.groupId,
            generationId: this.generationId,
            memberId: this.memberId,
            ...(v >= 3 && this.config.groupInstanceId
              ? ({ groupInstanceId: this.config.groupInstanceId } satisfies Partial<HeartbeatRequest>)
              : {}),
          }),
          this.config.sessionTimeoutMs,
        )
        if (res.errorCode === 0)
          this.hooks.emit('consumer.heartbeat', {
            groupId: this.coordinator.groupId,
            memberId: this.memberId,
            groupGenerationId: this.generationId,
          })
        else if (res.errorCode === REBALANCE_IN_PROGRESS) {
          // Keep heartbeating while the partitions are revoked, until JoinGroup goes out.
          this.rejoin('the coordinator began a rebalance')
        } else if (REJOIN.has(res.errorCode)) {
          await this.loseAll(res.errorCode)
          this.rejoin(`heartbeat answered error ${res.errorCode}`)
          return
        } else if (res.errorCode === FENCED_INSTANCE_ID) {
          this.handleMemberError(res.errorCode)
        } else if (!COORDINATOR_MOVED.has(res.errorCode)) {
          this.coordinator.check(res.errorCode, 'Heartbeat', broker)
        } else this.coordinator.stale()
      } catch (err) {
        if (!isRecoverable(err)) {
          this.log.error('the group join failed for good', { groupId: this.coordinator.groupId, ...describeError(err) })
          this.hooks.fatal(err as Error)
          return
        }
      }
      if (!this.stopped && token === this.heartbeatToken) this.heartbeatTimer = setTimeout(tick, this.config.heartbeatIntervalMs)
    }
    this.heartbeatTimer = setTimeout(tick, this.config.heartbeatIntervalMs)
  }

  private stopHeartbeat(): void {
    this.heartbeatToken++
    clearTimeout(this.heartbeatTimer)
    this.heartbeatTimer = undefined
  }

  /** The generation is gone (expired, fenced): the partitions are lost, not revoked — no commit can succeed. */
  private async loseAll(code: number): Promise<void> {
    this.stopHeartbeat()
    if (code === UNKNOWN_MEMBER_ID) this.memberId = ''
    this.generationId = -1
    const owned = this.owned
    this.owned = []
    if (owned.length > 0) await this.hooks.lost(owned)
  }

  private async expire(overdueMs: number): Promise<void> {
    this.stopHeartbeat()
    this.hooks.emit('consumer.rebalancing', {
      groupId: this.coordinator.groupId,
      memberId: this.memberId,
      reason: `a handler ran ${overdueMs} ms, more than maxPollIntervalMs (${this.config.maxPollIntervalMs}): leaving the group`,
    })
    // Leave first, so the group moves on now; the partitions are lost once the slow handler returns.
    if (this.config.groupInstanceId === null) {
      const memberId = this.memberId
      await this.coordinator
        .send(
          LeaveGroup,
          (v) =>
            v >= 3
              ? { groupId: this.coordinator.groupId, members: [{ memberId, groupInstanceId: null }] }
              : { groupId: this.coordinator.groupId, memberId },
          5000,
        )
        .catch(
          this.log.caught('LeaveGroup failed: the group notices after the session timeout', 'info', { groupId: this.coordinator.groupId }),
        )
    }
    await this.loseAll(UNKNOWN_MEMBER_ID)
    this.rejoin('rejoining after maxPollIntervalMs expired')
  }
}

function flatten(list: TopicPartitions[]): TopicPartition[] {
  return list.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })))
}

/**
 * Whatever fails in a join the member rejoins (with backoff) from, as the
 * issue asks and librdkafka does: any broker error but the fatal ones (a
 * mock answers SyncGroup INVALID_REQUEST while a static member's previous
 * instance is being replaced), a broken connection, a malformed group
 * response. What stops the consumer: GROUP_FATAL codes, authentication,
 * authorization and TLS failures, and wafka's own
 * non-retriable errors (configuration, no common API version, an assignor
 * the group chose that this member did not offer).
 */
function isRecoverable(err: unknown): boolean {
  // Refused credentials, a missing ACL or an untrusted certificate: the same join gets the same answer.
  if (err instanceof AuthenticationError || err instanceof AuthorizationError || err instanceof TlsError) return false
  if (err instanceof ConnectionError || err instanceof ProtocolError) return true
  if (err instanceof KafkaError) return !GROUP_FATAL.has(err.code)
  return err instanceof WafkaError && err.retriable
}

export type { PartitionAssignor }
