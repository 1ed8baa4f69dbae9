import { join } from 'node:path'
import { CorruptCheckpoint, readCheckpoint, writeCheckpoint } from './storage/checkpoint-file.js'
import { DiskLog, type RecoveryState, type SegmentConfig } from './storage/disk-log.js'
import {
  CorruptSnapshot,
  readSnapshot,
  removeStraySnapshots,
  snapshotOffsets,
  snapshotPath,
  writeSnapshot,
  type ProducerSnapshotEntry,
} from './storage/producer-snapshot.js'
import { CorruptTxnIndex } from './storage/txn-index.js'
import { PartitionLog, type AbortedTransaction, type EpochStart } from './partition-log.js'
import { ProducerState, snapshotEntries, stateFromSnapshot } from './producer-state.js'
import { readBatchHeader } from './record-batch.js'
import { rmSync } from 'node:fs'

/** A partition's leader epoch cache, as Kafka keeps it beside its segments ("epoch startOffset" lines). */
export const LEADER_EPOCH_FILE = 'leader-epoch-checkpoint'
/** A log directory's recovery points, Kafka's file name ("topic partition offset" lines). */
export const RECOVERY_POINT_FILE = 'recovery-point-offset-checkpoint'

/**
 * What a replica's start-up reads, and what it writes for the next one, as
 * Kafka's LogLoader and ProducerStateManager do: the segments below the
 * recovery point are trusted (their indexes only), the producer state,
 * open transactions and epoch cache come from the newest producer
 * snapshot (`<offset>.snapshot`) and leader-epoch-checkpoint, the aborted
 * transactions below it from the .txnindex files, and only the batches
 * after it are replayed. A snapshot or checkpoint that does not pass its
 * checks is never fatal: it is said, and the batches are read instead.
 */
export function openReplicaLog(
  dir: string,
  topicId: string,
  config: () => SegmentConfig,
  recovery: RecoveryState,
  report: (message: string) => void,
): { log: PartitionLog; producers: ProducerState; disk: DiskLog } {
  const disk = DiskLog.open(dir, topicId, config, recovery, report)
  removeStraySnapshots(
    dir,
    disk.segments.map((s) => s.baseOffset),
  )
  const first = disk.segments[0].baseOffset
  const restored = restoredState(disk, first, report)
  const log = new PartitionLog()
  let producers = new ProducerState()
  let from = first
  if (restored) {
    from = restored.offset
    producers = stateFromSnapshot(restored.entries)
    const ongoing = new Map<bigint, number>()
    for (const e of restored.entries) if (e.currentTxnFirstOffset >= 0) ongoing.set(e.producerId, e.currentTxnFirstOffset)
    log.restore(from, restored.epochs, ongoing, restored.aborted)
  }
  disk.forEachBatchFrom(from, (bytes, baseOffset) => {
    const header = readBatchHeader(bytes)
    if (header.control) producers.endTransaction(header.producerId, header.producerEpoch, header.maxTimestamp)
    else producers.update(header, baseOffset)
    log.recovered(bytes, baseOffset)
  })
  log.opened(disk)
  try {
    // The .txnindex files of what was replayed hold what the replay found (a later start trusts them).
    disk.syncAborted(log.abortedTransactions, from)
  } catch (err) {
    report(`${dir}: rewriting its transaction indexes: ${(err as Error).message}`)
  }
  return { log, producers, disk }
}

interface Restored {
  offset: number
  entries: ProducerSnapshotEntry[]
  epochs: EpochStart[]
  aborted: AbortedTransaction[]
}

/**
 * The newest producer snapshot in the log's range (between its first
 * segment and its end) that passes its checks, with the epoch cache and the
 * aborted transactions below it; null when there is none or a file it
 * needs does not pass its checks (each said): the caller replays every
 * batch. Snapshots past the log end (cut by recovery) and corrupt ones are
 * deleted, as Kafka's loader does: they are derived, and would be said again
 * at every start.
 */
