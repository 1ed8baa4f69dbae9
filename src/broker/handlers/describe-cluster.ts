import { ErrorCodes } from '../../protocol/error-codes.js'
import { DescribeCluster, type DescribeClusterRequest, type DescribeClusterResponse } from '../../protocol/messages/DescribeCluster.js'
import { defineHandler } from '../handler.js'
import { clusterAuthorizedOperations } from '../auth/authorizer.js'
import { OPERATIONS_OMITTED } from './metadata.js'

const BROKERS_ENDPOINT = 1

export const describeClusterHandler = defineHandler<DescribeClusterRequest, DescribeClusterResponse>({
  spec: DescribeCluster,
  minVersion: DescribeCluster.minVersion,
  maxVersion: DescribeCluster.maxVersion,
  handle(req, ctx) {
    const { controller } = ctx.cluster
    if (req.endpointType !== BROKERS_ENDPOINT) {
      return {
        errorCode: ErrorCodes.UNSUPPORTED_ENDPOINT_TYPE,
        errorMessage: 'only broker endpoints are served',
        endpointType: req.endpointType,
        clusterId: controller.clusterId,
        controllerId: -1,
      }
    }
    const brokers = controller.liveBrokers()
    return {
      errorCode: ErrorCodes.NONE,
      errorMessage: null,
      endpointType: BROKERS_ENDPOINT,
      clusterId: controller.clusterId,
      controllerId: controller.activeController()?.id ?? -1,
      brokers: (req.includeFencedBrokers ? [...controller.brokers.values()] : brokers).map((b) => ({
        brokerId: b.id,
        host: b.host,
        port: b.port,
        rack: b.rack,
        isFenced: b.fenced,
      })),
      clusterAuthorizedOperations: req.includeClusterAuthorizedOperations ? clusterAuthorizedOperations(ctx) : OPERATIONS_OMITTED,
    }
  },
  errorResponse: (req, code, { cluster }) => ({
    errorCode: code,
    endpointType: req.endpointType,
    clusterId: cluster.controller.clusterId,
    controllerId: -1,
  }),
})
