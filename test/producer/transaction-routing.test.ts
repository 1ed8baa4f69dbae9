import { expect, it } from 'vitest'
import { Routes } from '../../src/cluster/route.js'
import type { PartitionQueue } from '../../src/producer/accumulator.js'
import { ProducerIdentity } from '../../src/producer/producer-identity.js'
import { TransactionManager } from '../../src/producer/transaction-manager.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import type { ApiSpec } from '../../src/protocol/api.js'
import { ScriptedCluster } from '../support/scripted-cluster.js'

/**
 * Where the transactional producer's requests go and which versions it
 * speaks, through the ClusterClient seam (ScriptedCluster encodes each body
 * at every version the caller allows). End to end: test/producer/transactions
 * and test/kafka/transactions.
 */
function transactional(answer: (api: ApiSpec, req: any) => any = () => ({})) {
  const cluster = new ScriptedCluster((api, req) =>
    api.name === 'InitProducerId' ? { producerId: 7n, producerEpoch: 3 } : answer(api, req),
  )
  const identity = new ProducerIdentity(cluster, 'tx', 60_000)
  return { cluster, identity, txn: new TransactionManager(cluster, identity) }
}
const queue = (topic: string, partition: number) => ({ key: `${topic}-${partition}`, topic, partition }) as unknown as PartitionQueue

it('routes each transactional request to its coordinator, at the versions the first transaction protocol uses', async () => {
  const { cluster, identity, txn } = transactional((api, req) =>
    api.name === 'AddPartitionsToTxn'
      ? {
          resultsByTopicV3AndBelow: req.v3AndBelowTopics.map((t: any) => ({
            name: t.name,
            resultsByPartition: t.partitions.map((p: number) => ({ partitionIndex: p })),
          })),
        }
      : api.name === 'TxnOffsetCommit'
        ? {
            topics: req.topics.map((t: any) => ({
              name: t.name,
              partitions: t.partitions.map((p: any) => ({ partitionIndex: p.partitionIndex })),
            })),
          }
        : {},
  )
  await identity.init()
  txn.begin()
  await Promise.all([txn.add(queue('a', 0)), txn.add(queue('a', 1)), txn.add(queue('b', 0))])
  await txn.sendOffsets('g', [{ topic: 'in', partitions: [{ partition: 0, offset: 5 }] }], { generationId: 4, memberId: 'm' })
  await txn.end(true)
  expect(cluster.sent.map((s) => [s.api.name, s.route])).toEqual([
    ['InitProducerId', Routes.transaction('tx')],
    ['AddPartitionsToTxn', Routes.transaction('tx')],
    ['AddOffsetsToTxn', Routes.transaction('tx')],
    ['TxnOffsetCommit', Routes.group('g')],
    ['EndTxn', Routes.transaction('tx')],
  ])
  const [, add, , commit, end] = cluster.sent
  expect(Math.max(...add.requests.keys())).toBe(3) // v4+ is the brokers' batch form
  expect(add.requests.get(3).v3AndBelowTopics).toEqual([
    expect.objectContaining({ name: 'a', partitions: [0, 1] }),
    expect.objectContaining({ name: 'b', partitions: [0] }),
  ])
  expect(Math.max(...commit.requests.keys())).toBe(4)
  expect(commit.requests.get(3)).toMatchObject({ producerId: 7n, producerEpoch: 3, generationIdOrMemberEpoch: 4, memberId: 'm' })
  expect(commit.requests.get(2)).toMatchObject({ generationIdOrMemberEpoch: -1, memberId: '' }) // v2 has no generation to send
  expect(Math.max(...end.requests.keys())).toBe(4)
  expect(end.requests.get(4)).toMatchObject({ transactionalId: 'tx', committed: true })
})

it('a fencing answer ends the producer: later calls fail before anything is sent', async () => {
  const { cluster, identity, txn } = transactional((api) =>
    api.name === 'AddOffsetsToTxn' ? { errorCode: ErrorCodes.PRODUCER_FENCED } : {},
  )
  await identity.init()
  txn.begin()
  await expect(txn.sendOffsets('g', [{ topic: 'in', partitions: [{ partition: 0, offset: 1 }] }])).rejects.toMatchObject({
    type: 'PRODUCER_FENCED',
  })
  const sent = cluster.sent.length
  await expect(txn.end(false)).rejects.toMatchObject({ type: 'PRODUCER_FENCED' })
  expect(cluster.sent.length).toBe(sent)
})
