import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'

/** The lines of each file in turn ('-' or none: stdin), without their line ends. */
export async function* inputLines(files: string[], stdin: Readable = process.stdin): AsyncGenerator<string> {
  for (const file of files.length === 0 ? ['-'] : files) {
    const stream = file === '-' ? stdin : createReadStream(file)
    const opened =
      file === '-'
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            stream.once('open', () => resolve())
            stream.once('error', (err: NodeJS.ErrnoException) => reject(new Error(`cannot read ${file}: ${err.code ?? err.message}`)))
          })
    await opened
    yield* createInterface({ input: stream, crlfDelay: Infinity })
  }
}
