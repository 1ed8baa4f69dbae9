/**
 * Members (by index) grouped by how many partitions they hold, so the
 * lightest and the heaviest are found in O(1) and a load moves by one in
 * O(1). Within one load, members keep the order they arrived in: giving
 * partitions to "the lightest" then deals them round robin, which spreads
 * each topic over the members.
 *
 * Each load's members form a linked list through `next`/`previous` (indexed
 * by member), so taking one from the front costs the same however many
 * have gone before.
 */
export class LoadBuckets {
  private readonly loads: number[] = []
  private readonly next: Int32Array
  private readonly previous: Int32Array
  private readonly first: number[] = [] // load -> first member, -1 or undefined when none
  private readonly last: number[] = []
  private lowest = Number.POSITIVE_INFINITY
  private highest = Number.NEGATIVE_INFINITY

  /** Adds members 0..loads.length-1 in index order. */
  constructor(loads: readonly number[]) {
    this.next = new Int32Array(loads.length)
    this.previous = new Int32Array(loads.length)
    loads.forEach((load, member) => {
      this.loads[member] = load
      this.append(member, load)
      this.lowest = Math.min(this.lowest, load)
      this.highest = Math.max(this.highest, load)
    })
  }

  load(member: number): number {
    return this.loads[member]
  }

  get min(): number {
    return this.lowest
  }

  /** The member with the least load that got there first. Only when there are members. */
  lightest(): number {
    return this.first[this.lowest]
  }

  increment(member: number): void {
    this.move(member, 1)
  }

  decrement(member: number): void {
    this.move(member, -1)
  }

  /** Members with load <= `upTo`, lightest first. Stop iterating before changing a load. */
  *ascending(upTo: number): Generator<number> {
    const end = Math.min(upTo, this.highest)
    for (let load = this.lowest; load <= end; load++) {
      for (let m = this.first[load] ?? -1; m !== -1; m = this.next[m]) yield m
    }
  }

  /** Members with load >= `downTo`, heaviest first. Stop iterating before changing a load. */
  *descending(downTo: number): Generator<number> {
    const end = Math.max(downTo, this.lowest)
    for (let load = this.highest; load >= end; load--) {
      for (let m = this.first[load] ?? -1; m !== -1; m = this.next[m]) yield m
    }
  }

  private append(member: number, load: number): void {
    const tail = this.last[load] ?? -1
    this.previous[member] = tail
    this.next[member] = -1
    if (tail === -1) this.first[load] = member
    else this.next[tail] = member
    this.last[load] = member
  }

  private unlink(member: number, load: number): void {
    const before = this.previous[member]
    const after = this.next[member]
    if (before === -1) this.first[load] = after
    else this.next[before] = after
    if (after === -1) this.last[load] = before
    else this.previous[after] = before
  }

  // A load changes by one, so the new level holds `member`: when the old one
  // empties at an edge, the edge moves to the new one.
  private move(member: number, delta: 1 | -1): void {
    const from = this.loads[member]
    const to = from + delta
    this.unlink(member, from)
    this.append(member, to)
    this.loads[member] = to
    if (to < this.lowest) this.lowest = to
    if (to > this.highest) this.highest = to
    if (this.first[from] === -1) {
      if (from === this.lowest) this.lowest = to
      if (from === this.highest) this.highest = to
    }
  }
}
