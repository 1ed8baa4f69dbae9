// KTable.join / leftJoin(other, foreignKeyExtractor, joiner), as Java's
// foreign-key join (KIP-213, KTableImpl.doJoinOnForeignKey): the left table's
// rows subscribe to the foreign key their value names, through
// `<app>-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-<n>-topic` (keyed by the
// foreign key, so the subscription lands on the other table's partition); the
// other side keeps subscriptions in KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-<n>
// (keyed by foreign key + primary key) and answers each subscription, and each
// update of a foreign row, with that row's value through
// `...-SUBSCRIPTION-RESPONSE-<n>-topic`, to the left row's partition. There the
// response is joined with the left row, unless the row changed since it
// subscribed (its value's Murmur3 hash differs): then a newer response is on
// its way. Names, indexes, formats and the instructions are Java's, so
// describe() and the internal topics and changelog are Java's to the byte.
import type { InternalBuilder, Upstream } from './internal-builder.js'
import type { KTable } from './ktable.js'
import { InMemoryKeyValueStore } from './key-value-store.js'
import { persistentOf, type DslStoreType, type NodeRuntime } from './nodes.js'
import { Serdes, type Serde } from './serdes.js'
import { TopologyError, type ProcessorNode, type StreamRecord } from './topology.js'
import { murmur3Hash128 } from './murmur3.js'
import {
  combinedKey,
  combinedKeyPrefix,
  Instruction,
  primaryKeyOf,
  subscriptionResponseWrapperSerde,
  subscriptionWrapperSerde,
  type SubscriptionResponseWrapper,
  type SubscriptionWrapper,
} from './fk-join-wrappers.js'

/** Java's TableJoined (its name) and Materialized (the result's store and serdes) for a foreign-key join. */
export interface ForeignKeyJoinOptions<K, VR> {
  /** TableJoined.as(name): every node, topic and store named `<name>-<part>` (indexes still spent, as Java's). */
  name?: string
  /** Materialized.as(storeName): the result table kept (and queryable) in this store. */
  storeName?: string
  /** The result's key serde (default: this table's). */
  keySerde?: Serde<K>
  /** The result's value serde (for its store and what reads the table downstream). */
  valueSerde?: Serde<VR>
  storeType?: DslStoreType
}

/** `(value) => fk`, or `(key, value) => fk` (Java's BiFunction form; a function of two parameters). */
export type ForeignKeyExtractor<K, V, KO> = ((value: V) => KO | null) | ((key: K, value: V) => KO | null)

/** A table update: the new value and, from a materialized table, the one it replaced (Java's Change with old values). */
type Update = StreamRecord & { oldValue?: unknown }

const none = (v: unknown): v is null | undefined => v === null || v === undefined

