import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  DescribeUserScramCredentials,
  type DescribeUserScramCredentialsRequest,
  type DescribeUserScramCredentialsResponse,
} from '../../protocol/messages/DescribeUserScramCredentials.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { requireCluster } from '../auth/authorizer.js'
import { describeScram } from '../sasl/scram-admin.js'

/** DescribeUserScramCredentials (KIP-554): each user's SCRAM mechanisms and iterations, never the keys. */
export const describeUserScramCredentialsHandler = defineHandler<DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse>(
  {
    spec: DescribeUserScramCredentials,
    minVersion: DescribeUserScramCredentials.minVersion,
    maxVersion: DescribeUserScramCredentials.maxVersion,
    handle(req, ctx) {
      requireCluster(ctx, AclOperationTypes.DESCRIBE)
      const { cluster } = ctx
      return {
        errorCode: ErrorCodes.NONE,
        errorMessage: null,
        results: describeScram(cluster.controller, cluster.saslUsers, req.users?.map((u) => u.name) ?? null),
      }
    },
    errorResponse: (_req, code) => ({ errorCode: code, errorMessage: null, results: [] }),
  },
)
