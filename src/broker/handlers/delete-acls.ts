import { ErrorCodes } from '../../protocol/error-codes.js'
import { DeleteAcls, type DeleteAclsRequest, type DeleteAclsResponse } from '../../protocol/messages/DeleteAcls.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { deleteAcls } from '../auth/acl-store.js'
import { allowed } from '../auth/authorizer.js'
import { defineHandler } from '../handler.js'

/** DeleteAcls: ALTER on the cluster; for each filter, the ACLs it matched and removed. */
export const deleteAclsHandler = defineHandler<DeleteAclsRequest, DeleteAclsResponse>({
  spec: DeleteAcls,
  minVersion: DeleteAcls.minVersion,
  maxVersion: DeleteAcls.maxVersion,
  handle(req, ctx) {
    const refuse = (errorCode: number, errorMessage: string) => ({
      filterResults: req.filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })),
    })
    if (!ctx.cluster.authorizer.enabled) return refuse(ErrorCodes.SECURITY_DISABLED, 'No Authorizer is configured.')
    if (!allowed(ctx, AclOperationTypes.ALTER)) return refuse(ErrorCodes.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.')
    const filters = req.filters.map((f) => ({
      resourceType: f.resourceTypeFilter,
      resourceName: f.resourceNameFilter,
      patternType: f.patternTypeFilter,
      principal: f.principalFilter,
      host: f.hostFilter,
      operation: f.operation,
      permissionType: f.permissionType,
    }))
    return {
      filterResults: deleteAcls(ctx.cluster.controller, filters).map((r) => ({
        errorCode: r.errorCode,
        errorMessage: r.errorMessage,
        matchingAcls: r.deleted.map((a) => ({ errorCode: ErrorCodes.NONE, errorMessage: null, ...a })),
      })),
    }
  },
  errorResponse: (req, code) => ({ filterResults: req.filters.map(() => ({ errorCode: code, errorMessage: null, matchingAcls: [] })) }),
})
