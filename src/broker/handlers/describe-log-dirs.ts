import { statfsSync } from 'node:fs'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { DescribeLogDirs, type DescribeLogDirsRequest, type DescribeLogDirsResponse } from '../../protocol/messages/DescribeLogDirs.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { requireCluster } from '../auth/authorizer.js'

/** Kafka's "unknown" for a volume's bytes. */
const UNKNOWN_BYTES = -1n

/**
 * DescribeLogDirs: this broker's one log directory (its directory under the
 * cluster's dataDir, or `memory:broker-<id>` for a cluster in memory) and
 * the replicas it holds there, each with its size and how far its log end
 * is behind the high watermark, as Kafka's ReplicaManager describes them.
 */
export const describeLogDirsHandler = defineHandler<DescribeLogDirsRequest, DescribeLogDirsResponse>({
  spec: DescribeLogDirs,
  minVersion: DescribeLogDirs.minVersion,
  maxVersion: DescribeLogDirs.maxVersion,
  handle(req, ctx) {
    requireCluster(ctx, AclOperationTypes.DESCRIBE)
    const { cluster, broker } = ctx
    const dir = cluster.brokerDir(broker.id)
    const wanted = req.topics && new Map(req.topics.map((t) => [t.topic, new Set(t.partitions)]))
    const topics = new Map<string, { partitionIndex: number; partitionSize: bigint; offsetLag: bigint; isFutureKey: boolean }[]>()
    for (const [key, replica] of broker.replicas) {
      const slash = key.lastIndexOf('/')
      const t = cluster.controller.topicsById.get(key.slice(0, slash))
      const partition = Number(key.slice(slash + 1))
      if (!t || (wanted && !wanted.get(t.name)?.has(partition))) continue
      const { log } = replica
      const list = topics.get(t.name) ?? []
      list.push({
        partitionIndex: partition,
        partitionSize: BigInt(log.sizeInBytes),
        offsetLag: BigInt(Math.max(0, log.highWatermark - log.logEndOffset)),
        isFutureKey: false,
      })
      topics.set(t.name, list)
    }
    let totalBytes = UNKNOWN_BYTES
    let usableBytes = UNKNOWN_BYTES
    if (dir) {
      const fs = statfsSync(dir, { bigint: true })
      totalBytes = fs.blocks * fs.bsize
      usableBytes = fs.bavail * fs.bsize
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCodes.NONE,
      results: [
        {
          errorCode: ErrorCodes.NONE,
          logDir: dir ?? `memory:broker-${broker.id}`,
          topics: [...topics].map(([name, partitions]) => ({
            name,
            partitions: partitions.sort((a, b) => a.partitionIndex - b.partitionIndex),
          })),
          totalBytes,
          usableBytes,
          isCordoned: false,
        },
      ],
    }
  },
  errorResponse: (_req, code) => ({ throttleTimeMs: 0, errorCode: code, results: [] }),
})
