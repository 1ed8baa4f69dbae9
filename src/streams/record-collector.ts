// The records a task's processing produced (sinks, repartition topics,
// changelogs), held until flush() sends them and the brokers acknowledge them:
// only then are the input offsets that led to them marked processed
// (at_least_once: a commit never runs ahead of its output). Under
// exactly_once_v2 they go into the open transaction (StreamsProducer).
import type { Message, SendBatch } from '../producer/producer.js'

/** Where held records go: a producer, or a StreamsProducer's transaction. */
export interface RecordSink {
  sendBatch(batch: SendBatch): Promise<unknown>
}

export class RecordCollector {
  private pending = new Map<string, Message[]>()
  private count = 0

  constructor(private readonly producer: RecordSink) {}

  send(topic: string, key: Buffer | null, value: Buffer | null, timestamp: number, partition?: number): void {
    let list = this.pending.get(topic)
    if (!list) this.pending.set(topic, (list = []))
    list.push(partition === undefined ? { key, value, timestamp } : { key, value, timestamp, partition })
    this.count++
  }

  /** Sends what is held; resolves once every record is acknowledged. */
  async flush(): Promise<void> {
    if (this.count === 0) return
    const topicMessages = [...this.pending].map(([topic, messages]) => ({ topic, messages }))
    this.pending = new Map()
    this.count = 0
    await this.producer.sendBatch({ topicMessages })
  }
}
