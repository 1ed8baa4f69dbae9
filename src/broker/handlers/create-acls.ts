import { ErrorCodes } from '../../protocol/error-codes.js'
import { CreateAcls, type CreateAclsRequest, type CreateAclsResponse } from '../../protocol/messages/CreateAcls.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { createAcls } from '../auth/acl-store.js'
import { allowed } from '../auth/authorizer.js'
import { defineHandler } from '../handler.js'

/** CreateAcls: ALTER on the cluster; SECURITY_DISABLED without an authorizer (as Kafka). */
export const createAclsHandler = defineHandler<CreateAclsRequest, CreateAclsResponse>({
  spec: CreateAcls,
  minVersion: CreateAcls.minVersion,
  maxVersion: CreateAcls.maxVersion,
  handle(req, ctx) {
    const refuse = (errorCode: number, errorMessage: string) => ({ results: req.creations.map(() => ({ errorCode, errorMessage })) })
    if (!ctx.cluster.authorizer.enabled) return refuse(ErrorCodes.SECURITY_DISABLED, 'No Authorizer is configured.')
    if (!allowed(ctx, AclOperationTypes.ALTER)) return refuse(ErrorCodes.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.')
    const acls = req.creations.map((c) => ({ ...c, patternType: c.resourcePatternType }))
    return { results: createAcls(ctx.cluster.controller, acls) }
  },
  errorResponse: (req, code) => ({ results: req.creations.map(() => ({ errorCode: code, errorMessage: null })) }),
})
