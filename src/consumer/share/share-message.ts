import type { RecordBatch } from '../../codec/record.js'
import { KafkaMessage } from '../message.js'

/**
 * A record a share consumer acquired: a KafkaMessage with where it is from
 * and how many times it has been delivered (1 the first time; a released
 * record, or one whose lock expired, comes back with one more).
 */
export class ShareMessage extends KafkaMessage {
  constructor(
    batch: RecordBatch,
    i: number,
    readonly topic: string,
    readonly partition: number,
    readonly deliveryCount: number,
    /** The broker whose share session acquired it: its acknowledgement goes there. */
    readonly nodeId: number,
  ) {
    super(batch, i)
  }

  toJSON(): object {
    return { ...super.toJSON(), topic: this.topic, partition: this.partition, deliveryCount: this.deliveryCount }
  }
}

/** One partition's acquired records of one fetch, handed to user code as a batch. */
export interface ShareDelivery {
  topic: string
  partition: number
  messages: ShareMessage[]
}
