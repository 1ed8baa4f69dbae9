import {
  AlterUserScramCredentials,
  type AlterUserScramCredentialsRequest,
  type AlterUserScramCredentialsResponse,
} from '../../protocol/messages/AlterUserScramCredentials.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { requireCluster } from '../auth/authorizer.js'
import { alterScram } from '../sasl/scram-admin.js'

/** AlterUserScramCredentials (KIP-554): upserts and deletes users' SCRAM credentials; they authenticate at once. */
export const alterUserScramCredentialsHandler = defineHandler<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse>({
  spec: AlterUserScramCredentials,
  minVersion: AlterUserScramCredentials.minVersion,
  maxVersion: AlterUserScramCredentials.maxVersion,
  handle(req, ctx) {
    requireCluster(ctx, AclOperationTypes.ALTER)
    return { results: alterScram(ctx.cluster.controller, ctx.cluster.saslUsers, req) }
  },
  errorResponse: (req, code) => ({
    results: [...new Set([...req.deletions, ...req.upsertions].map((c) => c.name))].map((user) => ({
      user,
      errorCode: code,
      errorMessage: null,
    })),
  }),
})
