import { ErrorCodes } from '../../protocol/error-codes.js'
import { ElectLeaders, type ElectLeadersRequest, type ElectLeadersResponse } from '../../protocol/messages/ElectLeaders.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { requireCluster } from '../auth/authorizer.js'

const UNCLEAN = 1

/**
 * ElectLeaders: preferred or unclean elections by the controller, a new
 * leader epoch each. Null partitions asks for every partition, and then
 * (as Kafka) those needing no election are left out of the answer.
 */
export const electLeadersHandler = defineHandler<ElectLeadersRequest, ElectLeadersResponse>({
  spec: ElectLeaders,
  minVersion: ElectLeaders.minVersion,
  maxVersion: ElectLeaders.maxVersion,
  handle(req, ctx) {
    requireCluster(ctx, AclOperationTypes.ALTER)
    const { cluster, version } = ctx
    const { controller } = cluster
    const unclean = version >= 1 && req.electionType === UNCLEAN
    if (version >= 1 && req.electionType !== 0 && req.electionType !== UNCLEAN) {
      return { errorCode: ErrorCodes.INVALID_REQUEST, replicaElectionResults: [] }
    }
    const all = req.topicPartitions === null
    const asked = all
      ? [...controller.topics.values()].map((t) => ({ topic: t.name, partitions: t.partitions.map((p) => p.partition) }))
      : req.topicPartitions!
    const replicaElectionResults = asked
      .map((tp) => ({
        topic: tp.topic,
        partitionResult: tp.partitions
          .map((partitionId) => {
            const refused = controller.electLeader(tp.topic, partitionId, unclean)
            return { partitionId, errorCode: refused?.code ?? ErrorCodes.NONE, errorMessage: refused?.message ?? null }
          })
          .filter((r) => !all || r.errorCode !== ErrorCodes.ELECTION_NOT_NEEDED),
      }))
      .filter((t) => t.partitionResult.length > 0)
    return { ...(version >= 1 ? { errorCode: ErrorCodes.NONE } : {}), replicaElectionResults }
  },
  errorResponse: (req, code, { version }) => ({
    // v0 has only the per-partition codes.
    ...(version >= 1 ? { errorCode: code } : {}),
    replicaElectionResults: (req.topicPartitions ?? []).map((t) => ({
      topic: t.topic,
      partitionResult: t.partitions.map((partitionId) => ({ partitionId, errorCode: code, errorMessage: null })),
    })),
  }),
})
