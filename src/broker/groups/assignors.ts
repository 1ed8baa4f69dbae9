/** Partitions by topic id. */
export type Assignment = Map<string, Set<number>>

export interface AssignorMember {
  memberId: string
  /** Ids of the topics it subscribes to (those that exist). */
  topics: Set<string>
}

export interface AssignorInput {
  /** Sorted by member id, so that the result does not depend on join order. */
  members: AssignorMember[]
  /** Partition count of every subscribed topic, by topic id. */
  partitions: Map<string, number>
  /** The previous target assignment, by member id (what a sticky assignor keeps). */
  previous: Map<string, Assignment>
}

/** A server-side assignor (KIP-848): the whole group's target assignment from its subscriptions. */
export type ServerAssignor = (input: AssignorInput) => Map<string, Assignment>

interface TP {
  topic: string
  partition: number
}

function emptyResult(members: AssignorMember[]): Map<string, Assignment> {
  return new Map(members.map((m) => [m.memberId, new Map<string, Set<number>>()]))
}

function add(a: Assignment, topic: string, partition: number): void {
  let s = a.get(topic)
  if (!s) a.set(topic, (s = new Set()))
  s.add(partition)
}

function remove(a: Assignment, topic: string, partition: number): void {
  const s = a.get(topic)
  s?.delete(partition)
  if (s && s.size === 0) a.delete(topic)
}

function allPartitions(input: AssignorInput): TP[] {
  const out: TP[] = []
  for (const topic of [...input.partitions.keys()].sort()) {
    const n = input.partitions.get(topic)!
    for (let partition = 0; partition < n; partition++) out.push({ topic, partition })
  }
  return out
}

/**
 * Kafka's "uniform" assignor: every member gets as many partitions as the
 * others (within one), and keeps as many of those it had as that allows, so
 * that a rebalance moves as few partitions as it can. With different
 * subscriptions, each partition goes to the least loaded member subscribed to
 * its topic, and then partitions move from the most loaded to the least while
 * that narrows the gap.
 */
export const uniformAssignor: ServerAssignor = (input) => {
  const result = emptyResult(input.members)
  if (input.members.length === 0) return result
  const homogeneous = input.members.every((m) => sameSet(m.topics, input.members[0].topics))
  return homogeneous ? uniformHomogeneous(input, result) : uniformHeterogeneous(input, result)
}

function uniformHomogeneous(input: AssignorInput, result: Map<string, Assignment>): Map<string, Assignment> {
  const topics = input.members[0].topics
  const partitions = allPartitions(input).filter((p) => topics.has(p.topic))
  const n = input.members.length
  const minQuota = Math.floor(partitions.length / n)
  let extras = partitions.length % n
  const taken = new Set<string>()
  const count = new Map<string, number>()
  // Those who had the most keep an extra one first: fewer partitions move.
  const byPreviousSize = [...input.members].sort(
    (a, b) => size(input.previous.get(b.memberId)) - size(input.previous.get(a.memberId)) || (a.memberId < b.memberId ? -1 : 1),
  )
  for (const m of byPreviousSize) {
    const mine = result.get(m.memberId)!
    const kept: TP[] = []
    for (const [topic, parts] of input.previous.get(m.memberId) ?? []) {
      if (!topics.has(topic)) continue
      const limit = input.partitions.get(topic) ?? 0
      for (const partition of [...parts].sort((a, b) => a - b)) if (partition < limit) kept.push({ topic, partition })
    }
    let quota = minQuota
    if (extras > 0 && kept.length > minQuota) {
      quota++
      extras--
    }
    for (const p of kept.slice(0, quota)) {
      add(mine, p.topic, p.partition)
      taken.add(`${p.topic}/${p.partition}`)
    }
    count.set(m.memberId, Math.min(quota, kept.length))
  }
  const free = partitions.filter((p) => !taken.has(`${p.topic}/${p.partition}`))
  // First everyone up to the minimum, then the extras, in member id order.
  for (const m of input.members) {
    while (count.get(m.memberId)! < minQuota && free.length > 0) {
      const p = free.shift()!
      add(result.get(m.memberId)!, p.topic, p.partition)
      count.set(m.memberId, count.get(m.memberId)! + 1)
    }
  }
  for (const m of input.members) {
    if (free.length === 0 || extras === 0) break
    if (count.get(m.memberId)! !== minQuota) continue
    const p = free.shift()!
    add(result.get(m.memberId)!, p.topic, p.partition)
    count.set(m.memberId, minQuota + 1)
    extras--
  }
  return result
}

