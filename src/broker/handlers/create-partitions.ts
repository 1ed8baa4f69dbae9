import { ErrorCodes } from '../../protocol/error-codes.js'
import { CreatePartitions, type CreatePartitionsRequest, type CreatePartitionsResponse } from '../../protocol/messages/CreatePartitions.js'
import { ControllerError } from '../controller.js'
import { defineHandler } from '../handler.js'

export const createPartitionsHandler = defineHandler<CreatePartitionsRequest, CreatePartitionsResponse>({
  spec: CreatePartitions,
  minVersion: CreatePartitions.minVersion,
  maxVersion: CreatePartitions.maxVersion,
  handle(req, { cluster }) {
    return {
      results: req.topics.map((t) => {
        if (t.assignments !== null) {
          return {
            name: t.name,
            errorCode: ErrorCodes.INVALID_REQUEST,
            errorMessage: 'explicit replica assignments for new partitions are not served; leave them null',
          }
        }
        try {
          cluster.controller.createPartitions(t.name, t.count, req.validateOnly)
          return { name: t.name, errorCode: ErrorCodes.NONE, errorMessage: null }
        } catch (err) {
          if (err instanceof ControllerError) return { name: t.name, errorCode: err.code, errorMessage: err.message }
          throw err
        }
      }),
    }
  },
  errorResponse: (req, code) => ({ results: req.topics.map((t) => ({ name: t.name, errorCode: code, errorMessage: null })) }),
})
