import type { EmbeddedCluster } from '../cluster.js'
import { ClassicGroup } from './classic-group.js'
import { ConsumerGroup } from './consumer-group.js'
import { CoordinatorLog, type LoggedGroupRecord } from './coordinator-log.js'
import type { GroupRecord } from './group-records.js'
import { applyShareRecord, imageSnapshot, isShareRecord, type ShareGroupImage } from './share-group-records.js'
import { applyConsumerRecord, consumerImageSnapshot, isConsumerRecord, type ConsumerGroupImage } from './consumer-group-records.js'
import { ShareGroup } from './share-group.js'
import { StreamsGroup } from './streams-group.js'
import { applyStreamsRecord, isStreamsRecord, streamsImageSnapshot, type StreamsGroupImage } from './streams-group-records.js'
import { SharePartitions } from '../share/share-partitions.js'

import { groupCoordinatorFor } from '../coordinator-placement.js'
import { offsetsPartitionFor } from '../offsets-topic.js'
import { OFFSETS_TOPIC } from '../topic-names.js'
import { groupConfig } from '../dynamic-configs.js'

/** A group speaks one protocol: the classic one (JoinGroup/SyncGroup), KIP-848's (ConsumerGroupHeartbeat) or KIP-1071's (StreamsGroupHeartbeat). */
export type Group = ClassicGroup | ConsumerGroup | StreamsGroup

/**
 * The groups of the cluster and which broker coordinates each. A group id
 * names one group of one type; an empty group of one type becomes the other
 * when a member of the other protocol arrives (its offsets stay), as Kafka's
 * coordinator converts them.
 */
export class GroupCoordinator {
  readonly groups = new Map<string, Group>()
  /**
   * Share groups (KIP-932), apart from the others: they have no offsets to
   * carry over and are never converted. A group id names one group of one
   * type across both maps.
   */
  readonly shareGroups = new Map<string, ShareGroup>()
  /** The share partitions' in-flight records and the share sessions. */
  readonly shares: SharePartitions
  /** The groups' records in __consumer_offsets. */
  readonly log: CoordinatorLog
  /** Each __consumer_offsets partition's leader when its groups were last loaded. */
  private readonly loadedLeaders = new Map<number, number>()
  private unsubscribe: (() => void) | null = null

  constructor(private readonly cluster: EmbeddedCluster) {
    this.shares = new SharePartitions(cluster)
    this.log = new CoordinatorLog(cluster)
  }

  /**
   * Loads every partition of __consumer_offsets into the groups (the broker
   * starts), then follows their leaders: a partition whose leader changes is
   * loaded again from the new leader's log before any request is served
   * (Kafka's new coordinator loads the partition it now leads). The loads
   * run in one turn of the event loop, so no request sees a partition half
   * loaded (where Kafka answers COORDINATOR_LOAD_IN_PROGRESS).
   */
  loadAll(): void {
    const t = this.cluster.controller.topics.get(OFFSETS_TOPIC)
    for (const p of t?.partitions ?? []) if (p) this.load(p.partition, false)
    this.unsubscribe ??= this.cluster.controller.onRecord((r) => {
      if (r.type !== 'partition' && r.type !== 'partition-change') return
      const t = this.cluster.controller.topicsById.get(r.topicId)
      if (t?.name !== OFFSETS_TOPIC) return
      const leader = t.partitions[r.partition]?.leader ?? -1
      if (leader < 0 || this.loadedLeaders.get(r.partition) === leader) return
      // Once the brokers have taken their roles from the same record.
      queueMicrotask(() => this.load(r.partition, true))
    })
  }

  /**
   * Replays partition `partition`'s records into its groups. Moved (a new
   * leader): the offsets of its groups are what the new leader's log holds
   * (a commit it lacks was never acknowledged); the membership of a group
   * with members stays as it is in this process.
   */
  private load(partition: number, moved: boolean): void {
    const t = this.cluster.controller.topics.get(OFFSETS_TOPIC)
    const leader = t?.partitions[partition]?.leader ?? -1
    const records = this.log.read(partition)
    if (records === null) return
    this.loadedLeaders.set(partition, leader)
    if (moved) for (const g of this.groups.values()) if (offsetsPartitionFor(this.cluster, g.groupId) === partition) g.offsets.clear()
    this.log.replaying = true
    try {
      this.replay(records, moved)
    } finally {
      this.log.replaying = false
    }
  }

