import { ErrorCodes } from '../../protocol/error-codes.js'
import { DescribeAcls, type DescribeAclsRequest, type DescribeAclsResponse } from '../../protocol/messages/DescribeAcls.js'
import { filterProblem, AclOperationTypes } from '../auth/acl-matching.js'
import { describeAcls } from '../auth/acl-store.js'
import { allowed } from '../auth/authorizer.js'
import { defineHandler } from '../handler.js'

/** DescribeAcls: DESCRIBE on the cluster; the ACLs the filter matches, by resource pattern. */
export const describeAclsHandler = defineHandler<DescribeAclsRequest, DescribeAclsResponse>({
  spec: DescribeAcls,
  minVersion: DescribeAcls.minVersion,
  maxVersion: DescribeAcls.maxVersion,
  handle(req, ctx) {
    const refuse = (errorCode: number, errorMessage: string) => ({ errorCode, errorMessage, resources: [] })
    if (!ctx.cluster.authorizer.enabled) return refuse(ErrorCodes.SECURITY_DISABLED, 'No Authorizer is configured.')
    if (!allowed(ctx, AclOperationTypes.DESCRIBE)) return refuse(ErrorCodes.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.')
    const filter = {
      resourceType: req.resourceTypeFilter,
      resourceName: req.resourceNameFilter,
      patternType: req.patternTypeFilter,
      principal: req.principalFilter,
      host: req.hostFilter,
      operation: req.operation,
      permissionType: req.permissionType,
    }
    const problem = filterProblem(filter)
    if (problem) return refuse(ErrorCodes.INVALID_REQUEST, problem)
    return { errorCode: ErrorCodes.NONE, errorMessage: null, resources: describeAcls(ctx.cluster.controller, filter) }
  },
  errorResponse: (_req, code) => ({ errorCode: code, errorMessage: null, resources: [] }),
})
