import { Buffer } from 'node:buffer'
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * An append-only file of JSON records, one a line: the embedded broker's
 * cluster metadata log and its group log. Each append is one write issued
 * before the change is acknowledged (a kill -9 of the process loses
 * nothing written). Reading stops at the first line that is not whole
 * JSON: a torn tail after a crash is dropped, and cut off the file.
 */
export class RecordFile<T> {
  private fd: number

  private constructor(readonly path: string) {
    this.fd = openSync(path, 'a')
  }

  /** Opens `path` (created when missing) and returns its records, a torn tail cut off. */
  static open<T>(path: string): { file: RecordFile<T>; records: T[] } {
    mkdirSync(dirname(path), { recursive: true })
    let text = ''
    try {
      text = readFileSync(path, 'utf8')
    } catch {
      // A new file.
    }
    const records: T[] = []
    let kept = 0
    for (let at = 0; at < text.length;) {
      const end = text.indexOf('\n', at)
      if (end < 0) break
      try {
        records.push(JSON.parse(text.slice(at, end)) as T)
      } catch {
        break
      }
      at = end + 1
      kept = at
    }
    if (kept < text.length) writeFileSync(path, text.slice(0, kept))
    return { file: new RecordFile<T>(path), records }
  }

  /** Appends a record: one line, one write. */
  append(record: T): void {
    writeSync(this.fd, Buffer.from(`${JSON.stringify(record)}\n`))
  }

  /** Replaces the file's contents with `records` (a new file renamed over the old, so a crash leaves one or the other). */
  rewrite(records: readonly T[]): void {
    closeSync(this.fd)
    const tmp = `${this.path}.tmp`
    writeFileSync(tmp, records.map((r) => `${JSON.stringify(r)}\n`).join(''))
    renameSync(tmp, this.path)
    this.fd = openSync(this.path, 'a')
  }

  close(): void {
    closeSync(this.fd)
  }
}
