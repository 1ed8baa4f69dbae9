// A full disk under the embedded broker's dataDir, simulated at the storage
// layer's one write seam (diskIo): a short write or ENOSPC fails the produce
// with KAFKA_STORAGE_ERROR, cuts what was written of the batch (its log
// bytes and index entries) back off, and the broker keeps serving reads;
// once the disk takes writes again the log goes on with no gap, and a
// restart reads exactly the acknowledged records.
import { readdirSync, readlinkSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { BrokerError } from '../../src/broker/broker-error.js'
import { Controller } from '../../src/broker/controller.js'
import { snapshotRecords } from '../../src/broker/metadata-snapshot.js'
import { diskIo } from '../../src/broker/storage/disk-io.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  CreateTopics,
  DeleteRecords,
  DeleteTopics,
  Fetch,
  InitProducerId,
  ListOffsets,
  Metadata,
  Produce,
} from '../../src/protocol/messages/index.js'
import { Kafka } from '../../src/index.js'
import { decodeRecordSet } from '../../src/codec/index.js'
import { RawClient } from './raw-client.js'
import { batch, batchesOf, listOffset, readAll, storageFixture } from './storage-support.js'
import { keepLog, until } from './support.js'

const realWrite = diskIo.write
const realFsync = diskIo.fsync
const fx = storageFixture('wafka-faults-')
const { tempDir } = fx

afterEach(() => {
  diskIo.write = realWrite
  diskIo.fsync = realFsync
})

/** Starts the cluster and connects to the leader of `topic`-0. */
async function leaderClient(options: StartClusterOptions, topic: string): Promise<{ c: RawClient; leader: number }> {
  const c0 = await fx.start(options)
  const leader = (await c0.request(Metadata, 12, { topics: [{ name: topic }] })).topics[0].partitions[0].leaderId
  return { c: await fx.client(leader), leader }
}

async function produce(c: RawClient, topic: string, records: Buffer) {
  const r = await c.request(Produce, 9, { acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] })
  return r.responses[0].partitionResponses[0]
}

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' })

/** The disk fills: the `n`th write from now (1: the next) takes only half its bytes, and every later one fails with ENOSPC. */
function diskFullAt(n: number): void {
  let writes = 0
  diskIo.write = (fd, buffer, offset, length, position) => {
    writes++
    if (writes < n) return realWrite(fd, buffer, offset, length, position)
    if (writes === n && length > 1) return realWrite(fd, buffer, offset, length >> 1, position)
    throw enospc()
  }
}

const sizes = (dir: string) =>
  ['log', 'index', 'timeindex'].map((ext) => statSync(join(dir, `00000000000000000000.${ext}`)).size) as [number, number, number]

describe('a full disk (simulated short writes and ENOSPC)', () => {
  it.each([1, 3])(
    '%i broker(s): the produce fails with KAFKA_STORAGE_ERROR, nothing of the batch stays (log or index), reads go on; then appends go on with no gap, and a restart keeps exactly the acknowledged records',
    async (brokers) => {
      const dataDir = tempDir()
      const problems: string[] = []
      const options = {
        dataDir,
        brokers,
        ...keepLog(problems),
        // An index entry with every batch after the first: an index write to fail too.
        topics: [{ name: 'full', partitions: 1, configs: { 'index.interval.bytes': '0' } }],
      }
      let { c, leader } = await leaderClient(options, 'full')
      const dir = join(dataDir, `broker-${leader}`, 'full-0')
      for (let i = 0; i < 3; i++) expect((await produce(c, 'full', batch(`a${i}`, 3))).errorCode).toBe(0)
      const acked = await readAll(c, 'full')
      expect(acked).toHaveLength(9)
      const before = sizes(dir)
      expect(before[1]).toBeGreaterThan(0)

      // The batch's write is short (half of it), the rest of it refused.
      diskFullAt(1)
      const refused = await produce(c, 'full', batch('lost', 3))
      expect(refused).toMatchObject({ errorCode: ErrorCodes.KAFKA_STORAGE_ERROR, baseOffset: -1n })
      expect(refused.errorMessage).toMatch(/writing .*00000000000000000000\.log: ENOSPC: no space left on device/)
      expect(problems.some((p) => p.includes('produce to full-0') && p.includes('ENOSPC'))).toBe(true)
      expect(sizes(dir)).toEqual(before)
      // The batch's bytes go whole, its index entry (the second write) half, then no more.
      diskFullAt(2)
      expect((await produce(c, 'full', batch('lost', 3))).errorCode).toBe(ErrorCodes.KAFKA_STORAGE_ERROR)
      expect(sizes(dir)).toEqual(before)
      // The broker serves reads all along: the acknowledged records, nothing of the refused ones.
      expect(await readAll(c, 'full')).toEqual(acked)

      // The disk takes writes again: the log goes on at the next offset.
      diskIo.write = realWrite
      const next = await produce(c, 'full', batch('b', 3))
      expect(next).toMatchObject({ errorCode: 0, baseOffset: 9n })
      const all = await readAll(c, 'full')
      expect(all.map((r) => r.key)).toEqual([...acked.map((r) => r.key), 'b-0', 'b-1', 'b-2'])
      expect(batchesOf(join(dir, '00000000000000000000.log')).map((b) => b.base)).toEqual([0, 3, 6, 9])

      ;({ c } = await leaderClient(options, 'full'))
      expect(await readAll(c, 'full')).toEqual(all)
    },
  )
})

