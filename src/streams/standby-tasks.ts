// The standby and warm-up tasks of this instance under the streams protocol
// (Java's StandbyTask, updated by the state updater's StoreChangelogReader in
// its standby mode): each keeps a copy of its task's stores by reading their
// changelogs on and on, with one consumer outside the group (read_committed
// under exactly_once_v2), processing nothing and writing nothing. Their
// stores and checkpoints live in stateDir as an active task's do
// (state-manager.ts), so a restart starts past what they held. A task that
// becomes active here is handed over, stores and offsets, to the active task,
// which restores only the tail the standby had not read (Java recycles the
// StandbyTask into a StreamTask). Java sends no difference between a standby
// and a warm-up task to the tasks themselves: both are kept the same way.
import type { Admin } from '../admin/admin.js'
import type { Consumer } from '../consumer/consumer.js'
import type { Kafka } from '../kafka.js'
import type { Logger } from '../logger.js'
import { createTaskStores, type TaskStores } from './task-stores.js'
import type { TaskEnvironment } from './stream-task.js'
import type { Topology, Subtopology } from './topology.js'

/** Java's Long.MAX_VALUE: an end offset not known yet (the heartbeat's taskEndOffsets say so). */
export const UNKNOWN_END = 2n ** 63n - 1n

interface Standby extends TaskStores {
  /** The next offset to apply, per changelog partition (`topic\0partition`), and its store. */
  readonly changelogs: Map<string, { store: string; next: bigint }>
}

const keyOf = (topic: string, partition: number) => `${topic}\0${partition}`

export class StandbyTasks {
  private readonly tasks = new Map<string, Standby>()
  /** Standbys whose task became active here, waiting for the active task to take their stores. */
  private readonly handedOver = new Map<string, Standby>()
  /** The changelog partition read, to its task. */
  private readonly readers = new Map<string, Standby>()
  private consumer: Consumer | undefined
  private running = false
  private closed = false

  constructor(
    private readonly kafka: Kafka,
    private readonly topology: Topology,
    private readonly env: TaskEnvironment,
    private readonly log: Logger,
    /** A standby task closed, with its persistent stores' offsets summed (what this instance keeps of it on disk). */
    private readonly onClosed: (id: string, persistentSum: bigint | undefined) => void = () => {},
  ) {}

  /** The standby and warm-up task ids kept now. */
  ids(): string[] {
    return [...this.tasks.keys()]
  }

  /**
   * Keeps exactly `ids` as standby tasks: new ones are opened and read from
   * past what their stores hold; gone ones are closed with a checkpoint,
   * except those in `activating`, kept for the active task to take (take()).
   */
  async update(ids: readonly string[], activating: ReadonlySet<string>, admin: Admin): Promise<void> {
    if (this.closed) return
    const wanted = new Set(ids)
    for (const [id, task] of [...this.tasks]) {
      if (wanted.has(id)) continue
      this.tasks.delete(id)
      if (activating.has(id)) this.handedOver.set(id, task)
      else this.closeTask(id, task, true)
    }
    // Handed over but not taken, and no longer to be active here: closed.
    for (const [id, task] of [...this.handedOver])
      if (!activating.has(id) || wanted.has(id)) {
        this.handedOver.delete(id)
        if (wanted.has(id)) this.tasks.set(id, task)
        else this.closeTask(id, task, true)
      }
    for (const id of ids) {
      if (this.tasks.has(id)) continue
      const sub = this.subtopology(id)
      // A stateless task has nothing to keep: Java makes no standby task for it either.
      if (!sub || sub.stores.length === 0) continue
      const partition = Number(id.slice(id.lastIndexOf('_') + 1))
      const stores = createTaskStores(this.topology, sub, partition, this.env)
      let starts: Awaited<ReturnType<typeof stores.state.openStandby>>
      try {
        starts = await stores.state.openStandby(admin)
      } catch (err) {
        stores.state.close(false, () => undefined)
        this.log.warn('a standby task could not open its stores: it is not kept', { task: id, error: (err as Error).message })
        continue
      }
      const task: Standby = {
        ...stores,
        changelogs: new Map(starts.map((s) => [keyOf(s.topic, s.partition), { store: s.store, next: s.from }])),
      }
      this.tasks.set(id, task)
      this.log.info(`standby task ${id} updating its stores from their changelogs`, {
        task: id,
        from: starts.map((s) => `${s.topic}-${s.partition}@${s.from}`),
      })
    }
    await this.read()
  }

  /** The stores named `name` of the standby tasks (Java's stale stores, queried with enableStaleStores). */
  stores(name: string): unknown[] {
    return [...this.tasks.values()].map((t) => t.stores.get(name)).filter((s) => s !== undefined)
  }

