// Java Kafka Streams' StreamsPartitionAssignor: the classic group protocol's
// assignor named "stream" (cooperative), so wafka and Java instances of one
// application share a classic group. Each member subscribes with a
// SubscriptionInfo (its process id, the tasks it runs, its endpoint and an
// error code); the leader groups members by process (a client), makes the
// tasks (sub-topology × partition: partition p of every topic the
// sub-topology reads, so co-partitioned partitions stay together), assigns
// them to clients and each client's tasks to its consumers, and answers each
// consumer with its partitions and an AssignmentInfo naming the task of
// each. The rules follow Java's default (HighAvailabilityTaskAssignor with
// every client caught up, then assignTasksToThreads): stateful and stateless
// tasks each balanced over clients in proportion to their consumers, sticky
// to the client and consumer that ran them; a task whose partitions another
// consumer still owns is left out and a follow-up rebalance asked for
// (cooperative rebalancing: the owner revokes first). A member asking for
// shutdown (error code 4) gets every member SHUTDOWN_REQUESTED and nothing.
// With numStandbyReplicas, each stateful task then gets that many standby
// copies, each on the least loaded client (active and standby tasks per
// consumer) holding no copy of it yet (Java's DefaultStandbyTaskAssignor),
// spread over the client's consumers; with rackAwareAssignmentTags, over
// distinct tag values first (client-tag-standbys.ts). Given the changelogs'
// end offsets, the leader then places stateful tasks by each client's lag
// as Java's HighAvailabilityTaskAssignor does (task-movement.ts): an active
// task balanced onto a client not caught up stays on a caught-up one, the
// balanced client warming up a standby copy, and the leader's own client
// is asked for a probing rebalance after probingRebalanceIntervalMs. Every
// consumer's AssignmentInfo names its standby (and warm-up) tasks and, for
// each instance with an endpoint, the source partitions of its active and
// standby tasks (for queryMetadataForKey).
import type { Buffer } from 'node:buffer'
import type { AssignContext, MemberAssignment, PartitionAssignor, TopicPartitions } from '../consumer/assignors/index.js'
import { type AssignorTaskId, assignorTaskName, compareTaskIds } from './assignor-wire.js'
import {
  type AssignmentInfo,
  AssignorError,
  decodeAssignmentInfo,
  encodeAssignmentInfo,
  type HostPartitions,
  NO_REBALANCE,
} from './assignment-info.js'
import type { Logger } from '../logger.js'
import { assignClientTagAwareStandbys } from './client-tag-standbys.js'
import { StreamsError } from './streams-error.js'
import { assignTaskMovements, compareProcessIds, taskLags } from './task-movement.js'
import {
  decodeSubscriptionInfo,
  encodeSubscriptionInfo,
  LATEST_OFFSET,
  LATEST_SUPPORTED_VERSION,
  type SubscriptionInfo,
  type TaskOffsetSum,
} from './subscription-info.js'

/** The oldest AssignmentInfo this assignor writes (Kafka Streams 2.6). */
const MIN_VERSION = 7

/** A sub-topology as the assignor sees it: its id and every topic it reads (full names). */
export interface AssignorSubtopology {
  id: number
  sourceTopics: string[]
  stateful: boolean
  /** Its stores' changelog topics (full names): a task's lag is counted over partition p of each. */
  changelogTopics?: string[]
}

/** End offsets of changelog partitions, by topic then partition (Java's ClientUtils.fetchEndOffsets). */
export type EndOffsetsFetcher = (partitions: Array<{ topic: string; partition: number }>) => Promise<Map<string, Map<number, bigint>>>

