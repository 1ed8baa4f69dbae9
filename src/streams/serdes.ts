// Serdes as Kafka Streams names them, writing the bytes Java's serializers
// write (big-endian numbers, UTF-8 strings), so a wafka/streams application
// and a Java one read each other's topics. null stays null both ways, as
// Java's serdes treat a tombstone. A value Java's type could not hold (a
// fraction or an overflow for Integer, a number for Long) is refused rather
// than written as some other value.
import { WafkaError } from '../errors.js'
import { decodeUtf8AsJava } from './java-utf8.js'

/** Turns a value into record bytes and back for one topic. */
export interface Serde<T> {
  serialize(topic: string, value: T | null): Buffer | null
  deserialize(topic: string, bytes: Buffer | null): T | null
}

/** A value its serde cannot write, or bytes of the wrong size or shape for its type. */
export class SerializationError extends WafkaError {}

function fixed<T>(
  size: number,
  kind: string,
  check: (v: T) => string | undefined,
  write: (b: Buffer, v: T) => void,
  read: (b: Buffer) => T,
): Serde<T> {
  return {
    serialize: (topic, value) => {
      if (value === null) return null
      const wrong = check(value)
      if (wrong !== undefined) throw new SerializationError(`${kind} cannot write ${wrong} to ${topic}`)
      const bytes = Buffer.allocUnsafe(size)
      write(bytes, value)
      return bytes
    },
    deserialize: (topic, bytes) => {
      if (bytes === null) return null
      if (bytes.length !== size) {
        throw new SerializationError(`${kind} needs ${size} bytes, the record in ${topic} has ${bytes.length}`)
      }
      return read(bytes)
    },
  }
}

// A lone surrogate has no UTF-8 form: Java's encoder writes '?' for it
// where Buffer.from would write U+FFFD (3 bytes).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
const HAS_SURROGATE = /[\uD800-\uDFFF]/

const string: Serde<string> = {
  serialize: (_topic, value) => {
    if (value === null) return null
    return Buffer.from(HAS_SURROGATE.test(value) ? value.replace(LONE_SURROGATE, '?') : value, 'utf8')
  },
  deserialize: (_topic, bytes) => (bytes === null ? null : decodeUtf8AsJava(bytes)),
}

// Java's LongSerde carries any 64-bit value; a bigint keeps them all, a
// number would round past 2^53.
const INT64_MIN = -(1n << 63n)
const INT64_MAX = (1n << 63n) - 1n
const long = fixed<bigint>(
  8,
  'Serdes.Long',
  (v) =>
    typeof v !== 'bigint' ? `a ${typeof v} (${v}): it takes a bigint` : v < INT64_MIN || v > INT64_MAX ? `${v}: past int64` : undefined,
  (b, v) => b.writeBigInt64BE(v),
  (b) => b.readBigInt64BE(0),
)
const integer = fixed<number>(
  4,
  'Serdes.Integer',
  (v) =>
    typeof v !== 'number'
      ? `a ${typeof v} (${v})`
      : !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31
        ? `${v}: not an int32`
        : undefined,
  (b, v) => b.writeInt32BE(v),
  (b) => b.readInt32BE(0),
)
const CANONICAL_NAN = Buffer.from([0x7f, 0xf8, 0, 0, 0, 0, 0, 0])
const double = fixed<number>(
  8,
  'Serdes.Double',
  (v) => (typeof v !== 'number' ? `a ${typeof v} (${v})` : undefined),
  // Java writes doubleToLongBits: every NaN as the canonical one, whatever
  // payload a NaN read from bytes may still carry here.
  (b, v) => (Number.isNaN(v) ? CANONICAL_NAN.copy(b) : b.writeDoubleBE(v)),
  (b) => b.readDoubleBE(0),
)
const byteArray: Serde<Buffer> = {
  serialize: (_topic, value) => value,
  deserialize: (_topic, bytes) => bytes,
}

export const Serdes = {
  String: (): Serde<string> => string,
  Long: (): Serde<bigint> => long,
  Integer: (): Serde<number> => integer,
  Double: (): Serde<number> => double,
  ByteArray: (): Serde<Buffer> => byteArray,
  /** JSON text in UTF-8: not a Java serde, but what Node teams write. */
  JSON: <T = unknown>(): Serde<T> => ({
    serialize: (_topic, value) => (value === null ? null : Buffer.from(JSON.stringify(value), 'utf8')),
    deserialize: (topic, bytes) => {
      if (bytes === null) return null
      try {
        return JSON.parse(bytes.toString('utf8')) as T
      } catch (err) {
        throw new SerializationError(`Serdes.JSON cannot read a record in ${topic}: ${(err as Error).message}`)
      }
    },
  }),
} as const

/**
 * A serde built on the application's default serde of its kind, once the
 * application resolves it: a windowed key's serde when the grouping's key
 * serde is the default one. Used before that, it fails naming why. @internal
 */
export interface FromDefaultSerde<T> extends Serde<T> {
  fromDefault(defaultSerde: Serde<any>): Serde<T>
}

export function fromDefaultSerde<T>(make: (defaultSerde: Serde<any>) => Serde<T>): FromDefaultSerde<T> {
  const unresolved = () => {
    throw new SerializationError('this serde is built on the application default serde, which is not resolved yet')
  }
  return { serialize: unresolved, deserialize: unresolved, fromDefault: make }
}

export const isFromDefault = (s: Serde<any>): s is FromDefaultSerde<any> => 'fromDefault' in s
