import type { ResolvedConsumerConfig } from './config.js'
import type { CoordinatorLink } from './coordinator-link.js'
import type { TopicPartition } from './partition-state.js'

/** What a group protocol asks of the consumer as its assignment changes. */
export interface MembershipHooks {
  /** Partitions this member gains. */
  assigned(partitions: TopicPartition[]): Promise<void>
  /** Partitions this member gives up: finish their processing and commit them first. */
  revoked(partitions: TopicPartition[]): Promise<void>
  /** Partitions taken away without a chance to commit (the member was fenced or expired). */
  lost(partitions: TopicPartition[]): Promise<void>
  /** The topics to subscribe to now (a regex subscription may have grown). */
  topics(): string[]
  /** ms that user code has been inside one handler call (0 when idle), checked against maxPollIntervalMs. */
  processingFor(): number
  emit(event: string, payload: object): void
  /** An error that stops the consumer (fenced static member, authorization, ...). */
  fatal(err: Error): void
}

/** The offsets to commit, with the fencing a group protocol adds to them. */
export interface CommitIdentity {
  generationIdOrMemberEpoch: number
  memberId: string
  groupInstanceId: string | null
}

/**
 * How a member goes: `unreachable`, the cluster does not answer (the
 * partitions are lost: no commit, no leave request; the group expires this
 * member); `remain`, the partitions are given up as usual (committed) but no
 * leave request goes out, so the group keeps the member until its session
 * times out (Java's CloseOptions REMAIN_IN_GROUP).
 */
export interface LeaveOptions {
  unreachable?: boolean
  remain?: boolean
}

/** A group membership: the classic protocol or KIP-848's. */
export interface Membership {
  /** Joins and keeps the membership alive (heartbeats, rejoins) until leave(). Resolves after the first assignment. */
  start(): Promise<void>
  /** Asks for a rebalance soon (the subscription changed). */
  rejoin(reason: string): void
  /** Gives up the partitions (committing first) and leaves the group, as `options` say. */
  leave(options?: LeaveOptions): Promise<void>
  /** Who commits: generation/epoch and member id, as the coordinator checks them. */
  commitIdentity(): CommitIdentity
  readonly memberId: string
}

/**
 * A membership a layer above the consumer brings (Kafka Streams' KIP-1071
 * streams group): the consumer runs it instead of its groupProtocol's and
 * commits with its identity.
 */
export type MembershipFactory = (coordinator: CoordinatorLink, config: ResolvedConsumerConfig, hooks: MembershipHooks) => Membership