export interface StreamsAssignorOptions {
  processId: string
  userEndpoint?: string
  clientTags?: Record<string, string>
  subtopologies: AssignorSubtopology[]
  /** Tasks this instance has state for (checkpointed stores), by task id (`<subtopology>_<partition>`), with their changelog offset sums. */
  localOffsetSums?: () => ReadonlyMap<string, bigint>
  /** Java's num.standby.replicas: standby copies of each stateful task, when this member leads. Default 0. */
  numStandbyReplicas?: number
  /** Java's rack.aware.assignment.tags: client tag keys whose values a task's standbys are spread over. */
  rackAwareAssignmentTags?: readonly string[]
  /** The changelogs' end offsets, when this member leads: without it every client counts as caught up. */
  changelogEndOffsets?: EndOffsetsFetcher
  /** Java's acceptable.recovery.lag. Default 10000. */
  acceptableRecoveryLag?: number
  /** Java's max.warmup.replicas. Default 2. */
  maxWarmupReplicas?: number
  /** Java's probing.rebalance.interval.ms. Default 600000. */
  probingRebalanceIntervalMs?: number
  /** Where a failed end-offset fetch is told (at INFO, as Java's). */
  log?: Logger
  /** Each assignment this member is given (no error): its active and standby tasks and where every instance's are. */
  onAssigned?: (info: AssignmentInfo) => void
  /** 4 (SHUTDOWN_REQUESTED) once this instance asks the application to shut down, else 0. */
  errorCode: () => number
  /** The AssignmentInfo's error code, when not NONE (4: another instance asked every instance to shut down). */
  onError: (errorCode: number) => void
}

interface Client {
  processId: string
  endpoint: string | null
  consumers: string[]
  /** Tasks it ran as active (offset sum -2, or a partition a consumer owns). */
  previous: Set<string>
  /** Tasks it has state for. */
  state: Set<string>
  /** Its task offset sums, by task name. */
  offsetSums: Map<string, bigint>
  tags: Record<string, string>
  /** Changelog lag per stateful task (task-movement.ts's taskLags). */
  lags: Map<string, bigint>
  assigned: AssignorTaskId[]
  standby: AssignorTaskId[]
}

const tpKey = (topic: string, partition: number) => `${topic}\u0000${partition}`

export class StreamsPartitionAssignor implements PartitionAssignor {
  readonly name = 'stream'
  readonly rebalanceProtocol = 'cooperative' as const
  /** Changes every subscription (Java's uniqueField), so a rejoin's metadata always differs. */
  private uniqueField = 0
  private readonly subOfTopic = new Map<string, AssignorSubtopology>()

  constructor(private readonly options: StreamsAssignorOptions) {
    for (const sub of options.subtopologies) for (const t of sub.sourceTopics) this.subOfTopic.set(t, sub)
  }

  subscriptionUserData({ owned }: { owned: TopicPartitions[]; generationId: number }): Buffer {
    this.uniqueField = ((this.uniqueField + 1 + 128) % 256) - 128
    const sums = new Map<string, TaskOffsetSum>()
    for (const [id, offsetSum] of this.options.localOffsetSums?.() ?? []) {
      const [subtopology, partition] = id.split('_').map(Number)
      sums.set(id, { subtopology, partition, offsetSum })
    }
    // What runs here counts as caught up, whatever its checkpoint says.
    for (const { topic, partitions } of owned) {
      const sub = this.subOfTopic.get(topic)
      if (sub)
        for (const partition of partitions) sums.set(`${sub.id}_${partition}`, { subtopology: sub.id, partition, offsetSum: LATEST_OFFSET })
    }
    return encodeSubscriptionInfo({
      version: LATEST_SUPPORTED_VERSION,
      latestSupportedVersion: LATEST_SUPPORTED_VERSION,
      processId: this.options.processId,
      userEndpoint: this.options.userEndpoint ?? null,
      taskOffsetSums: [...sums.values()],
      uniqueField: this.uniqueField,
      errorCode: this.options.errorCode(),
      clientTags: this.options.clientTags ?? {},
    })
  }

