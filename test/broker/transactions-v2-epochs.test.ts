// The embedded coordinator's second-protocol (KIP-890 part 2) epochs at
// their edges, which a test against real Kafka cannot reach in reasonable
// time (32766 transactions): the EndTxn that exhausts the epoch gives the
// producer a new id at epoch 0 (its markers at the old id's last epoch),
// and its retry is answered so; a first-protocol EndTxn keeps the epoch.
// Same-assertion tests on both brokers: test/kafka/transactions-v2.test.ts.
import { afterEach, describe, expect, it } from 'vitest'
import { EmbeddedCluster } from '../../src/broker/cluster.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { ensureTransactionStateTopic } from '../../src/broker/transaction-state-topic.js'

let cluster: EmbeddedCluster | undefined
afterEach(async () => {
  await cluster?.stop()
  cluster = undefined
})

async function start(): Promise<EmbeddedCluster> {
  cluster = new EmbeddedCluster({ brokers: 1 })
  await cluster.start([{ name: 't', partitions: 2 }])
  // The coordinator is asked directly: its topic made as a FindCoordinator would.
  ensureTransactionStateTopic(cluster, 'the test')
  return cluster
}

/** Sets the transactional id's epoch (as 32765 transactions would have). */
function atEpoch(c: EmbeddedCluster, transactionalId: string, epoch: number): void {
  ;(c.transactions as unknown as { byId: Map<string, { epoch: number }> }).byId.get(transactionalId)!.epoch = epoch
}

const producerEpochAt = (c: EmbeddedCluster, producerId: bigint) => {
  const t = c.controller.topics.get('t')!
  return c.brokers.get(0)!.replicas.get(`${t.id}/0`)!.producers.epochOf(producerId)
}

