import { ErrorCodes } from '../protocol/error-codes.js'
import type { VirtualBroker } from './broker.js'
import type { EmbeddedCluster } from './cluster.js'
import type { PartitionImage, TopicImage } from './controller.js'
import type { PartitionLog } from './partition-log.js'

/** An append waiting for the ISR to hold it (acks=all). */
export interface IsrWait {
  t: TopicImage
  p: PartitionImage
  log: PartitionLog
  /** The high watermark that covers the append: its last offset + 1. */
  end: number
  minIsr: number
}

/**
 * acks=all, as Kafka's DelayedProduce: NONE when the high watermark passes
 * the append (the whole ISR has it), REQUEST_TIMED_OUT at the deadline,
 * NOT_LEADER_OR_FOLLOWER when leadership moves on first (or the broker
 * stops), and NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR that took it
 * shrank below min.insync.replicas. Produce and the group coordinator's
 * writes to __consumer_offsets both wait here.
 */
export function awaitIsr(broker: VirtualBroker, cluster: EmbeddedCluster, w: IsrWait, deadline: number): Promise<number> {
  return new Promise((resolve) => {
    let cancel = () => {}
    let timer: NodeJS.Timeout | undefined
    const finish = (code: number) => {
      cancel()
      clearTimeout(timer)
      broker.waits.delete(onStop)
      resolve(code)
    }
    const onStop = () => finish(ErrorCodes.NOT_LEADER_OR_FOLLOWER)
    const check = () => {
      const p = cluster.controller.topicsById.get(w.t.id)?.partitions[w.p.partition]
      if (!p || p.leader !== broker.id || p.leaderEpoch !== w.p.leaderEpoch || !broker.running)
        return finish(ErrorCodes.NOT_LEADER_OR_FOLLOWER)
      if (w.log.highWatermark >= w.end)
        return finish(p.isr.length < w.minIsr ? ErrorCodes.NOT_ENOUGH_REPLICAS_AFTER_APPEND : ErrorCodes.NONE)
      if (Date.now() >= deadline) return finish(ErrorCodes.REQUEST_TIMED_OUT)
      cancel = w.log.onHighWatermark(check)
    }
    broker.waits.add(onStop)
    timer = setTimeout(() => finish(ErrorCodes.REQUEST_TIMED_OUT), Math.max(0, deadline - Date.now()))
    check()
  })
}