/** Every write fails (ENOSPC) until `diskIo.write` is given back. */
function diskFull(): void {
  diskIo.write = () => {
    throw enospc()
  }
}

async function createTopic(c: RawClient, name: string, partitions: number, replicationFactor: number) {
  const r = await c.request(CreateTopics, 7, { topics: [{ name, numPartitions: partitions, replicationFactor }], timeoutMs: 5000 })
  return r.topics[0]
}

async function topicNames(c: RawClient): Promise<string[]> {
  return (await c.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false })).topics.map((t) => t.name!).sort()
}

describe('a metadata log write that fails', () => {
  it.each([1, 3])(
    '%i broker(s): the change is not made (KAFKA_STORAGE_ERROR, nothing of it in memory or on disk), the broker serves what it had, a retry once the disk takes writes succeeds, and a restart sees exactly what was acknowledged',
    async (brokers) => {
      const dataDir = tempDir()
      const problems: string[] = []
      const options = { dataDir, brokers, ...keepLog(problems), topics: [{ name: 'kept', partitions: 1 }] }
      let { c } = await leaderClient(options, 'kept')
      expect((await produce(c, 'kept', batch('k', 3))).errorCode).toBe(0)
      const kept = await readAll(c, 'kept')

      // CreateTopics: its records (the topic and its partitions, one atomic batch) cannot be written.
      diskFull()
      const refused = await createTopic(c, 'lost', 3, brokers)
      expect(refused.errorCode).toBe(ErrorCodes.KAFKA_STORAGE_ERROR)
      expect(refused.errorMessage).toMatch(/ENOSPC/)
      expect(problems.some((p) => p.startsWith('metadata log:') && p.includes('ENOSPC'))).toBe(true)
      expect(await topicNames(c)).toEqual(['kept'])
      expect(fx.cluster!.metadataLog.some((r) => r.type === 'topic' && r.name === 'lost')).toBe(false)
      for (let b = 0; b < brokers; b++) expect(readdirSync(join(dataDir, `broker-${b}`)).some((d) => d.startsWith('lost-'))).toBe(false)
      // DeleteTopics (one record) and InitProducerId (a producer-id block) cannot be written either: nothing changes.
      const deleted = await c.request(DeleteTopics, 6, { topics: [{ name: 'kept' }], timeoutMs: 5000 })
      expect(deleted.responses[0].errorCode).toBe(ErrorCodes.KAFKA_STORAGE_ERROR)
      const init = await c.request(InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 60000 })
      expect(init.errorCode).toBe(ErrorCodes.KAFKA_STORAGE_ERROR)
      // The broker serves what it had.
      expect(await topicNames(c)).toEqual(['kept'])
      expect(await readAll(c, 'kept')).toEqual(kept)

      // The disk takes writes again: the same requests succeed.
      diskIo.write = realWrite
      const created = await createTopic(c, 'lost', 3, brokers)
      expect(created.errorCode).toBe(0)
      expect(await topicNames(c)).toEqual(['kept', 'lost'])
      expect((await c.request(InitProducerId, 4, { transactionalId: null, transactionTimeoutMs: 60000 })).errorCode).toBe(0)
      const md = await c.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false })

      // A restart replays exactly the acknowledged changes.
      ;({ c } = await leaderClient(options, 'kept'))
      const after = await c.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false })
      const shape = (r: typeof md) =>
        r.topics
          .map((t) => ({ name: t.name, id: t.topicId, partitions: t.partitions.map((p) => [p.partitionIndex, [...p.replicaNodes]]) }))
          .sort((a, b) => a.name!.localeCompare(b.name!))
      expect(shape(after)).toEqual(shape(md))
      expect(await readAll(c, 'kept')).toEqual(kept)
    },
  )
})

