// The global tables' stores at run time, as Java's GlobalStreamThread and
// GlobalStateManager: one consumer outside the group, assigned every
// partition of every global topic from the earliest offset. start()
// resolves once each partition is read up to the end offset it had when
// start() began (the bootstrap, before the application is RUNNING; a
// bootstrap that makes no progress for timeoutMs fails), and the consumer
// keeps following the topics after, so later updates reach the joins. A
// record with a null key is skipped, a null value deletes. The records go
// into the store as their bytes, as Java's global restore writes them.
import type { Admin } from '../admin/admin.js'
import type { Consumer } from '../consumer/consumer.js'
import { ConsumerEvents } from '../consumer/events.js'
import type { Kafka } from '../kafka.js'
import type { Logger } from '../logger.js'
import { InMemoryKeyValueStore } from './key-value-store.js'
import type { Serde } from './serdes.js'
import { StreamsError } from './streams-error.js'
import type { Topology } from './topology.js'

const LATEST = -1n
const EARLIEST = -2n

export class GlobalStores {
  private readonly stores = new Map<string, InMemoryKeyValueStore<unknown, unknown>>()
  private readonly byTopic = new Map<string, InMemoryKeyValueStore<unknown, unknown>>()
  private consumer: Consumer | undefined

  constructor(
    topology: Topology,
    serde: (kind: 'key' | 'value', given: Serde<any> | undefined, where: string) => Serde<any>,
    private readonly log: Logger,
  ) {
    for (const g of topology.globalStores.values()) {
      const where = `global store ${g.name}`
      // Never logged: the topic is the store's changelog.
      const store = new InMemoryKeyValueStore<unknown, unknown>(
        g.name,
        serde('key', g.keySerde, where),
        serde('value', g.valueSerde, where),
        g.topic,
        () => {},
      )
      this.stores.set(g.name, store)
      this.byTopic.set(g.topic, store)
    }
  }

  get(name: string): InMemoryKeyValueStore<unknown, unknown> | undefined {
    return this.stores.get(name)
  }

  /** Bootstraps every global store, then keeps them following their topics; `failed` hears of an error after start. */
  async start(kafka: Kafka, admin: Admin, timeoutMs: number, readCommitted: boolean, failed: (err: unknown) => void): Promise<void> {
    if (this.byTopic.size === 0) return
    const topics = [...this.byTopic.keys()]
    const existing = new Set(await admin.listTopics())
    const missing = topics.filter((t) => !existing.has(t))
    if (missing.length > 0) throw new StreamsError(`global table topics ${missing.join(', ')} do not exist: create them before start()`)
    const pending = new Map<string, bigint>()
    const assignment: Array<{ topic: string; partitions: number[] }> = []
    for (const t of (await admin.fetchTopicMetadata({ topics })).topics) {
      const partitions = t.partitions.map((p) => p.partitionId).sort((a, b) => a - b)
      assignment.push({ topic: t.name, partitions })
      const [end, start] = await Promise.all([
        admin.listOffsets(t.name, partitions, LATEST, readCommitted ? 1 : 0),
        admin.listOffsets(t.name, partitions, EARLIEST),
      ])
      for (const p of partitions) if (end.get(p)! > start.get(p)!) pending.set(`${t.name}\0${p}`, end.get(p)!)
    }
    let bootstrapped!: () => void
    let stall!: (err: Error) => void
    const done = new Promise<void>((resolve, reject) => ((bootstrapped = resolve), (stall = reject)))
    let timer: ReturnType<typeof setTimeout> | undefined
    const progress = () => {
      clearTimeout(timer)
      if (pending.size === 0) return bootstrapped()
      const waiting = () => [...pending.keys()].map((k) => k.replace('\0', '-')).join(', ')
      timer = setTimeout(
        () => stall(new StreamsError(`bootstrapping the global stores from ${waiting()} made no progress for ${timeoutMs} ms`)),
        timeoutMs,
      )
    }
    const reached = (topic: string, partition: number, position: bigint) => {
      const key = `${topic}\0${partition}`
      const end = pending.get(key)
      if (end !== undefined && position >= end && pending.delete(key)) progress()
    }
    const consumer = (this.consumer = kafka.consumer({
      autoOffsetReset: 'earliest',
      isolationLevel: readCommitted ? 'read_committed' : 'read_uncommitted',
    }))
    consumer.on(ConsumerEvents.CRASH, ({ payload }) => {
      if (!payload.restart) failed(payload.error)
    })
    // A topic ending in transaction markers is read past them without a batch: the position says.
    const positions = setInterval(() => {
      for (const s of consumer.statistics().partitions) if (s.position !== null) reached(s.topic, s.partition, BigInt(s.position))
    }, 50)
    try {
      await consumer.connect()
      consumer.assign(assignment)
      await consumer.run({
        eachBatch: async ({ batch }) => {
          const store = this.byTopic.get(batch.topic)!
          for (const m of batch.messages) if (m.key !== null) store.restore(m.key, m.value, m.timestampMs)
          if (pending.size > 0) progress()
          reached(batch.topic, batch.partition, BigInt(batch.lastOffset()) + 1n)
        },
      })
      progress()
      await done
    } catch (err) {
      await this.stop()
      throw err
    } finally {
      clearTimeout(timer)
      clearInterval(positions)
    }
    this.log.info('global stores bootstrapped', { stores: [...this.stores.keys()], topics })
  }

  async stop(): Promise<void> {
    const consumer = this.consumer
    this.consumer = undefined
    await consumer?.disconnect()
  }
}
