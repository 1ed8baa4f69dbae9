import { ErrorCodes } from '../../protocol/error-codes.js'
import type { EmbeddedCluster } from '../cluster.js'
import { transactionCoordinatorFor } from '../coordinator-placement.js'
import { StorageError } from '../storage/disk-io.js'
import { offsetsPartitionFor } from '../offsets-topic.js'
import { transactionStatePartitionFor } from '../transaction-state-topic.js'
import { OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC } from '../topic-names.js'
import { TransactionLog } from './transaction-log.js'
import type { TxnRecord } from './transaction-records.js'

/** Kafka's transaction.max.timeout.ms. */
export const MAX_TRANSACTION_TIMEOUT_MS = 900_000
/** An epoch this close to Short.MAX_VALUE gets a new producer id instead (as Kafka does). */
const LAST_EPOCH = 32766
/** How soon markers whose write failed are written again (Kafka's coordinator re-enqueues them, with retry.backoff.ms). */
export const MARKER_RETRY_MS = 100

/** Prepare*: decided, some markers not yet written (retried until they are); Complete*: every marker written. */
type TxnState = 'Empty' | 'Ongoing' | 'PrepareCommit' | 'PrepareAbort' | 'CompleteCommit' | 'CompleteAbort'

interface Transaction {
  transactionalId: string
  producerId: bigint
  epoch: number
  state: TxnState
  timeoutMs: number
  /** `${topic}/${partition}` -> where to write its marker; once decided, those whose marker is still to be written. */
  partitions: Map<string, { topic: string; partition: number }>
  groups: Set<string>
  /** The epoch the markers are written at (decided with the outcome). */
  markerEpoch: number
  /** The timeout while Ongoing; the markers' next try while Prepare*. */
  timer: NodeJS.Timeout | null
  /** When the open transaction began (epoch ms); -1 when none has. */
  startedAt: number
  /**
   * The last EndTxn came from a client of the second transaction protocol
   * (KIP-890, EndTxn v5+): it bumped the epoch, so a retry of it names the
   * epoch before (Kafka's clientTransactionVersion).
   */
  tv2: boolean
  /** The open transaction began through the second protocol (a Produce v12+ or TxnOffsetCommit v5+ added to it). */
  openTv2: boolean
  /** The producer id the markers' epoch exhausted, taken once they are written; -1 when none. */
  nextProducerId: bigint
  /** The producer id before the last such change (a retried EndTxn may name it); -1 when none. */
  previousProducerId: bigint
  /** When its state was last written (Kafka's txnLastUpdateTimestamp): what transactional.id.expiration.ms counts from. */
  lastUpdate: number
}

/** Per topic, each partition's error code (AddPartitionsToTxn's answer). */
export type TopicResults = { name: string; results: { partition: number; errorCode: number }[] }[]

/** EndTxn's answer: v5+ carry the producer id and epoch the producer goes on with. */
export interface EndTxnResult {
  errorCode: number
  producerId: bigint
  producerEpoch: number
}

/** A transaction as DescribeTransactions and ListTransactions show it. */
export interface TransactionView {
  transactionalId: string
  producerId: bigint
  producerEpoch: number
  /** Kafka's TransactionState name. */
  state: string
  timeoutMs: number
  startedAt: number
  partitions: { topic: string; partition: number }[]
}

/**
 * The transaction coordinator: a
 * transactional id's producer id and epoch, fencing older epochs; the
 * partitions and groups a transaction touched; EndTxn writes COMMIT or
 * ABORT markers (control batches) to each partition and settles the
 * groups' pending offsets. A transaction open past its timeout is aborted
 * with the epoch bumped, which fences its producer. A marker whose write
 * fails (a full disk) is written again, to the partition's leader of the
 * moment, until it is, as Kafka's coordinator does; until then the
 * transaction is PrepareCommit/PrepareAbort and its producer's requests
 * are answered CONCURRENT_TRANSACTIONS (retried by every client), EndTxn
 * included: a commit is acknowledged only once all its markers are written.
 *
 * The second transaction protocol (KIP-890 part 2, transaction.version 2)
 * is the client's choice, by request version, as Kafka's: a Produce v12+
 * adds its partition to the transaction itself (the leader asks this
 * coordinator, in process), a TxnOffsetCommit v5+ its group, and an EndTxn
 * v5+ bumps the epoch (markers written at the new one, so a late write of
 * the ended transaction is fenced at every partition), answering the epoch
 * (and past the last epoch a new producer id) the producer goes on with.
 *
 * Each id's state is kept in __transaction_state (TransactionLog), as
 * Kafka's: every state it moves to is written there before the request
 * that moved it is answered (a state whose record cannot be written is
 * taken back, the request answered with the error), and the partitions are
 * loaded at start and when their leader moves.
 */
