import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  AlterPartitionReassignments,
  type AlterPartitionReassignmentsRequest,
  type AlterPartitionReassignmentsResponse,
} from '../../protocol/messages/AlterPartitionReassignments.js'
import { BrokerError } from '../broker-error.js'
import { NO_REASSIGNMENT_MESSAGE } from '../controller.js'
import { defineHandler } from '../handler.js'

/**
 * AlterPartitionReassignments (KIP-455): each partition's reassignment
 * started, replaced or (null replicas) cancelled by the controller
 * (Controller.reassignPartition), each with its own error; the changes
 * made are written to the metadata log together, as Kafka's controller
 * writes them in one atomic batch. The replicas then move on their own.
 */
export const alterPartitionReassignmentsHandler = defineHandler<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse>({
  spec: AlterPartitionReassignments,
  minVersion: AlterPartitionReassignments.minVersion,
  maxVersion: AlterPartitionReassignments.maxVersion,
  handle(req, { cluster, version }) {
    const allow = version < 1 || req.allowReplicationFactorChange
    const responses = cluster.controller.atomically(() =>
      req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          try {
            cluster.controller.reassignPartition(t.name, p.partitionIndex, p.replicas, allow)
            return { partitionIndex: p.partitionIndex, errorCode: ErrorCodes.NONE, errorMessage: null }
          } catch (err) {
            if (!(err instanceof BrokerError)) throw err
            // Kafka answers no message when it would be the error's own (ApiError), as for NO_REASSIGNMENT_IN_PROGRESS.
            const own = err.code === ErrorCodes.NO_REASSIGNMENT_IN_PROGRESS && err.message === NO_REASSIGNMENT_MESSAGE
            return { partitionIndex: p.partitionIndex, errorCode: err.code, errorMessage: own ? null : err.message }
          }
        }),
      })),
    )
    return { allowReplicationFactorChange: allow, errorCode: ErrorCodes.NONE, errorMessage: null, responses }
  },
  errorResponse: (req, code) => ({
    allowReplicationFactorChange: req.allowReplicationFactorChange,
    errorCode: code,
    errorMessage: null,
    responses: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code, errorMessage: null })),
    })),
  }),
})
