/** Tasks by subtopology id: the partitions (task numbers) of each. */
export type TaskSet = Map<string, Set<number>>

export interface TaskAssignorMember {
  memberId: string
  processId: string
  /** What the member has now (its current assignment, not its target). */
  active: TaskSet
  standby: TaskSet
  /** The changelog offsets it reported by task: a member that has a task's state is a standby candidate for it. */
  taskOffsets?: Map<string, Map<number, bigint>>
}

export interface TaskAssignorSubtopology {
  subtopologyId: string
  tasks: number
  /** It has state stores (changelog topics): only such tasks get standbys. */
  stateful: boolean
}

export interface TaskAssignment {
  active: TaskSet
  standby: TaskSet
}

interface Task {
  subtopologyId: string
  partition: number
}

const keyOf = (t: Task) => `${t.subtopologyId}\u0000${t.partition}`
const bySubtopology = (a: Task, b: Task) =>
  a.subtopologyId < b.subtopologyId ? -1 : a.subtopologyId > b.subtopologyId ? 1 : a.partition - b.partition
const byPartition = (a: Task, b: Task) =>
  a.partition - b.partition || (a.subtopologyId < b.subtopologyId ? -1 : a.subtopologyId > b.subtopologyId ? 1 : 0)

/** The members of one process (one Kafka Streams instance, its stream threads) and what they got. */
class ProcessLoad {
  readonly counts = new Map<string, number>()
  readonly tasks = new Set<string>()
  readonly active = new Map<string, Task[]>()
  readonly standby = new Map<string, Task[]>()
  taskCount = 0

  constructor(readonly processId: string) {}

  /** Tasks per member: a process of more threads takes more. */
  get load(): number {
    return this.counts.size === 0 ? -1 : this.taskCount / this.counts.size
  }

  add(memberId: string, task: Task, active: boolean): number {
    this.taskCount++
    this.tasks.add(keyOf(task))
    const into = active ? this.active : this.standby
    let list = into.get(memberId)
    if (!list) into.set(memberId, (list = []))
    list.push(task)
    const n = (this.counts.get(memberId) ?? 0) + 1
    this.counts.set(memberId, n)
    return n
  }

  /** To the member of this process with the fewest tasks. */
  addToLeastLoaded(task: Task, active: boolean): number {
    let best: string | null = null
    for (const [m, n] of this.counts) if (best === null || n < this.counts.get(best)!) best = m
    return best === null ? -1 : this.add(best, task, active)
  }
}

/** The process with the least load, ties to the one listed first. */
function leastLoaded(processes: Iterable<ProcessLoad>, skip: (p: ProcessLoad) => boolean = () => false): ProcessLoad | null {
  let best: ProcessLoad | null = null
  for (const p of processes) if (!skip(p) && (best === null || p.load < best.load)) best = p
  return best
}

const perMember = (tasks: number, members: number) => (members === 0 ? 0 : Math.ceil(tasks / members))

/**
 * Kafka's sticky task assignor (group.streams.assignor 'sticky'): each
 * active task stays with the member that has it while that member is under
 * its share (tasks / members, rounded up); then with a member holding it as
 * a standby; the rest go, one by one, to the least loaded process (load:
 * tasks per member of the process) and its least loaded member. Standbys
 * (numStandbyReplicas of each stateful task) never share a process with
 * the task's active or another of its standbys: first to the task's
 * previous active or standby owners, then to the least loaded processes.
 */