export class TransactionCoordinator {
  private readonly byId = new Map<string, Transaction>()
  private readonly byProducerId = new Map<bigint, Transaction>()
  /** The transactional ids' states in __transaction_state. */
  readonly log: TransactionLog
  /** Each __transaction_state partition's leader when its ids were last loaded. */
  private readonly loadedLeaders = new Map<number, number>()
  /** Set once the partitions were read at start: until then no producer is unknown here. */
  private loaded = false
  private unsubscribe: (() => void) | null = null

  constructor(private readonly cluster: EmbeddedCluster) {
    this.log = new TransactionLog(cluster)
  }

  /**
   * Loads every partition of __transaction_state (the broker starts), then
   * follows their leaders: a partition whose leader changes is loaded again
   * from the new leader's log (Kafka's coordinator loads the partitions it
   * comes to lead), in one turn of the event loop.
   */
  loadAll(): void {
    const t = this.cluster.controller.topics.get(TRANSACTION_STATE_TOPIC)
    for (const p of t?.partitions ?? []) if (p) this.load(p.partition)
    this.loaded = true
    this.unsubscribe ??= this.cluster.controller.onRecord((r) => {
      if (r.type !== 'partition' && r.type !== 'partition-change') return
      const t = this.cluster.controller.topicsById.get(r.topicId)
      if (t?.name !== TRANSACTION_STATE_TOPIC) return
      const leader = t.partitions[r.partition]?.leader ?? -1
      if (leader < 0 || this.loadedLeaders.get(r.partition) === leader) return
      // Once the brokers have taken their roles from the same record.
      queueMicrotask(() => this.load(r.partition))
    })
  }

  /**
   * The ids of partition `partition` as its leader's log has them (the last
   * record of each), in place of what this process held of them: an open
   * transaction is aborted when its timeout (from its start) passes; one
   * decided (PrepareCommit, PrepareAbort) gets its markers written, as
   * Kafka's coordinator completes what it loads.
   */
  private load(partition: number): void {
    const t = this.cluster.controller.topics.get(TRANSACTION_STATE_TOPIC)
    const leader = t?.partitions[partition]?.leader ?? -1
    const records = this.log.read(partition)
    if (records === null) return
    this.loadedLeaders.set(partition, leader)
    for (const txn of [...this.byId.values()]) {
      if (transactionStatePartitionFor(this.cluster, txn.transactionalId) !== partition) continue
      if (txn.timer) clearTimeout(txn.timer)
      txn.timer = null
      this.byId.delete(txn.transactionalId)
      if (this.byProducerId.get(txn.producerId) === txn) this.byProducerId.delete(txn.producerId)
    }
    const latest = new Map<string, TxnRecord | null>()
    for (const r of records) latest.set(r.transactionalId, r.record)
    let open = 0
    for (const [transactionalId, r] of latest) {
      if (r === null || r.state === 'Dead') continue
      const tv2 = r.clientTransactionVersion >= 2
      const state = r.state === 'PrepareEpochFence' ? 'Ongoing' : r.state
      const txn: Transaction = {
        transactionalId,
        producerId: r.producerId,
        epoch: r.producerEpoch,
        state,
        timeoutMs: r.timeoutMs,
        partitions: new Map(r.partitions.map((x) => [`${x.topic}/${x.partition}`, x])),
        groups: new Set(),
        markerEpoch: r.producerEpoch,
        timer: null,
        startedAt: r.startedAt,
        tv2,
        openTv2: tv2,
        nextProducerId: r.nextProducerId,
        previousProducerId: r.previousProducerId,
        lastUpdate: r.lastUpdate,
      }
      if (ended(txn)) txn.partitions.clear()
      this.byId.set(transactionalId, txn)
      this.byProducerId.set(txn.producerId, txn)
      if (state === 'Ongoing') {
        open++
        this.armTimeout(txn)
      } else if (preparing(txn)) {
        open++
        this.settleGroups(txn, state === 'PrepareCommit')
        this.writeMarkers(txn, 0)
      }
    }
    if (open > 0)
      this.cluster.problem(
        leader,
        `${TRANSACTION_STATE_TOPIC}-${partition} loaded: ${latest.size} transactional id(s), ${open} with a transaction to complete`,
        'info',
      )
  }

