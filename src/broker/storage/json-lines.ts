import { readFileSync } from 'node:fs'

/** What a JSON-lines file of an earlier version held, and where it stopped being whole. */
export interface JsonLines {
  lines: unknown[]
  /** The byte where the first line that is not whole JSON starts, or -1 when every line is. */
  badAt: number
  /** Whether a whole line follows the bad one (it is in the middle, not a torn tail). */
  wholeAfter: boolean
  size: number
}

/**
 * Reads the JSON-lines format the metadata and group logs had before they
 * became record batches (no checksum: a line is whole when it parses and
 * ends with a newline). Read once, to migrate.
 */
export function readJsonLines(path: string): JsonLines {
  const text = readFileSync(path)
  const lines: unknown[] = []
  let badAt = -1
  let wholeAfter = false
  for (let at = 0; at < text.length;) {
    const nl = text.indexOf(0x0a, at)
    const end = nl < 0 ? text.length : nl
    let line: unknown
    let whole = nl >= 0
    try {
      line = JSON.parse(text.subarray(at, end).toString('utf8'))
    } catch {
      whole = false
    }
    if (badAt < 0 && whole) lines.push(line)
    else if (badAt < 0) badAt = at
    else if (whole) {
      wholeAfter = true
      break
    }
    at = end + 1
  }
  return { lines, badAt, wholeAfter, size: text.length }
}
