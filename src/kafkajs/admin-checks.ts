// The arguments KafkaJS 2.2.4's admin refuses before it asks a broker
// anything, each refused as KafkaJS refuses it: a KafkaJSNonRetriableError
// with its message. (The engine's own checks stay behind these: they refuse
// unknown keys, which KafkaJS ignores, so they come second.)
import { KafkaJSNonRetriableError } from './errors.js'
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ConfigResourceTypes, ResourcePatternTypes } from './constants.js'

const refuse = (message: string): never => {
  throw new KafkaJSNonRetriableError(message)
}
const isString = (v: unknown): v is string => typeof v === 'string'
const json = (v: unknown) => JSON.stringify(v)

/** An array of entries, each naming a distinct topic (`what` says which array, as KafkaJS words it). */
function distinctTopics(entries: unknown, what: string): asserts entries is Array<{ topic: string }> {
  if (!Array.isArray(entries)) refuse(`Invalid ${what} array ${entries}`)
  const list = entries as Array<{ topic?: unknown }>
  if (list.some((e) => !isString(e?.topic))) refuse(`Invalid ${what} array, the topic names have to be a valid string`)
  if (new Set(list.map((e) => e.topic)).size < list.length)
    refuse(`Invalid ${what} array, it cannot have multiple entries for the same topic`)
}

export function checkCreateTopics(topics: unknown): void {
  distinctTopics(topics, 'topics')
  for (const { topic, configEntries } of topics as Array<{ topic: string; configEntries?: unknown }>) {
    if (configEntries == null) continue
    if (!Array.isArray(configEntries)) refuse(`Invalid configEntries for topic "${topic}", must be an array`)
    ;(configEntries as unknown[]).forEach((entry, index) => {
      if (typeof entry !== 'object' || entry == null) refuse(`Invalid configEntries for topic "${topic}". Entry ${index} must be an object`)
      for (const field of ['name', 'value'])
        if (!isString((entry as Record<string, unknown>)[field]))
          refuse(`Invalid configEntries for topic "${topic}". Entry ${index} must have a valid "${field}" property`)
    })
  }
}

export function checkCreatePartitions(topicPartitions: unknown): void {
  if (!Array.isArray(topicPartitions)) refuse(`Invalid topic partitions array ${topicPartitions}`)
  if ((topicPartitions as unknown[]).length === 0) refuse('Empty topic partitions array')
  distinctTopics(topicPartitions, 'topic partitions')
}

export function checkDeleteTopics(topics: unknown): void {
  if (!Array.isArray(topics)) refuse(`Invalid topics array ${topics}`)
  if ((topics as unknown[]).some((t) => !isString(t))) refuse('Invalid topics array, the names must be a valid string')
}

export function checkTopic(topic: unknown, quoted = false): void {
  if (!topic || !isString(topic)) refuse(quoted ? `Invalid topic "${topic}"` : `Invalid topic ${topic}`)
}

export function checkGroupId(groupId: unknown): void {
  if (!groupId) refuse(`Invalid groupId ${groupId}`)
}

export function checkPartitions(partitions: unknown): void {
  if (!partitions || (partitions as unknown[]).length === 0) refuse('Invalid partitions')
}

export function checkGroupIds(groupIds: unknown): void {
  if (!Array.isArray(groupIds)) refuse(`Invalid groupIds array ${groupIds}`)
  if ((groupIds as unknown[]).some((g) => !isString(g))) refuse(`Invalid groupId name: true`)
}

/** describeConfigs' and alterConfigs' resources: a known type, a name, and their config names or entries. */
export function checkConfigResources(resources: unknown, entries: 'configNames' | 'configEntries'): void {
  if (!Array.isArray(resources)) refuse(`Invalid resources array ${resources}`)
  const list = resources as Array<Record<string, unknown>>
  if (list.length === 0) refuse('Resources array cannot be empty')
  const types: unknown[] = Object.values(ConfigResourceTypes)
  const badType = list.find((r) => !types.includes(r.type))
  if (badType) refuse(`Invalid resource type ${badType.type}: ${json(badType)}`)
  const badName = list.find((r) => !r.name || !isString(r.name))
  if (badName) refuse(`Invalid resource name ${badName.name}: ${json(badName)}`)
  if (entries === 'configNames') {
    const bad = list.find((r) => !Array.isArray(r.configNames) && r.configNames != null)
    if (bad) refuse(`Invalid resource configNames ${bad.configNames}: ${json(bad)}`)
    return
  }
  const bad = list.find((r) => !Array.isArray(r.configEntries))
  if (bad) refuse(`Invalid resource configEntries ${bad.configEntries}: ${json(bad)}`)
  const badValue = list.find((r) =>
    (r.configEntries as Array<Record<string, unknown>>).some((e) => !isString(e.name) || !isString(e.value)),
  )
  if (badValue) refuse(`Invalid resource config value: ${json(badValue)}`)
}