  /**
   * The offsets a loaded transaction left pending in groups (their records
   * in __consumer_offsets, replayed by the group coordinator) resolved with
   * its outcome: the groups of each __consumer_offsets partition it holds.
   */
  private settleGroups(txn: Transaction, commit: boolean): void {
    const offsetsPartitions = new Set<number>()
    for (const { topic, partition } of txn.partitions.values()) if (topic === OFFSETS_TOPIC) offsetsPartitions.add(partition)
    if (offsetsPartitions.size === 0) return
    for (const g of this.cluster.groups.groups.values())
      if (offsetsPartitions.has(offsetsPartitionFor(this.cluster, g.groupId))) g.completeTransaction(txn.producerId, commit)
  }

  /** The transaction's state as its record in __transaction_state says it. */
  private record(txn: Transaction): TxnRecord {
    const partitions = new Map(txn.partitions)
    // The groups' partitions of __consumer_offsets are the transaction's too, as Kafka's AddOffsetsToTxn adds them.
    if (txn.state === 'Ongoing' && this.cluster.controller.topics.has(OFFSETS_TOPIC))
      for (const groupId of txn.groups) {
        const partition = offsetsPartitionFor(this.cluster, groupId)
        partitions.set(`${OFFSETS_TOPIC}/${partition}`, { topic: OFFSETS_TOPIC, partition })
      }
    return {
      producerId: txn.producerId,
      previousProducerId: txn.previousProducerId,
      nextProducerId: txn.nextProducerId,
      // Decided, the epoch its markers are written at (a fenced producer's is past).
      producerEpoch: preparing(txn) ? txn.markerEpoch : txn.epoch,
      timeoutMs: txn.timeoutMs,
      state: txn.state,
      partitions: ended(txn) ? [] : [...partitions.values()],
      lastUpdate: Date.now(),
      // As Kafka's: no start while no transaction has begun since the producer's InitProducerId.
      startedAt: txn.state === 'Empty' ? -1 : txn.startedAt,
      clientTransactionVersion: (txn.state === 'Ongoing' ? txn.openTv2 : txn.tv2) ? 2 : 0,
    }
  }

  /** Writes the transaction's state to its partition of __transaction_state: NONE, or the error to answer. */
  private persist(txn: Transaction): number {
    const r = this.record(txn)
    const code = this.log.write(txn.transactionalId, r)
    if (code === ErrorCodes.NONE) txn.lastUpdate = r.lastUpdate
    return code
  }

  /**
   * transactional.id.expiration.ms, as Kafka's removeExpiredTransactionalIds:
   * an id with no transaction open (Empty, CompleteCommit, CompleteAbort)
   * whose state has not changed for that long is forgotten, a tombstone
   * written for it in __transaction_state (one not written is tried again
   * at the next sweep). An InitProducerId for it afterwards starts it anew,
   * under a new producer id. Each coordinator says how many went.
   */
  expireTransactionalIds(now: number, expirationMs: number): void {
    const removed = new Map<number, number>()
    for (const txn of [...this.byId.values()]) {
      if (!ended(txn) || now - txn.lastUpdate < expirationMs) continue
      if (this.log.remove(txn.transactionalId) !== ErrorCodes.NONE) continue
      this.byId.delete(txn.transactionalId)
      if (this.byProducerId.get(txn.producerId) === txn) this.byProducerId.delete(txn.producerId)
      const coordinator = this.coordinatorFor(txn.transactionalId)
      removed.set(coordinator, (removed.get(coordinator) ?? 0) + 1)
    }
    for (const [coordinator, n] of removed)
      this.cluster.problem(coordinator, `removed ${n} expired transactional id(s) (transactional.id.expiration.ms ${expirationMs})`, 'info')
  }

  /** Once the id's last state written is held by the ISR: what its request is answered (NONE, or Kafka's error). */
  written(transactionalId: string): Promise<number> {
    return this.log.written(transactionalId)
  }