  /**
   * Applies records read back in order: a transaction's offsets wait for its
   * marker (COMMIT applies them, ABORT drops them); those of a transaction
   * with no marker yet are pending in their group again, as before.
   */
  private replay(records: readonly LoggedGroupRecord[], moved: boolean): void {
    const open = new Map<bigint, GroupRecord[]>()
    const shares = new Map<string, ShareGroupImage>()
    const consumers = new Map<string, ConsumerGroupImage>()
    const streams = new Map<string, StreamsGroupImage>()
    for (const r of records) {
      if ('record' in r && isStreamsRecord(r.record)) {
        applyStreamsRecord(streams, r.record)
        continue
      }
      if ('record' in r && isShareRecord(r.record)) {
        applyShareRecord(shares, r.record)
        continue
      }
      if ('record' in r && isConsumerRecord(r.record)) {
        applyConsumerRecord(consumers, r.record)
        continue
      }
      if ('marker' in r) {
        const pending = open.get(r.producerId) ?? []
        open.delete(r.producerId)
        if (r.marker) for (const x of pending) this.apply(x, moved)
      } else if (r.producerId === null) this.apply(r.record, moved)
      else {
        let pending = open.get(r.producerId)
        if (!pending) open.set(r.producerId, (pending = []))
        pending.push(r.record)
      }
    }
    for (const [producerId, pending] of open)
      for (const x of pending) {
        if (x.type !== 'offset' || !x.offset) continue
        const g = this.groups.get(x.group) ?? this.classicOrCreate(x.group)
        // The epoch is not needed: nothing is written while replaying.
        g?.commitInTransaction({ producerId, producerEpoch: -1 }, [{ topic: x.topic, partition: x.partition, c: x.offset }])
      }
    for (const [id, image] of shares) this.restoreShareGroup(id, image, moved)
    for (const [id, image] of consumers) this.restoreConsumerGroup(id, image)
    for (const [id, image] of streams) this.restoreStreamsGroup(id, image)
  }

  /**
   * A streams group as its records left it (Kafka's coordinator loading
   * it), each member's session starting now; or gone when its records were
   * tombstoned (its offsets, if any, stay with an empty classic group).
   */
  private restoreStreamsGroup(id: string, image: StreamsGroupImage): void {
    const existing = this.groups.get(id)
    const s = streamsImageSnapshot(image)
    if (s === null) {
      if (existing?.type !== 'streams') return
      existing.close()
      this.groups.delete(id)
      if (existing.offsets.size > 0) this.classicOrCreate(id)?.takeOffsetsFrom(existing)
      return
    }
    this.streamsOrCreate(id)?.restore(s)
  }

  /**
   * A consumer group as its records left it: its epochs, members and
   * assignments, each member's session starting now (Kafka's coordinator
   * loading the group), or gone when its records were tombstoned (its
   * offsets, if any, stay with an empty classic group, as the replay made
   * them). Moved too: its records hold all of it, so the new leader's log
   * is what the group is, as for Kafka's new coordinator (a change whose
   * records did not reach the new leader was never acknowledged).
   */
  private restoreConsumerGroup(id: string, image: ConsumerGroupImage): void {
    const existing = this.groups.get(id)
    const s = consumerImageSnapshot(image)
    if (s === null) {
      if (existing?.type !== 'consumer') return
      existing.close()
      this.groups.delete(id)
      if (existing.offsets.size > 0) this.classicOrCreate(id)?.takeOffsetsFrom(existing)
      return
    }
    this.consumerOrCreate(id)?.restore(s)
  }

  /**
   * A share group as its records left it: restored with each member's
   * session starting now (as Kafka's coordinator loads one), or gone when
   * its records were tombstoned. Moved: a group with members keeps what
   * this process has of it.
   */
  private restoreShareGroup(id: string, image: ShareGroupImage, moved: boolean): void {
    const existing = this.shareGroups.get(id)
    if (moved && existing && existing.state !== 'Empty') return
    const s = imageSnapshot(image)
    if (s === null) {
      existing?.close()
      this.shareGroups.delete(id)
      return
    }
    this.shareOrCreate(id)?.restore(s)
  }

