// What the consumer tests against real Kafka share: filling a topic with
// wafka's producer, running group members that record what they read and
// own, and checking that no partition was ever owned by two members at once.
import { type Consumer, Kafka, type KafkaMessage } from '../../src/index.js'
import type { ConsumerConfig } from '../../src/consumer/config.js'
import { untilTrue as until } from '../support/until.js'

/** The shared bounded wait, in its boolean form: `until(done, timeoutMs, what)`. */
export { until }

/** Sends `count` messages (key k<i>, value <prefix><i>) to `topic`; resolves when all are acknowledged. */
export async function produce(
  bootstrap: string,
  topic: string,
  count: number,
  prefix = 'v',
  options: { partition?: number; from?: number } = {},
): Promise<void> {
  const producer = new Kafka({ clientId: 'fill', brokers: bootstrap.split(',') }).producer({ lingerMs: 5 })
  await producer.connect()
  try {
    const from = options.from ?? 0
    for (let i = from; i < from + count; i += 1000) {
      const messages = []
      for (let j = i; j < Math.min(from + count, i + 1000); j++)
        messages.push({
          key: `k${j}`,
          value: `${prefix}${j}`,
          ...(options.partition !== undefined ? { partition: options.partition } : {}),
        })
      await producer.send({ topic, messages })
    }
  } finally {
    await producer.disconnect()
  }
}

export interface Read {
  by: string
  topic: string
  partition: number
  offset: bigint
  value: string
}

/**
 * Who owns which partition, from every member's assignment and revocation
 * events, in the order they happen (all members run in this process): a
 * partition assigned to one member while another still holds it is a
 * violation.
 */
export class Ownership {
  readonly owner = new Map<string, string>()
  readonly violations: string[] = []
  readonly log: string[] = []

  watch(name: string, consumer: Consumer): void {
    consumer.on(consumer.events.PARTITIONS_ASSIGNED, (e) => {
      for (const t of e.payload.partitions as Array<{ topic: string; partitions: number[] }>) {
        for (const p of t.partitions) {
          const k = `${t.topic}-${p}`
          const held = this.owner.get(k)
          if (held !== undefined && held !== name) this.violations.push(`${k} assigned to ${name} while ${held} holds it`)
          this.owner.set(k, name)
          this.log.push(`${name} +${k}`)
        }
      }
    })
    consumer.on(consumer.events.PARTITIONS_REVOKED, (e) => {
      for (const t of e.payload.partitions as Array<{ topic: string; partitions: number[] }>) {
        for (const p of t.partitions) {
          const k = `${t.topic}-${p}`
          if (this.owner.get(k) === name) this.owner.delete(k)
          this.log.push(`${name} -${k}`)
        }
      }
    })
  }

  /** A member that is gone (disconnected or killed) no longer holds anything. */
  forget(name: string): void {
    for (const [k, v] of this.owner) if (v === name) this.owner.delete(k)
  }
}

export interface Member {
  name: string
  consumer: Consumer
  reads: Read[]
}

/** Starts a member: connect, subscribe from the beginning, run eachMessage recording every read. */
export async function startMember(
  bootstrap: string,
  name: string,
  config: ConsumerConfig,
  subscription: { topics: Array<string | RegExp> },
  sink: { reads: Read[]; ownership?: Ownership },
): Promise<Member> {
  const consumer = new Kafka({ clientId: name, brokers: bootstrap.split(','), retryBackoffMs: 100 }).consumer({
    maxWaitTimeInMs: 200,
    ...config,
  })
  sink.ownership?.watch(name, consumer)
  await consumer.connect()
  await consumer.subscribe({ topics: subscription.topics, fromBeginning: true })
  const reads: Read[] = []
  await consumer.run({
    eachMessage: async ({ topic, partition, message }: { topic: string; partition: number; message: KafkaMessage }) => {
      const r = { by: name, topic, partition, offset: message.offsetBigInt, value: message.value!.toString() }
      reads.push(r)
      sink.reads.push(r)
    },
  })
  return { name, consumer, reads }
}

export const partitionsOf = (c: Consumer) =>
  c
    .assignmentList()
    .map((p) => `${p.topic}-${p.partition}`)
    .sort()

/** Every value in `reads`, checked to appear once each: duplicates are listed. */
export function duplicates(reads: Read[]): string[] {
  const seen = new Set<string>()
  const dup: string[] = []
  for (const r of reads) {
    const k = `${r.topic}/${r.value}`
    if (seen.has(k)) dup.push(`${k} (again by ${r.by})`)
    seen.add(k)
  }
  return dup
}

/** How many different values `reads` holds (by `key`: the value, unless said). */
export function distinct(reads: Read[], key: (r: Read) => string = (r) => r.value): number {
  return new Set(reads.map(key)).size
}

/**
 * One group's run in a test: its members share one record of reads and of
 * ownership, are registered for the suite's afterEach to disconnect, and
 * every wait is bounded and says what it waited for.
 */
export class GroupRun {
  readonly reads: Read[] = []
  readonly ownership = new Ownership()

  constructor(
    private readonly bootstrap: string,
    private readonly registry: Member[],
  ) {}

  async join(name: string, config: ConsumerConfig, topics: Array<string | RegExp>): Promise<Member> {
    const member = await startMember(this.bootstrap, name, config, { topics }, this)
    this.registry.push(member)
    return member
  }

  /** Disconnects a member: it leaves the group (unless `leaveGroup` is false) and holds nothing any more. */
  async leave(member: Member, options?: { leaveGroup?: boolean }): Promise<void> {
    await member.consumer.disconnect(options)
    this.registry.splice(this.registry.indexOf(member), 1)
    this.ownership.forget(member.name)
  }

  /** Waits until the members' assignments are as `settled` says. */
  settled(settled: () => boolean, timeoutMs = 20_000, what = () => this.ownership.log.join(', ')): Promise<void> {
    return until(settled, timeoutMs, what)
  }

  /** What breaks exactly-once: a partition owned by two members at once, a value read twice, or not `count` values read. */
  exactlyOnceProblems(count: number, key?: (r: Read) => string): string[] {
    const problems = [...this.ownership.violations, ...duplicates(this.reads)]
    const read = distinct(this.reads, key)
    if (read !== count) problems.push(`${read} different values read, not ${count}`)
    return problems
  }

  /** Waits until the members have read at least `count` messages between them. */
  readAtLeast(count: number, timeoutMs = 20_000): Promise<void> {
    return until(
      () => this.reads.length >= count,
      timeoutMs,
      () => `read ${this.reads.length} of ${count}`,
    )
  }
}
