import type { Bytes, RecordInput } from './types.js'

/** A record's headers as [key, value] pairs, in order (a repeated key's array gives one pair per item). */
export function headerEntries(h: RecordInput['headers']): Array<readonly [string, Bytes]> | undefined {
  if (h === undefined || h === null) return undefined
  if (Array.isArray(h)) return h as Array<readonly [string, Bytes]>
  const out: Array<readonly [string, Bytes]> = []
  for (const key in h as Record<string, Bytes | Bytes[]>) {
    const v = (h as Record<string, Bytes | Bytes[]>)[key]
    if (Array.isArray(v)) for (const item of v) out.push([key, item])
    else if (v !== undefined) out.push([key, v])
  }
  return out
}

/** A record timestamp in ms (number, numeric string, bigint or Date); not a safe integer when it is none of those. */
export function timestampOf(ts: NonNullable<RecordInput['timestamp']>): number {
  return typeof ts === 'number' ? ts : ts instanceof Date ? ts.getTime() : Number(ts)
}
