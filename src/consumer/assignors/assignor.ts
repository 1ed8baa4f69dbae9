import type { Buffer } from 'node:buffer'

/** Partitions of one topic. */
export interface TopicPartitions {
  topic: string
  partitions: number[]
}

/** What a member sent in JoinGroup, decoded from ConsumerProtocolSubscription. */
export interface MemberSubscription {
  memberId: string
  groupInstanceId: string | null
  topics: string[]
  userData: Buffer | null
  /** v1+: what the member owns now (cooperative rebalancing). Empty for older members. */
  ownedPartitions: TopicPartitions[]
  /** v2+: the generation in which it owned them; -1 when unknown. */
  generationId: number
  /** v3+ */
  rackId: string | null
}

export interface AssignContext {
  /** Every member of the group, with its subscription. */
  members: MemberSubscription[]
  /** Partition count of every topic any member subscribes to (topics missing from metadata are absent). */
  partitionCounts: Map<string, number>
  /** The generation being formed (the JoinGroup response's). */
  generationId: number
}

/** One member's assignment, encoded as ConsumerProtocolAssignment. */
export interface MemberAssignment {
  partitions: TopicPartitions[]
  userData?: Buffer | null
}

/**
 * A client-side partition assignor (the classic group protocol): the group
 * leader runs `assign` over every member's subscription. Members offer the
 * assignors they support by name, in preference order; the broker picks the
 * first name every member offers.
 */
export interface PartitionAssignor {
  /** The protocol name members offer, e.g. 'range': Java and librdkafka use the same names. */
  readonly name: string
  /** 'cooperative' assignors revoke only what moves (KIP-429); 'eager' ones revoke everything each rebalance. */
  readonly rebalanceProtocol: 'eager' | 'cooperative'
  /** The userData this member sends with its subscription (e.g. the sticky assignor's generation). */
  subscriptionUserData?(state: { owned: TopicPartitions[]; generationId: number }): Buffer | null
  /**
   * This member's assignment as SyncGroup gave it (every member, the leader
   * too), before the assignment handlers run; answers the milliseconds until
   * the assignor wants another rebalance (0: at once), or undefined for none
   * (Java's ConsumerPartitionAssignor.onAssignment, and Kafka Streams' next
   * rebalance time).
   */
  onAssignment?(assignment: MemberAssignment, generationId: number): number | undefined
  /** memberId -> assignment, for every member (members given nothing map to no partitions). */
  assign(context: AssignContext): Map<string, MemberAssignment> | Promise<Map<string, MemberAssignment>>
}