  onAssignment(assignment: MemberAssignment): number | undefined {
    if (!assignment.userData || assignment.userData.length === 0)
      throw new StreamsError('the group leader sent an assignment without AssignmentInfo: is another application using this group id?')
    const info = decodeAssignmentInfo(assignment.userData)
    if (info.errorCode !== AssignorError.NONE) {
      this.options.onError(info.errorCode)
      return undefined
    }
    const count = assignment.partitions.reduce((n, t) => n + t.partitions.length, 0)
    if (count !== info.activeTasks.length)
      throw new StreamsError(`the assignment has ${count} partition(s) but ${info.activeTasks.length} active task(s)`)
    this.options.onAssigned?.(info)
    if (info.nextRebalanceMs === NO_REBALANCE) return undefined
    return Math.max(0, Number(info.nextRebalanceMs) - Date.now())
  }

  async assign({ members, partitionCounts }: AssignContext): Promise<Map<string, MemberAssignment>> {
    const infos = new Map<string, SubscriptionInfo>()
    for (const m of members) {
      if (!m.userData) throw new StreamsError(`member ${m.memberId} joined with no SubscriptionInfo: it is not a Kafka Streams instance`)
      infos.set(m.memberId, decodeSubscriptionInfo(m.userData))
    }
    const all = [...infos.values()]
    const usedVersion = Math.min(LATEST_SUPPORTED_VERSION, ...all.map((i) => i.version))
    const supported = Math.min(LATEST_SUPPORTED_VERSION, ...all.map((i) => i.latestSupportedVersion))
    if (usedVersion < MIN_VERSION)
      throw new StreamsError(`a member subscribed with SubscriptionInfo version ${usedVersion}: Kafka Streams 2.6 or later is needed`)

    const error = (code: number) =>
      new Map(
        members.map((m) => [
          m.memberId,
          { partitions: [], userData: encodeAssignmentInfo(emptyInfo(usedVersion, supported, code)) } satisfies MemberAssignment,
        ]),
      )
    if (all.some((i) => i.errorCode === AssignorError.SHUTDOWN_REQUESTED)) return error(AssignorError.SHUTDOWN_REQUESTED)

    // The tasks: partition p of every topic a sub-topology reads (Java's DefaultPartitionGrouper).
    const partitionsOf = new Map<string, Array<{ topic: string; partition: number }>>()
    const stateful: AssignorTaskId[] = []
    const stateless: AssignorTaskId[] = []
    for (const sub of this.options.subtopologies) {
      const counts = sub.sourceTopics.map((t) => partitionCounts.get(t))
      if (counts.some((c) => c === undefined)) return error(AssignorError.INCOMPLETE_SOURCE_TOPIC_METADATA)
      const tasks = Math.max(0, ...(counts as number[]))
      for (let partition = 0; partition < tasks; partition++) {
        const task = { subtopology: sub.id, partition }
        partitionsOf.set(
          assignorTaskName(task),
          sub.sourceTopics.filter((_t, i) => counts[i]! > partition).map((topic) => ({ topic, partition })),
        )
        ;(sub.stateful ? stateful : stateless).push(task)
      }
    }
    const taskOfPartition = new Map<string, string>()
    for (const [task, list] of partitionsOf) for (const p of list) taskOfPartition.set(tpKey(p.topic, p.partition), task)

    // Clients: a process's consumers, what it ran and what it has state for.
    const clients = new Map<string, Client>()
    const ownedBy = new Map<string, string>() // partition -> consumer owning it now
    const consumerPrevious = new Map<string, Set<string>>()
    for (const m of [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))) {
      const info = infos.get(m.memberId)!
      let client = clients.get(info.processId)
      if (!client) {
        client = {
          processId: info.processId,
          endpoint: info.userEndpoint,
          consumers: [],
          previous: new Set(),
          state: new Set(),
          offsetSums: new Map(),
          tags: info.clientTags,
          lags: new Map(),
          assigned: [],
          standby: [],
        }
        clients.set(info.processId, client)
      }
      client.consumers.push(m.memberId)
      const mine = new Set<string>()
      for (const t of info.taskOffsetSums) {
        const name = assignorTaskName(t)
        client.offsetSums.set(name, t.offsetSum)
        if (t.offsetSum === LATEST_OFFSET) client.previous.add(name)
        else if (t.offsetSum >= 0n) client.state.add(name)
      }
      for (const { topic, partitions } of m.ownedPartitions)
        for (const partition of partitions) {
          ownedBy.set(tpKey(topic, partition), m.memberId)
          const task = taskOfPartition.get(tpKey(topic, partition))
          if (task) {
            mine.add(task)
            client.previous.add(task)
          }
        }
      consumerPrevious.set(m.memberId, mine)
    }
    const list = [...clients.values()].sort((a, b) => compareProcessIds(a.processId, b.processId))
    const endOffsetSums = await this.endOffsetSums(stateful)
    // As Java's HighAvailabilityTaskAssignor: the standbys by the stateful load alone, then the
    // movements by lag, before the stateless tasks.
    assignToClients(stateful, list)
    const replicas = this.options.numStandbyReplicas ?? 0
    const rackTags = this.options.rackAwareAssignmentTags ?? []
    if (rackTags.length > 0) assignClientTagAwareStandbys(stateful, list, replicas, rackTags)
    else assignStandbys(stateful, list, replicas)
    // Without end offsets (none fetched, or the fetch failed) every client counts as caught up.
    let probing = endOffsetSums === 'failed'
    if (endOffsetSums instanceof Map) {
      for (const c of list) c.lags = taskLags(c.offsetSums, endOffsetSums)
      const moved = assignTaskMovements(
        stateful,
        list,
        BigInt(this.options.acceptableRecoveryLag ?? 10_000),
        this.options.maxWarmupReplicas ?? 2,
      )
      probing = moved.needed > 0
    }
    assignToClients(stateless, list)
    // Java encodes the probing rebalance for the leader's own client only, on one consumer.
    let probeAt = probing ? BigInt(Date.now() + (this.options.probingRebalanceIntervalMs ?? 600_000)) : undefined
    const leaderClient = clients.get(this.options.processId)
    const statefulNames = new Set(stateful.map(assignorTaskName))

