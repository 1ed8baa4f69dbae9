// Java's StreamsMetadataState: which instance of the application (by its
// applicationServer, Java's HostInfo) runs which tasks, for finding the
// instance whose store holds a key. Under groupProtocol 'streams' the broker
// sends the map with the heartbeat (PartitionsByUserEndpoint: each member
// with an endpoint, and the source partitions of its active and standby
// tasks); this reads it as Java's StreamThread hands it on. A store's
// partition for a key is its sub-topology's source partition: the key's
// serialized bytes through murmur2, as the default partitioner placed it, over
// the source topic with the most partitions (counted, as in Java, from the map).
import type { TopicPartition } from '../consumer/partition-state.js'
import { murmur2Partition } from '../producer/partitioners/murmur2.js'
import type {
  StreamsGroupHeartbeatResponseEndpointToPartitions,
  StreamsGroupHeartbeatResponseTopicPartition,
} from '../protocol/messages/index.js'
import type { AssignmentInfo } from './assignment-info.js'
import type { Topology } from './topology.js'

/** Java's HostInfo: an instance's applicationServer. */
export interface HostInfo {
  host: string
  port: number
}

/** Java's HostInfo.unavailable(): where no instance (known to have an endpoint) holds the key. */
export const UNAVAILABLE_HOST: HostInfo = Object.freeze({ host: 'unavailable', port: -1 })

/** Java's StreamsMetadata: one instance, the stores its tasks hold and the source partitions they read. */
export interface StreamsMetadata {
  hostInfo: HostInfo
  host: string
  port: number
  /** The stores of its active tasks (and every global store), sorted. */
  stateStoreNames: string[]
  /** The source (and repartition source) partitions of its active tasks, by topic and partition. */
  topicPartitions: TopicPartition[]
  standbyStateStoreNames: string[]
  standbyTopicPartitions: TopicPartition[]
}

/** Java's KeyQueryMetadata: the instance whose active task holds the key, those with a standby copy, and the partition. */
export interface KeyQueryMetadata {
  activeHost: HostInfo
  standbyHosts: HostInfo[]
  partition: number
}

/** Java's KeyQueryMetadata.NOT_AVAILABLE: the application does not know its instances yet (or the key's partition has none). */
export const NOT_AVAILABLE: KeyQueryMetadata = Object.freeze({ activeHost: UNAVAILABLE_HOST, standbyHosts: [], partition: -1 })

/** Java's StreamPartitioner.partition: the partition of `topic` (with `numPartitions`) a key went to. */
export type StreamPartitioner<K> = (topic: string, key: K, value: null, numPartitions: number) => number | null | undefined

/** What writes a key's bytes (a Serde, or Java's Serializer shape). */
export interface KeySerializer<K> {
  serialize(topic: string, key: K | null): Buffer | Uint8Array | null
}

/** One endpoint's share, as the heartbeat carries it (the entries of one endpoint united). */
export interface EndpointPartitions {
  hostInfo: HostInfo
  activePartitions: TopicPartition[]
  standbyPartitions: TopicPartition[]
}

const hostKey = (h: HostInfo) => `${h.host}:${h.port}`
const byTopicPartition = (a: TopicPartition, b: TopicPartition) =>
  a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition

export class StreamsMetadataState {
  /** Each store's source topics (full names): its sub-topology's source and repartition source topics. */
  private readonly storeToSourceTopics = new Map<string, string[]>()
  private readonly globalStores: string[]
  private allMetadataList: StreamsMetadata[] = []
  /** How many partitions of each topic the map names (Java's partitionsByTopic). */
  private partitionsByTopic = new Map<string, number>()
  /** Java's localMetadata: set once a map came that names this instance, or came empty. */
  private localKnown = false

  constructor(
    topology: Topology,
    topicName: (t: string) => string,
    private readonly thisHost: HostInfo | null,
  ) {
    for (const sub of topology.subtopologies())
      for (const store of sub.stores) this.storeToSourceTopics.set(store, sub.sourceTopics.map(topicName))
    this.globalStores = [...topology.globalStores.keys()].sort()
  }

  /** Java's onChange: a new map from the group (active and standby partitions per endpoint). */
  onChange(endpoints: readonly EndpointPartitions[]): void {
    this.partitionsByTopic = new Map()
    const seen = new Set<string>()
    for (const e of endpoints)
      for (const tp of e.activePartitions) {
        const k = `${tp.topic}\u0000${tp.partition}`
        if (seen.has(k)) continue
        seen.add(k)
        this.partitionsByTopic.set(tp.topic, (this.partitionsByTopic.get(tp.topic) ?? 0) + 1)
      }
    const here = this.thisHost ? hostKey(this.thisHost) : undefined
    if (endpoints.length === 0 || endpoints.some((e) => hostKey(e.hostInfo) === here)) this.localKnown = true
    this.allMetadataList = [...endpoints]
      .sort((a, b) => (a.hostInfo.host < b.hostInfo.host ? -1 : a.hostInfo.host > b.hostInfo.host ? 1 : a.hostInfo.port - b.hostInfo.port))
      .map((e) => ({
        hostInfo: e.hostInfo,
        host: e.hostInfo.host,
        port: e.hostInfo.port,
        stateStoreNames: [...new Set([...this.storesOn(e.activePartitions), ...this.globalStores])].sort(),
        topicPartitions: [...e.activePartitions].sort(byTopicPartition),
        standbyStateStoreNames: this.storesOn(e.standbyPartitions),
        standbyTopicPartitions: [...e.standbyPartitions].sort(byTopicPartition),
      }))
  }

