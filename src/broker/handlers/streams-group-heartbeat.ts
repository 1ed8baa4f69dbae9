import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  StreamsGroupHeartbeat,
  type StreamsGroupHeartbeatRequest,
  type StreamsGroupHeartbeatRequestTopology,
  type StreamsGroupHeartbeatResponse,
} from '../../protocol/messages/StreamsGroupHeartbeat.js'
import type { Input } from '../../protocol/api.js'
import { BrokerError } from '../broker-error.js'
import { defineHandler, type RequestContext } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowed, allowedNames } from '../auth/authorizer.js'
import { coordinatorError } from './group-common.js'
import { STREAMS_STATIC_LEAVE_EPOCH, type StreamsHeartbeatResult } from '../groups/streams-group.js'
import { StreamsStatus, type InternalTopicToCreate, type StreamsTopology } from '../groups/streams-topology.js'

const fail = (errorCode: number, errorMessage: string | null = null): Input<StreamsGroupHeartbeatResponse> => ({
  errorCode,
  errorMessage,
  memberId: '',
  memberEpoch: -1,
  heartbeatIntervalMs: 0,
  status: null,
})

/**
 * Kafka's checks of a streams heartbeat before the group is looked at
 * (GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsInvalid).
 */
function validate(req: StreamsGroupHeartbeatRequest): void {
  const invalid = (message: string) => new BrokerError(ErrorCodes.INVALID_REQUEST, message)
  const blank = (s: string | null) => s !== null && s.trim() === ''
  if (blank(req.memberId)) throw invalid("MemberId can't be empty.")
  if (blank(req.groupId)) throw invalid("GroupId can't be empty.")
  if (blank(req.instanceId)) throw invalid("InstanceId can't be empty.")
  if (blank(req.rackId)) throw invalid("RackId can't be empty.")
  const tasks = [req.activeTasks, req.standbyTasks, req.warmupTasks]
  if (req.memberEpoch === 0) {
    if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.')
    if ((req.activeTasks?.length ?? 0) > 0) throw invalid('ActiveTasks must be empty when (re-)joining.')
    if ((req.standbyTasks?.length ?? 0) > 0) throw invalid('StandbyTasks must be empty when (re-)joining.')
    if ((req.warmupTasks?.length ?? 0) > 0) throw invalid('WarmupTasks must be empty when (re-)joining.')
    if (req.topology === null) throw invalid('Topology must be non-null when (re-)joining.')
  } else if (req.memberEpoch === STREAMS_STATIC_LEAVE_EPOCH) {
    if (req.instanceId === null) throw invalid("InstanceId can't be null.")
  } else if (req.memberEpoch < STREAMS_STATIC_LEAVE_EPOCH) {
    throw invalid(`MemberEpoch is ${req.memberEpoch}, but must be greater than or equal to -2.`)
  }
  if (tasks.some((t) => t !== null) && tasks.some((t) => t === null)) throw invalid('If one task-type is non-null, all must be non-null.')
  if (req.memberEpoch !== 0 && req.topology !== null) throw invalid('Topology can only be provided when (re-)joining.')
}

/** The request's topology in the group's own terms (no wire tags). */
function topologyOf(t: StreamsGroupHeartbeatRequestTopology): StreamsTopology {
  const info = (i: StreamsGroupHeartbeatRequestTopology['subtopologies'][number]['stateChangelogTopics'][number]) => ({
    name: i.name,
    partitions: i.partitions,
    replicationFactor: i.replicationFactor,
    topicConfigs: i.topicConfigs.map((c) => ({ key: c.key, value: c.value })),
  })
  return {
    epoch: t.epoch,
    subtopologies: t.subtopologies.map((s) => ({
      subtopologyId: s.subtopologyId,
      sourceTopics: [...s.sourceTopics],
      sourceTopicRegex: [...s.sourceTopicRegex],
      stateChangelogTopics: s.stateChangelogTopics.map(info),
      repartitionSinkTopics: [...s.repartitionSinkTopics],
      repartitionSourceTopics: s.repartitionSourceTopics.map(info),
      copartitionGroups: s.copartitionGroups.map((g) => ({
        sourceTopics: [...g.sourceTopics],
        sourceTopicRegex: [...g.sourceTopicRegex],
        repartitionSourceTopics: [...g.repartitionSourceTopics],
      })),
    })),
  }
}

/**
 * The internal topics the group's topology still lacks, created as Kafka's
 * broker does after the coordinator answers (they exist at the member's
 * next heartbeat, which then finds the topology ready). Without CREATE on
 * the cluster or the topics, the answer says which could not be.
 */
