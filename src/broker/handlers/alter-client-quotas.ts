import {
  AlterClientQuotas,
  type AlterClientQuotasRequest,
  type AlterClientQuotasResponse,
} from '../../protocol/messages/AlterClientQuotas.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { requireCluster } from '../auth/authorizer.js'
import { alterClientQuotas } from '../quotas/client-quota-admin.js'

/** AlterClientQuotas (KIP-546): sets and removes quotas, written to the metadata log; each entity answered on its own. */
export const alterClientQuotasHandler = defineHandler<AlterClientQuotasRequest, AlterClientQuotasResponse>({
  spec: AlterClientQuotas,
  minVersion: AlterClientQuotas.minVersion,
  maxVersion: AlterClientQuotas.maxVersion,
  handle(req, ctx) {
    requireCluster(ctx, AclOperationTypes.ALTER_CONFIGS)
    return { entries: alterClientQuotas(ctx.cluster.controller, req.entries, req.validateOnly) }
  },
  errorResponse: (req, code) => ({
    entries: req.entries.map((e) => ({ entity: e.entity, errorCode: code, errorMessage: null })),
  }),
})