export function foreignKeyJoin<K, V, KO, VO, VR>(
  b: InternalBuilder,
  self: KTable<K, V>,
  other: KTable<KO, VO>,
  extractor: ForeignKeyExtractor<K, V, KO>,
  joiner: (value: V, otherValue: VO | null) => VR,
  leftJoin: boolean,
  options: ForeignKeyJoinOptions<K, VR> = {},
): { upstream: Upstream; storeName: string | null; materialize: () => string } {
  if (typeof extractor !== 'function' || typeof joiner !== 'function')
    throw new TypeError('a foreign-key join takes a table, a foreign key extractor function and a joiner function')
  const [thisStore, otherStore] = [self.valueStore(), other.valueStore()]
  const need = <T>(serde: Serde<T> | undefined, what: string): Serde<T> => {
    if (serde) return serde
    throw new TopologyError(`a foreign-key join needs ${what}: give the tables' serdes (builder.table(topic, { keySerde, valueSerde }))`)
  }
  const keySerde = need<K>(self.upstream.keySerde, "this table's key serde")
  const valueSerde = need<V>(self.upstream.valueSerde, "this table's value serde")
  const foreignKeySerde = need<KO>(other.upstream.keySerde, "the other table's key serde")
  const foreignValueSerde = need<VO>(other.upstream.valueSerde, "the other table's value serde")
  const extract = (key: K, value: V): KO | null =>
    extractor.length >= 2 ? (extractor as (k: K, v: V) => KO | null)(key, value) : (extractor as (v: V) => KO | null)(value)

  // Java's NamedInternal.suffixWithOrElseGet: the index is spent whether or not a name is given.
  const named = (suffix: string, prefix: string) => {
    const generated = b.newProcessorName(prefix)
    return options.name === undefined ? generated : options.name + suffix
  }
  const subscriptionTopic = named('-subscription-registration', 'KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-') + '-topic'
  const registration = named('-subscription-registration-processor', 'KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-')
  const subscriptionSink = named('-subscription-registration-sink', 'KTABLE-SINK-')
  const subscriptionSource = named('-subscription-registration-source', 'KTABLE-SOURCE-')
  const subscriptionStore = named('-subscription-store', 'KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-')
  const receive = named('-subscription-receive', 'KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-')
  const joinForeign = named('-subscription-join-foreign', 'KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-')
  const foreignJoinSubscription = named('-foreign-join-subscription', 'KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-')
  const responseTopic = named('-subscription-response', 'KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-') + '-topic'
  const responseSink = named('-subscription-response-sink', 'KTABLE-SINK-')
  const responseSource = named('-subscription-response-source', 'KTABLE-SOURCE-')
  const resolver = named('-subscription-response-resolver', 'KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-')
  const output = named('-result', 'KTABLE-FK-JOIN-OUTPUT-')
  // Java's MaterializedInternal spends an index for the store name it would use when none is given.
  const resultStore = options.storeName ?? b.newStoreName('KTABLE-FK-JOIN-OUTPUT-')

  // The serdes' pseudo topics, as Java names them (what a topic-aware serde is given).
  let appId = ''
  const pseudo = (suffix: string) => () => `${appId}-${subscriptionTopic}-${suffix}`
  const [pkTopic, fkTopic, vhTopic] = [pseudo('pk'), pseudo('fk'), pseudo('vh')]
  const wrapperSerde = subscriptionWrapperSerde(keySerde, pkTopic)
  const responseSerde = subscriptionResponseWrapperSerde(foreignValueSerde)
  const fkBytes = (fk: KO) => foreignKeySerde.serialize(fkTopic(), fk)!
  const hash = (value: V) => murmur3Hash128(valueSerde.serialize(vhTopic(), value)!)
  const warnSkipped = (rt: NodeRuntime, why: string) => {
    const c = rt.context()
    rt.log.warn(why, { topic: c.topic, partition: c.partition, offset: String(c.offset) })
  }

  const t = b.topology
  t.internalTopics.add(subscriptionTopic)
  t.internalTopics.add(responseTopic)
  const processor = (name: string, parents: string[], stores: string[], make: ProcessorNode['make']) =>
    t.add({ kind: 'processor', name, parents, stores, make })

  // This table's side: each update (un)subscribes, as Java's SubscriptionSendProcessorSupplier.
  processor(registration, [self.upstream.node], [], (rt) => {
    appId = rt.applicationId
    return (r: Update) => {
      const newValue = (r.value ?? null) as V | null
      const oldValue = (r.oldValue ?? null) as V | null
      let recordHash: Buffer | null | undefined
      const send = (fk: KO | null, instruction: Instruction) => {
        if (recordHash === undefined) recordHash = newValue === null ? null : hash(newValue)
        const wrapper: SubscriptionWrapper<K> = {
          version: 1,
          hash: recordHash,
          instruction,
          primaryKey: r.key,
          primaryPartition: rt.context().partition,
        }
        rt.forward({ key: fk, value: wrapper, timestamp: r.timestamp })
      }
      const oldFk = oldValue === null ? null : extract(r.key, oldValue)
      const changed = (newFk: KO | null) => newFk === null || !fkBytes(newFk).equals(fkBytes(oldFk!))
      if (leftJoin) {
        if (oldValue === null && newValue === null) return
        const newFk = newValue === null ? null : extract(r.key, newValue)
        if (!none(oldFk) && changed(newFk)) send(oldFk, Instruction.DELETE_KEY_NO_PROPAGATE)
        send(newFk ?? null, Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)
        return
      }
      if (newValue !== null) {
        const newFk = extract(r.key, newValue)
        if (none(newFk)) {
          warnSkipped(rt, 'Skipping record due to null foreign key')
          if (!none(oldFk)) send(oldFk, Instruction.DELETE_KEY_AND_PROPAGATE)
        } else if (!none(oldFk) && changed(newFk)) {
          send(oldFk, Instruction.DELETE_KEY_NO_PROPAGATE)
          send(newFk, Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE)
        } else send(newFk, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE)
      } else if (!none(oldFk)) send(oldFk, Instruction.DELETE_KEY_AND_PROPAGATE)
    }
  })
  t.add({
    kind: 'sink',
    name: subscriptionSink,
    parents: [registration],
    topic: subscriptionTopic,
    keySerde: foreignKeySerde,
    valueSerde: wrapperSerde,
  })
  t.add({ kind: 'source', name: subscriptionSource, topics: [subscriptionTopic], keySerde: foreignKeySerde, valueSerde: wrapperSerde })
  t.addStore({ name: subscriptionStore, keySerde: Serdes.ByteArray(), valueSerde: wrapperSerde })

  /** A subscription as it reaches the join: its key (foreign key null for a left row without one) and the wrapper. */
  interface Subscribed {
    foreignKey: KO | null
    wrapper: SubscriptionWrapper<K>
  }
  // The other side: a subscription is kept (or removed) and answered, as Java's SubscriptionReceiveProcessorSupplier.
  processor(receive, [subscriptionSource], [subscriptionStore], (rt) => {
    appId = rt.applicationId
    const store = rt.store<Buffer, SubscriptionWrapper<K>>(subscriptionStore)
    return (r: StreamRecord<KO | null, SubscriptionWrapper<K>>) => {
      const w = r.value
      if (none(r.key) && w.instruction !== Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE) {
        warnSkipped(rt, 'Skipping record due to null foreign key')
        return
      }
      if (!none(r.key)) {
        const key = combinedKey(fkBytes(r.key), keySerde.serialize(pkTopic(), w.primaryKey)!)
        if (w.instruction === Instruction.DELETE_KEY_AND_PROPAGATE || w.instruction === Instruction.DELETE_KEY_NO_PROPAGATE)
          store.delete(key, r.timestamp)
        else store.put(key, w, r.timestamp)
      }
      const out: Subscribed = { foreignKey: r.key ?? null, wrapper: w }
      rt.forward({ key: out, value: out, timestamp: r.timestamp })
    }
  })
  processor(joinForeign, [receive], [otherStore], (rt) => {
    const foreign = rt.store<KO, VO>(otherStore)
    return (r: StreamRecord<Subscribed, Subscribed>) => {
      const { foreignKey, wrapper: w } = r.value
      const found = foreignKey === null ? null : foreign.getWithTimestamp(foreignKey)
      const timestamp = found ? Math.max(r.timestamp, found.timestamp) : r.timestamp
      const respond = (foreignValue: VO | null) => {
        const response: SubscriptionResponseWrapper<VO> = { hash: w.hash, foreignValue, primaryPartition: w.primaryPartition }
        rt.forward({ key: w.primaryKey, value: response, timestamp })
      }
      if (w.instruction === Instruction.DELETE_KEY_AND_PROPAGATE) respond(null)
      else if (w.instruction === Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE) respond(found?.value ?? null)
      else if (w.instruction === Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE && found) respond(found.value)
    }
  })
  // An update of a foreign row answers every subscription to it (Java's ForeignTableJoinProcessorSupplier).
  processor(foreignJoinSubscription, [other.upstream.node], [subscriptionStore], (rt) => {
    appId = rt.applicationId
    const store = rt.store<Buffer, SubscriptionWrapper<K>>(subscriptionStore) as InMemoryKeyValueStore<Buffer, SubscriptionWrapper<K>>
    return (r: Update) => {
      if (none(r.key)) {
        warnSkipped(rt, 'Skipping record due to null key')
        return
      }
      const prefix = combinedKeyPrefix(fkBytes(r.key as KO))
      for (const { key, value: w } of subscriptionsFrom(store, prefix)) {
        const response: SubscriptionResponseWrapper<VO> = {
          hash: w.hash,
          foreignValue: (r.value ?? null) as VO | null,
          primaryPartition: w.primaryPartition,
        }
        rt.forward({ key: keySerde.deserialize(pkTopic(), primaryKeyOf(key)), value: response, timestamp: r.timestamp })
      }
    }
  })
  t.add({
    kind: 'sink',
    name: responseSink,
    parents: [joinForeign, foreignJoinSubscription],
    topic: responseTopic,
    keySerde,
    valueSerde: responseSerde,
    // Java's DefaultForeignResponseSinkPartitioner: back to the left row's partition.
    partitioner: (_key, value: SubscriptionResponseWrapper<VO>) => value.primaryPartition ?? undefined,
  })
  t.add({ kind: 'source', name: responseSource, topics: [responseTopic], keySerde, valueSerde: responseSerde })

  // This table's side again: a response still for the row's current value is joined (Java's ResponseJoinProcessorSupplier).
  processor(resolver, [responseSource], [thisStore], (rt) => {
    appId = rt.applicationId
    const rows = rt.store<K, V>(thisStore)
    return (r: StreamRecord<K, SubscriptionResponseWrapper<VO>>) => {
      const current = rows.getWithTimestamp(r.key)
      const currentHash = current === null ? null : hash(current.value)
      const messageHash = r.value.hash
      if (currentHash === null ? messageHash !== null : messageHash === null || !currentHash.equals(messageHash)) {
        rt.log.debug('Dropping FK-join response due to hash mismatch', { key: String(r.key) })
        return
      }
      const foreignValue = r.value.foreignValue
      const result =
        foreignValue !== null || (leftJoin && current !== null)
          ? joiner((current === null ? null : current.value) as V, foreignValue)
          : null
      rt.forward({ key: r.key, value: result, timestamp: r.timestamp })
    }
  })
  // The result table (Java's KTableSource over the join): kept in its store when materialized.
  const outputNode: ProcessorNode = {
    kind: 'processor',
    name: output,
    parents: [resolver],
    stores: [],
    make: (rt) => {
      const store = outputNode.stores.length > 0 ? rt.store<K, VR>(resultStore) : null
      return (r) => {
        if (!store) return rt.forward({ key: r.key, value: r.value, timestamp: r.timestamp })
        const old = store.getWithTimestamp(r.key)
        store.put(r.key, r.value, r.timestamp)
        rt.forward({ key: r.key, value: r.value, timestamp: r.timestamp, oldValue: old?.value ?? null } as StreamRecord)
      }
    },
  }
  t.add(outputNode)
  const resultKeySerde = options.keySerde ?? keySerde
  const materialize = () => {
    if (outputNode.stores.length === 0) {
      t.addStore({
        name: resultStore,
        keySerde: resultKeySerde,
        valueSerde: options.valueSerde,
        persistent: persistentOf(options.storeType),
      })
      outputNode.stores.push(resultStore)
    }
    return resultStore
  }
  if (options.storeName !== undefined) materialize()

  t.copartition([other.upstream.node, subscriptionSource])
  t.copartition([self.upstream.node, responseSource])
  return {
    upstream: { node: output, keySerde: resultKeySerde, valueSerde: options.valueSerde, repartitionRequired: false },
    storeName: options.storeName ?? null,
    materialize,
  }
}

/** The subscription store's entries under `prefix` (Java's range(prefix, increment(prefix)) with its prefix check). */
function subscriptionsFrom<W>(store: InMemoryKeyValueStore<Buffer, W>, prefix: Buffer): Array<{ key: Buffer; value: W }> {
  const upper = Buffer.from(prefix)
  let i = upper.length - 1
  while (i >= 0 && upper[i] === 0xff) upper[i--] = 0
  const entries = i < 0 ? store.allInKeyOrder() : (upper[i]++, store.range(prefix, upper))
  return entries.filter((e) => e.key.length >= prefix.length && e.key.subarray(0, prefix.length).equals(prefix))
}
