import { table } from './progress.js'
import type { Io } from './io.js'

/** Rows as a text table (header first), or the objects as JSON with --json. */
export function show(
  io: Io,
  json: boolean,
  data: unknown,
  header: string[],
  rows: Array<Array<string | number | bigint | null | undefined>>,
): void {
  if (json) {
    io.out(JSON.stringify(data, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) + '\n')
    return
  }
  if (rows.length === 0) return
  io.out(table([header, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))))], true) + '\n')
}
