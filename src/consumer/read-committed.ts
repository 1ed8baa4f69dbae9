import type { RecordBatch } from '../codec/record.js'

export interface AbortedRange {
  producerId: bigint
  firstOffset: bigint
}

/**
 * The batches read_committed hands to user code: a transactional batch whose
 * producer has an aborted transaction open at that offset is dropped, up to
 * that producer's ABORT marker. `aborted` is the fetch response's list (the
 * transactions aborted within the fetched range). Control batches never pass.
 */
export function committedBatches(batches: RecordBatch[], aborted: AbortedRange[] | null): RecordBatch[] {
  const pending =
    aborted && aborted.length > 0
      ? [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0))
      : []
  const open = new Set<bigint>()
  let next = 0
  const out: RecordBatch[] = []
  for (const batch of batches) {
    // An aborted transaction is open from its first offset to its producer's ABORT marker.
    while (next < pending.length && pending[next].firstOffset <= batch.lastOffset) open.add(pending[next++].producerId)
    if (batch.isControl) {
      if (batch.controlType === 'ABORT') open.delete(batch.producerId)
      continue
    }
    if (batch.isTransactional && open.has(batch.producerId)) continue
    out.push(batch)
  }
  return out
}

/** read_uncommitted: everything but control batches. */
export function dataBatches(batches: RecordBatch[]): RecordBatch[] {
  let control = false
  for (const b of batches) if (b.isControl) control = true
  return control ? batches.filter((b) => !b.isControl) : batches
}
