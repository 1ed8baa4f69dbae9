import type { BatchStatistics } from '../observe/statistics.js'

/** A producer's batches as they are first encoded for sending (retries are not counted again): sizes and linger. */
export class BatchTally {
  private batches = 0
  private records = 0
  private bytes = 0
  private bytesMax = 0
  private lingerSum = 0
  private lingerMax = 0

  sent(records: number, bytes: number, lingerMs: number): void {
    this.batches++
    this.records += records
    this.bytes += bytes
    if (bytes > this.bytesMax) this.bytesMax = bytes
    this.lingerSum += lingerMs
    if (lingerMs > this.lingerMax) this.lingerMax = lingerMs
  }

  snapshot(): BatchStatistics {
    const n = this.batches
    return {
      batches: n,
      records: this.records,
      bytes: this.bytes,
      recordsPerBatchAvg: n > 0 ? this.records / n : 0,
      bytesPerBatchAvg: n > 0 ? this.bytes / n : 0,
      bytesPerBatchMax: this.bytesMax,
      lingerAvgMs: n > 0 ? this.lingerSum / n : 0,
      lingerMaxMs: this.lingerMax,
    }
  }
}
