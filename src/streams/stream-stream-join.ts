// KStream.join / leftJoin / outerJoin(KStream, JoinWindows), as Java's
// KStreamImplJoin builds them and KStreamKStreamJoin runs them. Each side's
// records go through a KSTREAM-WINDOWED- processor that keeps them in its
// window store (retaining duplicates, for size + grace), then to its join
// processor (KSTREAM-JOINTHIS- / -JOINOTHER-, -OUTERTHIS- / -OUTEROTHER- on
// an outer side), which looks up the other side's store for records of the
// same key within [t - before, t + after] (mirrored for the other side) and
// forwards each pair, timestamped with the later of the two; KSTREAM-MERGE-
// takes both sides' results. A record of an outer side that found no partner
// waits in the shared store (KSTREAM-OUTERSHARED-) until its window has
// closed in stream time (its timestamp + the window + grace passed), then is
// forwarded joined with null, unless a partner came meanwhile; a record
// already past that when it comes is forwarded joined with null at once.
// Stream time is the task's, both sides'. A late record is not refused: the
// stores simply no longer return what is older than their retention, as
// Java's do. Java throttles the shared store's scan to once a second of wall
// clock (an internal config, 1000 ms); here it runs whenever the record in
// hand is at stream time, as Java does with that interval 0.
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { JoinWindows } from './join-windows.js'
import type { KeyValueStore } from './key-value-store.js'
import type { NodeRuntime } from './nodes.js'
import {
  leftOrRightListSerde,
  orDefault,
  timestampedKeyAndJoinSideSerde,
  type LeftOrRightValue,
  type TimestampedKeyAndJoinSide,
} from './outer-join-serdes.js'
import { repartition } from './repartition.js'
import type { Serde } from './serdes.js'
import type { StreamRecord } from './topology.js'

export type StreamJoinKind = 'inner' | 'left' | 'outer'

/** Java's StreamJoined: the serdes of the join's stores (the application's defaults when absent) and of its repartition topics. */
export interface StreamJoined<K, V, VO> {
  keySerde?: Serde<K>
  valueSerde?: Serde<V>
  otherValueSerde?: Serde<VO>
}

const STREAM_JOINED_KEYS = ['keySerde', 'valueSerde', 'otherValueSerde']

/** Java's ValueJoinerWithKey, the key last: `otherValue` (or `value`, from an outer other side) null when no record joined. */
export type StreamValueJoiner<V, VO, VR, K> = (value: V | null, otherValue: VO | null, key: K) => VR

type Pending = Array<LeftOrRightValue<unknown, unknown>>
type OuterStore = KeyValueStore<TimestampedKeyAndJoinSide<unknown>, Pending>

/** The task's stream time, both sides' (Java's TimeTracker): one per task, found through the shared store both sides hold. */
interface TimeTracker {
  streamTime: number
  minTime: number
}
const trackers = new WeakMap<object, TimeTracker>()
const newTracker = (): TimeTracker => ({ streamTime: -1, minTime: Number.MAX_SAFE_INTEGER })

const none = (v: unknown) => v === null || v === undefined

