import { Buffer } from 'node:buffer'
import { ProtocolError } from '../errors.js'

/**
 * Splits a TCP byte stream into Kafka frames (a 4-byte big-endian size, then
 * that many bytes). A frame inside one chunk is a view, not a copy; only
 * frames spanning chunks are joined. A size past the limit is an error before
 * anything is allocated for it.
 */
export class FrameSplitter {
  private chunks: Buffer[] = []
  private buffered = 0

  constructor(
    /** May be changed between frames (a broker allows less before a client authenticates). */
    public maxFrameBytes: number,
    private readonly onFrame: (frame: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk)
    this.buffered += chunk.length
    for (;;) {
      if (this.buffered < 4) return
      const size = this.peekSize()
      if (size < 4 || size > this.maxFrameBytes) {
        throw new ProtocolError(
          size < 4
            ? `broker sent a frame of ${size} bytes, too small for a response header`
            : `broker sent a frame of ${size} bytes, past the ${this.maxFrameBytes}-byte limit (maxResponseBytes)`,
        )
      }
      if (this.buffered < 4 + size) return
      this.onFrame(this.take(4 + size).subarray(4))
    }
  }

  private peekSize(): number {
    const first = this.chunks[0]
    // Unsigned: a claim of 2 GiB or more is a size past the limit, not a negative one.
    if (first.length >= 4) return first.readUInt32BE(0)
    return this.take(4, true).readUInt32BE(0)
  }

  /** The next n bytes; with peek, they stay buffered. */
  private take(n: number, peek = false): Buffer {
    const first = this.chunks[0]
    let out: Buffer
    if (first.length >= n) {
      out = first.subarray(0, n)
      if (!peek) {
        if (first.length === n) this.chunks.shift()
        else this.chunks[0] = first.subarray(n)
      }
    } else {
      out = Buffer.allocUnsafe(n)
      let filled = 0
      let i = 0
      while (filled < n) {
        const c = this.chunks[i]
        const used = Math.min(c.length, n - filled)
        c.copy(out, filled, 0, used)
        filled += used
        if (!peek) {
          if (used === c.length) {
            this.chunks.shift()
            continue
          }
          this.chunks[i] = c.subarray(used)
        }
        i++
      }
    }
    if (!peek) this.buffered -= n
    return out
  }
}