export function checkReassignments(topics: unknown): void {
  distinctTopics(topics, 'topics')
  for (const { topic, partitionAssignment } of topics as Array<{ topic: string; partitionAssignment?: unknown }>) {
    if (!Array.isArray(partitionAssignment)) refuse(`Invalid partitions array: ${partitionAssignment} for topic: ${topic}`)
    for (const { partition, replicas } of partitionAssignment as Array<{ partition?: unknown; replicas?: unknown }>) {
      if (typeof partition !== 'number' || partition < 0) refuse(`Invalid partitions index: ${partition} for topic: ${topic}`)
      if (!Array.isArray(replicas)) refuse(`Invalid replica assignment: ${replicas} for topic: ${topic} on partition: ${partition}`)
      if ((replicas as unknown[]).some((r) => typeof r !== 'number' || r < 0))
        refuse(
          `Invalid replica assignment: ${replicas} for topic: ${topic} on partition: ${partition}. Replicas must be a non negative number`,
        )
    }
  }
}

export function checkListReassignments(topics: unknown): void {
  if (!topics) return
  distinctTopics(topics, 'topics')
  for (const { topic, partitions } of topics as Array<{ topic: string; partitions?: unknown }>) {
    if (!Array.isArray(partitions)) refuse(`Invalid partition array: ${partitions} for topic: ${topic}`)
    if ((partitions as unknown[]).some((p) => typeof p !== 'number' || p < 0))
      refuse(`Invalid partition array: ${partitions} for topic: ${topic}. The partition indices have to be a valid number greater than 0.`)
  }
}

const ACL_ENUMS = {
  operation: ['operation type', AclOperationTypes],
  resourcePatternType: ['resource pattern type', ResourcePatternTypes],
  permissionType: ['permission type', AclPermissionTypes],
  resourceType: ['resource type', AclResourceTypes],
} as const

/** createAcls' entries and deleteAcls' filters (`filter`: principal, host and name may be absent). */
export function checkAcls(acl: unknown, filter: boolean): void {
  const noun = filter ? 'ACL Filter' : 'ACL'
  if (!Array.isArray(acl)) refuse(`Invalid ${noun} array ${acl}`)
  const list = acl as Array<Record<string, unknown>>
  if (list.length === 0) refuse(`Empty ${noun} array`)
  const stringField = (v: unknown) => isString(v) || (filter && v === undefined)
  if (list.some((a) => !stringField(a.principal))) refuse(`Invalid ${noun} array, the principals have to be a valid string`)
  if (list.some((a) => !stringField(a.host))) refuse(`Invalid ${noun} array, the hosts have to be a valid string`)
  if (list.some((a) => !stringField(a.resourceName))) refuse(`Invalid ${noun} array, the resourceNames have to be a valid string`)
  for (const [field, [words, values]] of Object.entries(ACL_ENUMS)) {
    const bad = list.find((a) => !(Object.values(values) as unknown[]).includes(a[field]))
    if (bad) refuse(`Invalid ${words} ${bad[field]}: ${json(bad)}`)
  }
}

/** describeAcls' filter: optional strings, every enumeration given. */
export function checkAclFilter(filter: Record<string, unknown>): void {
  for (const field of ['principal', 'host', 'resourceName'])
    if (!isString(filter[field]) && filter[field] !== undefined) refuse(`Invalid ${field}, the ${field} have to be a valid string`)
  const words = {
    operation: 'operation type',
    resourcePatternType: 'resource pattern filter type',
    permissionType: 'permission type',
    resourceType: 'resource type',
  }
  for (const [field, [, values]] of Object.entries(ACL_ENUMS))
    if (!(Object.values(values) as unknown[]).includes(filter[field]))
      refuse(`Invalid ${words[field as keyof typeof words]} ${filter[field]}`)
}