function restoredState(disk: DiskLog, first: number, report: (message: string) => void): Restored | null {
  const end = disk.logEndOffset
  for (const offset of snapshotOffsets(disk.dir).reverse()) {
    const path = snapshotPath(disk.dir, offset)
    if (offset > end) {
      rmSync(path, { force: true })
      continue
    }
    if (offset < first) return null
    let entries: ProducerSnapshotEntry[]
    try {
      entries = readSnapshot(path)
    } catch (err) {
      if (!(err instanceof CorruptSnapshot)) throw err
      report(`${err.message}: producer snapshot skipped and deleted; producer state rebuilt from the batches before it`)
      rmSync(path, { force: true })
      continue
    }
    try {
      const epochs = (readCheckpoint(join(disk.dir, LEADER_EPOCH_FILE), 2, 0) ?? []).map(([epoch, startOffset]) => ({
        epoch: Number(epoch),
        startOffset: Number(startOffset),
      }))
      return { offset, entries, epochs, aborted: disk.abortedBelow(offset) }
    } catch (err) {
      if (!(err instanceof CorruptCheckpoint) && !(err instanceof CorruptTxnIndex)) throw err
      report(`${err.message}: not used; the epoch cache and transactions are rebuilt from every batch`)
      return null
    }
  }
  return null
}

/**
 * Takes a replica's producer snapshot at `offset` (its log end, or a new
 * segment's base before anything is appended to it) and writes its epoch
 * cache. A failure is said and harmless: the next start replays from an
 * older snapshot.
 */
export function takeSnapshot(
  disk: DiskLog,
  log: PartitionLog,
  producers: ProducerState,
  offset: number,
  report: (message: string) => void,
): void {
  try {
    const entries = snapshotEntries(producers, (pid) => {
      const first = log.transactionFirstOffset(pid)
      return first < offset ? first : -1
    })
    // A transaction opened by a batch below `offset` whose producer has no state here (a replica's partial view) still counts.
    for (const [pid, first] of log.openTransactionOffsets)
      if (first < offset && !entries.some((e) => e.producerId === pid))
        entries.push({
          producerId: pid,
          epoch: -1,
          lastSequence: -1,
          lastOffset: -1,
          offsetDelta: 0,
          timestamp: -1,
          coordinatorEpoch: -1,
          currentTxnFirstOffset: first,
        })
    // The epochs first: a crash between the two leaves an older snapshot with newer epochs, which it reads only below itself.
    writeCheckpoint(
      join(disk.dir, LEADER_EPOCH_FILE),
      log.epochs.map((e) => [e.epoch, e.startOffset]),
    )
    writeSnapshot(disk.dir, offset, entries)
  } catch (err) {
    report(`${disk.dir}: producer snapshot at ${offset} not written (the next start replays more): ${(err as Error).message}`)
  }
}

/**
 * A log directory's recovery points ("<topic>-<partition>" -> offset);
 * empty when there is no file, or when it does not parse (said: every
 * partition is then recovered from its first segment).
 */
export function readRecoveryPoints(brokerDir: string, report: (message: string) => void): Map<string, number> {
  const out = new Map<string, number>()
  try {
    for (const [topic, partition, offset] of readCheckpoint(join(brokerDir, RECOVERY_POINT_FILE), 3) ?? [])
      out.set(`${topic}-${partition}`, Number(offset))
  } catch (err) {
    if (!(err instanceof CorruptCheckpoint)) throw err
    report(`${err.message}: not used; every partition's segments are read (as with no recovery point)`)
    out.clear()
  }
  return out
}

/** Writes a log directory's recovery points ([topic, partition, offset] each). */
export function writeRecoveryPoints(brokerDir: string, points: readonly [string, number, number][]): void {
  writeCheckpoint(join(brokerDir, RECOVERY_POINT_FILE), points)
}