describe("the controller's image when its write fails", () => {
  it('every kind of change, atomic or one record, is taken back whole: the image, the log and the listeners as before', () => {
    const c = new Controller('cluster')
    for (let id = 0; id < 3; id++) c.registerBroker(id, 'localhost', 9092 + id)
    c.createTopic('t', { partitions: 3, replicationFactor: 3, configs: { 'retention.ms': '1000' } })
    c.setDynamicConfig('broker', '', 'log.retention.ms', '5000')
    c.allocateProducerId()
    const before = JSON.stringify(snapshotRecords(c))
    const logLength = c.log.length
    const heard: string[] = []
    c.onRecord((r) => heard.push(r.type))
    c.persist = () => {
      throw new Error('ENOSPC: no space left on device, write')
    }
    const refused = (change: () => unknown) => {
      try {
        change()
      } catch (err) {
        expect(err).toBeInstanceOf(BrokerError)
        expect(err).toMatchObject({ code: ErrorCodes.KAFKA_STORAGE_ERROR, message: expect.stringMatching(/ENOSPC/) })
        expect(JSON.stringify(snapshotRecords(c))).toBe(before)
        expect(c.log.length).toBe(logLength)
        expect(heard).toEqual([])
        return
      }
      throw new Error('the change was not refused')
    }
    refused(() => c.createTopic('u', { partitions: 2, replicationFactor: 2, configs: { 'cleanup.policy': 'compact' } }))
    refused(() => c.createPartitions('t', 5))
    refused(() => c.deleteTopic('t'))
    // A fence: the broker, and each partition it led or was in sync for, in one batch.
    refused(() => c.setFenced(0, true))
    refused(() =>
      c.atomically(() => {
        c.setTopicConfig('t', 'retention.ms', null)
        c.setDynamicConfig('broker', '', 'log.retention.ms', null)
        c.setDynamicConfig('group', 'g', 'consumer.session.timeout.ms', '45000')
        c.append({ type: 'scram', user: 'alice', mechanism: 1, credential: null })
        c.registerBroker(3, 'localhost', 9095)
      }),
    )
    // The producer-id block is not handed out twice: the next id comes from a block that was written.
    for (let i = 0; i < 999; i++) c.allocateProducerId()
    refused(() => c.allocateProducerId())
    c.persist = null
    expect(c.allocateProducerId()).toBe(1000n)
    c.setFenced(0, true)
    expect(heard.slice(0, 2)).toEqual(['producer-ids', 'broker-fence'])
    expect(c.topics.get('t')!.partitions.every((p) => p.leader !== 0 && !p.isr.includes(0))).toBe(true)
  })
})

describe('transaction markers whose write fails', () => {
  it('are written again until they are: the commit is acknowledged only then, read_committed sees none of it before and all of it after', async () => {
    const problems: string[] = []
    const c = await fx.start({ dataDir: tempDir(), ...keepLog(problems), topics: [{ name: 'tx', partitions: 2 }] })
    const kafka = new Kafka({ clientId: 'markers', brokers: fx.cluster!.bootstrapServers.split(',') })
    const p = kafka.producer({ transactionalId: 'tx-markers' })
    fx.keep(p)
    await p.connect()
    const t = await p.transaction()
    await t.send({
      topic: 'tx',
      messages: [0, 1].flatMap((partition) => [
        { value: `a${partition}`, partition },
        { value: `b${partition}`, partition },
      ]),
    })
    const stable = async () => {
      const r = await c.request(ListOffsets, 7, {
        replicaId: -1,
        isolationLevel: 1,
        topics: [{ name: 'tx', partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n })) }],
      })
      return r.topics[0].partitions.map((x) => x.offset)
    }
    expect(await stable()).toEqual([0n, 0n])

    // The partitions' disk only: the coordinator's record of the decision (in __transaction_state) is written.
    diskFullFor('/tx-')
    let acknowledged = false
    const commit = t.commit().then(() => (acknowledged = true))
    await until(
      () => problems.some((m) => m.includes('COMMIT markers of transactional id tx-markers not written to tx-0') && m.includes('ENOSPC')),
      5000,
      () => problems.join('\n'),
    )
    // Retried, not given up: the client is told to wait, and nothing of the transaction is stable yet.
    await new Promise((r) => setTimeout(r, 400))
    expect(acknowledged).toBe(false)
    expect(await stable()).toEqual([0n, 0n])

    diskIo.write = realWrite
    await commit
    expect(problems.some((m) => /COMMIT markers of transactional id tx-markers written after \d+ retries/.test(m))).toBe(true)
    // Each partition: its two records and the marker.
    expect(await stable()).toEqual([3n, 3n])
    const next = await p.transaction()
    await next.send({ topic: 'tx', messages: [{ value: 'c', partition: 0 }] })
    await next.commit()
    expect(await stable()).toEqual([5n, 3n])
  })
})