function uniformHeterogeneous(input: AssignorInput, result: Map<string, Assignment>): Map<string, Assignment> {
  const count = new Map(input.members.map((m) => [m.memberId, 0]))
  const owner = new Map<string, string>()
  const subscribers = new Map<string, AssignorMember[]>()
  for (const m of input.members) for (const t of m.topics) subscribers.set(t, [...(subscribers.get(t) ?? []), m])
  const partitions = allPartitions(input).filter((p) => subscribers.has(p.topic))
  for (const m of input.members) {
    for (const [topic, parts] of input.previous.get(m.memberId) ?? []) {
      if (!m.topics.has(topic)) continue
      for (const partition of parts) {
        if (partition >= (input.partitions.get(topic) ?? 0)) continue
        add(result.get(m.memberId)!, topic, partition)
        owner.set(`${topic}/${partition}`, m.memberId)
        count.set(m.memberId, count.get(m.memberId)! + 1)
      }
    }
  }
  const leastLoaded = (candidates: AssignorMember[]) =>
    candidates.reduce((best, m) => (count.get(m.memberId)! < count.get(best.memberId)! ? m : best))
  // Partitions with the fewest possible owners are placed first.
  const unassigned = partitions
    .filter((p) => !owner.has(`${p.topic}/${p.partition}`))
    .sort((a, b) => subscribers.get(a.topic)!.length - subscribers.get(b.topic)!.length)
  for (const p of unassigned) {
    const m = leastLoaded(subscribers.get(p.topic)!)
    add(result.get(m.memberId)!, p.topic, p.partition)
    owner.set(`${p.topic}/${p.partition}`, m.memberId)
    count.set(m.memberId, count.get(m.memberId)! + 1)
  }
  // Each move narrows the gap by at least two, so this ends; the bound keeps a huge group from stalling the coordinator.
  for (let moves = 0; moves < partitions.length; moves++) {
    let moved = false
    for (const p of partitions) {
      const from = owner.get(`${p.topic}/${p.partition}`)!
      const to = leastLoaded(subscribers.get(p.topic)!)
      if (count.get(to.memberId)! + 1 >= count.get(from)!) continue
      remove(result.get(from)!, p.topic, p.partition)
      add(result.get(to.memberId)!, p.topic, p.partition)
      owner.set(`${p.topic}/${p.partition}`, to.memberId)
      count.set(from, count.get(from)! - 1)
      count.set(to.memberId, count.get(to.memberId)! + 1)
      moved = true
      break
    }
    if (!moved) break
  }
  return result
}

/** Kafka's server-side "range" assignor: per topic, its subscribers in member id order take contiguous ranges. */
export const rangeAssignor: ServerAssignor = (input) => {
  const result = emptyResult(input.members)
  for (const topic of [...input.partitions.keys()].sort()) {
    const subscribers = input.members.filter((m) => m.topics.has(topic))
    if (subscribers.length === 0) continue
    const n = input.partitions.get(topic)!
    const each = Math.floor(n / subscribers.length)
    const extra = n % subscribers.length
    let next = 0
    subscribers.forEach((m, i) => {
      const take = each + (i < extra ? 1 : 0)
      for (let k = 0; k < take; k++) add(result.get(m.memberId)!, topic, next++)
    })
  }
  return result
}

/** group.consumer.assignors: the first is the default. */
export const SERVER_ASSIGNORS: ReadonlyMap<string, ServerAssignor> = new Map([
  ['uniform', uniformAssignor],
  ['range', rangeAssignor],
])

function size(a: Assignment | undefined): number {
  let n = 0
  for (const s of a?.values() ?? []) n += s.size
  return n
}

function sameSet<T>(a: Set<T>, b: Set<T>): boolean {
  if (a.size !== b.size) return false
  for (const x of a) if (!b.has(x)) return false
  return true
}
