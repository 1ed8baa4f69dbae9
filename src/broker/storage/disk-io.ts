import { Buffer } from 'node:buffer'
import { closeSync, fsync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { dirname } from 'node:path'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { BrokerError } from '../broker-error.js'

/**
 * A write or flush of the data directory failed (a full disk, an I/O
 * error): Kafka's KafkaStorageException. A produce it fails is answered
 * KAFKA_STORAGE_ERROR; what was written of it has been cut back off.
 */
export class StorageError extends BrokerError {
  constructor(
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(ErrorCodes.KAFKA_STORAGE_ERROR, message, options)
    this.name = 'StorageError'
  }
}

/**
 * The partition logs' writes, flushes and segment reads go through these:
 * the one seam where a test makes the disk fail (full, short writes, I/O
 * errors) or counts fsyncs and reads, without a real full disk. One per
 * process, not per cluster: vitest gives each test file its own modules
 * (isolate, its default) and runs a file's tests one at a time, so a test's
 * faults reach its own clusters only; a test that wants one file to fail
 * picks it by fd.
 */
export const diskIo = {
  read: readSync as (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => number,
  write: writeSync as (fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null) => number,
  fsync: fsyncSync as (fd: number) => void,
  /** fsync on the thread pool: a roll's flush, off the event loop. */
  fsyncAsync: (fd: number): Promise<void> => new Promise((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve()))),
}

/**
 * Writes all of `buffer` at `position` (null: at the end of a file opened
 * for appending). A partial write is followed by one for the rest, as
 * Kafka's writeFully; a write that takes nothing or fails throws
 * StorageError (the caller cuts off what went before).
 */
export function writeFully(fd: number, buffer: Uint8Array, position: number | null, path: string): void {
  let done = 0
  while (done < buffer.length) {
    let n: number
    try {
      n = diskIo.write(fd, buffer, done, buffer.length - done, position === null ? null : position + done)
    } catch (err) {
      throw new StorageError(path, `writing ${path}: ${(err as Error).message}`, { cause: err })
    }
    if (!(n > 0)) throw new StorageError(path, `writing ${path}: ${done} of ${buffer.length} bytes written, then none`)
    done += n
  }
}

/** fsync of an open file; a failure throws StorageError. */
export function fsyncFd(fd: number, path: string): void {
  try {
    diskIo.fsync(fd)
  } catch (err) {
    throw new StorageError(path, `flushing ${path}: ${(err as Error).message}`, { cause: err })
  }
}

/** fsync of a file or directory by path (a directory's: its entries, so a new file's name survives power loss). */
export function fsyncPath(path: string): void {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (err) {
    throw new StorageError(path, `flushing ${path}: ${(err as Error).message}`, { cause: err })
  }
  try {
    fsyncFd(fd, path)
  } finally {
    closeSync(fd)
  }
}

/**
 * Writes `data` as the whole of the file `path` (created or emptied), each
 * write checked as writeFully's, flushed when `flush`. A failure is a
 * StorageError and leaves the file partial: what must never be seen torn
 * goes through writeFileDurably.
 */
export function writeWholeFile(path: string, data: string | Uint8Array, flush: boolean): void {
  let fd: number
  try {
    fd = openSync(path, 'w')
  } catch (err) {
    throwAsStorageError(err, path)
  }
  try {
    writeFully(fd, typeof data === 'string' ? Buffer.from(data) : data, 0, path)
    if (flush) fsyncFd(fd, path)
  } finally {
    closeSync(fd)
  }
}

/**
 * Replaces the file `path` with `data` as Kafka writes its checkpoint and
 * properties files: a temporary file written whole and flushed, renamed
 * over the old one, then the directory flushed, so a crash leaves the old
 * file or the new one, never a torn one. A failure is a StorageError, the
 * old file left as it was.
 */
export function writeFileDurably(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.tmp`
  try {
    writeWholeFile(tmp, data, true)
    renameSync(tmp, path)
  } catch (err) {
    rmSync(tmp, { force: true })
    throwAsStorageError(err, path)
  }
  fsyncDir(dirname(path))
}

/** fsync of a directory (its entries: a file created, renamed or removed); Windows opens none to flush, its renames are as durable as it makes them. */
export function fsyncDir(dir: string): void {
  if (process.platform !== 'win32') fsyncPath(dir)
}

/** Throws `err` as a StorageError when it is an fs call's failure (opening a new segment, truncating); a bug stays what it is. */
export function throwAsStorageError(err: unknown, path: string): never {
  const code = (err as NodeJS.ErrnoException | null)?.code
  if (err instanceof StorageError || typeof code !== 'string' || !code.startsWith('E')) throw err
  throw new StorageError(path, `${path}: ${(err as Error).message}`, { cause: err })
}

/** fsync of a file or directory by path, on the thread pool. */
export async function fsyncPathAsync(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await diskIo.fsyncAsync(handle.fd)
  } finally {
    await handle.close()
  }
}
