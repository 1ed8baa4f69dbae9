// What decoding a large Metadata response costs in memory, against its size
// (issue 9: maxResponseBytes should bound memory; a legal 26 MB answer for
// 1,000,000 partitions cost +466 MB of heap). Encodes one with wafka's
// codecs, then decodes it as the client does (frame decode, then the
// metadata cache), measuring heap and RSS growth with the garbage collector
// run around it:
//   npm run build   (bundles it into dist/bench/)
//   node --expose-gc dist/bench/metadata-memory.js [partitions]
// Measured (1,000,000 partitions, 40 MB, 2 busy cores): decode 2.0 s and
// +468 MB heap (11.7x) before arrays were allocated at their size; after,
// 0.8 s and +254 MB (6.3x); with the metadata cache +338 MB (8.4x).
import { Buffer } from 'node:buffer'
import { MetadataCache } from '../src/cluster/metadata.js'
import { decodeResponseFrame } from '../src/net/wire.js'
import { encodeResponseHeader } from '../src/protocol/header.js'
import { Metadata } from '../src/protocol/messages/index.js'
import { Writer } from '../src/protocol/writer.js'

const partitions = Number(process.argv[2] ?? 1_000_000)
const VERSION = 12
const perTopic = 1000
const topics = Math.ceil(partitions / perTopic)

function frame(): Buffer {
  const w = new Writer(64 * 1024 * 1024)
  encodeResponseHeader(w, 1, { correlationId: 1 })
  Metadata.encodeResponse(w, VERSION, {
    brokers: [1, 2, 3].map((id) => ({ nodeId: id, host: `broker-${id}.example`, port: 9092, rack: null })),
    clusterId: 'bench',
    controllerId: 1,
    topics: Array.from({ length: topics }, (_, t) => ({
      errorCode: 0,
      name: `topic-${t}`,
      topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
      partitions: Array.from({ length: perTopic }, (_, p) => ({
        partitionIndex: p,
        leaderId: (p % 3) + 1,
        leaderEpoch: 7,
        replicaNodes: [1, 2, 3],
        isrNodes: [1, 2, 3],
        offlineReplicas: [],
      })),
    })),
  })
  return Buffer.from(w.finish())
}

const gc = (globalThis as any).gc as (() => void) | undefined
if (!gc) throw new Error('run with node --expose-gc')
const bytes = frame()
gc()
gc()
const before = process.memoryUsage()
const t0 = performance.now()
const res = decodeResponseFrame(Metadata, VERSION, bytes) as any
const decodedMs = performance.now() - t0
gc()
const afterDecode = process.memoryUsage()
const cache = new MetadataCache()
cache.apply(res, true)
gc()
const afterCache = process.memoryUsage()
const mb = (n: number) => (n / 1024 / 1024).toFixed(1)
console.log(`Metadata v${VERSION}, ${partitions} partitions in ${topics} topics: ${mb(bytes.length)} MB on the wire`)
console.log(
  `decode: ${decodedMs.toFixed(0)} ms, +${mb(afterDecode.heapUsed - before.heapUsed)} MB heap retained (${((afterDecode.heapUsed - before.heapUsed) / bytes.length).toFixed(1)}x the response)`,
)
console.log(
  `decode + cache: +${mb(afterCache.heapUsed - before.heapUsed)} MB heap retained (${((afterCache.heapUsed - before.heapUsed) / bytes.length).toFixed(1)}x), rss +${mb(afterCache.rss - before.rss)} MB`,
)
// Keep both alive until measured.
if (cache.topics.size !== topics || res.topics.length !== topics) throw new Error('lost topics')