export function assignTasks(input: {
  members: readonly TaskAssignorMember[]
  subtopologies: readonly TaskAssignorSubtopology[]
  numStandbyReplicas: number
}): Map<string, TaskAssignment> {
  const processes = new Map<string, ProcessLoad>()
  const memberProcess = new Map<string, ProcessLoad>()
  const prevActive = new Map<string, string>()
  const candidates = new Map<string, Array<{ memberId: string; prev: boolean; offsetSum: bigint }>>()
  const candidate = (k: string, c: { memberId: string; prev: boolean; offsetSum: bigint }) =>
    candidates.set(k, [...(candidates.get(k) ?? []), c])
  for (const m of input.members) {
    let p = processes.get(m.processId)
    if (!p) processes.set(m.processId, (p = new ProcessLoad(m.processId)))
    p.counts.set(m.memberId, 0)
    memberProcess.set(m.memberId, p)
    for (const [sub, parts] of m.active) for (const partition of parts) prevActive.set(keyOf({ subtopologyId: sub, partition }), m.memberId)
    // Standby candidates: the task's previous standbys first, then members holding its state (by their reported offsets), most first.
    for (const [sub, parts] of m.standby)
      for (const partition of parts)
        candidate(keyOf({ subtopologyId: sub, partition }), {
          memberId: m.memberId,
          prev: true,
          offsetSum: m.taskOffsets?.get(sub)?.get(partition) ?? 0n,
        })
    for (const [sub, offsets] of m.taskOffsets ?? [])
      for (const [partition, offsetSum] of offsets)
        if (!m.standby.get(sub)?.has(partition))
          candidate(keyOf({ subtopologyId: sub, partition }), { memberId: m.memberId, prev: false, offsetSum })
  }
  const byRank = (a: { prev: boolean; offsetSum: bigint }, b: { prev: boolean; offsetSum: bigint }) =>
    a.prev !== b.prev ? (a.prev ? -1 : 1) : a.offsetSum > b.offsetSum ? -1 : a.offsetSum < b.offsetSum ? 1 : 0
  const prevStandby = new Map([...candidates].map(([k, list]) => [k, list.sort(byRank).map((c) => c.memberId)]))
  let activeLeft = 0
  let allLeft = 0
  for (const s of input.subtopologies) {
    activeLeft += s.tasks
    allLeft += s.tasks * (s.stateful ? 1 + input.numStandbyReplicas : 1)
  }
  let activeMembers = input.members.length
  let allMembers = input.members.length
  let activeQuota = perMember(activeLeft, activeMembers)
  let allQuota = perMember(allLeft, allMembers)
  // A member that reached its quota no longer counts towards the others' (Kafka recomputes the share then).
  const counted = (n: number, active: boolean) => {
    if (active && n === activeQuota) {
      activeMembers--
      activeLeft -= n
      activeQuota = perMember(activeLeft, activeMembers)
    }
    if (n === allQuota) {
      allMembers--
      allLeft -= n
      allQuota = perMember(allLeft, allMembers)
    }
  }
  const underQuota = (memberId: string, quota: number) => memberProcess.get(memberId)!.counts.get(memberId)! < quota
  /** Among previous owners, the one whose process (and itself) is least loaded. */
  const leastLoadedOwner = (owners: string[] | undefined, task: Task | null): string | null => {
    let best: string | null = null
    let bestProcess = Infinity
    let bestMember = Infinity
    for (const m of owners ?? []) {
      const p = memberProcess.get(m)
      if (!p || (task && p.tasks.has(keyOf(task)))) continue
      const pl = p.load
      const ml = p.counts.get(m)!
      if (best === null || (pl < bestProcess && ml < bestMember)) [best, bestProcess, bestMember] = [m, pl, ml]
    }
    return best
  }

  const tasks = (stateful: boolean) =>
    input.subtopologies
      .filter((s) => !stateful || s.stateful)
      .flatMap((s) => Array.from({ length: s.tasks }, (_, partition) => ({ subtopologyId: s.subtopologyId, partition })))

  // Active tasks: sticky to the previous owner, then to a previous standby, then by load.
  let pending = tasks(false).sort(byPartition)
  pending = pending.filter((t) => {
    const owner = prevActive.get(keyOf(t))
    if (owner === undefined || !memberProcess.has(owner) || !underQuota(owner, activeQuota)) return true
    const n = memberProcess.get(owner)!.add(owner, t, true)
    counted(n, true)
    return false
  })
  pending = pending.filter((t) => {
    const owner = leastLoadedOwner(prevStandby.get(keyOf(t)), null)
    if (owner === null || !underQuota(owner, activeQuota)) return true
    counted(memberProcess.get(owner)!.add(owner, t, true), true)
    return false
  })
  for (const t of pending.sort(bySubtopology)) {
    const p = leastLoaded(processes.values())
    if (!p) throw new Error(`No process available to assign active task ${t.subtopologyId}_${t.partition}.`)
    counted(p.addToLeastLoaded(t, true), true)
  }

  // Standbys of stateful tasks.
  if (input.numStandbyReplicas > 0) {
    const toLeastLoaded: Array<{ task: Task; remaining: number }> = []
    for (const t of tasks(true).sort((a, b) => byPartition(b, a))) {
      let i = 0
      for (; i < input.numStandbyReplicas; i++) {
        const k = keyOf(t)
        const prev = prevActive.get(k)
        const pp = prev === undefined ? undefined : memberProcess.get(prev)
        if (pp && !pp.tasks.has(k) && underQuota(prev!, allQuota)) {
          counted(pp.add(prev!, t, false), false)
          continue
        }
        const owner = leastLoadedOwner(prevStandby.get(k), t)
        if (owner === null || !underQuota(owner, allQuota)) break
        counted(memberProcess.get(owner)!.add(owner, t, false), false)
      }
      toLeastLoaded.push({ task: t, remaining: input.numStandbyReplicas - i })
    }
    for (const { task, remaining } of toLeastLoaded.sort((a, b) => bySubtopology(b.task, a.task)))
      for (let i = 0; i < remaining; i++) {
        const p = leastLoaded(processes.values(), (x) => x.tasks.has(keyOf(task)))
        // Not enough processes for every standby: Kafka warns and assigns fewer.
        if (!p) break
        const n = p.addToLeastLoaded(task, false)
        if (n === -1) break
        counted(n, false)
      }
  }

  const out = new Map<string, TaskAssignment>()
  for (const m of input.members) {
    const p = memberProcess.get(m.memberId)!
    out.set(m.memberId, { active: toTaskSet(p.active.get(m.memberId) ?? []), standby: toTaskSet(p.standby.get(m.memberId) ?? []) })
  }
  return out
}

function toTaskSet(tasks: readonly Task[]): TaskSet {
  const out: TaskSet = new Map()
  for (const t of tasks) {
    let s = out.get(t.subtopologyId)
    if (!s) out.set(t.subtopologyId, (s = new Set()))
    s.add(t.partition)
  }
  return out
}
