import { ZERO_UUID } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { OffsetFetch, type OffsetFetchRequest, type OffsetFetchResponse } from '../../protocol/messages/OffsetFetch.js'
import { defineHandler, type RequestContext } from '../handler.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'

interface GroupAnswer {
  errorCode: number
  topics: {
    name: string
    topicId: string
    partitions: {
      partitionIndex: number
      committedOffset: bigint
      committedLeaderEpoch: number
      metadata: string | null
      errorCode: number
    }[]
  }[]
}

/** One group's committed offsets: those asked for (-1 where none), or all it has (topics null). */
function fetchGroup(
  ctx: RequestContext,
  groupId: string,
  topics: { name: string; topicId?: string; partitionIndexes: number[] }[] | null,
  requireStable: boolean,
  member: { memberId: string | null; memberEpoch: number } = { memberId: null, memberEpoch: -1 },
): GroupAnswer {
  const none = (partitionIndex: number, errorCode: number = ErrorCodes.NONE) => ({
    partitionIndex,
    committedOffset: -1n,
    committedLeaderEpoch: -1,
    metadata: '',
    errorCode,
  })
  const { controller } = ctx.cluster
  // By id (v10): the name the metadata has for each, '' when it has none (UNKNOWN_TOPIC_ID); the id for each name.
  const byId = ctx.version >= 10
  const nameOf = (t: { name: string; topicId?: string }) => (byId ? (controller.topicsById.get(t.topicId!)?.name ?? '') : t.name)
  const idOf = (name: string) => controller.topics.get(name)?.id ?? ZERO_UUID
  const refused = coordinatorError(ctx, groupId, AclOperationTypes.DESCRIBE)
  if (refused !== null) {
    return {
      errorCode: refused,
      topics: (topics ?? []).map((t) => ({
        name: t.name,
        topicId: t.topicId ?? ZERO_UUID,
        partitions: t.partitionIndexes.map((p) => none(p, refused)),
      })),
    }
  }
  const group = ctx.cluster.groups.get(groupId)
  // v9+: a consumer group's member fetches at its current epoch.
  const stale = group && group.type !== 'classic' ? group.validateOffsetFetch(member.memberId, member.memberEpoch) : null
  if (stale !== null) {
    return {
      errorCode: stale,
      topics: (topics ?? []).map((t) => ({
        name: t.name,
        topicId: t.topicId ?? ZERO_UUID,
        partitions: t.partitionIndexes.map((p) => none(p, stale)),
      })),
    }
  }
  const wanted =
    topics?.map((t) => ({ name: nameOf(t), topicId: byId ? t.topicId! : idOf(t.name), partitionIndexes: t.partitionIndexes })) ??
    [...(group?.offsets ?? new Map<string, Map<number, unknown>>()).entries()].map(([name, m]) => ({
      name,
      topicId: idOf(name),
      partitionIndexes: [...m.keys()].sort((a, b) => a - b),
    }))
  // Topics the principal may not DESCRIBE: refused when asked for, left out of "all".
  const describable = allowedNames(
    ctx,
    AclOperationTypes.DESCRIBE,
    AclResourceTypes.TOPIC,
    wanted.filter((t) => t.name !== '').map((t) => t.name),
  )
  return {
    errorCode: ErrorCodes.NONE,
    topics: wanted
      .filter((t) => topics !== null || describable.has(t.name))
      .map((t) => ({
        name: t.name,
        topicId: t.topicId,
        partitions: t.partitionIndexes.map((p) => {
          if (byId && t.name === '') return none(p, ErrorCodes.UNKNOWN_TOPIC_ID)
          if (!describable.has(t.name)) return none(p, ErrorCodes.TOPIC_AUTHORIZATION_FAILED)
          // requireStable (v7+): an offset a transaction has pending is not known yet.
          if (requireStable && group?.hasPendingOffset(t.name, p)) return none(p, ErrorCodes.UNSTABLE_OFFSET_COMMIT)
          const c = group?.committed(t.name, p)
          return c
            ? {
                partitionIndex: p,
                committedOffset: c.offset,
                committedLeaderEpoch: c.leaderEpoch,
                metadata: c.metadata ?? '',
                errorCode: ErrorCodes.NONE,
              }
            : none(p)
        }),
      })),
  }
}

/** OffsetFetch: one group (v0-7) or a batch of groups (v8+), topics by id from v10 (an id the metadata does not know: UNKNOWN_TOPIC_ID). */
export const offsetFetchHandler = defineHandler<OffsetFetchRequest, OffsetFetchResponse>({
  spec: OffsetFetch,
  minVersion: Math.max(1, OffsetFetch.minVersion),
  maxVersion: OffsetFetch.maxVersion,
  handle(req, ctx) {
    if (ctx.version >= 8)
      return { groups: req.groups.map((g) => ({ groupId: g.groupId, ...fetchGroup(ctx, g.groupId, g.topics, req.requireStable, g) })) }
    return fetchGroup(ctx, req.groupId, req.topics, req.requireStable)
  },
  errorResponse: (req, code, { version }) =>
    version >= 8
      ? { groups: req.groups.map((g) => ({ groupId: g.groupId, errorCode: code, topics: [] })) }
      : { errorCode: code, topics: [] },
})