/** Writes to files whose path contains `part` fail with ENOSPC (the file found by its fd, Linux's /proc/self/fd). */
function diskFullFor(part: string): void {
  diskIo.write = (fd, buffer, offset, length, position) => {
    if (readlinkSync(`/proc/self/fd/${fd}`).includes(part)) throw enospc()
    return realWrite(fd, buffer, offset, length, position)
  }
}

describe.runIf(process.platform === 'linux')('a transaction left open across a restart', () => {
  it('is aborted by the coordinator that loaded it, at its timeout: its ABORT marker written again until it is, when the write fails', async () => {
    const dataDir = tempDir()
    const problems: string[] = []
    const options = { dataDir, ...keepLog(problems), topics: [{ name: 'tx', partitions: 1 }] }
    fx.cluster = await startCluster(options)
    const kafka = new Kafka({ clientId: 'orphan', brokers: fx.cluster.bootstrapServers.split(',') })
    const p = kafka.producer({ transactionalId: 'tx-orphan', transactionTimeoutMs: 1500 })
    fx.keep(p)
    await p.connect()
    const t = await p.transaction()
    await t.send({ topic: 'tx', messages: [{ value: 'open', partition: 0 }] })
    await p.disconnect()
    await fx.stop()

    // Restarted, the coordinator has the transaction from __transaction_state; at its timeout it aborts it, and the marker's write fails.
    diskFullFor(join('tx-0', '0'))
    const { c } = await leaderClient(options, 'tx')
    const stable = async () =>
      (
        await c.request(ListOffsets, 7, {
          replicaId: -1,
          isolationLevel: 1,
          topics: [{ name: 'tx', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
        })
      ).topics[0].partitions[0].offset
    // Not aborted at the start (the coordinator knows it open): at its timeout, and the marker's write fails.
    expect(await stable()).toBe(0n)
    await until(
      () => problems.some((m) => m.includes('ABORT markers of transactional id tx-orphan not written to tx-0') && m.includes('ENOSPC')),
      10_000,
      () => problems.join('\n'),
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(await stable()).toBe(0n)

    diskIo.write = realWrite
    await until(
      async () => (await stable()) === 2n,
      5000,
      () => problems.join('\n'),
    )
    expect(problems.some((m) => /ABORT markers of transactional id tx-orphan written after \d+ retries/.test(m))).toBe(true)
  })
})

describe.runIf(process.platform === 'linux')('a transaction decided when the broker stopped', () => {
  it('gets its COMMIT marker at the restart: the coordinator loads it PrepareCommit from __transaction_state and completes it', async () => {
    const dataDir = tempDir()
    const problems: string[] = []
    const options = { dataDir, ...keepLog(problems), topics: [{ name: 'tx', partitions: 1 }] }
    const first = await startCluster(options)
    const kafka = new Kafka({ clientId: 'decided', brokers: first.bootstrapServers.split(',') })
    const p = kafka.producer({ transactionalId: 'tx-decided' })
    await p.connect()
    const t = await p.transaction()
    await t.send({ topic: 'tx', messages: [{ value: 'decided', partition: 0 }] })
    // The commit is decided (its record written), its marker not: the partition's disk is full.
    diskFullFor(join('tx-0', '0'))
    const commit = t.commit().catch(() => {})
    await until(
      () => problems.some((m) => m.includes('COMMIT markers of transactional id tx-decided not written to tx-0')),
      5000,
      () => problems.join('\n'),
    )
    // Stopped before a retry writes it (the coordinator's timers go in stop's first, synchronous, part).
    diskIo.write = realWrite
    await first.stop()
    await p.disconnect().catch(() => {})
    await commit

    const { c } = await leaderClient(options, 'tx')
    await until(
      async () => (await markers(c)).length > 0,
      5000,
      () => problems.join('\n'),
    )
    // Committed (not aborted as a transaction no coordinator knows would be), once.
    expect(await markers(c)).toEqual(['COMMIT'])
    expect(problems.some((m) => /__transaction_state-\d+ loaded: .* 1 with a transaction to complete/.test(m))).toBe(true)
  })
})

/** The transaction markers of tx-0, oldest first. */
async function markers(c: RawClient): Promise<string[]> {
  const md = await c.request(Metadata, 12, { topics: [{ name: 'tx' }] })
  const r = await c.request(Fetch, 13, {
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    topics: [{ topicId: md.topics[0].topicId, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
  })
  const records = r.responses[0].partitions[0].records
  if (!records) return []
  return decodeRecordSet(records)
    .batches.filter((b) => b.isControl)
    .map((b) => b.controlType as string)
}

describe.runIf(process.platform === 'linux')('small files of the data directory written through disk-io (temp, flush, rename)', () => {
  it('partition.metadata not written: the partition is reported offline on its broker (KAFKA_STORAGE_ERROR), the rest goes on; it opens once the disk takes writes', async () => {
    const dataDir = tempDir()
    const problems: string[] = []
    const options = { dataDir, ...keepLog(problems), topics: [{ name: 'kept', partitions: 1 }] }
    let { c } = await leaderClient(options, 'kept')
    diskFullFor('partition.metadata')
    // The topic's records are written (the metadata log is another file): it exists; its directory cannot be set up.
    expect((await createTopic(c, 'late', 1, 1)).errorCode).toBe(0)
    expect(problems.some((m) => m.includes('late-0 not opened here') && m.includes('partition.metadata') && m.includes('ENOSPC'))).toBe(
      true,
    )
    expect((await produce(c, 'late', batch('l', 2))).errorCode).toBe(ErrorCodes.KAFKA_STORAGE_ERROR)
    expect((await produce(c, 'kept', batch('k', 2))).errorCode).toBe(0)
    expect(readdirSync(dataDir, { recursive: true }).some((f) => String(f).endsWith('.tmp'))).toBe(false)

    diskIo.write = realWrite
    expect((await produce(c, 'late', batch('l', 2))).errorCode).toBe(0)
    ;({ c } = await leaderClient(options, 'late'))
    expect((await readAll(c, 'late')).map((r) => r.key)).toEqual(['l-0', 'l-1'])
  })

  it('the log start checkpoint not written: DeleteRecords answers KAFKA_STORAGE_ERROR and the start stays; written, a restart keeps it', async () => {
    const dataDir = tempDir()
    const problems: string[] = []
    const options = { dataDir, ...keepLog(problems), topics: [{ name: 'del', partitions: 1 }] }
    let { c } = await leaderClient(options, 'del')
    for (let i = 0; i < 3; i++) expect((await produce(c, 'del', batch(`d${i}`, 2))).errorCode).toBe(0)
    const deleteTo = (offset: bigint) =>
      c.request(DeleteRecords, 2, { topics: [{ name: 'del', partitions: [{ partitionIndex: 0, offset }] }], timeoutMs: 5000 })
    diskFullFor('log-start-offset')
    const refused = (await deleteTo(3n)).topics[0].partitions[0]
    expect(refused.errorCode).toBe(ErrorCodes.KAFKA_STORAGE_ERROR)
    expect(problems.some((m) => m.includes('DeleteRecords of del-0') && m.includes('ENOSPC'))).toBe(true)
    expect(await readAll(c, 'del')).toHaveLength(6)

    diskIo.write = realWrite
    expect((await deleteTo(3n)).topics[0].partitions[0]).toMatchObject({ errorCode: 0, lowWatermark: 3n })
    ;({ c } = await leaderClient(options, 'del'))
    expect((await readAll(c, 'del', 3n)).map((r) => r.offset)).toEqual([3, 4, 5])
    expect((await listOffset(c, 'del', -2n)).offset).toBe(3n)
  })

  it('meta.properties not written: the start is refused naming it (StorageError), the directory left free; .clean-shutdown not flushed: the stop says so and leaves no marker', async () => {
    const dataDir = tempDir()
    const problems: string[] = []
    const options = { dataDir, ...keepLog(problems) }
    diskFullFor('meta.properties')
    await expect(startCluster(options)).rejects.toThrow(/meta\.properties.*ENOSPC/)
    diskIo.write = realWrite
    fx.cluster = await startCluster(options)

    // An empty file: its flush fails (EIO).
    diskIo.fsync = (fd) => {
      if (readlinkSync(`/proc/self/fd/${fd}`).includes('.clean-shutdown'))
        throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', syscall: 'fsync' })
      realFsync(fd)
    }
    await fx.stop()
    expect(problems.some((m) => m.includes('.clean-shutdown') && m.includes('EIO') && m.includes('not marked cleanly stopped'))).toBe(true)
    expect(readdirSync(join(dataDir, 'broker-0'))).not.toContain('.clean-shutdown')
  })
})
