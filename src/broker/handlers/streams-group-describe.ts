import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  StreamsGroupDescribe,
  type StreamsGroupDescribeRequest,
  type StreamsGroupDescribeResponse,
  type StreamsGroupDescribeResponseTopology,
} from '../../protocol/messages/StreamsGroupDescribe.js'
import type { Input } from '../../protocol/api.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { authorizedOperations } from '../auth/authorizer.js'
import { OPERATIONS_OMITTED } from './metadata.js'
import { activeSet, STREAMS_ASSIGNOR, taskIds, taskOffsetList, type StreamsGroup } from '../groups/streams-group.js'
import type { TaskAssignment } from '../groups/streams-assignor.js'
import type { StreamsTopicInfo } from '../groups/streams-topology.js'

/** The topology as Kafka describes it: the configured one (partition counts decided) once ready, else as the member sent it. */
function describeTopology(g: StreamsGroup): Input<StreamsGroupDescribeResponseTopology> | null {
  const t = g.topology
  if (!t) return null
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  const info = (i: StreamsTopicInfo) => ({
    name: i.name,
    partitions: i.partitions,
    replicationFactor: i.replicationFactor,
    topicConfigs: i.topicConfigs,
  })
  const ready = g.configured?.status === null ? g.configured.subtopologies : null
  const subtopologies = (ready ?? t.subtopologies).map((s) => ({
    subtopologyId: s.subtopologyId,
    sourceTopics: [...s.sourceTopics].sort(),
    repartitionSinkTopics: [...s.repartitionSinkTopics].sort(),
    repartitionSourceTopics: s.repartitionSourceTopics.map(info).sort(byName),
    stateChangelogTopics: s.stateChangelogTopics.map(info).sort(byName),
  }))
  subtopologies.sort((a, b) => (a.subtopologyId < b.subtopologyId ? -1 : a.subtopologyId > b.subtopologyId ? 1 : 0))
  return { epoch: t.epoch, subtopologies }
}

const assignmentOf = (a: TaskAssignment | undefined) => ({
  activeTasks: taskIds(a?.active ?? new Map()),
  standbyTasks: taskIds(a?.standby ?? new Map()),
  warmupTasks: [],
})

/** StreamsGroupDescribe (KIP-1071): a streams group's state, epochs, topology, and each member's tasks and target. */
export const streamsGroupDescribeHandler = defineHandler<StreamsGroupDescribeRequest, StreamsGroupDescribeResponse>({
  spec: StreamsGroupDescribe,
  minVersion: StreamsGroupDescribe.minVersion,
  maxVersion: StreamsGroupDescribe.maxVersion,
  handle(req, ctx) {
    const { groups } = ctx.cluster
    return {
      groups: req.groupIds.map((groupId) => {
        const base = { groupId, groupState: '', groupEpoch: -1, assignmentEpoch: -1, topology: null, members: [], assignorName: null }
        const refused = coordinatorError(ctx, groupId, AclOperationTypes.DESCRIBE)
        if (refused !== null) return { ...base, errorCode: refused, errorMessage: null }
        const g = groups.streams(groupId)
        if (!g) {
          const other = groups.get(groupId) !== undefined || groups.share(groupId) !== undefined
          return {
            ...base,
            errorCode: ErrorCodes.GROUP_ID_NOT_FOUND,
            errorMessage: other ? `Group ${groupId} is not a streams group.` : `Group ${groupId} not found.`,
          }
        }
        return {
          errorCode: ErrorCodes.NONE,
          errorMessage: null,
          groupId,
          groupState: g.state,
          groupEpoch: g.groupEpoch,
          assignmentEpoch: g.assignmentEpoch,
          assignorName: STREAMS_ASSIGNOR,
          topology: describeTopology(g),
          // Kafka stores no topology description unless a plugin is configured.
          topologyDescription: null,
          topologyDescriptionStatus: req.includeTopologyDescription ? 1 : 0,
          members: [...g.members.values()].map((m) => ({
            memberId: m.memberId,
            memberEpoch: m.memberEpoch,
            instanceId: m.instanceId,
            rackId: m.rackId,
            clientId: m.clientId,
            clientHost: m.clientHost,
            topologyEpoch: m.topologyEpoch,
            processId: m.processId,
            userEndpoint: m.userEndpoint,
            clientTags: [...m.clientTags].map(([key, value]) => ({ key, value })),
            taskOffsets: taskOffsetList(g.taskOffsets.get(m.memberId)?.offsets),
            taskEndOffsets: taskOffsetList(g.taskOffsets.get(m.memberId)?.ends),
            assignment: assignmentOf({ active: activeSet(m.assigned.active), standby: m.assigned.standby }),
            targetAssignment: assignmentOf(g.target.get(m.memberId)),
            isClassic: false,
          })),
          authorizedOperations: req.includeAuthorizedOperations
            ? authorizedOperations(ctx, AclResourceTypes.GROUP, groupId)
            : OPERATIONS_OMITTED,
        }
      }),
    }
  },
  errorResponse: (req, code) => ({
    groups: req.groupIds.map((groupId) => ({
      errorCode: code,
      errorMessage: null,
      groupId,
      groupState: '',
      groupEpoch: -1,
      assignmentEpoch: -1,
      topology: null,
      members: [],
      assignorName: null,
    })),
  }),
})
