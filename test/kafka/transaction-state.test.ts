// The transaction coordinator's state in __transaction_state, on Apache Kafka
// 4.4 and on the embedded broker with the same assertions:
// - across a restart of the broker (Kafka on its log dir, the embedded
//   broker on its dataDir, same port): an open transaction is known again,
//   its producer id and epoch kept, and aborted at its timeout (read_committed
//   readers are not held back for good); the id's next producer gets a
//   higher epoch, the old producer is fenced; later transactions are read;
// - Kafka's DumpLogSegments --transaction-log-decoder reads the partition's
//   records (on the embedded broker, the segments it wrote);
// - in a 3-broker cluster whose coordinator of a transactional id stops, an
//   open transaction is committed at the new coordinator (the new leader of
//   its partition, from its log) and read exactly once; the id re-initialised
//   after, with a higher epoch.
import { createServer } from 'node:net'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { javaHash, kafkaAbs } from '../../src/broker/offsets-topic.js'
import { type Kafka, KafkaError, type Producer } from '../../src/index.js'
import { DescribeTransactions, FindCoordinator } from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { requireKafka, runJava, startKafka } from '../peers/kafka.js'
import { until, wafka, wafkaRead } from './support.js'

const PARTITIONS = 10
const config = { 'transaction.state.log.num.partitions': String(PARTITIONS) }
const READ_COMMITTED = 1
const LATEST = -1n

/** The partition of __transaction_state a transactional id's state is in (abs(hashCode) % partitions). */
const partitionOf = (transactionalId: string) => kafkaAbs(javaHash(transactionalId)) % PARTITIONS

/** A port free now (the embedded cluster's, kept across its restart). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

interface Restartable {
  bootstrap: string
  /** The directory of partition `partition` of __transaction_state, where its segments are. */
  stateDir(partition: number): string
  restart(): Promise<void>
  stop(): Promise<void>
}

const restartable: Array<[string, () => Promise<Restartable>]> = [
  [
    'Apache Kafka 4.4',
    async () => {
      const k = await startKafka({ brokers: 1, config })
      const id = k.brokers[0].id
      return {
        bootstrap: k.bootstrap,
        stateDir: (partition) => join(k.logDirs[0], 'data', `__transaction_state-${partition}`),
        restart: async () => {
          await k.stopBroker(id)
          await k.startBroker(id)
        },
        stop: () => k.stop(),
      }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'wafka-transaction-state-'))
      const options = { brokers: 1, dataDir, port: await freePort(), config }
      let c = await startCluster(options)
      return {
        bootstrap: c.bootstrapServers,
        stateDir: (partition) => join(dataDir, 'broker-0', `__transaction_state-${partition}`),
        restart: async () => {
          await c.stop()
          c = await startCluster(options)
        },
        stop: async () => {
          await c.stop()
          rmSync(dataDir, { recursive: true, force: true })
        },
      }
    },
  ],
]

type Described = { errorCode: number; transactionState: string; producerId: bigint; producerEpoch: number; transactionTimeoutMs: number }

/** The transactional id as its coordinator describes it (found with FindCoordinator; retried while it loads or moves). */
async function describeTxn(bootstrap: string, transactionalId: string): Promise<Described> {
  let found: Described | undefined
  const show = (d: Described) => JSON.stringify(d, (_k, v) => (typeof v === 'bigint' ? String(v) : v))
  await until(
    `DescribeTransactions of ${transactionalId}`,
    async () => {
      const raw = await RawClient.open(bootstrap.split(',')[0])
      try {
        const c = (await raw.request(FindCoordinator, 4, { keyType: 1, coordinatorKeys: [transactionalId] })).coordinators[0]
        if (c.errorCode !== 0) return `FindCoordinator: ${c.errorCode}`
        const at = await RawClient.open(`${c.host}:${c.port}`)
        try {
          const d = (await at.request(DescribeTransactions, 0, { transactionalIds: [transactionalId] })).transactionStates[0]
          if (d.errorCode === 0) found = d
          return show(d)
        } finally {
          at.close()
        }
      } finally {
        raw.close()
      }
    },
    () => found !== undefined,
    60_000,
  )
  return found!
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  )

