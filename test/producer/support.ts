import { crc32c, decodeRecordSet, loadCodecs, type RecordBatch } from '../../src/codec/index.js'
import { Cluster } from '../../src/cluster/cluster.js'
import { Fetch } from '../../src/protocol/messages/index.js'

/**
 * Reads a partition's raw batches with a plain Fetch (no consumer yet), to
 * judge what a producer wrote the way a broker would: by batch (producer id,
 * epoch, base sequence), which kcat cannot show.
 */
export async function readBatches(bootstrap: string, topic: string, partition: number): Promise<RecordBatch[]> {
  // The producer under test may be the built package, with codecs of its own.
  await loadCodecs()
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
        topics: [
          {
            ...(v >= 13 ? { topicId: cluster.metadata.topics.get(topic)!.topicId } : { topic }),
            partitions: [{ partition, fetchOffset: offset, partitionMaxBytes: 4 << 20 }],
          },
        ],
      }))
      const p = res.responses[0].partitions[0]
      if (p.errorCode !== 0) throw new Error(`fetch ${topic}-${partition} at ${offset}: error ${p.errorCode}`)
      if (!p.records || p.records.length === 0) return out
      checkDataCrcs(p.records)
      const { batches } = decodeRecordSet(p.records, { verifyCrc: false })
      if (batches.length === 0) return out
      for (const b of batches) if (b.lastOffset >= offset) out.push(b)
      offset = batches[batches.length - 1].lastOffset + 1n
      if (offset >= p.highWatermark) return out
    }
  } finally {
    await cluster.disconnect()
  }
}

/**
 * Checks the CRC of every data batch (what producers wrote). librdkafka
 * 2.15's mock writes its transaction markers with a CRC that does not match
 * (its consumers do not check CRCs by default), so control batches are
 * not held to it.
 */
function checkDataCrcs(records: Buffer): void {
  for (let pos = 0; pos + 61 <= records.length;) {
    const size = 12 + records.readInt32BE(pos + 8)
    if (pos + size > records.length) return
    const batch = records.subarray(pos, pos + size)
    const control = (batch.readInt16BE(21) & 32) !== 0
    if (batch[16] === 2 && !control && batch.readUInt32BE(17) !== crc32c(batch.subarray(21))) {
      throw new Error(`data batch at offset ${batch.readBigInt64BE(0)} has a bad CRC`)
    }
    pos += size
  }
}
