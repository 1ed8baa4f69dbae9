import { describeError, type Logger } from '../logger.js'

/**
 * What the consumer logs, at KafkaJS's levels (the reference for what a
 * session shows): INFO as it starts, joins its group and stops; WARN when
 * the group rebalances; ERROR when it crashes, a handler throws, a commit
 * is refused or partitions are lost. Entries carry ids, partitions and the
 * error's message, never options.
 */
export class ConsumerLog {
  private joinStarted = Date.now()
  private hasJoined = false

  constructor(
    private readonly log: Logger,
    private readonly groupId: string | null,
  ) {}

  starting(): void {
    this.joinStarted = Date.now()
    this.hasJoined = false
    this.log.info('Starting', { groupId: this.groupId })
  }

  /** The workers ended: no more deliveries (KafkaJS's runner says so as it exits). */
  exiting(memberId: string | undefined): void {
    this.log.info('consumer not running, exiting', { groupId: this.groupId, memberId })
  }

  stopped(): void {
    this.log.info('Stopped', { groupId: this.groupId })
  }

  /** A rebalance begins: after the first join it is the group's doing (a member came or went), worth a WARN as in KafkaJS. */
  rebalancing(payload: { memberId?: string; reason?: string }): void {
    if (this.hasJoined)
      this.log.warn('The group is rebalancing, re-joining', { groupId: this.groupId, memberId: payload.memberId, reason: payload.reason })
    this.joinStarted = Date.now()
  }

  joined(payload: {
    memberId: string
    leaderId?: string
    isLeader?: boolean
    memberAssignment: unknown
    groupProtocol?: string | null
    generationId?: number
  }): void {
    this.hasJoined = true
    this.log.info('Consumer has joined the group', {
      groupId: this.groupId,
      memberId: payload.memberId,
      leaderId: payload.leaderId,
      isLeader: payload.isLeader,
      memberAssignment: payload.memberAssignment,
      groupProtocol: payload.groupProtocol,
      generationId: payload.generationId,
      duration: Date.now() - this.joinStarted,
    })
  }

  crashed(error: unknown, restart: boolean): void {
    const e = error as { name?: string; message?: string; stack?: string } | null
    this.log.error(`Crash: ${e?.name ?? 'Error'}: ${e?.message ?? String(error)}`, {
      groupId: this.groupId,
      restart,
      ...describeError(error),
      stack: e?.stack,
    })
  }

  /** User code threw (KafkaJS's "Error when calling eachMessage"); the partition is retried from the failed offset. */
  handlerFailed(handler: 'eachMessage' | 'eachBatch', topic: string, partition: number, offset: bigint, error: unknown): void {
    this.log.error(`Error when calling ${handler}`, {
      groupId: this.groupId,
      topic,
      partition,
      offset: String(offset),
      ...describeError(error),
      stack: (error as { stack?: string } | null)?.stack,
    })
  }

  commitRefused(memberId: string | undefined, offsets: Array<{ topic: string; partitions: number[] }>, error: unknown): void {
    this.log.error('The group refused the offset commit: the next owner of these partitions reads from the last committed offset', {
      groupId: this.groupId,
      memberId,
      partitions: offsets,
      ...describeError(error),
    })
  }

  lost(partitions: Array<{ topic: string; partitions: number[] }>): void {
    this.log.error(
      'Partitions lost without a commit (the member was fenced or expired, or no broker answers): their next owner reads from the last commit',
      {
        groupId: this.groupId,
        partitions,
      },
    )
  }
}
