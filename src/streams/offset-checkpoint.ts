// A task's `.checkpoint` file in Java's format (OffsetCheckpoint, version 0):
// a line `0`, a line with the number of entries, then one `topic partition
// offset` line per changelog partition; written to `.checkpoint.tmp`, synced
// and renamed over the old one, deleted when there is nothing to write. The
// offset is the last changelog offset the store reflects (Java's
// storeMetadata.offset): a restore starts at the one after it.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { StreamsError } from './streams-error.js'

/** Java's OffsetCheckpoint.OFFSET_UNKNOWN: an entry that says nothing (read as absent). */
export const OFFSET_UNKNOWN = -4n

export interface CheckpointEntry {
  topic: string
  partition: number
  offset: bigint
}

const valid = (offset: bigint) => offset >= 0n || offset === OFFSET_UNKNOWN

/** The file's bytes for `entries`, as Java's OffsetCheckpoint.write makes them. */
export function formatCheckpoint(entries: CheckpointEntry[]): Buffer {
  const lines = ['0', String(entries.length)]
  for (const e of entries) {
    if (!valid(e.offset)) throw new StreamsError(`a checkpoint offset is >= 0, not ${e.offset} (${e.topic}-${e.partition})`)
    lines.push(`${e.topic} ${e.partition} ${e.offset}`)
  }
  return Buffer.from(lines.join('\n') + '\n', 'utf8')
}

/** Writes the checkpoint at `file` (atomically: a synced temporary file renamed over it); no entries deletes it. */
export function writeCheckpoint(file: string, entries: CheckpointEntry[]): void {
  if (entries.length === 0) return rmSync(file, { force: true })
  const bytes = formatCheckpoint(entries)
  const temp = `${file}.tmp`
  const fd = openSync(temp, 'w')
  try {
    writeSync(fd, bytes)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temp, file)
}

/** Parses a checkpoint's text by Java's OffsetCheckpoint.read rules (an unknown offset, -4, is kept as Java keeps it). */
export function parseCheckpoint(text: string, file = '.checkpoint'): CheckpointEntry[] {
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  const int = (line: string | undefined, what: string) => {
    if (line === undefined) throw new StreamsError(`checkpoint file ${file} ended before its ${what}`)
    if (!/^[+-]?\d+$/.test(line)) throw new StreamsError(`checkpoint file ${file}: ${what} ${JSON.stringify(line)} is not a number`)
    return Number(line)
  }
  const version = int(lines[0], 'version')
  if (version !== 0) throw new StreamsError(`checkpoint file ${file} has version ${version}; only version 0 is known`)
  let expected = int(lines[1], 'entry count')
  const entries: CheckpointEntry[] = []
  for (const line of lines.slice(2)) {
    const pieces = line.split(/\s+/)
    if (pieces.length !== 3 || !/^[+-]?\d+$/.test(pieces[1]!) || !/^[+-]?\d+$/.test(pieces[2]!))
      throw new StreamsError(`malformed line in checkpoint file ${file}: '${line}'`)
    const offset = BigInt(pieces[2]!)
    // As Java's: an invalid (negative) offset is skipped and not counted; OFFSET_UNKNOWN counts but says nothing.
    if (!valid(offset)) expected--
    else entries.push({ topic: pieces[0]!, partition: Number(pieces[1]), offset })
  }
  if (entries.length !== expected)
    throw new StreamsError(`checkpoint file ${file}: expected ${expected} entries but found ${entries.length}`)
  return entries
}

/** The checkpoint at `file`; none (no file) is an empty list. */
export function readCheckpoint(file: string): CheckpointEntry[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  return parseCheckpoint(text, file).filter((e) => e.offset !== OFFSET_UNKNOWN)
}