  /**
   * The records of an earlier version's group log, applied, then each group
   * they name written as it now stands (its metadata and offsets, or a
   * share group's ShareGroup* records, as records of its partition);
   * returns how many groups that is.
   */
  migrate(records: readonly GroupRecord[]): number {
    const shares = new Map<string, ShareGroupImage>()
    this.log.replaying = true
    try {
      for (const r of records)
        if (isShareRecord(r)) applyShareRecord(shares, r)
        else this.apply(r)
      for (const [id, image] of shares) this.restoreShareGroup(id, image, false)
    } finally {
      this.log.replaying = false
    }
    const ids = new Set(records.flatMap((r) => (r.type === 'other' ? [] : [r.group])))
    for (const id of ids) {
      const share = this.shareGroups.get(id)
      if (share) this.log.shareGroup(id, null, share.snapshot())
      const g = this.groups.get(id)
      if (!g) continue
      if (g.type === 'classic') this.log.generation(g)
      this.log.offsets(
        id,
        [...g.offsets].flatMap(([topic, parts]) => [...parts].map(([partition, c]) => ({ topic, partition, c }))),
      )
    }
    return ids.size
  }

  /** One record read back: applied to its group (made, as a classic group, when it is not there). */
  apply(r: GroupRecord, moved = false): void {
    if (r.type === 'other' || isShareRecord(r) || isConsumerRecord(r) || isStreamsRecord(r)) return
    if (r.type === 'offset') {
      const g = this.groups.get(r.group) ?? this.classicOrCreate(r.group)
      if (!g) return
      if (r.offset) g.commit(r.topic, r.partition, r.offset)
      else g.deleteOffset(r.topic, r.partition)
      return
    }
    const existing = this.groups.get(r.group)
    // A group with members keeps what this process has of it.
    if (moved && existing && existing.state !== 'Empty') return
    if (r.value === null) {
      existing?.close()
      this.groups.delete(r.group)
      return
    }
    const g = this.classicOrCreate(r.group)
    if (!g) return
    g.generationId = r.value.generation
    g.protocolType = r.value.protocolType || null
    g.protocolName = r.value.protocol
  }

  share(groupId: string): ShareGroup | undefined {
    return this.shareGroups.get(groupId)
  }

  /** The share group of that id, created; undefined while a classic or consumer group holds the id. */
  shareOrCreate(groupId: string): ShareGroup | undefined {
    const existing = this.shareGroups.get(groupId)
    if (existing) return existing
    if (this.groups.has(groupId)) return undefined
    const cluster = this.cluster
    const created = new ShareGroup(groupId, cluster.controller, {
      get sessionTimeoutMs() {
        return Number(groupConfig(cluster, groupId, 'share.session.timeout.ms'))
      },
      get heartbeatIntervalMs() {
        return Number(groupConfig(cluster, groupId, 'share.heartbeat.interval.ms'))
      },
    })
    created.onMemberGone = (memberId) => this.shares.memberGone(groupId, memberId)
    created.onChange = (snapshot, previous) => this.log.shareGroup(groupId, previous, snapshot)
    this.shareGroups.set(groupId, created)
    return created
  }

  /** The broker id coordinating `key` (its __consumer_offsets partition's leader), or -1 while there is none. */
  coordinatorFor(key: string): number {
    return groupCoordinatorFor(this.cluster, key)
  }

  get(groupId: string): Group | undefined {
    return this.groups.get(groupId)
  }

  classic(groupId: string): ClassicGroup | undefined {
    const g = this.groups.get(groupId)
    return g?.type === 'classic' ? g : undefined
  }

  consumer(groupId: string): ConsumerGroup | undefined {
    const g = this.groups.get(groupId)
    return g?.type === 'consumer' ? g : undefined
  }

  streams(groupId: string): StreamsGroup | undefined {
    const g = this.groups.get(groupId)
    return g?.type === 'streams' ? g : undefined
  }

