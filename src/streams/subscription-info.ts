// Java Kafka Streams' SubscriptionInfo (SubscriptionInfoData in the
// generated messages): the user data of a streams member's classic-protocol
// subscription. Version 11 (Java 4.4's latest): version, latest supported
// version, process id, user endpoint, task offset sums (one per task: -2 for
// a task running as active, else the sum of its checkpointed changelog
// offsets), a byte changing each rebalance so the subscription differs,
// an error code (4: shutdown requested) and client tags. Older versions
// decode as Java reads them; newer ones give only their two versions
// (Java's version probing).
import { Buffer } from 'node:buffer'
import { compareTaskIds, type AssignorTaskId, WireReader, WireWriter } from './assignor-wire.js'
import { StreamsError } from './streams-error.js'

/** StreamsAssignmentProtocolVersions.LATEST_SUPPORTED_VERSION in Java 4.4. */
export const LATEST_SUPPORTED_VERSION = 11
/** Task.LATEST_OFFSET: the offset sum of a task its client runs as active. */
export const LATEST_OFFSET = -2n
/** SubscriptionInfo.UNKNOWN_OFFSET_SUM */
export const UNKNOWN_OFFSET_SUM = -3n

export interface TaskOffsetSum extends AssignorTaskId {
  offsetSum: bigint
}

export interface SubscriptionInfo {
  version: number
  latestSupportedVersion: number
  /** A UUID, as its canonical string. */
  processId: string
  /** host:port, or null when none. */
  userEndpoint: string | null
  taskOffsetSums: TaskOffsetSum[]
  uniqueField: number
  errorCode: number
  clientTags: Record<string, string>
}

const uuidBytes = (id: string): Buffer => {
  const hex = id.replace(/-/g, '')
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new StreamsError(`process id ${JSON.stringify(id)} is not a UUID`)
  return Buffer.from(hex, 'hex')
}

const uuidString = (b: Buffer): string => {
  const h = b.toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/** Java's SubscriptionInfo.encode at `info.version` (7 and later). */
export function encodeSubscriptionInfo(info: SubscriptionInfo): Buffer {
  const v = info.version
  if (v < 7 || v > LATEST_SUPPORTED_VERSION)
    throw new StreamsError(`cannot encode SubscriptionInfo version ${v} (7-${LATEST_SUPPORTED_VERSION})`)
  const w = new WireWriter().int32(v).int32(info.latestSupportedVersion).bytes(uuidBytes(info.processId))
  const endpoint = Buffer.from(info.userEndpoint ?? '', 'utf8')
  w.int32(endpoint.length).bytes(endpoint)
  const sums = [...info.taskOffsetSums].sort(compareTaskIds)
  if (v >= 10) {
    w.int32(sums.length)
    // No named topology: a null string.
    for (const t of sums) w.int32(t.subtopology).int32(t.partition).int64(t.offsetSum).int16(-1)
  } else {
    const bySub = new Map<number, TaskOffsetSum[]>()
    for (const t of sums) bySub.set(t.subtopology, [...(bySub.get(t.subtopology) ?? []), t])
    w.int32(bySub.size)
    for (const [sub, list] of bySub) {
      w.int32(sub).int32(list.length)
      for (const t of list) w.int32(t.partition).int64(t.offsetSum)
    }
  }
  if (v >= 8) w.int8(info.uniqueField)
  if (v >= 9) w.int32(info.errorCode)
  if (v >= 11) {
    const tags = Object.entries(info.clientTags)
    w.int32(tags.length)
    for (const [key, value] of tags) {
      const k = Buffer.from(key, 'utf8')
      const val = Buffer.from(value, 'utf8')
      w.int32(k.length).bytes(k).int32(val.length).bytes(val)
    }
  }
  return w.build()
}

/** Java's SubscriptionInfo.decode. */
export function decodeSubscriptionInfo(data: Buffer): SubscriptionInfo {
  const r = new WireReader(data, 'SubscriptionInfo')
  const version = r.int32()
  if (version > LATEST_SUPPORTED_VERSION) {
    // A newer member: only its versions are read (version probing).
    const latestSupportedVersion = r.int32()
    return {
      version,
      latestSupportedVersion,
      processId: '',
      userEndpoint: null,
      taskOffsetSums: [],
      uniqueField: 0,
      errorCode: 0,
      clientTags: {},
    }
  }
  if (version < 1) throw new StreamsError(`SubscriptionInfo version ${version} is not a version`)
  const latestSupportedVersion = version >= 3 ? r.int32() : -1
  const processId = uuidString(r.bytes(16))
  const taskOffsetSums: TaskOffsetSum[] = []
  if (version <= 6) {
    // Previous active tasks, then standby ones, as Java maps them to offset sums.
    for (const offsetSum of [LATEST_OFFSET, UNKNOWN_OFFSET_SUM])
      for (let n = r.count(8); n > 0; n--) taskOffsetSums.push({ subtopology: r.int32(), partition: r.int32(), offsetSum })
  }
  let userEndpoint: string | null = null
  if (version >= 2) {
    const b = r.bytes(r.count(1))
    userEndpoint = b.length === 0 ? null : b.toString('utf8')
  }
  if (version >= 7) {
    for (let n = r.count(4); n > 0; n--) {
      const subtopology = r.int32()
      if (version >= 10) {
        const partition = r.int32()
        const offsetSum = r.int64()
        const named = r.int16()
        if (named >= 0) r.bytes(named)
        taskOffsetSums.push({ subtopology, partition, offsetSum })
      } else for (let m = r.count(12); m > 0; m--) taskOffsetSums.push({ subtopology, partition: r.int32(), offsetSum: r.int64() })
    }
  }
  const uniqueField = version >= 8 ? r.int8() : 0
  const errorCode = version >= 9 ? r.int32() : 0
  const clientTags: Record<string, string> = {}
  if (version >= 11)
    for (let n = r.count(8); n > 0; n--) {
      const key = r.bytes(r.count(1)).toString('utf8')
      clientTags[key] = r.bytes(r.count(1)).toString('utf8')
    }
  return { version, latestSupportedVersion, processId, userEndpoint, taskOffsetSums, uniqueField, errorCode, clientTags }
}
