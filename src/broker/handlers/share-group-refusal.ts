import { ErrorCodes } from '../../protocol/error-codes.js'
import type { RequestContext } from '../handler.js'

/**
 * Why a share group's offsets cannot be altered or deleted now, as Kafka's
 * coordinator says it: no such group (or one of another type), or members
 * in it. Null when it is an empty share group.
 */
export function shareGroupRefusal(ctx: RequestContext, groupId: string): { errorCode: number; errorMessage: string } | null {
  const { groups } = ctx.cluster
  const g = groups.share(groupId)
  if (!g) return notShare(groupId, groups.get(groupId) === undefined)
  if (g.state !== 'Empty') return { errorCode: ErrorCodes.NON_EMPTY_GROUP, errorMessage: 'The group is not empty.' }
  return null
}

/** GROUP_ID_NOT_FOUND as Kafka words it: no group, or one of another type. */
export function notShare(groupId: string, missing = false): { errorCode: number; errorMessage: string } {
  return {
    errorCode: ErrorCodes.GROUP_ID_NOT_FOUND,
    errorMessage: missing ? `Group ${groupId} not found.` : `Group ${groupId} is not a share group.`,
  }
}
