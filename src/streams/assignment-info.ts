// Java Kafka Streams' AssignmentInfo: the user data of a streams member's
// classic-protocol assignment, as versions 7-11 write it (DataOutputStream):
// used and commonly supported versions, the active tasks (one per assigned
// partition, in the order of the partitions sorted by topic then partition),
// the standby tasks with their partitions, a topic dictionary and the
// active and standby partitions of every instance by its endpoint
// (host:port), an error code (AssignorError: 4 asks every instance to shut
// down) and the time of the next rebalance (0: at once, Long.MAX_VALUE: none).
import type { Buffer } from 'node:buffer'
import type { TopicPartitions } from '../consumer/assignors/index.js'
import { type AssignorTaskId, WireReader, WireWriter } from './assignor-wire.js'
import { StreamsError } from './streams-error.js'

/** Java's AssignorError codes. */
export const AssignorError = {
  NONE: 0,
  INCOMPLETE_SOURCE_TOPIC_METADATA: 1,
  VERSION_PROBING: 2,
  ASSIGNMENT_ERROR: 3,
  SHUTDOWN_REQUESTED: 4,
} as const

/** Long.MAX_VALUE: no follow-up rebalance. */
export const NO_REBALANCE = 0x7fffffffffffffffn

export interface HostPartitions {
  host: string
  port: number
  partitions: TopicPartitions[]
}

export interface AssignmentInfo {
  version: number
  commonlySupportedVersion: number
  activeTasks: AssignorTaskId[]
  standbyTasks: Array<{ task: AssignorTaskId; partitions: TopicPartitions[] }>
  partitionsByHost: HostPartitions[]
  standbyPartitionsByHost: HostPartitions[]
  errorCode: number
  nextRebalanceMs: bigint
}

const writeTask = (w: WireWriter, t: AssignorTaskId, version: number) => {
  w.int32(t.subtopology).int32(t.partition)
  // No named topology: zero characters.
  if (version >= 10) w.int32(0)
}

const readTask = (r: WireReader, version: number): AssignorTaskId => {
  const task = { subtopology: r.int32(), partition: r.int32() }
  if (version >= 10) r.chars(r.count(2))
  return task
}

const flat = (list: TopicPartitions[]) => list.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })))

const group = (list: Array<{ topic: string; partition: number }>): TopicPartitions[] => {
  const by = new Map<string, number[]>()
  for (const { topic, partition } of list) by.set(topic, [...(by.get(topic) ?? []), partition])
  return [...by].map(([topic, partitions]) => ({ topic, partitions }))
}

/** Java's AssignmentInfo.encode, versions 7-11. */
export function encodeAssignmentInfo(info: AssignmentInfo): Buffer {
  const v = info.version
  if (v < 7 || v > 11) throw new StreamsError(`cannot encode AssignmentInfo version ${v} (7-11)`)
  const w = new WireWriter().int32(v).int32(info.commonlySupportedVersion)
  w.int32(info.activeTasks.length)
  for (const t of info.activeTasks) writeTask(w, t, v)
  w.int32(info.standbyTasks.length)
  for (const { task, partitions } of info.standbyTasks) {
    writeTask(w, task, v)
    const list = flat(partitions)
    w.int32(list.length)
    for (const p of list) w.utf(p.topic).int32(p.partition)
  }
  const dictionary = new Map<string, number>()
  for (const h of [...info.partitionsByHost, ...info.standbyPartitionsByHost])
    for (const t of h.partitions) if (t.partitions.length > 0 && !dictionary.has(t.topic)) dictionary.set(t.topic, dictionary.size)
  w.int32(dictionary.size)
  for (const [topic, index] of dictionary) w.int32(index).utf(topic)
  for (const hosts of [info.partitionsByHost, info.standbyPartitionsByHost]) {
    w.int32(hosts.length)
    for (const h of hosts) {
      const list = flat(h.partitions)
      w.utf(h.host).int32(h.port).int32(list.length)
      for (const p of list) w.int32(dictionary.get(p.topic)!).int32(p.partition)
    }
  }
  return w.int32(info.errorCode).int64(info.nextRebalanceMs).build()
}

/** Java's AssignmentInfo.decode, versions 7-11 (what Java 2.6 and later send). */
export function decodeAssignmentInfo(data: Buffer): AssignmentInfo {
  const r = new WireReader(data, 'AssignmentInfo')
  const version = r.int32()
  if (version < 7 || version > 11)
    throw new StreamsError(`AssignmentInfo version ${version} cannot be read (this client reads 7-11, Kafka Streams 2.6 and later)`)
  const commonlySupportedVersion = r.int32()
  const activeTasks: AssignorTaskId[] = []
  for (let n = r.count(8); n > 0; n--) activeTasks.push(readTask(r, version))
  const standbyTasks: AssignmentInfo['standbyTasks'] = []
  for (let n = r.count(12); n > 0; n--) {
    const task = readTask(r, version)
    const list: Array<{ topic: string; partition: number }> = []
    for (let m = r.count(6); m > 0; m--) list.push({ topic: r.utf(), partition: r.int32() })
    standbyTasks.push({ task, partitions: group(list) })
  }
  const dictionary = new Map<number, string>()
  for (let n = r.count(6); n > 0; n--) {
    const index = r.int32()
    dictionary.set(index, r.utf())
  }
  const hosts = (): HostPartitions[] => {
    const out: HostPartitions[] = []
    for (let n = r.count(10); n > 0; n--) {
      const host = r.utf()
      const port = r.int32()
      const list: Array<{ topic: string; partition: number }> = []
      for (let m = r.count(8); m > 0; m--) {
        const index = r.int32()
        const topic = dictionary.get(index)
        if (topic === undefined) throw new StreamsError(`AssignmentInfo: topic index ${index} is not in its dictionary`)
        list.push({ topic, partition: r.int32() })
      }
      out.push({ host, port, partitions: group(list) })
    }
    return out
  }
  const partitionsByHost = hosts()
  const standbyPartitionsByHost = hosts()
  const errorCode = r.int32()
  const nextRebalanceMs = r.int64()
  return {
    version,
    commonlySupportedVersion,
    activeTasks,
    standbyTasks,
    partitionsByHost,
    standbyPartitionsByHost,
    errorCode,
    nextRebalanceMs,
  }
}
