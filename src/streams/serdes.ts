// Serdes as Kafka Streams names them, writing the bytes Java's serializers
// write (big-endian numbers, UTF-8 strings), so a wafka/streams application
// and a Java one read each other's topics. null stays null both ways, as
// Java's serdes treat a tombstone.

/** Turns a value into record bytes and back for one topic. */
export interface Serde<T> {
  serialize(topic: string, value: T | null): Buffer | null
  deserialize(topic: string, bytes: Buffer | null): T | null
}

/** A serde whose bytes are the wrong size or shape for its type. */
export class SerializationError extends Error {
  override name = 'SerializationError'
}

function fixed<T>(size: number, kind: string, write: (b: Buffer, v: T) => void, read: (b: Buffer) => T): Serde<T> {
  return {
    serialize: (_topic, value) => {
      if (value === null) return null
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

const string: Serde<string> = {
  serialize: (_topic, value) => (value === null ? null : Buffer.from(value, 'utf8')),
  deserialize: (_topic, bytes) => (bytes === null ? null : bytes.toString('utf8')),
}

// Java's LongSerde carries any 64-bit value; a bigint keeps them all, a
// number would round past 2^53.
const long = fixed<bigint>(
  8,
  'Serdes.Long',
  (b, v) => b.writeBigInt64BE(v),
  (b) => b.readBigInt64BE(0),
)
const integer = fixed<number>(
  4,
  'Serdes.Integer',
  (b, v) => b.writeInt32BE(v),
  (b) => b.readInt32BE(0),
)
const double = fixed<number>(
  8,
  'Serdes.Double',
  (b, v) => b.writeDoubleBE(v),
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