for (const [name, start] of restartable)
  describe.skipIf(!requireKafka())(`transaction state across a restart of ${name}`, () => {
    let target: Restartable
    let kafka: Kafka
    const producers: Producer[] = []
    beforeAll(async () => {
      target = await start()
      kafka = wafka(target)
    }, 120_000)
    afterAll(async () => {
      await Promise.allSettled(producers.map((p) => p.disconnect()))
      await target?.stop()
    })
    const producer = async (config: Parameters<Kafka['producer']>[0]) => {
      const p = kafka.producer(config)
      producers.push(p)
      await p.connect()
      return p
    }
    const lso = async (topic: string) => {
      const admin = kafka.admin()
      await admin.connect()
      try {
        return (await admin.listOffsets(topic, [0], LATEST, READ_COMMITTED)).get(0)!
      } finally {
        await admin.disconnect()
      }
    }
    const transactionalId = 'restarted-txn'

    it('an open transaction is known again with its producer id and epoch, aborted at its timeout; the next producer of the id has a higher epoch, the old one is fenced', async () => {
      const topic = 'across-restart'
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] })
      await admin.disconnect()
      // Long enough for the restart (a JVM's on Kafka) to end before the timeout, on a loaded machine too.
      const first = await producer({ transactionalId, transactionTimeoutMs: 20_000 })
      const done = await first.transaction()
      await done.send({ topic, messages: [{ value: 'before', partition: 0 }] })
      await done.commit()
      const open = await first.transaction()
      await open.send({ topic, messages: [{ value: 'open', partition: 0 }] })
      const before = await describeTxn(target.bootstrap, transactionalId)
      expect(before).toMatchObject({ transactionState: 'Ongoing', transactionTimeoutMs: 20_000 })
      // The committed record and its marker; the open one holds read_committed readers at offset 2.
      expect(await lso(topic)).toBe(2n)

      await target.restart()

      // The coordinator aborts it at its timeout, under the next epoch of the same producer id.
      await until(
        'the open transaction aborted by the restarted coordinator',
        async () => Number(await lso(topic)),
        (o) => o >= 4,
        90_000,
      )
      // Its markers written before its last record (Kafka may be between them).
      let aborted: Described | undefined
      await until(
        'the abort complete',
        async () => (aborted = await describeTxn(target.bootstrap, transactionalId)).transactionState,
        (state) => state !== 'PrepareAbort',
        30_000,
      )
      expect(aborted).toMatchObject({
        transactionState: 'CompleteAbort',
        producerId: before.producerId,
        producerEpoch: before.producerEpoch + 1,
      })
      // The old producer is fenced.
      const fenced = await failure(open.commit())
      expect(fenced).toBeInstanceOf(KafkaError)
      expect(['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH']).toContain((fenced as KafkaError).type)

      const next = await producer({ transactionalId, transactionTimeoutMs: 20_000 })
      expect(await describeTxn(target.bootstrap, transactionalId)).toMatchObject({
        transactionState: 'Empty',
        producerId: before.producerId,
        producerEpoch: before.producerEpoch + 2,
      })
      const later = await next.transaction()
      await later.send({ topic, messages: [{ value: 'after', partition: 0 }] })
      await later.commit()
      const read = await wafkaRead(kafka, topic, 2, { isolationLevel: 'read_committed' })
      expect(read.map((r) => r.value!.toString())).toEqual(['before', 'after'])
      expect(await lso(topic)).toBe(6n)
    }, 180_000)

    it("Kafka's DumpLogSegments --transaction-log-decoder reads the partition's records: every state the id went through", async () => {
      const dir = target.stateDir(partitionOf(transactionalId))
      const files = readdirSync(dir)
        .filter((f) => f.endsWith('.log'))
        .sort()
        .map((f) => join(dir, f))
      expect(files.length).toBeGreaterThan(0)
      const dump = await runJava('org.apache.kafka.tools.DumpLogSegments', ['--files', files.join(','), '--transaction-log-decoder'])
      expect(dump.code, dump.stderr).toBe(0)
      expect(dump.stdout).not.toMatch(/unknown|exception|error/i)
      const states = parseStates(dump.stdout, transactionalId)
      // Each state once, as the records go (Kafka may write one more in between, which is not asked for).
      expect(
        subsequence(
          states.map((s) => s.state),
          [
            'Empty',
            'Ongoing',
            'PrepareCommit',
            'CompleteCommit',
            'Ongoing',
            'PrepareAbort',
            'CompleteAbort',
            'Empty',
            'Ongoing',
            'PrepareCommit',
            'CompleteCommit',
          ],
        ),
      ).toBe(true)
      const last = states.at(-1)!
      expect(last.state).toBe('CompleteCommit')
      expect(new Set(states.map((s) => s.producerId)).size).toBe(1)
      expect(states.find((s) => s.state === 'Ongoing')!.partitions).toContain('across-restart-0')
    })
  })

interface ThreeBrokers {
  bootstrap: string
  /** The id of the broker the bootstrap reaches (it stays up). */
  first: number
  stopBroker(id: number): Promise<void>
  startBroker(id: number): Promise<void>
  stop(): Promise<void>
}

const threeBrokers: Array<[string, () => Promise<ThreeBrokers>]> = [
  [
    'Apache Kafka 4.4',
    async () => {
      const k = await startKafka({ brokers: 3, config })
      return {
        bootstrap: k.bootstrap,
        first: k.brokers[0].id,
        stopBroker: (id) => k.stopBroker(id),
        startBroker: (id) => k.startBroker(id),
        stop: () => k.stop(),
      }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 3, config })
      return {
        bootstrap: c.bootstrapServers,
        first: c.brokers[0].id,
        stopBroker: (id) => c.stopBroker(id),
        startBroker: (id) => c.startBroker(id),
        stop: () => c.stop(),
      }
    },
  ],
]

