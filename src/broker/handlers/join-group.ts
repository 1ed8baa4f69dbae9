import { Buffer } from 'node:buffer'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { JoinGroup, type JoinGroupRequest, type JoinGroupResponse } from '../../protocol/messages/JoinGroup.js'
import { defineHandler } from '../handler.js'
import { coordinatorError } from './group-common.js'

// ProtocolName is nullable from v7 only; before, an error answer carries ''.
const fail = (errorCode: number, memberId = '') => ({ errorCode, generationId: -1, protocolName: '', leader: '', memberId, members: [] })

export const joinGroupHandler = defineHandler<JoinGroupRequest, JoinGroupResponse>({
  spec: JoinGroup,
  minVersion: JoinGroup.minVersion,
  maxVersion: JoinGroup.maxVersion,
  async handle(req, ctx) {
    const refused = coordinatorError(ctx, req.groupId)
    if (refused !== null) return fail(refused)
    const { options, groups } = ctx.cluster
    if (req.sessionTimeoutMs < options.groupMinSessionTimeoutMs || req.sessionTimeoutMs > options.groupMaxSessionTimeoutMs) {
      return fail(ErrorCodes.INVALID_SESSION_TIMEOUT, req.memberId)
    }
    if (req.memberId !== '' && !groups.get(req.groupId)) return fail(ErrorCodes.UNKNOWN_MEMBER_ID, req.memberId)
    // A consumer group with members keeps its id: a classic member cannot join it.
    const group = groups.classicOrCreate(req.groupId)
    if (!group) return fail(ErrorCodes.GROUP_ID_NOT_FOUND, req.memberId)
    const r = await group.join({
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      clientId: ctx.header.clientId ?? '',
      clientHost: `/${ctx.connection.remoteAddress}`,
      sessionTimeoutMs: req.sessionTimeoutMs,
      // v0 has no rebalance timeout: the session timeout serves for both.
      rebalanceTimeoutMs: ctx.version >= 1 ? req.rebalanceTimeoutMs : req.sessionTimeoutMs,
      protocolType: req.protocolType,
      protocols: req.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })),
      requireKnownMemberId: ctx.version >= 4,
      canSkipAssignment: ctx.version >= 9,
    })
    return { ...r, protocolName: ctx.version >= 7 ? r.protocolName : (r.protocolName ?? '') }
  },
  errorResponse: (req, code) => fail(code, req.memberId),
})