    const result = new Map<string, MemberAssignment>()
    const partitionsByHost: HostPartitions[] = []
    const standbyPartitionsByHost: HostPartitions[] = []
    const sourcePartitions = (tasks: AssignorTaskId[]) => sorted(tasks.flatMap((t) => partitionsOf.get(assignorTaskName(t))!))
    for (const client of list) {
      const host = parseEndpoint(client.endpoint)
      if (!host) continue
      partitionsByHost.push({ ...host, partitions: group(sourcePartitions(client.assigned)) })
      standbyPartitionsByHost.push({ ...host, partitions: group(sourcePartitions(client.standby)) })
    }
    for (const client of list) {
      const byConsumer = assignToConsumers(client, consumerPrevious)
      const standbyByConsumer = spread(client.standby, client.consumers)
      for (const consumer of client.consumers) {
        const pairs: Array<{ topic: string; partition: number; task: AssignorTaskId }> = []
        const standbys = [...standbyByConsumer.get(consumer)!]
        let pendingRevocation = false
        for (const task of byConsumer.get(consumer)!) {
          const parts = partitionsOf.get(assignorTaskName(task))!
          // Cooperative: a partition another consumer still owns waits until it is revoked.
          if (parts.some((p) => (ownedBy.get(tpKey(p.topic, p.partition)) ?? consumer) !== consumer)) {
            pendingRevocation = true
            // Java's buildStandbyTaskMap: state kept here (a warm-up's) stays warm as a standby meanwhile.
            if (statefulNames.has(assignorTaskName(task)) && client.state.has(assignorTaskName(task))) standbys.push(task)
            continue
          }
          for (const p of parts) pairs.push({ ...p, task })
        }
        sorted(pairs)
        let nextRebalanceMs = pendingRevocation ? 0n : NO_REBALANCE
        if (!pendingRevocation && probeAt !== undefined && client === leaderClient) {
          nextRebalanceMs = probeAt
          probeAt = undefined
        }
        result.set(consumer, {
          partitions: group(pairs),
          userData: encodeAssignmentInfo({
            version: usedVersion,
            commonlySupportedVersion: supported,
            activeTasks: pairs.map((p) => p.task),
            standbyTasks: standbys.map((task) => ({ task, partitions: group(partitionsOf.get(assignorTaskName(task))!) })),
            partitionsByHost,
            standbyPartitionsByHost,
            errorCode: AssignorError.NONE,
            nextRebalanceMs,
          }),
        })
      }
    }
    return result
  }

  /**
   * Each stateful task's changelog end offsets summed (Java's
   * computeEndOffsetSumsByTask), 'failed' when they could not be fetched
   * (a follow-up rebalance retries), undefined when not asked for.
   */
  private async endOffsetSums(stateful: AssignorTaskId[]): Promise<Map<string, bigint> | 'failed' | undefined> {
    const fetch = this.options.changelogEndOffsets
    if (!fetch || stateful.length === 0) return undefined
    const subs = new Map(this.options.subtopologies.map((s) => [s.id, s]))
    const changelogs = (t: AssignorTaskId) =>
      (subs.get(t.subtopology)?.changelogTopics ?? []).map((topic) => ({ topic, partition: t.partition }))
    try {
      const ends = await fetch(stateful.flatMap(changelogs))
      const sums = new Map<string, bigint>()
      // A changelog partition not there yet has nothing to restore.
      for (const t of stateful)
        sums.set(
          assignorTaskName(t),
          changelogs(t).reduce((n, p) => n + (ends.get(p.topic)?.get(p.partition) ?? 0n), 0n),
        )
      return sums
    } catch (err) {
      this.options.log?.warn('fetching the changelogs’ end offsets failed: tasks stay where they ran and a follow-up rebalance retries', {
        error: err instanceof Error ? err.message : String(err),
      })
      return 'failed'
    }
  }
}