  /**
   * The streams group of that id, created; undefined while a group of
   * another type holds the id (Kafka converts only between classic and
   * consumer groups). An empty classic group (offsets only) becomes one,
   * its offsets kept. Its changes are written as Kafka's StreamsGroup*
   * records.
   */
  streamsOrCreate(groupId: string): StreamsGroup | undefined {
    const g = this.groups.get(groupId)
    if (g?.type === 'streams') return g
    if ((g && (g.state !== 'Empty' || g.type === 'consumer')) || this.shareGroups.has(groupId)) return undefined
    const cluster = this.cluster
    const conf = (key: string) => Number(groupConfig(cluster, groupId, key))
    const created = new StreamsGroup(groupId, (topic) => cluster.controller.topics.get(topic)?.partitions.length, {
      get sessionTimeoutMs() {
        return conf('streams.session.timeout.ms')
      },
      get heartbeatIntervalMs() {
        return conf('streams.heartbeat.interval.ms')
      },
      get initialRebalanceDelayMs() {
        return conf('streams.initial.rebalance.delay.ms')
      },
      get assignmentIntervalMs() {
        return conf('streams.assignment.interval.ms')
      },
      get numStandbyReplicas() {
        return conf('streams.num.standby.replicas')
      },
      get taskOffsetIntervalMs() {
        return conf('streams.task.offset.interval.ms')
      },
      get acceptableRecoveryLag() {
        return conf('streams.acceptable.recovery.lag')
      },
    })
    if (g) {
      created.takeOffsetsFrom(g)
      g.close()
    }
    created.changes = this.log
    created.onChange = (snapshot, previous) => this.log.streamsGroup(groupId, previous, snapshot)
    this.groups.set(groupId, created)
    return created
  }

  /** The classic group of that id, created (or converted from an empty consumer group); undefined while a consumer group has members. */
  classicOrCreate(groupId: string): ClassicGroup | undefined {
    const g = this.groups.get(groupId)
    if (g?.type === 'classic') return g
    // A streams group is never converted (Kafka converts classic and consumer groups only).
    if ((g && (g.state !== 'Empty' || g.type === 'streams')) || this.shareGroups.has(groupId)) return undefined
    const created = new ClassicGroup(groupId, { initialRebalanceDelayMs: this.cluster.options.groupInitialRebalanceDelayMs })
    if (g) {
      created.takeOffsetsFrom(g)
      g.close()
      // The consumer group's records go (as Kafka's conversion writes them): a load must not bring it back.
      if (g.type === 'consumer') this.log.consumerGroup(groupId, g.lastKept, null)
    }
    created.changes = this.log
    this.groups.set(groupId, created)
    return created
  }

  /** The consumer group of that id, created (or converted from an empty classic group); undefined while a classic group has members. */
  consumerOrCreate(groupId: string): ConsumerGroup | undefined {
    const g = this.groups.get(groupId)
    if (g?.type === 'consumer') return g
    if ((g && (g.state !== 'Empty' || g.type === 'streams')) || this.shareGroups.has(groupId)) return undefined
    const cluster = this.cluster
    // The group's own configs (IncrementalAlterConfigs on GROUP), else the broker's, read at each use as Kafka does.
    const created = new ConsumerGroup(groupId, cluster.controller, {
      get sessionTimeoutMs() {
        return Number(groupConfig(cluster, groupId, 'consumer.session.timeout.ms'))
      },
      get heartbeatIntervalMs() {
        return Number(groupConfig(cluster, groupId, 'consumer.heartbeat.interval.ms'))
      },
      get assignmentIntervalMs() {
        return Number(groupConfig(cluster, groupId, 'consumer.assignment.interval.ms'))
      },
    })
    if (g) {
      created.takeOffsetsFrom(g)
      g.close()
    }
    created.changes = this.log
    created.onChange = (snapshot, previous) => this.log.consumerGroup(groupId, previous, snapshot)
    this.groups.set(groupId, created)
    return created
  }

  /** Drops a group that was made for a request that then failed: nothing was written for it. */
  forget(groupId: string): void {
    this.groups.get(groupId)?.close()
    this.groups.delete(groupId)
  }

  delete(groupId: string): void {
    const share = this.shareGroups.get(groupId)
    if (share) {
      share.close()
      this.shareGroups.delete(groupId)
      this.shares.dropGroup(groupId)
      this.log.shareGroup(groupId, share.lastKept, null)
      return
    }
    const g = this.groups.get(groupId)
    if (!g) return
    g.close()
    this.groups.delete(groupId)
    this.log.deleted(
      groupId,
      [...g.offsets].flatMap(([topic, parts]) => [...parts.keys()].map((p) => [topic, p] as const)),
      g.type === 'classic'
        ? { type: 'classic' }
        : g.type === 'consumer'
          ? { type: 'consumer', kept: g.lastKept }
          : { type: 'streams', kept: g.lastKept },
    )
  }

  close(): void {
    for (const g of this.groups.values()) g.close()
    for (const g of this.shareGroups.values()) g.close()
    this.shares.close()
    this.unsubscribe?.()
    this.unsubscribe = null
    this.log.close()
  }
}