describe('the second transaction protocol: epochs', () => {
  it('past the last epoch the producer goes on with a new producer id at epoch 0; the retry of that EndTxn is answered the same', async () => {
    const c = await start()
    const txns = c.transactions
    const { producerId } = txns.initProducerId('ovf', 60_000, -1n, -1)
    atEpoch(c, 'ovf', 32766)
    expect(txns.addOnProduce('ovf', producerId, 32766, 't', 0)).toBe(null)
    const ended = txns.endTxn('ovf', producerId, 32766, true, true)
    expect(ended.errorCode).toBe(ErrorCodes.NONE)
    expect(ended.producerId).not.toBe(producerId)
    expect(ended.producerEpoch).toBe(0)
    // The marker went at the old id's next epoch, fencing it there.
    expect(producerEpochAt(c, producerId)).toBe(32767)
    expect(txns.describe('ovf')).toMatchObject({ producerId: ended.producerId, producerEpoch: 0, state: 'CompleteCommit' })
    expect(txns.endTxn('ovf', producerId, 32766, true, true)).toEqual(ended)
    // The old id is gone; the new one writes.
    expect(txns.addOnProduce('ovf', producerId, 32766, 't', 0)).toBe(ErrorCodes.INVALID_PRODUCER_ID_MAPPING)
    expect(txns.addOnProduce('ovf', ended.producerId, 0, 't', 0)).toBe(null)
    expect(txns.endTxn('ovf', ended.producerId, 0, false, true)).toEqual({
      errorCode: ErrorCodes.NONE,
      producerId: ended.producerId,
      producerEpoch: 1,
    })
  })

  it('an EndTxn of the first protocol keeps the epoch; one of the second bumps it, and its retry names the epoch before', async () => {
    const c = await start()
    const txns = c.transactions
    const { producerId, producerEpoch: e } = txns.initProducerId('mix', 60_000, -1n, -1)
    expect(txns.addPartitions('mix', producerId, e, [{ name: 't', partitions: [0] }])[0].results[0].errorCode).toBe(ErrorCodes.NONE)
    expect(txns.endTxn('mix', producerId, e, true, false)).toMatchObject({ errorCode: ErrorCodes.NONE, producerEpoch: e })
    expect(txns.addOnProduce('mix', producerId, e, 't', 0)).toBe(null)
    expect(txns.endTxn('mix', producerId, e, true, true)).toMatchObject({ errorCode: ErrorCodes.NONE, producerEpoch: e + 1 })
    expect(producerEpochAt(c, producerId)).toBe(e + 1)
    expect(txns.endTxn('mix', producerId, e, true, true)).toMatchObject({ errorCode: ErrorCodes.NONE, producerEpoch: e + 1 })
    expect(txns.endTxn('mix', producerId, e, false, true).errorCode).toBe(ErrorCodes.INVALID_TXN_STATE)
    // A write at the ended transaction's epoch is fenced.
    expect(txns.addOnProduce('mix', producerId, e, 't', 0)).toBe(ErrorCodes.INVALID_PRODUCER_EPOCH)
    // Verification (AddPartitionsToTxn v4+ VerifyOnly): in the transaction or not.
    expect(txns.addOnProduce('mix', producerId, e + 1, 't', 0)).toBe(null)
    expect(txns.verifyPartitions('mix', producerId, e + 1, [{ name: 't', partitions: [0, 1] }])).toEqual([
      {
        name: 't',
        results: [
          { partition: 0, errorCode: ErrorCodes.NONE },
          { partition: 1, errorCode: ErrorCodes.TRANSACTION_ABORTABLE },
        ],
      },
    ])
    expect(txns.verifyPartitions('mix', producerId, e, [{ name: 't', partitions: [0] }])[0].results[0].errorCode).toBe(
      ErrorCodes.PRODUCER_FENCED,
    )
    // A partition the cluster does not have is named before anything else is checked (as Kafka's KafkaApis).
    expect(txns.verifyPartitions('mix', producerId, e, [{ name: 't', partitions: [0, 7] }])).toEqual([
      {
        name: 't',
        results: [
          { partition: 0, errorCode: ErrorCodes.OPERATION_NOT_ATTEMPTED },
          { partition: 7, errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION },
        ],
      },
    ])
  })

  it('a second-protocol abort with nothing open bumps the epoch (as Kafka 4.4); a first-protocol one is refused', async () => {
    const c = await start()
    const txns = c.transactions
    const { producerId, producerEpoch: e } = txns.initProducerId('empty', 60_000, -1n, -1)
    expect(txns.endTxn('empty', producerId, e, false, false).errorCode).toBe(ErrorCodes.INVALID_TXN_STATE)
    expect(txns.endTxn('empty', producerId, e, true, true).errorCode).toBe(ErrorCodes.INVALID_TXN_STATE)
    expect(txns.endTxn('empty', producerId, e, false, true)).toEqual({ errorCode: ErrorCodes.NONE, producerId, producerEpoch: e + 1 })
    expect(txns.describe('empty')).toMatchObject({ state: 'CompleteAbort', producerEpoch: e + 1 })
  })

  it('a timed-out transaction: of the second protocol, its producer finds it aborted as by its own EndTxn; of the first, it is fenced', async () => {
    const c = await start()
    const txns = c.transactions
    const v2 = txns.initProducerId('late2', 100, -1n, -1)
    expect(txns.addOnProduce('late2', v2.producerId, v2.producerEpoch, 't', 0)).toBe(null)
    const v1 = txns.initProducerId('late1', 100, -1n, -1)
    expect(txns.addPartitions('late1', v1.producerId, v1.producerEpoch, [{ name: 't', partitions: [0] }])[0].results[0].errorCode).toBe(
      ErrorCodes.NONE,
    )
    await new Promise((r) => setTimeout(r, 300))
    expect(txns.describe('late2')).toMatchObject({ state: 'CompleteAbort', producerEpoch: v2.producerEpoch + 1 })
    expect(txns.endTxn('late2', v2.producerId, v2.producerEpoch, true, true).errorCode).toBe(ErrorCodes.INVALID_TXN_STATE)
    expect(txns.endTxn('late2', v2.producerId, v2.producerEpoch, false, true)).toEqual({
      errorCode: ErrorCodes.NONE,
      producerId: v2.producerId,
      producerEpoch: v2.producerEpoch + 1,
    })
    expect(txns.endTxn('late1', v1.producerId, v1.producerEpoch, true, false).errorCode).toBe(ErrorCodes.PRODUCER_FENCED)
    expect(txns.endTxn('late1', v1.producerId, v1.producerEpoch, false, false).errorCode).toBe(ErrorCodes.PRODUCER_FENCED)
  })
})
