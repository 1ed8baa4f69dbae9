// The second transaction protocol (KIP-890 part 2, transaction.version 2)
// on real Apache Kafka 4.4 and the embedded broker, with the same
// assertions: the Java client 4.x (which uses it when the cluster finalizes
// transaction.version 2) commits, aborts, commits consumer offsets in a
// transaction and is fenced by a second producer, and every EndTxn bumps
// the epoch (DescribeTransactions, DescribeProducers); then the protocol on
// the wire: partitions and groups added by Produce v12 and TxnOffsetCommit
// v5 themselves, EndTxn v5's new epoch and its retry, a late write of the
// ended transaction fenced, an abort with nothing open. And with
// transaction.version finalized at 1, the Java client keeps to the first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeRecordBatch } from '../../src/codec/batch-encoder.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import type { ApiSpec, Input } from '../../src/protocol/api.js'
import { AddPartitionsToTxn } from '../../src/protocol/messages/AddPartitionsToTxn.js'
import { ApiVersions } from '../../src/protocol/messages/ApiVersions.js'
import { CreateTopics } from '../../src/protocol/messages/CreateTopics.js'
import { DescribeTransactions } from '../../src/protocol/messages/DescribeTransactions.js'
import { EndTxn } from '../../src/protocol/messages/EndTxn.js'
import { FindCoordinator } from '../../src/protocol/messages/FindCoordinator.js'
import { InitProducerId } from '../../src/protocol/messages/InitProducerId.js'
import { Metadata } from '../../src/protocol/messages/Metadata.js'
import { OffsetFetch } from '../../src/protocol/messages/OffsetFetch.js'
import { Produce } from '../../src/protocol/messages/Produce.js'
import { TxnOffsetCommit } from '../../src/protocol/messages/TxnOffsetCommit.js'
import { RawClient } from '../broker/raw-client.js'
import { javaAdmin } from '../peers/java-admin.js'
import { javaConsume } from '../peers/java-client.js'
import { javaTransactions, type JavaTxnAnswer } from '../peers/java-txn.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until } from './support.js'

const values = (records: { value: Buffer | null }[]) => records.map((r) => r.value!.toString()).sort()
const epochOf = (a: JavaTxnAnswer) => {
  if (!('producerEpoch' in a)) throw new Error(`no transaction described: ${JSON.stringify(a)}`)
  return a.producerEpoch
}

/** Raw requests to each broker of a cluster, at the versions asked for. */
class Wire {
  private readonly conns = new Map<number, Promise<RawClient>>()
  constructor(private readonly brokers: Map<number, string>) {}

  static async open(bootstrap: string): Promise<Wire> {
    const c = await RawClient.open(bootstrap.split(',')[0])
    try {
      const m = await c.request(Metadata, 12, { topics: [], allowAutoTopicCreation: false })
      return new Wire(new Map(m.brokers.map((b) => [b.nodeId, `${b.host}:${b.port}`])))
    } finally {
      c.close()
    }
  }

  /** One request at a time per connection (a RawClient reads its answers in order). */
  private readonly queues = new Map<number, Promise<unknown>>()

  request<Req, Res>(node: number, spec: ApiSpec<Req, Res>, version: number, req: Input<Req>): Promise<Res> {
    let c = this.conns.get(node)
    if (!c) this.conns.set(node, (c = RawClient.open(this.brokers.get(node)!)))
    const conn = c
    const next = (this.queues.get(node) ?? Promise.resolve())
      .catch(() => {})
      .then(() => conn.then((raw) => raw.request(spec, version, req)))
    this.queues.set(node, next)
    return next
  }

  any(): number {
    return [...this.brokers.keys()][0]
  }

  /** The coordinator of a transactional id (keyType 1) or group (0), once it is ready (Kafka makes its internal topic on first ask). */
  async coordinator(keyType: 0 | 1, key: string): Promise<number> {
    return until(
      `the coordinator of ${key}`,
      async () => (await this.request(this.any(), FindCoordinator, 4, { keyType, coordinatorKeys: [key] })).coordinators[0],
      (c) => c.errorCode === ErrorCodes.NONE,
      60_000,
    ).then((c) => c.nodeId)
  }