  /** The open transaction's abort when its timeout (from its start) passes. */
  private armTimeout(txn: Transaction, delayMs = Math.max(0, txn.startedAt + txn.timeoutMs - Date.now())): void {
    if (txn.timer) clearTimeout(txn.timer)
    txn.timer = setTimeout(() => {
      txn.timer = null
      if (txn.state !== 'Ongoing' || this.byId.get(txn.transactionalId) !== txn) return
      // Timed out: aborted under a new epoch. A first-protocol producer is fenced; a second-protocol one finds
      // the abort as if its own EndTxn had done it (its abort answered with the new epoch, its commit refused), as Kafka 4.4's.
      const saved = save(txn)
      this.bumpEpoch(txn)
      txn.tv2 = txn.openTv2
      if (this.complete(txn, false, 0) !== ErrorCodes.NONE) {
        // Its record not written: tried again.
        this.restore(txn, saved)
        this.armTimeout(txn, MARKER_RETRY_MS)
      }
    }, delayMs)
  }

  /** The transaction as `saved` had it (a state whose record was not written is not taken). */
  private restore(txn: Transaction, saved: Saved): void {
    if (this.byProducerId.get(txn.producerId) === txn) this.byProducerId.delete(txn.producerId)
    const timer = txn.timer
    Object.assign(txn, saved, { timer })
    this.byProducerId.set(txn.producerId, txn)
  }

  coordinatorFor(transactionalId: string): number {
    return transactionCoordinatorFor(this.cluster, transactionalId)
  }

  initProducerId(
    transactionalId: string,
    timeoutMs: number,
    producerId: bigint,
    producerEpoch: number,
  ): { errorCode: number; producerId: bigint; producerEpoch: number } {
    const refused = (errorCode: number) => ({ errorCode, producerId: -1n, producerEpoch: -1 })
    if (!(timeoutMs > 0 && timeoutMs <= MAX_TRANSACTION_TIMEOUT_MS)) return refused(ErrorCodes.INVALID_TRANSACTION_TIMEOUT)
    let txn = this.byId.get(transactionalId)
    if (!txn) {
      txn = {
        transactionalId,
        producerId: this.cluster.controller.allocateProducerId(),
        epoch: 0,
        state: 'Empty',
        timeoutMs,
        partitions: new Map(),
        groups: new Set(),
        markerEpoch: 0,
        timer: null,
        startedAt: -1,
        tv2: false,
        openTv2: false,
        nextProducerId: -1n,
        previousProducerId: -1n,
        lastUpdate: -1,
      }
      const written = this.persist(txn)
      if (written !== ErrorCodes.NONE) return refused(written)
      this.byId.set(transactionalId, txn)
      this.byProducerId.set(txn.producerId, txn)
      return { errorCode: ErrorCodes.NONE, producerId: txn.producerId, producerEpoch: txn.epoch }
    }
    // KIP-360: a producer naming its id and epoch must be the current one.
    if (producerId >= 0n && (producerId !== txn.producerId || producerEpoch !== txn.epoch)) return refused(ErrorCodes.PRODUCER_FENCED)
    if (preparing(txn)) return refused(ErrorCodes.CONCURRENT_TRANSACTIONS)
    if (txn.state === 'Ongoing') {
      const saved = save(txn)
      const code = this.complete(txn, false, 1)
      if (code !== ErrorCodes.NONE) {
        this.restore(txn, saved)
        this.armTimeout(txn)
        return refused(code)
      }
      // The abort's markers (at the next epoch) not all written: the retry, once they are, bumps the epoch to theirs.
      if (preparing(txn)) return refused(ErrorCodes.CONCURRENT_TRANSACTIONS)
    }
    const saved = save(txn)
    txn.timeoutMs = timeoutMs
    this.bumpEpoch(txn)
    txn.state = 'Empty'
    txn.partitions.clear()
    txn.groups.clear()
    // A new producer session: no EndTxn retry of the old one is valid.
    txn.tv2 = false
    const written = this.persist(txn)
    if (written !== ErrorCodes.NONE) {
      this.restore(txn, saved)
      return refused(written)
    }
    return { errorCode: ErrorCodes.NONE, producerId: txn.producerId, producerEpoch: txn.epoch }
  }

  private bumpEpoch(txn: Transaction): void {
    if (txn.epoch >= LAST_EPOCH) {
      // First, as it may be refused (its record not written): the transaction stays as it was.
      const producerId = this.cluster.controller.allocateProducerId()
      this.byProducerId.delete(txn.producerId)
      txn.previousProducerId = txn.producerId
      txn.producerId = producerId
      txn.epoch = 0
      this.byProducerId.set(txn.producerId, txn)
    } else {
      txn.epoch++
    }
  }

