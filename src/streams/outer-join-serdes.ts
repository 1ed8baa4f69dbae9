// The serdes of a left or outer stream-stream join's shared store, writing
// the bytes Java's do, so its changelog is Java's: the key is Java's
// TimestampedKeyAndJoinSide (the record's timestamp, int64 BE; 1 for the
// left side, 0 for the right; the key's bytes), so the store iterates by
// timestamp, right before left; the value is the list of the records waiting
// under that key (Java's ListSerde of bytes: strategy byte 1, int32 count,
// each an int32 length and the bytes), each record Java's LeftOrRightValue
// (1 for a left value, 0 for a right one, then the value's bytes).
import { fromDefaultSerde, isFromDefault, SerializationError, type Serde } from './serdes.js'

export interface TimestampedKeyAndJoinSide<K> {
  key: K
  timestamp: number
  left: boolean
}

export interface LeftOrRightValue<VL, VR> {
  left: boolean
  value: VL | VR
}

export function timestampedKeyAndJoinSideSerde<K>(keySerde: Serde<K>): Serde<TimestampedKeyAndJoinSide<K>> {
  return {
    serialize: (topic, k) => {
      if (k === null) return null
      const key = keySerde.serialize(topic, k.key)
      if (key === null) throw new SerializationError(`a join store's key cannot be null (${topic})`)
      const out = Buffer.allocUnsafe(9 + key.length)
      out.writeBigInt64BE(BigInt(k.timestamp), 0)
      out[8] = k.left ? 1 : 0
      key.copy(out, 9)
      return out
    },
    deserialize: (topic, b) => {
      if (b === null) return null
      if (b.length < 9) throw new SerializationError(`a join store's key in ${topic} has ${b.length} bytes, fewer than 9`)
      return { timestamp: Number(b.readBigInt64BE(0)), left: b[8] === 1, key: keySerde.deserialize(topic, b.subarray(9)) as K }
    },
  }
}

export function leftOrRightListSerde<VL, VR>(left: Serde<VL>, right: Serde<VR>): Serde<Array<LeftOrRightValue<VL, VR>>> {
  return {
    serialize: (topic, list) => {
      if (list === null) return null
      const items = list.map((v) => {
        const raw = v.left ? left.serialize(topic, v.value as VL) : right.serialize(topic, v.value as VR)
        if (raw === null) throw new SerializationError(`a join store's value cannot be null (${topic})`)
        return Buffer.concat([Buffer.of(v.left ? 1 : 0), raw])
      })
      const head = Buffer.allocUnsafe(5)
      head[0] = 1 // VARIABLE_SIZE
      head.writeInt32BE(items.length, 1)
      return Buffer.concat([head, ...items.flatMap((item) => [int32(item.length), item])])
    },
    deserialize: (topic, b) => {
      if (b === null) return null
      const fail = () => new SerializationError(`a join store's value list in ${topic} is cut short or malformed`)
      if (b.length < 5 || b[0] !== 1) throw fail()
      const out: Array<LeftOrRightValue<VL, VR>> = []
      let at = 5
      for (let n = b.readInt32BE(1); n > 0; n--) {
        if (at + 4 > b.length) throw fail()
        const len = b.readInt32BE(at)
        at += 4
        if (len < 1 || at + len > b.length) throw fail()
        const isLeft = b[at] === 1
        const raw = b.subarray(at + 1, at + len)
        out.push({ left: isLeft, value: (isLeft ? left.deserialize(topic, raw) : right.deserialize(topic, raw)) as VL | VR })
        at += len
      }
      return out
    },
  }
}

function int32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4)
  b.writeInt32BE(n)
  return b
}

/** The serde given, or one the application's default completes (as Java's serdes left null take the default). */
export function orDefault<T>(make: (...serdes: Array<Serde<any>>) => Serde<T>, ...given: Array<Serde<any> | undefined>): Serde<T> {
  if (given.every((s) => s !== undefined && !isFromDefault(s))) return make(...(given as Array<Serde<any>>))
  return fromDefaultSerde((d) => make(...given.map((s) => (s === undefined ? d : isFromDefault(s) ? s.fromDefault(d) : s))))
}