function createInternalTopics(ctx: RequestContext, toCreate: InternalTopicToCreate[], result: StreamsHeartbeatResult): void {
  if (toCreate.length === 0) return
  const { controller, options } = ctx.cluster
  const mayAll = allowed(ctx, AclOperationTypes.CREATE)
  const may = mayAll
    ? null
    : allowedNames(
        ctx,
        AclOperationTypes.CREATE,
        AclResourceTypes.TOPIC,
        toCreate.map((t) => t.name),
      )
  const refused = toCreate.filter((t) => may !== null && !may.has(t.name)).map((t) => t.name)
  for (const t of toCreate) {
    if (refused.includes(t.name) || controller.topics.has(t.name)) continue
    try {
      controller.createTopic(t.name, {
        partitions: t.partitions,
        replicationFactor:
          t.replicationFactor === -1 ? Math.min(options.defaultReplicationFactor, controller.liveBrokers().length) : t.replicationFactor,
        configs: t.configs,
      })
    } catch (err) {
      if (!(err instanceof BrokerError)) throw err
      // Kafka's broker logs a failed creation; the next heartbeat reports the topic missing again.
    }
  }
  if (refused.length > 0)
    result.status?.push({
      statusCode: StreamsStatus.MISSING_INTERNAL_TOPICS,
      statusDetail: `Unauthorized to CREATE on topics ${refused.join(', ')}.`,
    })
}

/**
 * StreamsGroupHeartbeat (KIP-1071): joins, heartbeats, reconciles and
 * leaves a streams group; the first member's topology configures the
 * group, and the broker creates the internal topics it needs.
 */
export const streamsGroupHeartbeatHandler = defineHandler<StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse>({
  spec: StreamsGroupHeartbeat,
  minVersion: StreamsGroupHeartbeat.minVersion,
  maxVersion: StreamsGroupHeartbeat.maxVersion,
  async handle(req, ctx) {
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return fail(refused)
    try {
      validate(req)
    } catch (err) {
      if (!(err instanceof BrokerError)) throw err
      return fail(err.code, err.message)
    }
    if (req.topology) {
      // Every topic the topology reads or writes internally must be one the principal may DESCRIBE (as Kafka's KafkaApis).
      const names = new Set<string>()
      for (const s of req.topology.subtopologies) {
        for (const n of [...s.sourceTopics, ...s.repartitionSinkTopics]) names.add(n)
        for (const i of [...s.repartitionSourceTopics, ...s.stateChangelogTopics]) names.add(i.name)
      }
      const describable = allowedNames(ctx, AclOperationTypes.DESCRIBE, AclResourceTypes.TOPIC, names)
      const denied = [...names].filter((n) => !describable.has(n)).sort()
      if (denied.length > 0) return fail(ErrorCodes.TOPIC_AUTHORIZATION_FAILED, `Unauthorized topics: ${denied.join(', ')}`)
    }
    const { groups } = ctx.cluster
    const existing = groups.get(req.groupId) ?? groups.share(req.groupId)
    if (!existing && req.memberEpoch !== 0) return fail(ErrorCodes.GROUP_ID_NOT_FOUND, `Streams group ${req.groupId} not found.`)
    const group = req.memberEpoch === 0 ? groups.streamsOrCreate(req.groupId) : groups.streams(req.groupId)
    if (!group) return fail(ErrorCodes.GROUP_ID_NOT_FOUND, `Group ${req.groupId} is not a streams group.`)
    const result = group.heartbeat({
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      endpointInformationEpoch: req.endpointInformationEpoch,
      instanceId: req.instanceId,
      rackId: req.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      topology: req.topology ? topologyOf(req.topology) : null,
      activeTasks: req.activeTasks,
      standbyTasks: req.standbyTasks,
      warmupTasks: req.warmupTasks,
      processId: req.processId,
      userEndpoint: req.userEndpoint ? { host: req.userEndpoint.host, port: req.userEndpoint.port } : null,
      clientTags: req.clientTags,
      shutdownApplication: req.shutdownApplication,
      taskOffsets: req.taskOffsets,
      taskEndOffsets: req.taskEndOffsets,
      clientId: ctx.header.clientId ?? '',
      clientHost: `/${ctx.connection.remoteAddress}`,
    })
    if (result.errorCode !== ErrorCodes.NONE) {
      // A join refused before it changed anything leaves no group behind (Kafka's is created by the records of a heartbeat that succeeds).
      if (!existing && group.members.size === 0 && group.topology === null) groups.forget(req.groupId)
      return fail(result.errorCode, result.errorMessage)
    }
    // Answered once the change's records are in the ISR of the group's __consumer_offsets partition, as Kafka's coordinator.
    const written = await groups.log.written(req.groupId)
    if (written !== ErrorCodes.NONE) return fail(written)
    createInternalTopics(ctx, result.toCreate, result)
    return {
      errorCode: ErrorCodes.NONE,
      errorMessage: null,
      memberId: result.memberId,
      memberEpoch: result.memberEpoch,
      heartbeatIntervalMs: result.heartbeatIntervalMs,
      // Kafka 4.4 sets only the v1 field: v0 answers carry 0.
      acceptableRecoveryLag: BigInt(result.acceptableRecoveryLag),
      taskOffsetIntervalMs: result.taskOffsetIntervalMs,
      status: result.status,
      activeTasks: result.activeTasks,
      standbyTasks: result.standbyTasks,
      warmupTasks: result.warmupTasks,
      endpointInformationEpoch: result.endpointInformationEpoch,
      partitionsByUserEndpoint: result.partitionsByUserEndpoint,
    }
  },
  errorResponse: (_req, code) => fail(code),
})
