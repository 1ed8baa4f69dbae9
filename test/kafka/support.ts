// Shared by the real-Kafka tests: wafka clients on a rig cluster, and reading
// a topic back with wafka itself.
import { Kafka, type KafkaConfig } from '../../src/index.js'

export function wafka(cluster: { bootstrap: string }, config: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({ clientId: 'wafka-real-kafka-test', brokers: cluster.bootstrap.split(','), retryBackoffMs: 100, ...config })
}

export interface ReadRecord {
  partition: number
  offset: bigint
  key: Buffer | null
  value: Buffer | null
  /** The record's timestamp (ms). */
  timestamp: number
  headers: Array<[string, Buffer | null]>
  attributes: number
}

/**
 * Reads `count` records of `topic` (all partitions, from the beginning) with
 * a group-less wafka consumer; `'end'`: every record below the end offsets
 * found first, however many compaction left (the consumer's fetch position
 * passes the gaps and transaction markers a count would wait on).
 */
export async function wafkaRead(
  kafka: Kafka,
  topic: string,
  count: number | 'end',
  options: { partitions?: number[]; timeoutMs?: number; isolationLevel?: 'read_committed' | 'read_uncommitted' } = {},
): Promise<ReadRecord[]> {
  const admin = kafka.admin()
  await admin.connect()
  const [meta, ends] = await Promise.all([
    admin.fetchTopicMetadata({ topics: [topic] }),
    count === 'end' ? admin.fetchTopicOffsets(topic) : [],
  ]).finally(() => admin.disconnect())
  const partitions = options.partitions ?? meta.topics[0].partitions.map((p: { partitionId: number }) => p.partitionId)
  const endOf = new Map(ends.map((e: { partition: number; high: string }) => [e.partition, BigInt(e.high)]))
  const consumer = kafka.consumer({
    autoOffsetReset: 'earliest',
    maxWaitTimeInMs: 200,
    ...(options.isolationLevel ? { isolationLevel: options.isolationLevel } : {}),
  })
  const out: ReadRecord[] = []
  await consumer.connect()
  try {
    consumer.assign([{ topic, partitions }])
    let done!: () => void
    let lastDelivery = 0
    const finished = new Promise<void>((r) => (done = r))
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        out.push({
          partition,
          offset: message.offsetBigInt,
          key: message.key,
          value: message.value,
          timestamp: message.timestampMs,
          headers: [...message.headerList],
          attributes: message.attributes,
        })
        lastDelivery = Date.now()
        if (count !== 'end' && out.length >= count) done()
      },
    })
    // Read to the end: each partition fetched past its end offset, nothing fetched left undelivered (none for 100 ms).
    const atEnd = () =>
      Date.now() - lastDelivery > 100 &&
      consumer.statistics().partitions.every((p) => {
        const end = endOf.get(p.partition) ?? 0n
        return (end === 0n || BigInt(p.fetchPosition ?? -1) >= end) && p.queued === 0
      })
    const poll = count === 'end' ? setInterval(() => atEnd() && done(), 50) : undefined
    const timeoutMs = options.timeoutMs ?? 30_000
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([
      finished,
      new Promise<void>(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`read ${out.length} of ${count} records of ${topic} in ${timeoutMs} ms`)), timeoutMs)),
      ),
    ]).finally(() => {
      clearTimeout(timer)
      clearInterval(poll)
    })
  } finally {
    await consumer.disconnect()
  }
  return out.sort((a, b) => a.partition - b.partition || Number(a.offset - b.offset))
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The shared bounded wait: `until(what, probe, ok, timeoutMs)` returns the probe's value once `ok` holds of it. */
export { until } from '../support/until.js'