  async leader(topic: string, partition: number): Promise<number> {
    const m = await this.request(this.any(), Metadata, 12, {
      topics: [{ name: topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      allowAutoTopicCreation: false,
    } as never)
    return m.topics[0].partitions.find((p) => p.partitionIndex === partition)!.leaderId
  }

  close(): void {
    for (const c of this.conns.values()) void c.then((raw) => raw.close())
  }
}

/** A new topic's first write, again while its leader is not serving it yet (real Kafka, a moment after CreateTopics); refused, nothing was written. */
const firstWrite = (write: () => Promise<number>) =>
  until(
    'the first write',
    write,
    (code) => code !== ErrorCodes.NOT_LEADER_OR_FOLLOWER && code !== ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
    30_000,
  )

for (const target of brokerTargets())
  describe.skipIf(!target.available)(`the second transaction protocol on ${target.name}`, () => {
    let cluster: RunningTarget
    let wire: Wire
    beforeAll(async () => {
      cluster = await target.start()
      wire = await Wire.open(cluster.bootstrap)
    }, 180_000)
    afterAll(async () => {
      wire?.close()
      await cluster?.stop()
    })

    const createTopic = async (name: string, partitions: number) => {
      const r = await wire.request(wire.any(), CreateTopics, 7, {
        topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 30_000,
        validateOnly: false,
      })
      expect(r.topics[0].errorCode).toBe(ErrorCodes.NONE)
      await until(
        `${name}'s leaders`,
        () => Promise.all(Array.from({ length: partitions }, (_, p) => wire.leader(name, p))),
        (ls) => ls.every((l) => l >= 0),
        30_000,
      )
    }

    it('advertises transaction.version 2, finalized, as Kafka 4.4 does by default', async () => {
      const r = await wire.request(wire.any(), ApiVersions, 4, { clientSoftwareName: 'txv2', clientSoftwareVersion: '1' })
      expect(r.supportedFeatures.find((f) => f.name === 'transaction.version')).toMatchObject({ minVersion: 0, maxVersion: 2 })
      expect(r.finalizedFeatures.find((f) => f.name === 'transaction.version')).toMatchObject({ minVersionLevel: 2, maxVersionLevel: 2 })
      expect(r.finalizedFeaturesEpoch).toBeGreaterThanOrEqual(0n)
      const max = (key: number) => r.apiKeys.find((k) => k.apiKey === key)?.maxVersion
      expect([max(0), max(24), max(25), max(26), max(28)]).toEqual([13, 5, 4, 5, 6])
      // v3 clients are not told of supported features whose minimum is 0 (KAFKA-17011); the finalized level they are.
      const v3 = await wire.request(wire.any(), ApiVersions, 3, { clientSoftwareName: 'txv2', clientSoftwareVersion: '1' })
      expect(v3.supportedFeatures.find((f) => f.name === 'transaction.version')).toBeUndefined()
      expect(v3.finalizedFeatures.find((f) => f.name === 'transaction.version')).toMatchObject({ minVersionLevel: 2, maxVersionLevel: 2 })
    })

    it('the Java client: commits and aborts with an epoch bump at each end, offsets committed in the transaction, a zombie fenced', async () => {
      const topic = 'jtx'
      await createTopic(topic, 3)
      const answers = await javaTransactions(cluster, topic, 'j-tx', [
        { op: 'describe' },
        { op: 'begin' },
        { op: 'send', value: 'c1', partition: 0 },
        { op: 'send', value: 'c2', partition: 1 },
        { op: 'offsets', group: 'j-g', partition: 0, offset: 42 },
        { op: 'commit' },
        { op: 'describe' },
        { op: 'begin' },
        { op: 'send', value: 'a1', partition: 0 },
        { op: 'offsets', group: 'j-g', partition: 0, offset: 99 },
        { op: 'abort' },
        { op: 'describe' },
        { op: 'begin' },
        { op: 'send', value: 'c3', partition: 2 },
        { op: 'commit' },
        { op: 'describe' },
        { op: 'producers', partition: 0 },
        { op: 'producers', partition: 1 },
        { op: 'producers', partition: 2 },
        // The zombie: producer 0 is in a transaction when producer 1 of the same id starts.
        { op: 'begin' },
        { op: 'send', value: 'z1', partition: 1 },
        { p: 1, op: 'begin' },
        { p: 1, op: 'send', value: 's1', partition: 1 },
        { p: 1, op: 'commit' },
        { op: 'send', value: 'z2', partition: 1 },
        { op: 'commit' },
      ])
      const failedAt = answers.flatMap((a, i) => ('error' in a ? [i] : []))
      // Only the zombie's last send and commit fail.
      expect(failedAt).toEqual([24, 25])
      expect((answers[25] as { error: string }).error).toMatch(/ProducerFenced|InvalidProducerEpoch|KafkaException/)
      const e0 = epochOf(answers[0])
      const [e1, e2, e3] = [answers[6], answers[11], answers[15]].map(epochOf)
      // Each EndTxn bumped the epoch (the first protocol keeps it).
      expect([e1, e2, e3]).toEqual([e0 + 1, e0 + 2, e0 + 3])
      const pid = (answers[0] as { producerId: number }).producerId
      expect((answers[15] as { producerId: number }).producerId).toBe(pid)
      // Each partition's producer state has the epoch of the last marker written there: markers go at the new epoch.
      const producers = answers.slice(16, 19).map((a) => (a as { producers: Array<[number, number]> }).producers)
      expect(producers).toEqual([[[pid, e0 + 2]], [[pid, e0 + 1]], [[pid, e0 + 3]]])

      const committed = await javaConsume(cluster, topic, { props: { 'isolation.level': 'read_committed' } })
      expect(values(committed)).toEqual(['c1', 'c2', 'c3', 's1'])
      const everything = await javaConsume(cluster, topic)
      expect(values(everything)).toEqual(expect.arrayContaining(['a1', 'c1', 'c2', 'c3', 's1', 'z1']))
      expect(values(everything)).not.toContain('z2')
      const [offsets] = await javaAdmin(cluster, [{ op: 'listConsumerGroupOffsets', group: 'j-g' }])
      expect(offsets).toEqual({ offsets: [[topic, 0, 42]] })
    }, 180_000)

    it('on the wire: Produce v12 and TxnOffsetCommit v5 add to the transaction, EndTxn v5 bumps the epoch, a late write of the ended transaction is fenced', async () => {
      const topic = 'wtx'
      await createTopic(topic, 2)
      const txnId = 'w-tx'
      const [coordinator, groupCoordinator, leader0, leader1] = await Promise.all([
        wire.coordinator(1, txnId),
        wire.coordinator(0, 'w-g'),
        wire.leader(topic, 0),
        wire.leader(topic, 1),
      ])
      const init = await until(
        'InitProducerId',
        () =>
          wire.request(coordinator, InitProducerId, 5, {
            transactionalId: txnId,
            transactionTimeoutMs: 60_000,
            producerId: -1n,
            producerEpoch: -1,
          }),
        (r) => r.errorCode !== ErrorCodes.COORDINATOR_LOAD_IN_PROGRESS && r.errorCode !== ErrorCodes.NOT_COORDINATOR,
        30_000,
      )
      expect(init.errorCode).toBe(ErrorCodes.NONE)
      const { producerId } = init
      const e0 = init.producerEpoch
      const produce = async (partition: number, epoch: number, sequence: number, value: string) => {
        const r = await wire.request(partition === 0 ? leader0 : leader1, Produce, 12, {
          transactionalId: txnId,
          acks: -1,
          timeoutMs: 10_000,
          topicData: [
            {
              name: topic,
              partitionData: [
                {
                  index: partition,
                  records: encodeRecordBatch([{ value }], {
                    producerId,
                    producerEpoch: epoch,
                    baseSequence: sequence,
                    transactional: true,
                  }),
                },
              ],
            },
          ],
        } as never)
        return r.responses[0].partitionResponses[0].errorCode
      }
      const describe = async () =>
        (await wire.request(coordinator, DescribeTransactions, 0, { transactionalIds: [txnId] })).transactionStates[0]
      const end = (epoch: number, committed: boolean) =>
        wire.request(coordinator, EndTxn, 5, { transactionalId: txnId, producerId, producerEpoch: epoch, committed })

      // No AddPartitionsToTxn: the first batch adds its partition.
      expect(await firstWrite(() => produce(0, e0, 0, 'w1'))).toBe(ErrorCodes.NONE)
      expect(await describe()).toMatchObject({ transactionState: 'Ongoing', producerEpoch: e0, topics: [{ topic, partitions: [0] }] })
      // What Kafka's brokers ask a coordinator (AddPartitionsToTxn v4+, VerifyOnly): in the transaction or not; a partition the cluster lacks named first (in any order).
      const verify = (partitions: number[], name = topic) =>
        wire
          .request(coordinator, AddPartitionsToTxn, 5, {
            transactions: [{ transactionalId: txnId, producerId, producerEpoch: e0, verifyOnly: true, topics: [{ name, partitions }] }],
          })
          .then((r) =>
            r.resultsByTransaction[0].topicResults[0].resultsByPartition
              .map((p) => [p.partitionIndex, p.partitionErrorCode])
              .sort((x, y) => x[0] - y[0]),
          )
      expect(await verify([0, 1])).toEqual([
        [0, ErrorCodes.NONE],
        [1, ErrorCodes.TRANSACTION_ABORTABLE],
      ])
      expect(await verify([0, 9])).toEqual([
        [0, ErrorCodes.OPERATION_NOT_ATTEMPTED],
        [9, ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION],
      ])
      // No AddOffsetsToTxn: the commit adds its group.
      const commit = await wire.request(groupCoordinator, TxnOffsetCommit, 5, {
        transactionalId: txnId,
        groupId: 'w-g',
        producerId,
        producerEpoch: e0,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [
          { name: topic, partitions: [{ partitionIndex: 1, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: null }] },
        ],
      } as never)
      expect(commit.topics[0].partitions[0].errorCode).toBe(ErrorCodes.NONE)

      const ended = await end(e0, true)
      expect(ended).toMatchObject({ errorCode: ErrorCodes.NONE, producerId, producerEpoch: e0 + 1 })
      await until('the commit completes', describe, (d) => d.transactionState === 'CompleteCommit', 30_000)
      expect((await describe()).producerEpoch).toBe(e0 + 1)
      // Its retry (the answer lost) names the epoch before the bump: answered as the first time.
      expect(await end(e0, true)).toMatchObject({ errorCode: ErrorCodes.NONE, producerId, producerEpoch: e0 + 1 })
      // An abort is no retry of that commit; another epoch is fenced.
      expect((await end(e0, false)).errorCode).toBe(ErrorCodes.INVALID_TXN_STATE)
      expect((await end(e0 + 5, true)).errorCode).toBe(ErrorCodes.PRODUCER_FENCED)

      const offsets = await wire.request(groupCoordinator, OffsetFetch, 8, {
        groups: [{ groupId: 'w-g', topics: [{ name: topic, partitionIndexes: [1] }] }],
        requireStable: true,
      } as never)
      expect(offsets.groups[0].topics[0].partitions[0].committedOffset).toBe(7n)

      // The ended transaction's late write: fenced at the partition it wrote to and at one it did not.
      expect(await produce(0, e0, 1, 'late')).toBe(ErrorCodes.INVALID_PRODUCER_EPOCH)
      expect(await produce(1, e0, 0, 'late')).toBe(ErrorCodes.INVALID_PRODUCER_EPOCH)
      // The next transaction, at the new epoch from sequence 0, aborted: the epoch bumps again.
      expect(await produce(1, e0 + 1, 0, 'w2')).toBe(ErrorCodes.NONE)
      expect(await end(e0 + 1, false)).toMatchObject({ errorCode: ErrorCodes.NONE, producerId, producerEpoch: e0 + 2 })
      await until('the abort completes', describe, (d) => d.transactionState === 'CompleteAbort', 30_000)
      // With no transaction open, a commit is refused; an abort is one of its own (franz-go aborts so after failed produces): the epoch bumps.
      expect((await end(e0 + 2, true)).errorCode).toBe(ErrorCodes.INVALID_TXN_STATE)
      expect(await end(e0 + 2, false)).toMatchObject({ errorCode: ErrorCodes.NONE, producerId, producerEpoch: e0 + 3 })
      await until(
        'the empty abort completes',
        describe,
        (d) => d.transactionState === 'CompleteAbort' && d.producerEpoch === e0 + 3,
        30_000,
      )
      expect(await end(e0 + 2, false)).toMatchObject({ errorCode: ErrorCodes.NONE, producerId, producerEpoch: e0 + 3 })
      const committed = await javaConsume(cluster, topic, { props: { 'isolation.level': 'read_committed' } })
      expect(values(committed)).toEqual(['w1'])
    }, 120_000)

    it('a transaction past its timeout is aborted with one epoch bump: the producer abort is answered with the new epoch, its commit refused, its late write fenced', async () => {
      const topic = 'ttx'
      await createTopic(topic, 1)
      const txnId = 't-tx'
      const [coordinator, leader] = await Promise.all([wire.coordinator(1, txnId), wire.leader(topic, 0)])
      const init = await until(
        'InitProducerId',
        () =>
          wire.request(coordinator, InitProducerId, 5, {
            transactionalId: txnId,
            transactionTimeoutMs: 1000,
            producerId: -1n,
            producerEpoch: -1,
          }),
        (r) => r.errorCode !== ErrorCodes.COORDINATOR_LOAD_IN_PROGRESS && r.errorCode !== ErrorCodes.NOT_COORDINATOR,
        30_000,
      )
      const { producerId, producerEpoch: e } = init
      const produce = async (sequence: number) => {
        const r = await wire.request(leader, Produce, 12, {
          transactionalId: txnId,
          acks: -1,
          timeoutMs: 10_000,
          topicData: [
            {
              name: topic,
              partitionData: [
                {
                  index: 0,
                  records: encodeRecordBatch([{ value: 'slow' }], {
                    producerId,
                    producerEpoch: e,
                    baseSequence: sequence,
                    transactional: true,
                  }),
                },
              ],
            },
          ],
        } as never)
        return r.responses[0].partitionResponses[0].errorCode
      }
      const end = (committed: boolean) =>
        wire.request(coordinator, EndTxn, 5, { transactionalId: txnId, producerId, producerEpoch: e, committed })
      expect(await firstWrite(() => produce(0))).toBe(ErrorCodes.NONE)
      const aborted = await until(
        'the timeout abort',
        async () => (await wire.request(coordinator, DescribeTransactions, 0, { transactionalIds: [txnId] })).transactionStates[0],
        (d) => d.transactionState === 'CompleteAbort',
        60_000,
      )
      expect(aborted.producerEpoch).toBe(e + 1)
      expect((await end(true)).errorCode).toBe(ErrorCodes.INVALID_TXN_STATE)
      expect(await end(false)).toMatchObject({ errorCode: ErrorCodes.NONE, producerId, producerEpoch: e + 1 })
      expect(await produce(1)).toBe(ErrorCodes.INVALID_PRODUCER_EPOCH)
    }, 120_000)
  })

for (const target of brokerTargets({
  kafka: { formatArgs: ['--feature', 'transaction.version=1'] },
  embedded: { transactionVersion: 1 },
}))
  describe.skipIf(!target.available)(`the first transaction protocol on ${target.name} with transaction.version 1`, () => {
    let cluster: RunningTarget
    beforeAll(async () => {
      cluster = await target.start()
    }, 180_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    it('the Java client keeps its epoch across transactions (no KIP-890 part 2); commits, aborts and offsets as before', async () => {
      const c = await RawClient.open(cluster.bootstrap.split(',')[0])
      const r = await c.request(ApiVersions, 4, { clientSoftwareName: 'txv1', clientSoftwareVersion: '1' }).finally(() => c.close())
      expect(r.finalizedFeatures.find((f) => f.name === 'transaction.version')).toMatchObject({ minVersionLevel: 1, maxVersionLevel: 1 })
      const answers = await javaTransactions(cluster, 'v1tx', 'v1-tx', [
        { op: 'describe' },
        { op: 'begin' },
        { op: 'send', value: 'c1', partition: 0 },
        { op: 'offsets', group: 'v1-g', partition: 0, offset: 5 },
        { op: 'commit' },
        { op: 'begin' },
        { op: 'send', value: 'a1', partition: 0 },
        { op: 'abort' },
        { op: 'describe' },
      ])
      expect(answers.filter((a) => 'error' in a)).toEqual([])
      expect(epochOf(answers[8])).toBe(epochOf(answers[0]))
      expect(values(await javaConsume(cluster, 'v1tx', { props: { 'isolation.level': 'read_committed' } }))).toEqual(['c1'])
      const [offsets] = await javaAdmin(cluster, [{ op: 'listConsumerGroupOffsets', group: 'v1-g' }])
      expect(offsets).toEqual({ offsets: [['v1tx', 0, 5]] })
    }, 120_000)
  })
