import { Buffer } from 'node:buffer'
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs'
import { fsyncPath, throwAsStorageError, writeFully } from './disk-io.js'

/** An aborted transaction: its producer, its first offset, and its ABORT marker's offset. */
export interface AbortedTxn {
  producerId: bigint
  firstOffset: number
  lastOffset: number
}

/** A .txnindex that is not Kafka's format (a torn write, a flipped byte). */
export class CorruptTxnIndex extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`${path}: ${why}`)
    this.name = 'CorruptTxnIndex'
  }
}

// Kafka's AbortedTxn entry: version int16 (0), producer id, first offset, last offset, last stable offset (int64s).
const ENTRY = 2 + 8 + 8 + 8 + 8

/**
 * A segment's transaction index (`.txnindex`), Kafka's format: one entry
 * per transaction whose ABORT marker is in the segment, appended as the
 * marker is. What a restart reads instead of the segment's batches to know
 * which transactions below its producer snapshot were aborted (a
 * read_committed fetch is told of them). Made at the first entry, as
 * Kafka's; the last stable offset written is the marker's offset + 1
 * (not read back).
 */
export class TxnIndex {
  constructor(readonly path: string) {}

  append(txn: AbortedTxn): void {
    try {
      const fd = openSync(this.path, 'a')
      try {
        writeFully(fd, encode([txn]), null, this.path)
      } finally {
        closeSync(fd)
      }
    } catch (err) {
      throwAsStorageError(err, this.path)
    }
  }

  /** The entries ([] without a file); throws CorruptTxnIndex when the file is not whole entries of version 0 in order. */
  read(): AbortedTxn[] {
    let b: Buffer
    try {
      b = readFileSync(this.path)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw new CorruptTxnIndex(this.path, `unreadable: ${(err as Error).message}`)
    }
    if (b.length % ENTRY !== 0) throw new CorruptTxnIndex(this.path, `${b.length} bytes is not whole ${ENTRY}-byte entries`)
    const out: AbortedTxn[] = []
    for (let at = 0; at < b.length; at += ENTRY) {
      if (b.readInt16BE(at) !== 0) throw new CorruptTxnIndex(this.path, `entry ${at / ENTRY} has version ${b.readInt16BE(at)}`)
      const txn = {
        producerId: b.readBigInt64BE(at + 2),
        firstOffset: Number(b.readBigInt64BE(at + 10)),
        lastOffset: Number(b.readBigInt64BE(at + 18)),
      }
      if (txn.firstOffset < 0 || txn.lastOffset < txn.firstOffset || (out.length && txn.lastOffset <= out.at(-1)!.lastOffset))
        throw new CorruptTxnIndex(this.path, `entry ${at / ENTRY} (offsets ${txn.firstOffset}-${txn.lastOffset}) is out of order`)
      out.push(txn)
    }
    return out
  }

  /** Makes the file hold exactly `txns` (none: no file), written only when it does not already. */
  sync(txns: readonly AbortedTxn[]): void {
    const want = encode(txns)
    try {
      if (!txns.length) {
        rmSync(this.path, { force: true })
        return
      }
      if (existsSync(this.path) && readFileSync(this.path).equals(want)) return
      const fd = openSync(this.path, 'w')
      try {
        writeFully(fd, want, 0, this.path)
      } finally {
        closeSync(fd)
      }
    } catch (err) {
      throwAsStorageError(err, this.path)
    }
  }

  /** fsync of the file, when there is one. */
  flush(): void {
    if (existsSync(this.path)) fsyncPath(this.path)
  }

  delete(): void {
    rmSync(this.path, { force: true })
  }
}

function encode(txns: readonly AbortedTxn[]): Buffer {
  const b = Buffer.alloc(txns.length * ENTRY)
  txns.forEach((t, i) => {
    const at = i * ENTRY
    b.writeInt16BE(0, at)
    b.writeBigInt64BE(t.producerId, at + 2)
    b.writeBigInt64BE(BigInt(t.firstOffset), at + 10)
    b.writeBigInt64BE(BigInt(t.lastOffset), at + 18)
    b.writeBigInt64BE(BigInt(t.lastOffset + 1), at + 26)
  })
  return b
}