  /** The error for a request naming this id, producer id and epoch, or null when it is the current producer. */
  private check(transactionalId: string, producerId: bigint, epoch: number): Transaction | number {
    const txn = this.byId.get(transactionalId)
    if (!txn || txn.producerId !== producerId) return ErrorCodes.INVALID_PRODUCER_ID_MAPPING
    if (txn.epoch !== epoch) return ErrorCodes.PRODUCER_FENCED
    return txn
  }

  /** Opens a transaction (its timeout armed once its record is written: `opened`). */
  private begin(txn: Transaction, tv2: boolean): void {
    if (txn.state === 'Ongoing') return
    txn.state = 'Ongoing'
    txn.startedAt = Date.now()
    txn.partitions.clear()
    txn.groups.clear()
    txn.openTv2 = tv2
  }

  /**
   * The record of a change to the open transaction (`saved`: as it was)
   * written, its timeout armed; NONE, or the error to answer with the
   * change taken back. Nothing changed, nothing is written.
   */
  private opened(txn: Transaction, saved: Saved): number {
    if (saved.state === 'Ongoing' && txn.partitions.size === saved.partitions.size && txn.groups.size === saved.groups.size)
      return ErrorCodes.NONE
    const written = this.persist(txn)
    if (written !== ErrorCodes.NONE) {
      this.restore(txn, saved)
      return written
    }
    if (!txn.timer) this.armTimeout(txn)
    return ErrorCodes.NONE
  }

  addPartitions(
    transactionalId: string,
    producerId: bigint,
    epoch: number,
    topics: { name: string; partitions: number[] }[],
    tv2 = false,
  ): TopicResults {
    const all = (code: number) =>
      topics.map((t) => ({ name: t.name, results: t.partitions.map((partition) => ({ partition, errorCode: code })) }))
    const missing = this.unknownPartitions(topics)
    if (missing) return missing
    const txn = this.check(transactionalId, producerId, epoch)
    if (typeof txn === 'number') return all(txn)
    if (preparing(txn)) return all(ErrorCodes.CONCURRENT_TRANSACTIONS)
    const saved = save(txn)
    this.begin(txn, tv2)
    for (const t of topics) for (const partition of t.partitions) txn.partitions.set(`${t.name}/${partition}`, { topic: t.name, partition })
    return all(this.opened(txn, saved))
  }

  /** Any partition the cluster does not have: it UNKNOWN_TOPIC_OR_PARTITION, the others OPERATION_NOT_ATTEMPTED (checked first, as Kafka's KafkaApis does); null when all exist. */
  private unknownPartitions(topics: { name: string; partitions: number[] }[]): TopicResults | null {
    const unknown = (t: string, p: number) => !this.cluster.controller.topics.get(t)?.partitions[p]
    if (!topics.some((t) => t.partitions.some((p) => unknown(t.name, p)))) return null
    return topics.map((t) => ({
      name: t.name,
      results: t.partitions.map((partition) => ({
        partition,
        errorCode: unknown(t.name, partition) ? ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION : ErrorCodes.OPERATION_NOT_ATTEMPTED,
      })),
    }))
  }

  addOffsets(transactionalId: string, producerId: bigint, epoch: number, groupId: string, tv2 = false): number {
    const txn = this.check(transactionalId, producerId, epoch)
    if (typeof txn === 'number') return txn
    if (preparing(txn)) return ErrorCodes.CONCURRENT_TRANSACTIONS
    const saved = save(txn)
    this.begin(txn, tv2)
    txn.groups.add(groupId)
    return this.opened(txn, saved)
  }

