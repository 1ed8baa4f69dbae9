// The records a foreign-key join sends between its two sides, in Java's byte
// formats (KIP-213), so Java Kafka Streams and wafka/streams read each
// other's subscription topics, response topics and subscription stores:
// SubscriptionWrapper (version 1: version byte with the high bit set when the
// hash is null, instruction, 16-byte hash, primary key, primary partition),
// SubscriptionResponseWrapper (version 0: version/null-hash byte, hash,
// foreign value) and CombinedKey (foreign key length, foreign key, primary key).
import { SerializationError, type Serde } from './serdes.js'

/** Java's SubscriptionWrapper.Instruction, by its byte. */
export const Instruction = {
  DELETE_KEY_NO_PROPAGATE: 0,
  DELETE_KEY_AND_PROPAGATE: 1,
  PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE: 2,
  PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE: 3,
} as const
export type Instruction = (typeof Instruction)[keyof typeof Instruction]

/** A left row's subscription to a foreign key: the hash of its value (null: deleted), what to do, and where it lives. */
export interface SubscriptionWrapper<K> {
  version: number
  hash: Buffer | null
  instruction: Instruction
  primaryKey: K
  /** The left row's partition (version 1), where the response goes. */
  primaryPartition: number | null
}

/** The foreign row's value for a subscription, with the hash of the left value it answers. */
export interface SubscriptionResponseWrapper<VO> {
  hash: Buffer | null
  foreignValue: VO | null
  /** Where the response goes (not serialized: the sink's partitioner reads it). */
  primaryPartition: number | null
}

const NULL_HASH = 0x80

export function subscriptionWrapperSerde<K>(primaryKeySerde: Serde<K>, pkTopic: () => string): Serde<SubscriptionWrapper<K>> {
  return {
    serialize: (_topic, w) => {
      if (w === null) return null
      const pk = primaryKeySerde.serialize(pkTopic(), w.primaryKey)
      if (pk === null) throw new SerializationError('a subscription needs a primary key')
      const v1 = w.version >= 1
      const out = Buffer.alloc(2 + (w.hash ? 16 : 0) + pk.length + (v1 ? 4 : 0))
      out[0] = w.hash ? w.version : w.version | NULL_HASH
      out[1] = w.instruction
      let at = 2
      if (w.hash) at += w.hash.copy(out, at)
      at += pk.copy(out, at)
      if (v1) out.writeInt32BE(w.primaryPartition ?? 0, at)
      return out
    },
    deserialize: (topic, b) => {
      if (b === null) return null
      if (b.length < 2) throw new SerializationError(`a SubscriptionWrapper in ${topic} needs at least 2 bytes, it has ${b.length}`)
      const version = b[0] & 0x7f
      if (version > 1) throw new SerializationError(`SubscriptionWrapper is of an incompatible version (${version}) in ${topic}`)
      const instruction = b[1]
      if (instruction > 3) throw new SerializationError(`Unknown instruction byte value = ${instruction}`)
      const hashed = (b[0] & NULL_HASH) === 0
      const pkFrom = 2 + (hashed ? 16 : 0)
      const pkTo = b.length - (version > 0 ? 4 : 0)
      return {
        version,
        hash: hashed ? Buffer.from(b.subarray(2, 18)) : null,
        instruction: instruction as Instruction,
        primaryKey: primaryKeySerde.deserialize(pkTopic(), Buffer.from(b.subarray(pkFrom, pkTo))) as K,
        primaryPartition: version > 0 ? b.readInt32BE(pkTo) : null,
      }
    },
  }
}

export function subscriptionResponseWrapperSerde<VO>(foreignValueSerde: Serde<VO>): Serde<SubscriptionResponseWrapper<VO>> {
  return {
    serialize: (topic, w) => {
      if (w === null) return null
      const value = w.foreignValue === null ? null : foreignValueSerde.serialize(topic, w.foreignValue)
      const head = Buffer.from([w.hash ? 0 : NULL_HASH])
      return Buffer.concat([head, ...(w.hash ? [w.hash] : []), ...(value ? [value] : [])])
    },
    deserialize: (topic, b) => {
      if (b === null) return null
      const version = b[0] & 0x7f
      if (version !== 0) throw new SerializationError(`SubscriptionResponseWrapper is of an incompatible version (${version}) in ${topic}`)
      const hashed = (b[0] & NULL_HASH) === 0
      const from = hashed ? 17 : 1
      // As Java's: no bytes after the hash is a null value (an empty serialized value too).
      return {
        hash: hashed ? Buffer.from(b.subarray(1, 17)) : null,
        foreignValue: b.length > from ? foreignValueSerde.deserialize(topic, Buffer.from(b.subarray(from))) : null,
        primaryPartition: null,
      }
    },
  }
}

/** A subscription store key (Java's CombinedKeySchema.toBytes): 4-byte foreign key length, foreign key, primary key. */
export function combinedKey(foreignKey: Buffer, primaryKey: Buffer): Buffer {
  const out = Buffer.alloc(4 + foreignKey.length + primaryKey.length)
  out.writeInt32BE(foreignKey.length, 0)
  foreignKey.copy(out, 4)
  primaryKey.copy(out, 4 + foreignKey.length)
  return out
}

/** The prefix every subscription to `foreignKey` starts with (Java's prefixBytes). */
export function combinedKeyPrefix(foreignKey: Buffer): Buffer {
  return combinedKey(foreignKey, Buffer.alloc(0))
}

/** The primary key bytes of a subscription store key. */
export function primaryKeyOf(key: Buffer): Buffer {
  const fkLength = key.readInt32BE(0)
  if (fkLength > key.length - 4) throw new SerializationError('a subscription store key shorter than its foreign key length')
  return Buffer.from(key.subarray(4 + fkLength))
}
