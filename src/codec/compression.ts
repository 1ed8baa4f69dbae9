import { ConfigError, CorruptRecordError } from '../errors.js'
import { builtin, preloadBuiltins } from '../node-builtins.js'

/** Kafka's codec ids (attribute bits 0-2). */
export const Compression = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const
export type CompressionName = keyof typeof Compression
export type CompressionType = CompressionName | (typeof Compression)[CompressionName]

const names = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const

export function codecId(type: CompressionType | undefined): number {
  if (type === undefined) return 0
  const id = typeof type === 'number' ? type : Compression[type as CompressionName]
  if (id === undefined || names[id] === undefined) {
    throw new ConfigError(`unknown compression ${JSON.stringify(type)}: use one of ${names.join(', ')}`)
  }
  return id
}

export function codecName(id: number): CompressionName {
  return names[id] ?? ('unknown' as CompressionName)
}

/** A codec done outside the wasm module (gzip and zstd). */
export interface ExternalCodec {
  compress(data: Uint8Array, level?: number): Uint8Array
  /** Throws CorruptRecordError on bad data or output past maxOutputBytes. */
  decompress(data: Uint8Array, maxOutputBytes: number): Uint8Array
}

function wrapDecompressError(codec: string, err: unknown, limit: number): never {
  const message = err instanceof Error ? err.message : String(err)
  if (/larger than|maxOutputLength|ERR_BUFFER_TOO_LARGE|too large/i.test(message) || (err as any)?.code === 'ERR_BUFFER_TOO_LARGE') {
    throw new CorruptRecordError('too-large', `${codec} data decompresses past the ${limit}-byte limit (maxDecompressedBytes)`)
  }
  throw new CorruptRecordError('compressed', `${codec} data is malformed: ${message}`)
}

const gzip: ExternalCodec = {
  compress: (data, level) => builtin('node:zlib').gzipSync(data, level === undefined ? undefined : { level }),
  decompress(data, maxOutputBytes) {
    try {
      // gunzip reads concatenated members, as Java's GZIPInputStream does.
      return builtin('node:zlib').gunzipSync(data, { maxOutputLength: maxOutputBytes })
    } catch (err) {
      wrapDecompressError('gzip', err, maxOutputBytes)
    }
  },
}

interface ZstdBackend {
  compress(data: Uint8Array, level: number): Uint8Array
  decompress(data: Uint8Array, maxOutputBytes: number): Uint8Array
}

// node:zlib has zstd on Deno, Bun and Node >= 22.15; elsewhere the reference
// C library compiled to wasm, loaded once on demand (its compile is async).
let zstdBackend: ZstdBackend | undefined

function nativeZstd(): ZstdBackend | undefined {
  const z = builtin('node:zlib') as any
  if (typeof z.zstdCompressSync !== 'function') return undefined
  return {
    compress: (data, level) => z.zstdCompressSync(data, { params: { [z.constants.ZSTD_c_compressionLevel]: level } }),
    decompress: (data, maxOutputBytes) => z.zstdDecompressSync(data, { maxOutputLength: maxOutputBytes }),
  }
}
let zstdLoading: Promise<void> | undefined

/** Reads the frame content size of a zstd frame, or -1 when the frame does not say. */
function zstdDeclaredSize(data: Uint8Array): number {
  if (data.length < 6 || data[0] !== 0x28 || data[1] !== 0xb5 || data[2] !== 0x2f || data[3] !== 0xfd) return -1
  const fhd = data[4]
  const fcsFlag = fhd >> 6
  const singleSegment = (fhd >> 5) & 1
  const dictIdFlag = fhd & 3
  let p = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][dictIdFlag]
  const size = fcsFlag === 0 ? (singleSegment ? 1 : 0) : [1, 2, 4, 8][fcsFlag]
  if (size === 0 || p + size > data.length) return -1
  let v = 0
  for (let i = size - 1; i >= 0; i--) v = v * 256 + data[p + i]
  return size === 2 ? v + 256 : v
}

/** True once zstd can be used synchronously (natively, or after loadZstd()). */
export function zstdReady(): boolean {
  return zstdBackend !== undefined
}

export async function loadZstd(): Promise<void> {
  if (zstdBackend) return
  await preloadBuiltins()
  zstdBackend = nativeZstd()
  if (zstdBackend) return
  zstdLoading ??= import('@bokuweb/zstd-wasm').then(async (lib) => {
    await initOnce(lib)
    zstdBackend = {
      compress: (data, level) => lib.compress(data, level),
      decompress(data, maxOutputBytes) {
        // The wasm build decompresses into a buffer of a size given up front:
        // the size the frame declares, else a guess that doubles up to the limit.
        const declared = zstdDeclaredSize(data)
        if (declared > maxOutputBytes) throw new RangeError('declared size too large')
        if (declared >= 0) return lib.decompress(data, { defaultHeapSize: Math.max(declared, 1) })
        for (let size = Math.min(maxOutputBytes, Math.max(65536, data.length * 16)); ; size = Math.min(maxOutputBytes, size * 2)) {
          try {
            return lib.decompress(data, { defaultHeapSize: size })
          } catch (err) {
            // -70 is zstd's dstSize_tooSmall: grow; any other error is bad data.
            const tooSmall = /code -70\b/.test(String((err as Error)?.message))
            if (!tooSmall) throw err
            if (size >= maxOutputBytes) throw new RangeError('output too large')
          }
        }
      },
    }
  })
  await zstdLoading
}

/**
 * The wasm zstd library is one instance per process, and its init() builds
 * a new wasm instance each call, swapping its heap views under functions
 * still bound to the old one: a second init while the first is in use (two
 * copies of wafka in one process, as the ESM and CJS builds side by side)
 * makes compress return bytes of the other heap (valid CRC, garbage data).
 * So every copy of wafka shares one init, keyed by the library's init.
 */
const ZSTD_INITS = Symbol.for('wafka.zstd-wasm.init')
function initOnce(lib: { init: () => Promise<void> }): Promise<void> {
  const g = globalThis as { [ZSTD_INITS]?: WeakMap<object, Promise<void>> }
  const inits = (g[ZSTD_INITS] ??= new WeakMap())
  let done = inits.get(lib.init)
  if (!done) inits.set(lib.init, (done = lib.init()))
  return done
}

const zstd: ExternalCodec = {
  compress(data, level = 3) {
    zstdBackend ??= nativeZstd()
    if (!zstdBackend) throw zstdNotLoaded()
    return zstdBackend.compress(data, level)
  },
  decompress(data, maxOutputBytes) {
    zstdBackend ??= nativeZstd()
    if (!zstdBackend) throw zstdNotLoaded()
    try {
      const out = zstdBackend.decompress(data, maxOutputBytes)
      if (out.length === 0 && data.length > 0 && zstdDeclaredSize(data) !== 0) {
        throw new Error('no output')
      }
      return out
    } catch (err) {
      if (err instanceof RangeError) wrapDecompressError('zstd', new Error('too large'), maxOutputBytes)
      wrapDecompressError('zstd', err, maxOutputBytes)
    }
  },
}

function zstdNotLoaded(): ConfigError {
  return new ConfigError('zstd is not loaded on this runtime yet: await loadCodecs() (or connect a client) before using it')
}

/** Loads the codecs whose setup is asynchronous; cheap to call again. */
export async function loadCodecs(): Promise<void> {
  await preloadBuiltins()
  await loadZstd()
}

export const externalCodecs: Record<number, ExternalCodec | undefined> = {
  [Compression.gzip]: gzip,
  [Compression.zstd]: zstd,
}
