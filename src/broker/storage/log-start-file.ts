import { Buffer } from 'node:buffer'
import { readFileSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { crc32c } from '../../codec/crc.js'
import { writeFileDurably } from './disk-io.js'

/**
 * A partition's log start when it lies inside its first segment (after
 * DeleteRecords): `log-start-offset` in its directory. Kafka keeps these in
 * one `log-start-offset-checkpoint` per log directory, with no checksum; a
 * flipped digit there moves the log start and hides (or shows again)
 * records with nothing said. Ours carries the offset's CRC-32C on a second
 * line, so a corrupt file is told from a valid one.
 */
export const LOG_START_FILE = 'log-start-offset'

/** What a partition directory's log-start file holds. */
export type LogStart =
  | { kind: 'none' }
  | { kind: 'valid'; offset: number }
  /** Written by an earlier version: no checksum, so only its range can be checked. */
  | { kind: 'unchecked'; offset: number }
  | { kind: 'corrupt'; why: string }

const checksum = (offset: number) => crc32c(Buffer.from(String(offset)))

export function readLogStart(dir: string): LogStart {
  let text: string
  try {
    text = readFileSync(join(dir, LOG_START_FILE), 'latin1')
  } catch {
    return { kind: 'none' }
  }
  const m = /^(\d{1,16})\n(?:(\d{1,10})\n)?$/.exec(text)
  const offset = m ? Number(m[1]) : NaN
  if (!m || !Number.isSafeInteger(offset)) return { kind: 'corrupt', why: `${JSON.stringify(text.slice(0, 40))} is not an offset` }
  if (m[2] === undefined) return { kind: 'unchecked', offset }
  if (Number(m[2]) !== checksum(offset)) return { kind: 'corrupt', why: `its CRC-32C does not match offset ${offset}` }
  return { kind: 'valid', offset }
}

/** Writes the log start (flushed, renamed into place: StorageError when it cannot be). */
export function writeLogStart(dir: string, offset: number): void {
  writeFileDurably(join(dir, LOG_START_FILE), `${offset}\n${checksum(offset)}\n`)
}

export function removeLogStart(dir: string): void {
  rmSync(join(dir, LOG_START_FILE), { force: true })
}

/** A file not used is kept for a look, out of the next start's way: `log-start-offset.corrupt`. Returns its path. */
export function setLogStartAside(dir: string): string {
  const aside = join(dir, `${LOG_START_FILE}.corrupt`)
  renameSync(join(dir, LOG_START_FILE), aside)
  return aside
}

/**
 * The log start a partition opens at, from its file and what the segments
 * hold (the first segment's base, the log end after recovery), with what
 * to say of it. As Kafka: never below the first segment. A start past the
 * log end (the records there were cut at recovery, or segment files went)
 * is where Kafka deletes every segment and starts empty there; a checked
 * file's start is taken as the log end (what lies below it was deleted on
 * request), and said. A file that fails its check, or an unchecked one past
 * the log end, is not used: the log starts at its first segment, as Kafka's
 * LogManager resets a log-start-offset-checkpoint it cannot read (records
 * DeleteRecords removed may show again: better than acknowledged ones
 * hidden), said, the file set aside.
 */
export function openingLogStart(dir: string, first: number, end: number): { offset: number; problem: string | null } {
  const held = readLogStart(dir)
  const path = join(dir, LOG_START_FILE)
  if (held.kind === 'none') return { offset: first, problem: null }
  if (held.kind === 'corrupt' || (held.kind === 'unchecked' && held.offset > end)) {
    const why = held.kind === 'corrupt' ? held.why : `its log start ${held.offset} (no checksum) is past the log end ${end}`
    let aside: string
    try {
      aside = `set aside as ${setLogStartAside(dir)}`
    } catch (err) {
      aside = `left in place (${(err as Error).message})`
    }
    return {
      offset: first,
      problem:
        `${path}: ${why} (corrupt): not used, ${aside}; the log starts at its first segment's base offset ${first}, ` +
        'so records deleted below the start it held (DeleteRecords) may be served again: delete them again if need be',
    }
  }
  if (held.offset > end)
    return {
      offset: end,
      problem:
        `${path}: log start ${held.offset} is past the log end ${end} (the records between were cut at recovery, or segment files removed): ` +
        `the log starts at ${end}`,
    }
  return { offset: Math.max(first, held.offset), problem: null }
}
