// Java Kafka Streams' ClientTagAwareStandbyTaskAssignor, for the classic
// protocol's leader when rackAwareAssignmentTags is set: each stateful
// task's standbys go, one after another, to the least loaded client that
// shares no rack-aware tag value with the clients already holding the task
// (its active first); a tag whose values are all used counts as free again.
// Standbys that find no such client go to the least loaded ones not holding
// the task, as DefaultStandbyTaskAssignor places them.
import { type AssignorTaskId, assignorTaskName, compareTaskIds } from './assignor-wire.js'
import { compareProcessIds, leastLoaded } from './task-movement.js'

export interface TaggedClient {
  processId: string
  consumers: string[]
  assigned: AssignorTaskId[]
  standby: AssignorTaskId[]
  /** The client tags its SubscriptionInfo carries. */
  tags: Record<string, string>
}

const entry = (key: string, value: string) => `${key}\u0000${value}`

export function assignClientTagAwareStandbys(
  stateful: AssignorTaskId[],
  clients: TaggedClient[],
  replicas: number,
  rackAwareAssignmentTags: readonly string[],
): void {
  if (replicas <= 0) return
  const sorted = [...clients].sort((a, b) => compareProcessIds(a.processId, b.processId))
  const valuesOf = new Map<string, Set<string>>()
  const clientsOn = new Map<string, Set<TaggedClient>>()
  for (const c of sorted)
    for (const [key, value] of Object.entries(c.tags)) {
      valuesOf.set(key, (valuesOf.get(key) ?? new Set()).add(value))
      clientsOn.set(entry(key, value), (clientsOn.get(entry(key, value)) ?? new Set()).add(c))
    }
  const holds = (c: TaggedClient, t: AssignorTaskId) => [...c.assigned, ...c.standby].some((x) => compareTaskIds(x, t) === 0)
  const remaining = new Map<string, { task: AssignorTaskId; left: number }>()
  const tasks = [...stateful].sort(compareTaskIds)
  for (const task of tasks) {
    remaining.set(assignorTaskName(task), { task, left: replicas })
    const active = sorted.find((c) => c.assigned.some((x) => compareTaskIds(x, task) === 0))
    if (!active) continue
    // Tag values already used by this task's copies, with the clients carrying them.
    const used = new Map<string, Set<TaggedClient>>()
    let left = replicas
    let usedClients = 1
    let last = active
    do {
      for (const [key, value] of Object.entries(last.tags)) {
        if (!rackAwareAssignmentTags.includes(key)) continue
        const values = valuesOf.get(key)!
        // Every value of this tag holds a copy: it no longer tells clients apart.
        if (values.size <= usedClients) for (const v of values) used.delete(entry(key, v))
        else used.set(entry(key, value), clientsOn.get(entry(key, value))!)
      }
      const next = leastLoaded(sorted, (c) => !holds(c, task) && ![...used.values()].some((on) => on.has(c)))
      if (!next) break
      next.standby.push(task)
      usedClients++
      left--
      last = next
    } while (left > 0)
    if (left > 0) remaining.get(assignorTaskName(task))!.left = left
    else remaining.delete(assignorTaskName(task))
  }
  // Too few distinct tag values: the rest by load alone.
  for (const { task, left } of remaining.values())
    for (let n = left; n > 0; n--) {
      const c = leastLoaded(sorted, (x) => !holds(x, task))
      if (!c) break
      c.standby.push(task)
    }
}
