import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { check } from './checks.js'
import { DescribeCluster } from '../protocol/messages/index.js'

/** What the cluster says of itself: brokers, controller, cluster id. */

export async function describeCluster(cluster: ClusterClient) {
  return cluster.retry(async () => {
    if (await cluster.supports(DescribeCluster)) {
      const { res } = await cluster.request(DescribeCluster, {}, Routes.any(), {
        retryMs: 0,
        check: (r, from) => check(r.errorCode, 'DescribeCluster', 'cluster', r.errorMessage, from),
      })
      return {
        brokers: res.brokers.map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack })),
        controller: res.controllerId,
        clusterId: res.clusterId,
      }
    }
    await cluster.refreshMetadata()
    const m = cluster.metadata
    return { brokers: [...m.brokers.values()], controller: m.controllerId, clusterId: m.clusterId }
  })
}
