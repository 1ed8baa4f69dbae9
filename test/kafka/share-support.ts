// What the share-group (KIP-932) tests have in common: a broker serving share
// groups with an admin client and share consumers closed after each test, a
// group set to read from the start, members reading what they are handed,
// and the member that leaves records in every state (accepted, rejected,
// released, held) for the leader-change and restart tests.
import { afterAll, afterEach, beforeAll } from 'vitest'
import { type Admin, ConfigResourceTypes, Kafka, type ShareConsumer, type ShareConsumerConfig, type ShareMessage } from '../../src/index.js'
import { until } from './consumer-support.js'

/** A broker serving share groups: its bootstrap, and how it stops. */
export interface ShareTarget {
  bootstrap: string
  stop(): Promise<void>
}

/** A record as a member was handed it. */
export interface Delivery {
  value: string
  deliveryCount: number
}

export const text = (m: ShareMessage) => m.value!.toString()
/** The values `produce` writes from `from` to `to` (exclusive): v<from>, ... */
export const values = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `v${from + i}`)
export const sorted = (l: string[]) => [...l].sort()

/** Sets a share group's configs: reading from the start (share.auto.offset.reset earliest) unless `groupConfig` says otherwise. */
export async function configureShareGroup(admin: Admin, groupId: string, groupConfig: Record<string, string> = {}): Promise<void> {
  await admin.alterConfigs({
    resources: [
      {
        type: ConfigResourceTypes.GROUP,
        name: groupId,
        configEntries: Object.entries({ 'share.auto.offset.reset': 'earliest', ...groupConfig }).map(([name, value]) => ({
          name,
          value,
        })),
      },
    ],
  })
}

/**
 * The broker of a describe block: started before its tests (within
 * `startTimeoutMs`), with an admin client on it; `member` makes share
 * consumers on it, each closed after its test.
 */
export function shareBroker<T extends ShareTarget>(start: () => Promise<T>, o: { clientId: string; startTimeoutMs: number }) {
  let target: T
  let admin: Admin
  const consumers: ShareConsumer[] = []
  beforeAll(async () => {
    target = await start()
    admin = new Kafka({ brokers: target.bootstrap.split(',') }).admin()
    await admin.connect()
  }, o.startTimeoutMs)
  afterEach(async () => {
    await Promise.allSettled(consumers.splice(0).map((c) => c.disconnect()))
  })
  afterAll(async () => {
    await admin?.disconnect()
    await target?.stop()
  })
  return {
    get target(): T {
      return target
    },
    get admin(): Admin {
      return admin
    },
    /** The members made so far in this test. */
    consumers,
    member(groupId: string, config: Partial<ShareConsumerConfig> = {}): ShareConsumer {
      const c = new Kafka({ clientId: o.clientId, brokers: target.bootstrap.split(','), retryBackoffMs: 100 }).shareConsumer({
        groupId,
        maxWaitTimeInMs: 200,
        ...config,
      })
      consumers.push(c)
      return c
    },
  }
}

/** Subscribes `c` to `topic` and runs it: what it is handed is pushed onto the list returned, as it comes. */
export async function deliveries(c: ShareConsumer, topic: string): Promise<Delivery[]> {
  const got: Delivery[] = []
  await c.subscribe({ topics: [topic] })
  await c.run({ eachMessage: async ({ message }) => void got.push({ value: text(message), deliveryCount: message.deliveryCount }) })
  return got
}

/** Reads `topic` with `c` until `enough` of what it got (within `timeoutMs`), commits, and closes `c`: what it got. */
export async function readUntil(
  c: ShareConsumer,
  topic: string,
  enough: (got: Delivery[]) => boolean,
  timeoutMs: number,
): Promise<Delivery[]> {
  try {
    const got = await deliveries(c, topic)
    await until(
      () => enough(got),
      timeoutMs,
      () => JSON.stringify(got),
    )
    await c.commitSync()
    return got
  } finally {
    await c.disconnect()
  }
}

/**
 * A member of `groupId` (explicit mode, maxPollRecords 30, record_limit) on a
 * topic of v0-v29: all 30 in one acquisition, it accepts v0-v9, rejects
 * v10-v14, releases v15-v19 and commits, and holds v20-v29 (acquired, never
 * acknowledged) until `letGo`. Resolves once it holds them, with what it saw.
 */
export async function holdInEveryState(
  kafka: Kafka,
  groupId: string,
  topic: string,
): Promise<{ first: ShareConsumer; seen: string[]; letGo: () => void }> {
  const first = kafka.shareConsumer({
    groupId,
    maxWaitTimeInMs: 200,
    acknowledgementMode: 'explicit',
    maxPollRecords: 30,
    shareAcquireMode: 'record_limit',
  })
  const seen: string[] = []
  let holding!: () => void
  const held = new Promise<void>((r) => (holding = r))
  let letGo!: () => void
  const hold = new Promise<void>((r) => (letGo = r))
  await first.subscribe({ topics: [topic] })
  await first.run({
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) {
        const i = Number(text(m).slice(1))
        seen.push(text(m))
        if (i >= 20) continue
        first.acknowledge(m, i < 10 ? 'accept' : i < 15 ? 'reject' : 'release')
      }
      await first.commitSync()
      // All 30 in one acquisition: the last ten stay held (explicit mode would release them at the next fetch).
      holding()
      await hold
    },
  })
  await held
  return { first, seen, letGo }
}
