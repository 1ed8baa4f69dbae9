import { decodeRecordSet, type RecordBatch } from '../../src/codec/index.js'
import { Cluster } from '../../src/cluster/cluster.js'
import { Fetch } from '../../src/protocol/messages/index.js'

/**
 * Reads a partition's raw batches with a plain Fetch (no consumer yet), to
 * judge what a producer wrote the way a broker would: by batch (producer id,
 * epoch, base sequence), which kcat cannot show.
 */
export async function readBatches(bootstrap: string, topic: string, partition: number): Promise<RecordBatch[]> {
  const cluster = new Cluster({ brokers: bootstrap.split(',') })
  try {
    await cluster.connect()
    const leader = await cluster.leaderFor(topic, partition)
    const out: RecordBatch[] = []
    let offset = 0n
    for (;;) {
      const res = await cluster.send(leader, Fetch, (v) => ({
        ...(v <= 14 ? { replicaId: -1 } : {}),
        maxWaitMs: 0,
        minBytes: 0,
        topics: [{ ...(v >= 13 ? { topicId: cluster.metadata.topics.get(topic)!.topicId } : { topic }), partitions: [{ partition, fetchOffset: offset, partitionMaxBytes: 4 << 20 }] }],
      }))
      const p = res.responses[0].partitions[0]
      if (p.errorCode !== 0) throw new Error(`fetch ${topic}-${partition} at ${offset}: error ${p.errorCode}`)
      if (!p.records || p.records.length === 0) return out
      const { batches } = decodeRecordSet(p.records)
      if (batches.length === 0) return out
      for (const b of batches) if (b.lastOffset >= offset) out.push(b)
      offset = batches[batches.length - 1].lastOffset + 1n
      if (offset >= p.highWatermark) return out
    }
  } finally {
    await cluster.disconnect()
  }
}