function emptyInfo(version: number, supported: number, errorCode: number) {
  return {
    version,
    commonlySupportedVersion: supported,
    activeTasks: [],
    standbyTasks: [],
    partitionsByHost: [],
    standbyPartitionsByHost: [],
    errorCode,
    nextRebalanceMs: NO_REBALANCE,
  }
}

/** Sorts in place by topic, then partition. */
function sorted<T extends { topic: string; partition: number }>(list: T[]): T[] {
  return list.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
}

function group(list: Array<{ topic: string; partition: number }>): TopicPartitions[] {
  const by = new Map<string, number[]>()
  for (const { topic, partition } of list) by.set(topic, [...(by.get(topic) ?? []), partition])
  return [...by].map(([topic, partitions]) => ({ topic, partitions }))
}

function parseEndpoint(endpoint: string | null): { host: string; port: number } | undefined {
  if (!endpoint) return undefined
  const colon = endpoint.lastIndexOf(':')
  const port = Number(endpoint.slice(colon + 1))
  return colon > 0 && Number.isInteger(port) ? { host: endpoint.slice(0, colon), port } : undefined
}

/**
 * Tasks over clients in proportion to their consumers: each client may hold
 * floor(T·c/C) and the remainder goes one each; a task stays with the client
 * that ran it while that client has room, then goes to one holding its
 * state, then to the least loaded.
 */
