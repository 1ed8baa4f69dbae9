import { Buffer } from 'node:buffer'
import { readFileSync } from 'node:fs'
import { writeFileDurably } from './disk-io.js'

/**
 * Kafka's text checkpoint files (CheckpointFile): a version line, a count
 * line, then one entry a line, its fields separated by spaces. The
 * recovery-point-offset-checkpoint of a log directory ("topic partition
 * offset") and a partition's leader-epoch-checkpoint ("epoch offset") are
 * both written this way.
 */
export const CHECKPOINT_VERSION = 0

/** A checkpoint file that is not Kafka's format (a torn write, a flipped byte): what is wrong, and where. */
export class CorruptCheckpoint extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`${path}: ${why}`)
    this.name = 'CorruptCheckpoint'
  }
}

/**
 * The entries of checkpoint `path`, each as its fields; null when there is
 * no file. Throws CorruptCheckpoint when its version, count or an entry
 * does not parse (`fields` is how many fields an entry has; those from
 * `numericFrom` on must be non-negative integers).
 */
export function readCheckpoint(path: string, fields: number, numericFrom = 1): string[][] | null {
  let text: string
  try {
    text = readFileSync(path, 'latin1')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new CorruptCheckpoint(path, `unreadable: ${(err as Error).message}`)
  }
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  if (lines[0] !== String(CHECKPOINT_VERSION))
    throw new CorruptCheckpoint(path, `version line ${JSON.stringify(lines[0] ?? '')}, not ${CHECKPOINT_VERSION}`)
  const count = Number(lines[1])
  if (!/^\d+$/.test(lines[1] ?? '') || count !== lines.length - 2)
    throw new CorruptCheckpoint(path, `count line ${JSON.stringify(lines[1] ?? '')} does not match its ${lines.length - 2} entries`)
  return lines.slice(2).map((line, i) => {
    const parts = line.split(' ')
    if (parts.length !== fields || parts.slice(numericFrom).some((p) => !/^\d+$/.test(p)) || parts[0] === '')
      throw new CorruptCheckpoint(path, `entry ${i + 1} ${JSON.stringify(line)} is not ${fields} fields`)
    return parts
  })
}

/**
 * Writes checkpoint `path` as Kafka does: the whole file to `<path>.tmp`,
 * flushed, renamed over the old one, the directory flushed; a crash leaves
 * the old file or the new one, whole. A failure throws StorageError.
 */
export function writeCheckpoint(path: string, entries: readonly (readonly (string | number)[])[]): void {
  const text = [String(CHECKPOINT_VERSION), String(entries.length), ...entries.map((e) => e.join(' ')), ''].join('\n')
  writeFileDurably(path, Buffer.from(text, 'latin1'))
}