  /** The stores whose source topics some of `partitions` belong to. */
  private storesOn(partitions: readonly TopicPartition[]): string[] {
    const topics = new Set(partitions.map((p) => p.topic))
    return [...this.storeToSourceTopics]
      .filter(([, sources]) => sources.some((t) => topics.has(t)))
      .map(([store]) => store)
      .sort()
  }

  private get initialized(): boolean {
    return this.partitionsByTopic.size > 0 && this.localKnown
  }

  /** Java's allMetadata: every instance with an endpoint that has tasks, by host and port. */
  allMetadata(): StreamsMetadata[] {
    return this.allMetadataList
  }

  /** Java's allMetadataForStore: the instances holding `storeName` (active or standby); every one for a global store. */
  allMetadataForStore(storeName: string): StreamsMetadata[] {
    if (!this.initialized) return []
    if (this.globalStores.includes(storeName)) return this.allMetadataList
    if (!this.storeToSourceTopics.has(storeName)) return []
    return this.allMetadataList.filter((m) => m.stateStoreNames.includes(storeName) || m.standbyStateStoreNames.includes(storeName))
  }

  /**
   * Java's keyQueryMetadataForKey: null for a store the topology does not
   * have; NOT_AVAILABLE until the group told where the tasks run.
   */
  keyQueryMetadataForKey<K>(storeName: string, key: K, partitioner: StreamPartitioner<K>): KeyQueryMetadata | null {
    if (!this.initialized) return NOT_AVAILABLE
    if (this.globalStores.includes(storeName)) {
      const host = this.thisHost ?? this.allMetadataList[0]?.hostInfo ?? UNAVAILABLE_HOST
      return { activeHost: host, standbyHosts: [], partition: -1 }
    }
    const sourceTopics = this.storeToSourceTopics.get(storeName)
    if (!sourceTopics) return null
    let maxPartitions = 0
    let topicWithMostPartitions: string | undefined
    for (const t of sourceTopics) {
      const n = this.partitionsByTopic.get(t) ?? 0
      if (n > maxPartitions) [maxPartitions, topicWithMostPartitions] = [n, t]
    }
    // No instance with an endpoint runs this store's tasks (Java would divide by zero here).
    if (topicWithMostPartitions === undefined) return NOT_AVAILABLE
    const partition = partitioner(topicWithMostPartitions, key, null, maxPartitions)
    if (partition === null || partition === undefined) return NOT_AVAILABLE
    if (!Number.isInteger(partition) || partition < 0)
      throw new TypeError(`the partitioner gave ${String(partition)} for a key of store ${storeName}, not a partition number`)
    const matching = new Set(sourceTopics.map((t) => `${t}\u0000${partition}`))
    const holds = (tps: TopicPartition[]) => tps.some((tp) => matching.has(`${tp.topic}\u0000${tp.partition}`))
    let activeHost = UNAVAILABLE_HOST
    const standbyHosts: HostInfo[] = []
    for (const m of this.allMetadataList) {
      if (m.stateStoreNames.includes(storeName) && holds(m.topicPartitions)) activeHost = m.hostInfo
      if (m.standbyStateStoreNames.includes(storeName) && holds(m.standbyTopicPartitions)) standbyHosts.push(m.hostInfo)
    }
    return { activeHost, standbyHosts, partition }
  }
}

/** Java's DefaultStreamPartitioner: murmur2 of the key's serialized bytes (no partition for null bytes). */
export function defaultStreamPartitioner<K>(keySerializer: KeySerializer<K>): StreamPartitioner<K> {
  return (topic, key, _value, numPartitions) => {
    const bytes = keySerializer.serialize(topic, key)
    return bytes === null ? null : murmur2Partition(bytes, numPartitions)
  }
}

/** The heartbeat's PartitionsByUserEndpoint as one entry per endpoint: a member per stream thread may repeat an endpoint, so its entries are united. */
export function endpointPartitions(entries: readonly StreamsGroupHeartbeatResponseEndpointToPartitions[]): EndpointPartitions[] {
  const by = new Map<string, { hostInfo: HostInfo; active: Map<string, TopicPartition>; standby: Map<string, TopicPartition> }>()
  const add = (into: Map<string, TopicPartition>, tps: StreamsGroupHeartbeatResponseTopicPartition[]) => {
    for (const t of tps) for (const partition of t.partitions) into.set(`${t.topic}\u0000${partition}`, { topic: t.topic, partition })
  }
  for (const e of entries) {
    const hostInfo = { host: e.userEndpoint.host, port: e.userEndpoint.port }
    let entry = by.get(hostKey(hostInfo))
    if (!entry) by.set(hostKey(hostInfo), (entry = { hostInfo, active: new Map(), standby: new Map() }))
    add(entry.active, e.activePartitions)
    add(entry.standby, e.standbyPartitions)
  }
  return [...by.values()].map((e) => ({
    hostInfo: e.hostInfo,
    activePartitions: [...e.active.values()],
    standbyPartitions: [...e.standby.values()],
  }))
}

/** The classic protocol's map: AssignmentInfo's active and standby partitions by host, as one entry per endpoint. */
export function assignmentEndpoints(info: Pick<AssignmentInfo, 'partitionsByHost' | 'standbyPartitionsByHost'>): EndpointPartitions[] {
  const entries = new Map<string, StreamsGroupHeartbeatResponseEndpointToPartitions>()
  const entry = (h: HostInfo) => {
    let e = entries.get(hostKey(h))
    if (!e) entries.set(hostKey(h), (e = { userEndpoint: { host: h.host, port: h.port }, activePartitions: [], standbyPartitions: [] }))
    return e
  }
  for (const h of info.partitionsByHost) entry(h).activePartitions.push(...h.partitions)
  for (const h of info.standbyPartitionsByHost) entry(h).standbyPartitions.push(...h.partitions)
  return endpointPartitions([...entries.values()])
}