  /** EndTxn; `tv2`: the client's second-protocol request (v5+), whose end bumps the epoch. */
  endTxn(transactionalId: string, producerId: bigint, epoch: number, commit: boolean, tv2 = false): EndTxnResult {
    const refused = (errorCode: number): EndTxnResult => ({ errorCode, producerId: -1n, producerEpoch: -1 })
    const txn = this.byId.get(transactionalId)
    if (!txn) return refused(ErrorCodes.INVALID_PRODUCER_ID_MAPPING)
    // After a second-protocol end, its retry names the epoch before the bump (or, past the last epoch, the producer id before).
    const retryOfBump = txn.tv2 && txn.epoch === epoch + 1
    const retryOfNewId = txn.tv2 && txn.previousProducerId === producerId && epoch === LAST_EPOCH && txn.epoch === 0
    if (txn.producerId !== producerId && !retryOfNewId) return refused(ErrorCodes.INVALID_PRODUCER_ID_MAPPING)
    const retry = retryOfBump || retryOfNewId
    const validEpoch =
      txn.state === 'Ongoing' || txn.state === 'Empty'
        ? epoch === txn.epoch
        : preparing(txn)
          ? txn.tv2
            ? retryOfBump
            : epoch === txn.epoch
          : epoch === txn.epoch || retry
    if (!validEpoch) return refused(ErrorCodes.PRODUCER_FENCED)
    // A second-protocol abort with no transaction open is one of its own, as Kafka 4.4 takes it: the epoch bumps (franz-go aborts so after produces that all failed).
    const emptyAbort =
      tv2 && !commit && !retry && (txn.state === 'Empty' || txn.state === 'CompleteCommit' || txn.state === 'CompleteAbort')
    // A retried EndTxn of what was just done succeeds again; of what is being done, is asked again.
    if (txn.state === (commit ? 'CompleteCommit' : 'CompleteAbort') && !emptyAbort)
      return { errorCode: ErrorCodes.NONE, producerId: txn.producerId, producerEpoch: txn.epoch }
    if (txn.state === (commit ? 'PrepareCommit' : 'PrepareAbort')) return refused(ErrorCodes.CONCURRENT_TRANSACTIONS)
    if (txn.state !== 'Ongoing' && !emptyAbort) return refused(ErrorCodes.INVALID_TXN_STATE)
    const saved = save(txn)
    if (emptyAbort) {
      txn.partitions.clear()
      txn.groups.clear()
      txn.startedAt = Date.now()
    }
    if (tv2) {
      // First, as it may be refused (its record not written): the transaction stays as it was.
      if (txn.epoch >= LAST_EPOCH) txn.nextProducerId = this.cluster.controller.allocateProducerId()
      txn.epoch++
    }
    txn.tv2 = tv2
    const code = this.complete(txn, commit, 0)
    if (code !== ErrorCodes.NONE) {
      this.restore(txn, saved)
      if (txn.state === 'Ongoing') this.armTimeout(txn)
      return refused(code)
    }
    if (preparing(txn)) return refused(ErrorCodes.CONCURRENT_TRANSACTIONS)
    return { errorCode: ErrorCodes.NONE, producerId: txn.producerId, producerEpoch: txn.epoch }
  }

  /**
   * AddPartitionsToTxn v4+ with VerifyOnly (KIP-890 part 1, between brokers
   * in Kafka): whether each partition is in the open transaction, NONE or
   * TRANSACTION_ABORTABLE, or the error for them all.
   */
  verifyPartitions(
    transactionalId: string,
    producerId: bigint,
    epoch: number,
    topics: { name: string; partitions: number[] }[],
  ): TopicResults {
    const missing = this.unknownPartitions(topics)
    if (missing) return missing
    const txn = this.check(transactionalId, producerId, epoch)
    const code = (topic: string, partition: number) =>
      typeof txn === 'number'
        ? txn
        : preparing(txn)
          ? ErrorCodes.CONCURRENT_TRANSACTIONS
          : txn.state === 'Ongoing' && txn.partitions.has(`${topic}/${partition}`)
            ? ErrorCodes.NONE
            : ErrorCodes.TRANSACTION_ABORTABLE
    return topics.map((t) => ({
      name: t.name,
      results: t.partitions.map((partition) => ({ partition, errorCode: code(t.name, partition) })),
    }))
  }

  /**
   * What became of `producerId`'s last transaction, for a partition whose
   * log still has it open: 'ongoing' (this coordinator will write its
   * markers; Prepare* too, their retry does), 'commit' or 'abort' (decided, its marker missing there: a new
   * leader that had not replicated it), or 'unknown' (no state here: the
   * coordinator of a process that stopped).
   */
  outcome(producerId: bigint): 'ongoing' | 'commit' | 'abort' | 'unknown' {
    if (!this.loaded) return 'ongoing'
    const state = this.byProducerId.get(producerId)?.state
    if (state === undefined) return 'unknown'
    return state === 'CompleteCommit' ? 'commit' : state === 'CompleteAbort' ? 'abort' : 'ongoing'
  }