function assignToClients(tasks: AssignorTaskId[], clients: Client[]): void {
  if (clients.length === 0 || tasks.length === 0) return
  const total = clients.reduce((n, c) => n + c.consumers.length, 0)
  const quota = new Map(clients.map((c) => [c, Math.floor((tasks.length * c.consumers.length) / total)]))
  let extras = tasks.length - [...quota.values()].reduce((a, b) => a + b, 0)
  const count = new Map(clients.map((c) => [c, 0]))
  const bumped = new Set<Client>() // given one of the remainder's slots
  const give = (c: Client, t: AssignorTaskId) => {
    c.assigned.push(t)
    count.set(c, count.get(c)! + 1)
  }
  const bump = (c: Client) => {
    quota.set(c, quota.get(c)! + 1)
    bumped.add(c)
    extras--
  }
  const room = (c: Client) => count.get(c)! < quota.get(c)!
  const previousOwner = (t: AssignorTaskId) => clients.find((c) => c.previous.has(assignorTaskName(t)))
  const left: AssignorTaskId[] = []
  for (const t of [...tasks].sort(compareTaskIds)) {
    const owner = previousOwner(t)
    if (owner && room(owner)) give(owner, t)
    else left.push(t)
  }
  // The remainder's slots go to previous owners first.
  const rest: AssignorTaskId[] = []
  for (const t of left) {
    const owner = previousOwner(t)
    if (owner && extras > 0 && !bumped.has(owner) && !room(owner)) {
      bump(owner)
      give(owner, t)
    } else rest.push(t)
  }
  const load = (c: Client) => count.get(c)! / c.consumers.length
  for (const t of rest) {
    const open = clients.filter(room)
    if (open.length > 0) {
      give(pickClient(open, t, load), t)
      continue
    }
    const c = pickClient(
      clients.filter((x) => !bumped.has(x)),
      t,
      load,
    )
    bump(c)
    give(c, t)
  }
}

function pickClient(candidates: Client[], t: AssignorTaskId, load: (c: Client) => number): Client {
  const withState = candidates.filter((c) => c.state.has(assignorTaskName(t)))
  const from = withState.length > 0 ? withState : candidates
  return from.reduce((best, c) => (load(c) < load(best) ? c : best))
}

/** A client's tasks over its consumers (Java's assignTasksToThreads): balanced, each keeping what it ran while under the average. */
function assignToConsumers(client: Client, previous: Map<string, Set<string>>): Map<string, AssignorTaskId[]> {
  const out = new Map(client.consumers.map((c) => [c, [] as AssignorTaskId[]]))
  const tasks = [...client.assigned].sort(compareTaskIds)
  const max = Math.ceil(tasks.length / client.consumers.length)
  const left: AssignorTaskId[] = []
  for (const t of tasks) {
    const owner = client.consumers.find((c) => previous.get(c)!.has(assignorTaskName(t)))
    if (owner && out.get(owner)!.length < max) out.get(owner)!.push(t)
    else left.push(t)
  }
  for (const t of left) {
    const lightest = client.consumers.reduce((best, c) => (out.get(c)!.length < out.get(best)!.length ? c : best))
    out.get(lightest)!.push(t)
  }
  return out
}

/**
 * Java's DefaultStandbyTaskAssignor: each stateful task, in order, gets
 * `replicas` standby copies, each on the client with the least tasks (active
 * and standby) per consumer that holds no copy of it yet, the lower process
 * id first among equals; fewer when too few clients are left.
 */
function assignStandbys(stateful: AssignorTaskId[], clients: Client[], replicas: number): void {
  if (replicas <= 0) return
  const load = (c: Client) => (c.assigned.length + c.standby.length) / c.consumers.length
  const holds = (c: Client, t: AssignorTaskId) => [...c.assigned, ...c.standby].some((x) => compareTaskIds(x, t) === 0)
  for (const t of [...stateful].sort(compareTaskIds))
    for (let n = 0; n < replicas; n++) {
      const open = clients.filter((c) => !holds(c, t))
      if (open.length === 0) break
      open.reduce((best, c) => (load(c) < load(best) ? c : best)).standby.push(t)
    }
}

/** A client's standby tasks over its consumers, one each in turn (the lightest first). */
function spread(tasks: AssignorTaskId[], consumers: string[]): Map<string, AssignorTaskId[]> {
  const out = new Map(consumers.map((c) => [c, [] as AssignorTaskId[]]))
  for (const t of [...tasks].sort(compareTaskIds)) {
    const lightest = consumers.reduce((best, c) => (out.get(c)!.length < out.get(best)!.length ? c : best))
    out.get(lightest)!.push(t)
  }
  return out
}
