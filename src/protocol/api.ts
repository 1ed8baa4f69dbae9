import { Buffer } from 'node:buffer'
import { ProtocolError, UnsupportedApiError } from '../errors.js'
import { Reader } from './reader.js'
import { Writer, type BytesInput, type UnknownTag } from './writer.js'

/**
 * One Kafka API: its request and response codecs for every version wafka
 * knows. Encoders write the body only (no size, no header); decoders read a
 * body from a Reader positioned after the header.
 */
export interface ApiSpec<Req = any, Res = any> {
  apiKey: number
  name: string
  minVersion: number
  maxVersion: number
  /** The first flexible version (compact encodings, tagged fields), or Infinity. */
  flexibleFrom: number
  encodeRequest(w: Writer, version: number, req: Input<Req>): void
  decodeRequest(r: Reader, version: number): Req
  encodeResponse(w: Writer, version: number, res: Input<Res>): void
  decodeResponse(r: Reader, version: number): Res
}

/**
 * A versioned payload that is not an RPC (the classic consumer protocol's
 * subscription and assignment): an int16 version, then the struct.
 */
export interface DataSpec<T> {
  name: string
  minVersion: number
  maxVersion: number
  encode(w: Writer, version: number, value: Input<T>): void
  /** A version above maxVersion is read as maxVersion: later versions only append fields. */
  decode(r: Reader): { version: number; value: T }
}

/**
 * What an encoder accepts for a decoded shape T: every field optional
 * (missing ones take their defaults from the spec), arrays may be readonly,
 * and a bytes or records field may be a list of buffers written back to back.
 */
export type Input<T> = T extends Uint8Array
  ? BytesInput
  : T extends string | number | bigint | boolean | null | undefined
    ? T
    : T extends readonly (infer E)[]
      ? readonly Input<E>[]
      : { [K in keyof T]?: K extends '_unknownTags' ? T[K] : Input<T[K]> }

/** Tagged fields a struct carried that this codec does not know; written back on encode. */
export interface Tagged {
  _unknownTags?: UnknownTag[]
}

/** The generated messages take it from here. */
export { ZERO_UUID } from './writer.js'

/** The default of non-nullable bytes fields; shared, which is safe because it has no bytes to change. */
export const EMPTY_BYTES: Buffer = Buffer.alloc(0)

interface ApiDefinition<Req, Res> {
  apiKey: number
  name: string
  minVersion: number
  maxVersion: number
  flexibleFrom: number
  writeRequest(w: Writer, version: number, v: Input<Req>): void
  readRequest(r: Reader, version: number): Req
  writeResponse(w: Writer, version: number, v: Input<Res>): void
  readResponse(r: Reader, version: number): Res
}

/** Wraps a generated API's codecs with a version check and errors that name the API, version and direction. */
export function defineApi<Req, Res>(d: ApiDefinition<Req, Res>): ApiSpec<Req, Res> {
  const check = (version: number): void => {
    if (!Number.isInteger(version) || version < d.minVersion || version > d.maxVersion) {
      throw new UnsupportedApiError(`${d.name} v${version} is not a version wafka knows (${d.minVersion}-${d.maxVersion})`)
    }
  }
  return {
    apiKey: d.apiKey,
    name: d.name,
    minVersion: d.minVersion,
    maxVersion: d.maxVersion,
    flexibleFrom: d.flexibleFrom,
    encodeRequest(w, version, req) {
      check(version)
      try {
        d.writeRequest(w, version, req)
      } catch (err) {
        throw encodeFailure(err, `${d.name} v${version} request`)
      }
    },
    decodeRequest(r, version) {
      check(version)
      try {
        return d.readRequest(r, version)
      } catch (err) {
        throw decodeFailure(err, `${d.name} v${version} request`)
      }
    },
    encodeResponse(w, version, res) {
      check(version)
      try {
        d.writeResponse(w, version, res)
      } catch (err) {
        throw encodeFailure(err, `${d.name} v${version} response`)
      }
    },
    decodeResponse(r, version) {
      check(version)
      try {
        return d.readResponse(r, version)
      } catch (err) {
        throw decodeFailure(err, `${d.name} v${version} response`)
      }
    },
  }
}

interface DataDefinition<T> {
  name: string
  minVersion: number
  maxVersion: number
  write(w: Writer, version: number, v: Input<T>): void
  read(r: Reader, version: number): T
}

export function defineData<T>(d: DataDefinition<T>): DataSpec<T> {
  return {
    name: d.name,
    minVersion: d.minVersion,
    maxVersion: d.maxVersion,
    encode(w, version, value) {
      if (!Number.isInteger(version) || version < d.minVersion || version > d.maxVersion) {
        throw new UnsupportedApiError(`${d.name} v${version} is not a version wafka knows (${d.minVersion}-${d.maxVersion})`)
      }
      w.int16(version)
      try {
        d.write(w, version, value)
      } catch (err) {
        throw encodeFailure(err, `${d.name} v${version}`)
      }
    },
    decode(r) {
      let version: number
      try {
        version = r.int16(`${d.name} version`)
        if (version < d.minVersion) throw new ProtocolError(`version ${version} is below ${d.minVersion}`)
        return { version, value: d.read(r, Math.min(version, d.maxVersion)) }
      } catch (err) {
        throw decodeFailure(err, d.name)
      }
    },
  }
}

/** Encodes one value of a DataSpec into a Buffer of its own (e.g. JoinGroup protocol metadata). */
export function encodeData<T>(spec: DataSpec<T>, version: number, value: Input<T>): Buffer {
  const w = new Writer(256)
  spec.encode(w, version, value)
  return Buffer.from(w.finish())
}

/** Decodes one value of a DataSpec from a whole buffer. */
export function decodeData<T>(spec: DataSpec<T>, bytes: Buffer): { version: number; value: T } {
  return spec.decode(new Reader(bytes))
}

// Bad input to an encoder (a value out of range, a wrong type) surfaces as a
// ProtocolError that says which API it was building; the cause is kept.
function encodeFailure(err: unknown, where: string): unknown {
  if (err instanceof ProtocolError || err instanceof RangeError || err instanceof TypeError) {
    return new ProtocolError(`${where}: ${(err as Error).message}`, { cause: err })
  }
  return err
}

// Only ProtocolErrors get context: anything else from a decoder is a bug,
// and is left as it is so tests notice.
function decodeFailure(err: unknown, where: string): unknown {
  return err instanceof ProtocolError ? new ProtocolError(`${where}: ${err.message}`, { cause: err }) : err
}

/** A field set to something other than its default, in a version that does not have it (Java raises too). */
export function absentField(field: string, versions: string): ProtocolError {
  return new ProtocolError(`${field} is set, but only versions ${versions} have it; leave it at its default`)
}

/** A null in a version where the field is not nullable. */
export function nullField(field: string, versions: string): ProtocolError {
  return new ProtocolError(`${field} is null, which only versions ${versions} allow`)
}
