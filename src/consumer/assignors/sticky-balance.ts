import type { LoadBuckets } from './load-buckets.js'
import { compareStrings } from './shared.js'

/** One member's partitions in the making: those it keeps from before, and those added now. */
export class Holdings {
  readonly owned = new Map<string, number[]>()
  readonly added = new Map<string, number[]>()
  size = 0

  keep(topic: string, partition: number): void {
    push(this.owned, topic, partition)
    this.size++
  }

  add(topic: string, partition: number): void {
    push(this.added, topic, partition)
    this.size++
  }

  holdsAny(topics: ReadonlySet<string>): boolean {
    for (const topic of this.added.keys()) if (topics.has(topic)) return true
    for (const topic of this.owned.keys()) if (topics.has(topic)) return true
    return false
  }

  /**
   * Gives up a partition of a topic in `accepted`: a newly added one first
   * (moving it costs no stickiness), else an owned one from the topic it has
   * most of, so each topic stays spread out.
   */
  release(accepted: ReadonlySet<string>): { topic: string; partition: number } | undefined {
    for (const [topic, partitions] of this.added) {
      if (accepted.has(topic)) return this.take(this.added, topic, partitions)
    }
    let bestTopic: string | undefined
    let best: number[] | undefined
    for (const [topic, partitions] of this.owned) {
      if (accepted.has(topic) && (best === undefined || partitions.length > best.length)) {
        bestTopic = topic
        best = partitions
      }
    }
    return best === undefined ? undefined : this.take(this.owned, bestTopic!, best)
  }

  private take(from: Map<string, number[]>, topic: string, partitions: number[]): { topic: string; partition: number } {
    const partition = partitions.pop()!
    if (partitions.length === 0) from.delete(topic)
    this.size--
    return { topic, partition }
  }
}

/**
 * Unowned partitions, each to the lightest member subscribed to its topic;
 * topics with fewest subscribers first, since they have the least choice.
 * A topic every member subscribes to is dealt straight from the load
 * buckets, so equal members take turns; any other from a heap of its
 * subscribers (ties to the lower member index). O(P log M) in all.
 */
export function dealUnowned(
  unowned: ReadonlyMap<string, readonly number[]>,
  subscriptions: ReadonlyArray<ReadonlySet<string>>,
  holdings: Holdings[],
  loads: LoadBuckets,
): void {
  const subscribers = new Map<string, number[]>()
  subscriptions.forEach((topics, member) => {
    for (const topic of topics) {
      const list = subscribers.get(topic)
      if (list === undefined) subscribers.set(topic, [member])
      else list.push(member)
    }
  })
  const order = [...unowned.keys()].sort((a, b) => subscribers.get(a)!.length - subscribers.get(b)!.length || compareStrings(a, b))
  for (const topic of order) {
    const free = unowned.get(topic)!
    const members = subscribers.get(topic)!
    const give = (member: number, partition: number): void => {
      holdings[member].add(topic, partition)
      loads.increment(member)
    }
    if (members.length === subscriptions.length) {
      for (const partition of free) give(loads.lightest(), partition)
      continue
    }
    // Only this topic's subscribers change load while it is dealt, so a heap of them stays exact.
    const lightest = new LightestFirst()
    if (free.length > 0) for (const member of members) lightest.push(member, loads.load(member))
    for (const partition of free) {
      const member = lightest.pop()
      give(member, partition)
      lightest.push(member, loads.load(member))
    }
  }
}

/**
 * Moves one partition at a time from the heaviest member that has one to
 * spare to the lightest member, two or more lighter, subscribed to its
 * topic. Each move lowers the sum of squared loads, so this ends; it ends
 * when no such pair is left, which is the balance Java's sticky assignor
 * checks for. With equal subscriptions the first pair tried always works.
 *
 * A giver nobody can take from stays "stuck" until a move leaves some
 * member it could give to light enough, so mixed subscriptions do not
 * rescan every stuck pair after each move.
 */
export function rebalance(subscriptions: ReadonlyArray<ReadonlySet<string>>, holdings: Holdings[], loads: LoadBuckets): void {
  const stuck = new Set<number>()
  for (;;) {
    let giver = -1
    let taker = -1
    let given: { topic: string; partition: number } | undefined
    search: for (const candidate of loads.descending(loads.min + 2)) {
      if (stuck.has(candidate)) continue
      for (const lighter of loads.ascending(loads.load(candidate) - 2)) {
        given = holdings[candidate].release(subscriptions[lighter])
        if (given !== undefined) {
          giver = candidate
          taker = lighter
          break search
        }
      }
      stuck.add(candidate)
    }
    if (given === undefined) return

    holdings[taker].add(given.topic, given.partition)
    loads.decrement(giver)
    loads.increment(taker)
    stuck.delete(taker)
    const dropped = loads.load(giver)
    for (const member of stuck) {
      if (loads.load(member) - dropped >= 2 && holdings[member].holdsAny(subscriptions[giver])) stuck.delete(member)
    }
  }
}

/** A binary min-heap of members by (load, arrival): among equal loads, first come, first served. */
class LightestFirst {
  private readonly entries: Array<{ member: number; load: number; arrival: number }> = []
  private arrivals = 0

  push(member: number, load: number): void {
    const entries = this.entries
    const entry = { member, load, arrival: this.arrivals++ }
    let i = entries.push(entry) - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!before(entry, entries[parent])) break
      entries[i] = entries[parent]
      i = parent
    }
    entries[i] = entry
  }

  /** The lightest member, removed. Only called when not empty (every topic dealt has a subscriber). */
  pop(): number {
    const entries = this.entries
    const top = entries[0]
    const last = entries.pop()!
    if (entries.length > 0) {
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        if (left >= entries.length) break
        const right = left + 1
        const child = right < entries.length && before(entries[right], entries[left]) ? right : left
        if (!before(entries[child], last)) break
        entries[i] = entries[child]
        i = child
      }
      entries[i] = last
    }
    return top.member
  }
}

function before(a: { load: number; arrival: number }, b: { load: number; arrival: number }): boolean {
  return a.load < b.load || (a.load === b.load && a.arrival < b.arrival)
}

function push(map: Map<string, number[]>, topic: string, partition: number): void {
  const list = map.get(topic)
  if (list === undefined) map.set(topic, [partition])
  else list.push(partition)
}
