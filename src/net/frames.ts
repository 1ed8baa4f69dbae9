import { Buffer } from 'node:buffer'
import { ProtocolError } from '../errors.js'

/**
 * Splits a TCP byte stream into Kafka frames (a 4-byte big-endian size, then
 * that many bytes). A frame inside one chunk is a view, not a copy. A frame
 * spanning chunks is allocated once its size is read and filled as chunks
 * arrive, so no chunk outlives its copy (a 1 MiB Fetch response is not held
 * twice, as chunks and as the frame). A size past the limit is an error
 * before anything is allocated for it.
 */
export class FrameSplitter {
  /** The frame being filled, and how much of it is. */
  private frame: Buffer | null = null
  private filled = 0
  /** A size prefix cut by a chunk boundary. */
  private readonly size = Buffer.alloc(4)
  private sizeBytes = 0

  constructor(
    /** May be changed between frames (a broker allows less before a client authenticates). */
    public maxFrameBytes: number,
    private readonly onFrame: (frame: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let at = 0
    while (at < chunk.length) {
      const frame = this.frame
      if (frame !== null) {
        const n = Math.min(frame.length - this.filled, chunk.length - at)
        chunk.copy(frame, this.filled, at, at + n)
        this.filled += n
        at += n
        if (this.filled === frame.length) {
          this.frame = null
          this.onFrame(frame)
        }
        continue
      }
      let size: number
      if (this.sizeBytes === 0 && chunk.length - at >= 4) {
        // Unsigned: a claim of 2 GiB or more is a size past the limit, not a negative one.
        size = chunk.readUInt32BE(at)
        at += 4
      } else {
        const n = Math.min(4 - this.sizeBytes, chunk.length - at)
        chunk.copy(this.size, this.sizeBytes, at, at + n)
        this.sizeBytes += n
        at += n
        if (this.sizeBytes < 4) return
        this.sizeBytes = 0
        size = this.size.readUInt32BE(0)
      }
      if (size < 4 || size > this.maxFrameBytes) {
        throw new ProtocolError(
          size < 4
            ? `broker sent a frame of ${size} bytes, too small for a response header`
            : `broker sent a frame of ${size} bytes, past the ${this.maxFrameBytes}-byte limit (maxResponseBytes)`,
        )
      }
      if (chunk.length - at >= size) {
        this.onFrame(chunk.subarray(at, at + size))
        at += size
      } else {
        this.frame = Buffer.allocUnsafe(size)
        this.filled = 0
      }
    }
  }
}