export function streamStreamJoin(
  b: InternalBuilder,
  left: Upstream,
  right: Upstream,
  joiner: StreamValueJoiner<any, any, any, any>,
  windows: JoinWindows,
  joined: StreamJoined<any, any, any>,
  kind: StreamJoinKind,
): Upstream {
  if (typeof joiner !== 'function') throw new TypeError('a stream-stream join takes a stream, a joiner function and JoinWindows')
  if (typeof joined !== 'object' || joined === null) throw new TypeError('StreamJoined must be an object of serdes')
  for (const k of Object.keys(joined))
    if (!STREAM_JOINED_KEYS.includes(k)) throw new TypeError(`StreamJoined has no option ${k} (it takes ${STREAM_JOINED_KEYS.join(', ')})`)
  const t = b.topology
  // As Java's KStreamImpl.doJoin: a side whose key changed goes through `<its node>-repartition` first.
  let leftNode = left.node
  let rightNode = right.node
  if (left.repartitionRequired)
    leftNode = repartition(
      b,
      { ...left, keySerde: joined.keySerde ?? left.keySerde, valueSerde: joined.valueSerde ?? left.valueSerde },
      left.node,
    )
  if (right.repartitionRequired)
    rightNode = repartition(
      b,
      { ...right, keySerde: joined.keySerde ?? right.keySerde, valueSerde: joined.otherValueSerde ?? right.valueSerde },
      right.node,
    )
  t.copartition([leftNode, rightNode])

  const [leftOuter, rightOuter] = [kind !== 'inner', kind === 'outer']
  const thisWindowed = b.newProcessorName('KSTREAM-WINDOWED-')
  const otherWindowed = b.newProcessorName('KSTREAM-WINDOWED-')
  const thisPrefix = rightOuter ? 'KSTREAM-OUTERTHIS-' : 'KSTREAM-JOINTHIS-'
  const joinThis = b.newProcessorName(thisPrefix)
  const joinOther = b.newProcessorName(leftOuter ? 'KSTREAM-OUTEROTHER-' : 'KSTREAM-JOINOTHER-')
  const merge = b.newProcessorName('KSTREAM-MERGE-')
  const [thisStore, otherStore] = [`${joinThis}-store`, `${joinOther}-store`]
  const sharedStore = leftOuter ? `KSTREAM-OUTERSHARED-${joinThis.slice(thisPrefix.length)}-store` : null

  const window = { retentionMs: windows.sizeMs + windows.graceMs, retainDuplicates: true }
  t.addStore({ name: thisStore, keySerde: joined.keySerde, valueSerde: joined.valueSerde, window })
  t.addStore({ name: otherStore, keySerde: joined.keySerde, valueSerde: joined.otherValueSerde, window })
  if (sharedStore)
    t.addStore({
      name: sharedStore,
      keySerde: orDefault((k) => timestampedKeyAndJoinSideSerde(k), joined.keySerde),
      valueSerde: orDefault((l, r) => leftOrRightListSerde(l, r), joined.valueSerde, joined.otherValueSerde),
    })

  const windowed = (name: string, parent: string, store: string) =>
    t.add({
      kind: 'processor',
      name,
      parents: [parent],
      stores: [store],
      make: (rt) => {
        const records = rt.windowStore<unknown, unknown>(store)
        return (r) => {
          rt.forward(r)
          // A null key never joins: not kept.
          if (!none(r.key)) records.put(r.key, r.value, r.timestamp, r.timestamp)
        }
      },
    })
  windowed(thisWindowed, leftNode, thisStore)
  windowed(otherWindowed, rightNode, otherStore)

  const side = (isLeft: boolean, name: string, parent: string, lookup: string, outer: boolean) => {
    // The other side's records searched: [t - before, t + after] from the left, mirrored from the right.
    const [beforeMs, afterMs] = isLeft ? [windows.beforeMs, windows.afterMs] : [windows.afterMs, windows.beforeMs]
    const joined = (mine: unknown, theirs: unknown, key: unknown) => (isLeft ? joiner(mine, theirs, key) : joiner(theirs, mine, key))
    t.add({
      kind: 'processor',
      name,
      parents: [parent],
      stores: sharedStore ? [lookup, sharedStore] : [lookup],
      make: (rt) => {
        const others = rt.windowStore<unknown, unknown>(lookup)
        const pending = sharedStore ? (rt.store(sharedStore) as OuterStore) : null
        let tracker = pending ? trackers.get(pending) : undefined
        if (!tracker) {
          tracker = newTracker()
          if (pending) trackers.set(pending, tracker)
        }
        const time = tracker
        return (r: StreamRecord) => {
          const ts = r.timestamp
          time.streamTime = Math.max(time.streamTime, ts)
          if (outer && none(r.key) && !none(r.value)) {
            rt.forward({ key: r.key, value: joined(r.value, null, r.key), timestamp: ts })
            return
          }
          if (none(r.key) || none(r.value)) {
            const c = rt.context()
            rt.log.warn('Skipping record due to null key or value', { topic: c.topic, partition: c.partition, offset: String(c.offset) })
            return
          }
          if (pending && ts === time.streamTime) emitClosed(rt, pending, time, afterMs, ts)
          const matches = others.fetchRange(r.key, Math.max(0, ts - beforeMs), Math.max(0, ts + afterMs))
          for (const m of matches) {
            if (pending) {
              // The partner no longer waits to be emitted with null (Java's putIfAbsent(key, null): a delete when present).
              const theirs = { key: r.key, timestamp: m.timestamp, left: !isLeft }
              if (pending.get(theirs) !== null) pending.put(theirs, null, ts)
            }
            rt.forward({ key: r.key, value: joined(r.value, m.value, r.key), timestamp: Math.max(ts, m.timestamp) })
          }
          if (!outer || matches.length > 0) return
          const timeTo = Math.max(0, ts + afterMs)
          if (!pending || timeTo < time.streamTime) {
            rt.forward({ key: r.key, value: joined(r.value, null, r.key), timestamp: ts })
            return
          }
          time.minTime = Math.min(time.minTime, ts)
          const mine = { key: r.key, timestamp: ts, left: isLeft }
          pending.put(mine, [...(pending.get(mine) ?? []), { left: isLeft, value: r.value }], ts)
        }
      },
    })
  }

  /** Forwards, joined with null, the waiting records whose window has closed, and forgets them (Java's emitNonJoinedOuterRecords). */
  const emitClosed = (rt: NodeRuntime, pending: OuterStore, time: TimeTracker, afterMs: number, now: number) => {
    // Java adds to Long.MAX_VALUE when nothing waits (an empty or just restored store): it overflows, and the scan runs.
    const nothingWaits = time.minTime === Number.MAX_SAFE_INTEGER
    if (nothingWaits ? afterMs + windows.graceMs <= 0 : time.minTime + afterMs + windows.graceMs >= time.streamTime) return
    time.minTime = Number.MAX_SAFE_INTEGER
    let prev: TimestampedKeyAndJoinSide<unknown> | null = null
    const open = { left: false, right: false }
    scan: for (const { key, value: list } of pending.allInKeyOrder()) {
      for (const item of list) {
        time.minTime = key.timestamp
        if (open.left && open.right) break scan
        // A left record waits for right ones up to `after` later, a right one for left ones up to `before` later.
        const lookBack = key.left ? windows.afterMs : windows.beforeMs
        if (time.minTime + lookBack + windows.graceMs >= time.streamTime) {
          open[key.left ? 'left' : 'right'] = true
          continue
        }
        const value = item.left ? joiner(item.value, null, key.key) : joiner(null, item.value, key.key)
        rt.forward({ key: key.key, value, timestamp: key.timestamp })
        if (prev !== null && prev !== key) pending.put(prev, null, now)
        prev = key
      }
    }
    if (prev !== null) pending.put(prev, null, now)
  }

  side(true, joinThis, thisWindowed, otherStore, leftOuter)
  side(false, joinOther, otherWindowed, thisStore, rightOuter)
  t.add({ kind: 'processor', name: merge, parents: [joinThis, joinOther], stores: [], make: (rt) => (r) => rt.forward(r) })
  return { node: merge, keySerde: joined.keySerde, valueSerde: undefined, repartitionRequired: false }
}
