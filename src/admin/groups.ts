import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { check, requireVersion } from './checks.js'
import { ConsumerGroupDescribe, DeleteGroups, DescribeGroups, ListGroups } from '../protocol/messages/index.js'

/** Consumer groups: list (every broker), describe (classic and KIP-848), delete. */

const { GROUP_ID_NOT_FOUND } = ErrorCodes

/** Every group on every broker (each broker lists the groups it coordinates); of `types` only when given (ListGroups v5+). */
export async function listGroups(cluster: ClusterClient, types?: string[]) {
  await cluster.refreshMetadata()
  const lists = await Promise.all(
    [...cluster.metadata.brokers.keys()].map((id) =>
      cluster
        .request(
          ListGroups,
          (v) => ({ typesFilter: types?.length && requireVersion(v, 5, 'listing groups by type') ? types : [] }),
          Routes.node(id),
          {
            check: (res, from) => check(res.errorCode, 'ListGroups', `broker ${id}`, null, from),
          },
        )
        .then(({ res }) =>
          // groupType (v5+): 'classic' or 'consumer' (KIP-848); absent from older brokers.
          res.groups.map((g) => ({
            groupId: g.groupId,
            protocolType: g.protocolType,
            groupState: g.groupState,
            ...(g.groupType ? { groupType: g.groupType } : {}),
          })),
        ),
    ),
  )
  return { groups: lists.flat() }
}

/**
 * Groups of either type. DescribeGroups knows only classic groups (it
 * calls a KIP-848 group Dead); for those the broker's ConsumerGroupDescribe
 * answers, as the Java admin client asks it. KIP-848 members carry their
 * `assignment` as topic partitions and empty metadata/assignment bytes.
 */
export async function describeGroups(cluster: ClusterClient, groupIds: string[]) {
  const groups = await Promise.all(
    groupIds.map((groupId) =>
      cluster.retry(async () => {
        const group = Routes.group(groupId)
        const { res } = await cluster.request(DescribeGroups, { groups: [groupId] }, group, {
          retryMs: 0,
          // Not found may be a KIP-848 group, asked below: every other code is the answer's error.
          check: (r, from) => {
            if (r.groups[0].errorCode !== GROUP_ID_NOT_FOUND) check(r.groups[0].errorCode, 'DescribeGroups', `group ${groupId}`, null, from)
          },
        })
        const g = res.groups[0]
        const notFound = g.errorCode === GROUP_ID_NOT_FOUND || (g.errorCode === 0 && g.groupState === 'Dead')
        if (notFound && (await cluster.supports(ConsumerGroupDescribe, group))) {
          const modern = await describeConsumerGroup(cluster, groupId)
          if (modern) return modern
        }
        check(g.errorCode, 'DescribeGroups', `group ${groupId}`)
        return {
          errorCode: g.errorCode,
          groupId: g.groupId,
          state: g.groupState,
          protocolType: g.protocolType,
          protocol: g.protocolData,
          ...(g.groupState === 'Dead' ? {} : { groupType: 'classic' as const }),
          members: g.members.map((m) => ({
            memberId: m.memberId,
            groupInstanceId: m.groupInstanceId,
            clientId: m.clientId,
            clientHost: m.clientHost,
            memberMetadata: m.memberMetadata,
            memberAssignment: m.memberAssignment,
            assignment: undefined as Array<{ topic: string; partitions: number[] }> | undefined,
          })),
        }
      }),
    ),
  )
  return { groups }
}

/** A KIP-848 group by ConsumerGroupDescribe; undefined when there is no such group of that type. */
async function describeConsumerGroup(cluster: ClusterClient, groupId: string) {
  const { res } = await cluster.request(ConsumerGroupDescribe, { groupIds: [groupId] }, Routes.group(groupId), {
    retryMs: 0,
    check: (r, from) => {
      const code = r.groups[0].errorCode
      if (code !== GROUP_ID_NOT_FOUND) check(code, 'ConsumerGroupDescribe', `group ${groupId}`, r.groups[0].errorMessage, from)
    },
  })
  const g = res.groups[0]
  if (g.errorCode === GROUP_ID_NOT_FOUND) return undefined
  const empty = new Uint8Array(0)
  return {
    errorCode: 0,
    groupId: g.groupId,
    state: g.groupState,
    protocolType: 'consumer',
    protocol: g.assignorName,
    groupType: 'consumer' as const,
    members: g.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.instanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      memberMetadata: empty,
      memberAssignment: empty,
      assignment: m.assignment.topicPartitions.map((t) => ({ topic: t.topicName, partitions: [...t.partitions].sort((a, b) => a - b) })),
    })),
  }
}

export async function deleteGroups(cluster: ClusterClient, groupIds: string[]) {
  return Promise.all(
    groupIds.map((groupId) =>
      cluster
        .request(DeleteGroups, { groupsNames: [groupId] }, Routes.group(groupId), {
          check: (res, from) => check(res.results[0].errorCode, 'DeleteGroups', `group ${groupId}`, null, from),
        })
        .then(({ res }) => ({ groupId: res.results[0].groupId, errorCode: res.results[0].errorCode })),
    ),
  )
}
