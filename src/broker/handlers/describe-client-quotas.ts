import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  DescribeClientQuotas,
  type DescribeClientQuotasRequest,
  type DescribeClientQuotasResponse,
} from '../../protocol/messages/DescribeClientQuotas.js'
import { BrokerError } from '../broker-error.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { requireCluster } from '../auth/authorizer.js'
import { describeClientQuotas } from '../quotas/client-quota-admin.js'

/** DescribeClientQuotas (KIP-546): the quota entities a filter matches and their values; a bad filter answers its error, no entries. */
export const describeClientQuotasHandler = defineHandler<DescribeClientQuotasRequest, DescribeClientQuotasResponse>({
  spec: DescribeClientQuotas,
  minVersion: DescribeClientQuotas.minVersion,
  maxVersion: DescribeClientQuotas.maxVersion,
  handle: (req, ctx) => {
    const { cluster } = ctx
    requireCluster(ctx, AclOperationTypes.DESCRIBE_CONFIGS)
    try {
      return { errorCode: ErrorCodes.NONE, errorMessage: null, entries: describeClientQuotas(cluster.controller, req) }
    } catch (err) {
      if (!(err instanceof BrokerError)) throw err
      return { errorCode: err.code, errorMessage: err.message, entries: null }
    }
  },
  errorResponse: (_req, code) => ({ errorCode: code, errorMessage: null, entries: null }),
})
