// Streams groups (KIP-1071) from outside: Java's Admin.describeStreamsGroups
// (StreamsGroupDescribe), what kafka-streams-groups.sh --describe reads: the
// group's state and epochs, its topology as the coordinator holds it (each
// sub-topology's source, repartition and changelog topics), and each member
// with its process, endpoint, tags and its current and target tasks.
import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { check } from './checks.js'
import { StreamsGroupDescribe, type StreamsGroupDescribeResponseAssignment } from '../protocol/messages/index.js'

/** A member's tasks: by sub-topology id, each with its partitions (sorted). */
export interface StreamsTasks {
  activeTasks: Array<{ subtopologyId: string; partitions: number[] }>
  standbyTasks: Array<{ subtopologyId: string; partitions: number[] }>
  warmupTasks: Array<{ subtopologyId: string; partitions: number[] }>
}

const tasks = (a: StreamsGroupDescribeResponseAssignment): StreamsTasks => {
  const each = (list: Array<{ subtopologyId: string; partitions: number[] }>) =>
    list
      .map((t) => ({ subtopologyId: t.subtopologyId, partitions: [...t.partitions].sort((x, y) => x - y) }))
      .sort((x, y) => (x.subtopologyId < y.subtopologyId ? -1 : x.subtopologyId > y.subtopologyId ? 1 : 0))
  return { activeTasks: each(a.activeTasks), standbyTasks: each(a.standbyTasks), warmupTasks: each(a.warmupTasks) }
}

/** Each streams group's description; a group that is not a streams group fails with the broker's GROUP_ID_NOT_FOUND. */
export async function describeStreamsGroups(cluster: ClusterClient, groupIds: string[]) {
  const groups = await Promise.all(
    groupIds.map(async (groupId) => {
      const { res } = await cluster.request(
        StreamsGroupDescribe,
        { groupIds: [groupId], includeAuthorizedOperations: false, includeTopologyDescription: false },
        Routes.group(groupId),
        {
          check: (r, from) => check(r.groups[0].errorCode, 'StreamsGroupDescribe', `group ${groupId}`, r.groups[0].errorMessage, from),
        },
      )
      const g = res.groups[0]
      return {
        groupId: g.groupId,
        state: g.groupState,
        groupEpoch: g.groupEpoch,
        targetAssignmentEpoch: g.assignmentEpoch,
        topologyEpoch: g.topology?.epoch ?? -1,
        assignor: g.assignorName,
        subtopologies: (g.topology?.subtopologies ?? []).map((s) => ({
          subtopologyId: s.subtopologyId,
          sourceTopics: s.sourceTopics,
          repartitionSinkTopics: s.repartitionSinkTopics,
          repartitionSourceTopics: s.repartitionSourceTopics.map((t) => ({ name: t.name, partitions: t.partitions })),
          stateChangelogTopics: s.stateChangelogTopics.map((t) => ({ name: t.name, partitions: t.partitions })),
        })),
        members: g.members.map((m) => ({
          memberId: m.memberId,
          memberEpoch: m.memberEpoch,
          instanceId: m.instanceId,
          rackId: m.rackId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          topologyEpoch: m.topologyEpoch,
          processId: m.processId,
          userEndpoint: m.userEndpoint ? { host: m.userEndpoint.host, port: m.userEndpoint.port } : null,
          clientTags: Object.fromEntries(m.clientTags.map((t) => [t.key, t.value])),
          assignment: tasks(m.assignment),
          targetAssignment: tasks(m.targetAssignment),
          isClassic: m.isClassic,
        })),
      }
    }),
  )
  return { groups }
}