  /** Whether a transactional batch of `producerId` may go to topic/partition: its transaction is open there, at this epoch. */
  produceCheck(producerId: bigint, epoch: number, topic: string, partition: number): number | null {
    const txn = this.byProducerId.get(producerId)
    if (!txn) return ErrorCodes.INVALID_PRODUCER_ID_MAPPING
    if (epoch < txn.epoch) return ErrorCodes.INVALID_PRODUCER_EPOCH
    if (epoch > txn.epoch || txn.state !== 'Ongoing' || !txn.partitions.has(`${topic}/${partition}`)) return ErrorCodes.INVALID_TXN_STATE
    return null
  }

  /**
   * A Produce v12+ transactional batch (the second protocol): its partition
   * joins the producer's transaction unless it is in already, as Kafka's
   * leader asks the coordinator (AddPartitionsToTxn); the coordinator's
   * answer as the partition gives it (Kafka's translation: fenced is
   * INVALID_PRODUCER_EPOCH, a transaction still ending NOT_ENOUGH_REPLICAS).
   */
  addOnProduce(transactionalId: string | null, producerId: bigint, epoch: number, topic: string, partition: number): number | null {
    const txn = transactionalId !== null ? this.byId.get(transactionalId) : this.byProducerId.get(producerId)
    if (!txn || txn.producerId !== producerId) return ErrorCodes.INVALID_PRODUCER_ID_MAPPING
    if (txn.state === 'Ongoing' && txn.partitions.has(`${topic}/${partition}`))
      return this.produceCheck(producerId, epoch, topic, partition)
    const code = this.addPartitions(txn.transactionalId, producerId, epoch, [{ name: topic, partitions: [partition] }], true)[0].results[0]
      .errorCode
    if (code === ErrorCodes.NONE) return null
    if (code === ErrorCodes.PRODUCER_FENCED) return ErrorCodes.INVALID_PRODUCER_EPOCH
    if (code === ErrorCodes.CONCURRENT_TRANSACTIONS) return ErrorCodes.NOT_ENOUGH_REPLICAS
    return code
  }

  /**
   * Whether a TxnOffsetCommit comes from the current producer of an open
   * transaction that added the group; `addGroup` (v5+, the second
   * protocol): the commit adds the group itself, as AddOffsetsToTxn would.
   */
  offsetCommitCheck(transactionalId: string, producerId: bigint, epoch: number, groupId: string, addGroup = false): number | null {
    const txn = this.check(transactionalId, producerId, epoch)
    if (typeof txn === 'number') return txn === ErrorCodes.PRODUCER_FENCED ? ErrorCodes.INVALID_PRODUCER_EPOCH : txn
    if (addGroup && !(txn.state === 'Ongoing' && txn.groups.has(groupId))) {
      const code = this.addOffsets(transactionalId, producerId, epoch, groupId, true)
      return code === ErrorCodes.NONE ? null : code
    }
    if (txn.state !== 'Ongoing' || !txn.groups.has(groupId)) return ErrorCodes.INVALID_TXN_STATE
    return null
  }

  /**
   * Decides the outcome: its record (PrepareCommit, PrepareAbort) written,
   * then the markers (at the transaction's current epoch, plus `epochBump`
   * when fencing) and the groups settled. NONE, or the error of the record's
   * write (nothing else done: the caller takes the transaction back).
   */
  private complete(txn: Transaction, commit: boolean, epochBump: number): number {
    if (txn.timer) clearTimeout(txn.timer)
    txn.timer = null
    txn.state = commit ? 'PrepareCommit' : 'PrepareAbort'
    txn.markerEpoch = txn.epoch + epochBump
    // The groups' partitions of __consumer_offsets hold their transactional offset records: their markers resolve them, as Kafka's.
    if (this.cluster.controller.topics.has(OFFSETS_TOPIC))
      for (const groupId of txn.groups) {
        const partition = offsetsPartitionFor(this.cluster, groupId)
        txn.partitions.set(`${OFFSETS_TOPIC}/${partition}`, { topic: OFFSETS_TOPIC, partition })
      }
    const written = this.persist(txn)
    if (written !== ErrorCodes.NONE) return written
    for (const groupId of txn.groups) this.cluster.groups.get(groupId)?.completeTransaction(txn.producerId, commit)
    this.writeMarkers(txn, 0)
    return ErrorCodes.NONE
  }