for (const [name, start] of threeBrokers)
  describe.skipIf(!requireKafka())(`a transaction whose coordinator stops, in 3 brokers of ${name}`, () => {
    let cluster: ThreeBrokers
    let kafka: Kafka
    const producers: Producer[] = []
    beforeAll(async () => {
      cluster = await start()
      kafka = wafka(cluster)
    }, 180_000)
    afterAll(async () => {
      await Promise.allSettled(producers.map((p) => p.disconnect()))
      await cluster?.stop()
    })

    it('is committed at the new coordinator (its partition’s new leader, from its log) and read exactly once; the id re-initialised after has a higher epoch', async () => {
      const topic = 'moving-txn'
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 3 }] })
      await admin.disconnect()
      // A transactional id coordinated by a broker other than the bootstrap's first (that one stays up).
      const raw = await RawClient.open(cluster.bootstrap.split(',')[0])
      let transactionalId = ''
      let coordinator = -1
      try {
        for (let i = 0; coordinator < 0 || coordinator === cluster.first; i++) {
          expect(i, 'a transactional id coordinated by another broker among the first 200').toBeLessThan(200)
          transactionalId = `moving-${i}`
          let found = { errorCode: -1, nodeId: -1 }
          // The first asks make __transaction_state; its partitions then get leaders.
          await until(
            `FindCoordinator of ${transactionalId}`,
            async () =>
              (found = (await raw.request(FindCoordinator, 4, { keyType: 1, coordinatorKeys: [transactionalId] })).coordinators[0]),
            (f) => f.errorCode === 0,
            60_000,
          )
          coordinator = found.nodeId
        }
      } finally {
        raw.close()
      }
      const first = kafka.producer({ transactionalId, transactionTimeoutMs: 60_000 })
      producers.push(first)
      await first.connect()
      const txn = await first.transaction()
      await txn.send({
        topic,
        messages: [
          { value: 'a', partition: 0 },
          { value: 'b', partition: 0 },
        ],
      })
      const before = await describeTxn(cluster.bootstrap, transactionalId)
      expect(before).toMatchObject({ transactionState: 'Ongoing' })

      await cluster.stopBroker(coordinator)
      try {
        // The producer finds the new coordinator, which has the transaction from its log.
        await txn.commit()
        const read = await wafkaRead(kafka, topic, 2, { isolationLevel: 'read_committed' })
        expect(read.map((r) => r.value!.toString())).toEqual(['a', 'b'])
        const admin2 = kafka.admin()
        await admin2.connect()
        try {
          // Its two records and one COMMIT marker: committed once.
          expect((await admin2.listOffsets(topic, [0], LATEST, READ_COMMITTED)).get(0)).toBe(3n)
        } finally {
          await admin2.disconnect()
        }
        // Kafka answers EndTxn before its markers are all written: CompleteCommit once they are.
        let committed: Described | undefined
        await until(
          'the transaction complete',
          async () => (committed = await describeTxn(cluster.bootstrap, transactionalId)).transactionState,
          (state) => state !== 'PrepareCommit',
          30_000,
        )
        expect(committed).toMatchObject({ transactionState: 'CompleteCommit', producerId: before.producerId })
        // The id again, from a new producer: the next epoch; the old producer is fenced.
        const next = kafka.producer({ transactionalId, transactionTimeoutMs: 60_000 })
        producers.push(next)
        await next.connect()
        const after = await describeTxn(cluster.bootstrap, transactionalId)
        expect(after).toMatchObject({ transactionState: 'Empty', producerId: before.producerId })
        expect(after.producerEpoch).toBeGreaterThan(before.producerEpoch)
        const zombie = await failure(first.transaction().then((t) => t.send({ topic, messages: [{ value: 'zombie', partition: 0 }] })))
        expect(zombie).toBeInstanceOf(Error)
      } finally {
        await cluster.startBroker(coordinator)
      }
    }, 240_000)
  })

/** The transaction records of `transactionalId` in DumpLogSegments' output, as its decoder prints them. */
function parseStates(out: string, transactionalId: string): { state: string; producerId: string; epoch: number; partitions: string }[] {
  const states: { state: string; producerId: string; epoch: number; partitions: string }[] = []
  for (const line of out.split('\n')) {
    if (!line.includes(transactionalId)) continue
    const json = /payload: (\{.*\})\s*$/.exec(line)
    if (json) {
      const v = JSON.parse(json[1]) as { data: Record<string, unknown> }
      const d = v.data
      states.push({
        state: STATES[Number(d.transactionStatus)] ?? String(d.transactionStatus),
        producerId: String(d.producerId),
        epoch: Number(d.producerEpoch),
        partitions: JSON.stringify(d.transactionPartitions ?? []).replace(/"topic":"([^"]+)","partitionIds":\[(\d+)\]/g, '$1-$2'),
      })
      continue
    }
    const m = /producerId:(-?\d+),producerEpoch:(-?\d+),state=(\w+),partitions=(\S*)/.exec(line)
    if (m) states.push({ producerId: m[1], epoch: Number(m[2]), state: m[3], partitions: m[4] })
  }
  return states
}

const STATES = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence']

/** Whether `want` appears in `seq` in order (other items between). */
function subsequence(seq: string[], want: string[]): boolean {
  let i = 0
  for (const s of seq) if (s === want[i]) i++
  return i === want.length
}
