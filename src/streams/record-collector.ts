// The records a task's processing produced (sinks, repartition topics,
// changelogs), held until flush() sends them and the brokers acknowledge them:
// only then are the input offsets that led to them marked processed
// (at_least_once: a commit never runs ahead of its output). Under
// exactly_once_v2 they go into the open transaction (StreamsProducer).
import type { Message, RecordMetadata, SendBatch } from '../producer/producer.js'
import { DefaultPartitioner, murmur2Partition, type Partitioner } from '../producer/partitioners/index.js'

/** Where held records go: a producer, or a StreamsProducer's transaction. */
export interface RecordSink {
  sendBatch(batch: SendBatch): Promise<RecordMetadata[] | void>
}

/** A record's partition: a fixed one, or murmur2 of these bytes instead of its key's (a windowed key's inner key). */
export type Placement = number | { by: Buffer }

export class RecordCollector {
  private pending = new Map<string, Message[]>()
  private count = 0
  /** The offset of the last record acknowledged per partition sent to by number (changelogs): what a checkpoint names. */
  private readonly acked = new Map<string, bigint>()
  /** The bytes a record is partitioned by, when not its key's. */
  private static readonly partitionBy = new WeakMap<object, Buffer>()

  constructor(private readonly producer: RecordSink) {}

  /**
   * The streams producer's partitioner: Java's default, except for a record
   * placed by other bytes than its key's (Java's WindowedStreamPartitioner:
   * murmur2 of the inner key, the window left out).
   */
  static partitioner(): Partitioner {
    const fallback = new DefaultPartitioner()
    return {
      partition: (topic, key, count, available, message, info) => {
        const by = message && RecordCollector.partitionBy.get(message)
        return by ? murmur2Partition(by, count) : fallback.partition(topic, key, count, available, message, info)
      },
      onBatchFull: (topic, partition) => fallback.onBatchFull(topic, partition),
    }
  }

  send(
    topic: string,
    key: Buffer | null,
    value: Buffer | null,
    timestamp: number,
    placement?: Placement,
    headers?: Array<[string, Buffer]>,
  ): void {
    let list = this.pending.get(topic)
    if (!list) this.pending.set(topic, (list = []))
    const message: Message = typeof placement === 'number' ? { key, value, timestamp, partition: placement } : { key, value, timestamp }
    if (headers) message.headers = headers
    if (typeof placement === 'object') RecordCollector.partitionBy.set(message, placement.by)
    list.push(message)
    this.count++
  }

  /** Sends what is held; resolves once every record is acknowledged. */
  async flush(): Promise<void> {
    if (this.count === 0) return
    const topicMessages = [...this.pending].map(([topic, messages]) => ({ topic, messages }))
    this.pending = new Map()
    this.count = 0
    const sent = new Map<string, number>()
    for (const { topic, messages } of topicMessages)
      for (const m of messages)
        if (m.partition !== undefined) sent.set(`${topic}\0${m.partition}`, (sent.get(`${topic}\0${m.partition}`) ?? 0) + 1)
    const results = await this.producer.sendBatch({ topicMessages })
    // A send's result gives each partition's first offset; its records there follow it in order.
    for (const r of results ?? []) {
      const key = `${r.topicName}\0${r.partition}`
      const n = sent.get(key)
      if (n !== undefined && BigInt(r.baseOffset) >= 0n) this.acked.set(key, BigInt(r.baseOffset) + BigInt(n - 1))
    }
  }

  /** The offset of the last record of `topic`-`partition` acknowledged (sent with that partition given), if any. */
  ackedOffset(topic: string, partition: number): bigint | undefined {
    return this.acked.get(`${topic}\0${partition}`)
  }
}