  /** The stores of standby task `id` that became active here (Java's recycling), if it was one. */
  take(id: string): TaskStores | undefined {
    const task = this.handedOver.get(id)
    if (task) this.handedOver.delete(id)
    return task
  }

  /** Java's task offset sums of the standby tasks: the next offset of each store's changelog, summed. */
  offsetSums(): Map<string, bigint> {
    const out = new Map<string, bigint>()
    for (const [id, t] of this.tasks) {
      const sum = t.state.offsetSum(false)
      if (sum !== undefined) out.set(id, sum)
    }
    return out
  }

  /** Java's task end offset sums of the standby tasks: their changelogs' end offsets summed (UNKNOWN_END while one is not known). */
  endOffsetSums(): Map<string, bigint> {
    const ends = new Map<string, bigint>()
    for (const p of this.consumer?.statistics().partitions ?? [])
      if (p.highWatermark !== null) ends.set(keyOf(p.topic, p.partition), BigInt(p.highWatermark))
    const out = new Map<string, bigint>()
    for (const [id, t] of this.tasks) {
      let sum = 0n
      for (const key of t.changelogs.keys()) {
        const end = ends.get(key)
        if (end === undefined) {
          sum = UNKNOWN_END
          break
        }
        sum += end
      }
      out.set(id, sum)
    }
    return out
  }

  /** at_least_once's checkpoint once enough changed (exactly_once_v2: compaction only), as for active tasks. */
  checkpoint(exactlyOnce: boolean): void {
    for (const t of this.tasks.values()) exactlyOnce ? t.state.compact() : t.state.checkpoint(() => undefined)
  }

  /** Stops reading and closes every standby task, each with its checkpoint. */
  async close(): Promise<void> {
    this.closed = true
    await this.consumer?.disconnect().catch(this.log.caught("stopping the standby tasks' consumer failed", 'warn'))
    this.consumer = undefined
    for (const [id, t] of [...this.tasks, ...this.handedOver]) this.closeTask(id, t, true)
    this.tasks.clear()
    this.handedOver.clear()
  }

  private subtopology(id: string): Subtopology | undefined {
    const sub = id.slice(0, id.lastIndexOf('_'))
    return this.topology.subtopologies().find((s) => String(s.id) === sub)
  }

  private closeTask(id: string, task: Standby, clean: boolean): void {
    try {
      task.state.close(clean, () => undefined)
      this.onClosed(id, task.state.offsetSum(true))
      this.log.info(`standby task ${id} closed`, { task: id })
    } catch (err) {
      this.log.error("closing a standby task's stores failed", { task: id, error: (err as Error).message })
    }
  }

  /** Points the consumer at every standby changelog partition, each new one from its start. */
  private async read(): Promise<void> {
    const before = new Set(this.readers.keys())
    this.readers.clear()
    for (const t of this.tasks.values()) for (const key of t.changelogs.keys()) this.readers.set(key, t)
    const byTopic = new Map<string, number[]>()
    for (const key of this.readers.keys()) {
      const [topic, partition] = key.split('\0') as [string, string]
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), Number(partition)])
    }
    if (!this.consumer) {
      if (this.readers.size === 0) return
      this.consumer = this.kafka.consumer({
        autoOffsetReset: 'earliest',
        isolationLevel: this.env.exactlyOnce ? 'read_committed' : 'read_uncommitted',
        allowAutoTopicCreation: false,
      })
      await this.consumer.connect()
    }
    const consumer = this.consumer
    consumer.assign([...byTopic].map(([topic, partitions]) => ({ topic, partitions })))
    for (const [key, t] of this.readers)
      if (!before.has(key)) {
        const [topic, partition] = key.split('\0') as [string, string]
        consumer.seek({ topic, partition: Number(partition), offset: t.changelogs.get(key)!.next })
      }
    if (!this.running) {
      this.running = true
      await consumer.run({ eachBatch: async ({ batch }) => this.apply(batch.topic, batch.partition, batch.messages) })
    }
  }

  private apply(
    topic: string,
    partition: number,
    messages: ReadonlyArray<{
      offsetBigInt: bigint
      key: Buffer | null
      value: Buffer | null
      timestampMs: number
      headerList: Array<[string, Buffer | null]>
    }>,
  ): void {
    const key = keyOf(topic, partition)
    const task = this.readers.get(key)
    const at = task?.changelogs.get(key)
    if (!task || !at) return
    for (const m of messages) {
      // A record before the position asked for (a batch fetched before a seek) is not applied twice.
      if (m.offsetBigInt < at.next) continue
      task.state.update(at.store, m.offsetBigInt, m.key!, m.value, m.timestampMs, m.headerList)
      at.next = m.offsetBigInt + 1n
    }
  }
}