  /**
   * Writes each marker still to be written, to its partition's leader now
   * (with no leader, to the replica that leads again first: a stopped
   * leader keeps it); one whose write fails (StorageError) is tried again
   * after MARKER_RETRY_MS, until every one is written.
   */
  private writeMarkers(txn: Transaction, attempt: number): void {
    const commit = txn.state === 'PrepareCommit'
    const failed: string[] = []
    for (const [key, { topic, partition }] of txn.partitions) {
      const t = this.cluster.controller.topics.get(topic)
      const p = t?.partitions[partition]
      const holder = p && this.cluster.brokers.get(p.leader >= 0 ? p.leader : (p.isr[0] ?? p.replicas[0]))
      const replica = t && holder?.replicas.get(`${t.id}/${partition}`)
      try {
        // A deleted topic, or a replica never opened, has no transaction to end.
        if (p && replica) {
          replica.log.writeMarker(txn.producerId, txn.markerEpoch, commit, p.leaderEpoch)
          replica.producers.endTransaction(txn.producerId, txn.markerEpoch, Date.now())
        }
        txn.partitions.delete(key)
      } catch (err) {
        if (!(err instanceof StorageError)) throw err
        failed.push(`${topic}-${partition} (${err.message})`)
      }
    }
    const what = `${commit ? 'COMMIT' : 'ABORT'} markers of transactional id ${txn.transactionalId}`
    const report = (message: string, level: 'error' | 'info') =>
      this.cluster.problem(this.coordinatorFor(txn.transactionalId), message, level)
    if (txn.partitions.size === 0) {
      txn.state = commit ? 'CompleteCommit' : 'CompleteAbort'
      if (txn.nextProducerId >= 0n) {
        // The epoch this end exhausted: the producer goes on with the new id, now no partition has the old one's transaction open.
        this.byProducerId.delete(txn.producerId)
        txn.previousProducerId = txn.producerId
        txn.producerId = txn.nextProducerId
        txn.nextProducerId = -1n
        txn.epoch = 0
        this.byProducerId.set(txn.producerId, txn)
      }
      // Its record not written is said (TransactionLog.write); a load from the log would write the markers again.
      this.persist(txn)
      if (attempt > 0) report(`${what} written after ${attempt} retries`, 'info')
      return
    }
    if (attempt === 0)
      report(`${what} not written to ${failed.join(', ')}: written again every ${MARKER_RETRY_MS} ms until they are`, 'error')
    txn.timer = setTimeout(() => {
      txn.timer = null
      this.writeMarkers(txn, attempt + 1)
    }, MARKER_RETRY_MS)
  }

  /** The transactional ids `brokerId` coordinates, as the admin APIs show them. */
  *coordinatedBy(brokerId: number): Iterable<TransactionView> {
    for (const txn of this.byId.values()) if (this.coordinatorFor(txn.transactionalId) === brokerId) yield view(txn)
  }

  /** One transactional id's transaction, if this coordinator knows it. */
  describe(transactionalId: string): TransactionView | undefined {
    const txn = this.byId.get(transactionalId)
    return txn && view(txn)
  }

  close(): void {
    for (const txn of this.byId.values()) {
      if (txn.timer) clearTimeout(txn.timer)
      txn.timer = null
    }
    this.unsubscribe?.()
    this.unsubscribe = null
    this.log.close()
  }
}

/** A transaction's fields as they were before a change (taken back when its record is not written). */
type Saved = Omit<Transaction, 'timer'>

function save(txn: Transaction): Saved {
  const { timer: _timer, ...rest } = txn
  return { ...rest, partitions: new Map(txn.partitions), groups: new Set(txn.groups) }
}

function view(txn: Transaction): TransactionView {
  return {
    transactionalId: txn.transactionalId,
    producerId: txn.producerId,
    producerEpoch: txn.epoch,
    state: txn.state,
    timeoutMs: txn.timeoutMs,
    startedAt: txn.state === 'Ongoing' || preparing(txn) ? txn.startedAt : -1,
    partitions: [...txn.partitions.values()],
  }
}

/** No transaction open: nothing to complete, nothing its partitions wait on. */
function ended(txn: Transaction): boolean {
  return txn.state === 'Empty' || txn.state === 'CompleteCommit' || txn.state === 'CompleteAbort'
}

/** Decided, with markers still to be written: the producer's requests wait (CONCURRENT_TRANSACTIONS). */
function preparing(txn: Transaction): boolean {
  return txn.state === 'PrepareCommit' || txn.state === 'PrepareAbort'
}
