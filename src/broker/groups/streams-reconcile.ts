import type { TaskAssignment, TaskSet } from './streams-assignor.js'

/** Active tasks by subtopology: each partition with the member epoch it came to the member at. */
export type ActiveTasks = Map<string, Map<number, number>>

/** What a streams member holds (Kafka's TasksTupleWithEpochs; warm-up tasks are not assigned here). */
export interface StreamsTasks {
  active: ActiveTasks
  standby: TaskSet
}

/**
 * Where a member is on its way to its target: stable (it has it), unrevoked
 * (it must give tasks up first and keeps its epoch until it says it has),
 * unreleased (at the new epoch, waiting for tasks other members still hold).
 */
export type StreamsMemberState = 'stable' | 'unrevoked' | 'unreleased'

export interface ReconcilingMember {
  memberEpoch: number
  state: StreamsMemberState
  processId: string
  assigned: StreamsTasks
  pendingRevocation: StreamsTasks
}

/** Who holds each task now across the group (assigned or pending revocation), by process. */
export interface TaskOwners {
  activeProcess(subtopologyId: string, partition: number): string | undefined
  standbyProcesses(subtopologyId: string, partition: number): ReadonlySet<string>
}

/** The tasks a heartbeat says the member owns (null: not said, so it is taken to own everything). */
export type OwnedTasks = { active: TaskSet; standby: TaskSet } | null

export const emptyTasks = (): StreamsTasks => ({ active: new Map(), standby: new Map() })

const has = (s: TaskSet | ActiveTasks, sub: string, p: number) => s.get(sub)?.has(p) ?? false

function add(s: TaskSet, sub: string, p: number): void {
  let x = s.get(sub)
  if (!x) s.set(sub, (x = new Set()))
  x.add(p)
}

function addActive(s: ActiveTasks, sub: string, p: number, epoch: number): void {
  let x = s.get(sub)
  if (!x) s.set(sub, (x = new Map()))
  x.set(p, epoch)
}

function remove(s: TaskSet, sub: string, p: number): void {
  const x = s.get(sub)
  if (x?.delete(p) && x.size === 0) s.delete(sub)
}

export function isEmptyTasks(t: StreamsTasks): boolean {
  return t.active.size === 0 && t.standby.size === 0
}

/** Whether the member still owns any of `tasks` (it has not said it released them). */
function notReleased(owned: OwnedTasks, tasks: StreamsTasks): boolean {
  if (owned === null) return true
  for (const [sub, ps] of tasks.active) for (const p of ps.keys()) if (has(owned.active, sub, p)) return true
  for (const [sub, ps] of tasks.standby) for (const p of ps) if (has(owned.standby, sub, p)) return true
  return false
}

/**
 * One step of a member towards its target (Kafka's streams
 * CurrentAssignmentBuilder): returns the member's next epoch, state and
 * tasks, or null when nothing changes. Tasks no longer its own are revoked
 * first — the member keeps its epoch until a heartbeat no longer lists
 * them — and only then does it take the new epoch and the tasks that are
 * free: an active task another member still holds (or a standby of it on
 * the same process), or a standby its own process already runs, waits.
 */
export function reconcile(
  m: ReconcilingMember,
  targetEpoch: number,
  target: TaskAssignment,
  owners: TaskOwners,
  owned: OwnedTasks,
): Pick<ReconcilingMember, 'memberEpoch' | 'state' | 'assigned' | 'pendingRevocation'> | null {
  if (m.state === 'stable' && m.memberEpoch === targetEpoch) return null
  if (m.state === 'unrevoked' && notReleased(owned, m.pendingRevocation)) return null
  const epoch = m.state === 'unrevoked' ? m.memberEpoch + 1 : m.memberEpoch
  const cur = m.assigned
  const assigned = emptyTasks()
  const revoke = emptyTasks()
  const pendingActive: ActiveTasks = new Map()
  const pendingStandby: TaskSet = new Map()
  let unreleased = false

  for (const sub of new Set([...cur.active.keys(), ...target.active.keys()])) {
    const now = cur.active.get(sub) ?? new Map<number, number>()
    const want = target.active.get(sub) ?? new Set<number>()
    for (const [p, e] of now) addActive(want.has(p) ? assigned.active : revoke.active, sub, p, e)
    for (const p of want) {
      if (now.has(p)) continue
      const heldElsewhere =
        owners.activeProcess(sub, p) !== undefined || (owners.standbyProcesses(sub, p).has(m.processId) && !has(cur.standby, sub, p))
      if (heldElsewhere) unreleased = true
      else addActive(pendingActive, sub, p, targetEpoch)
    }
  }
  for (const sub of new Set([...cur.standby.keys(), ...target.standby.keys()])) {
    const now = cur.standby.get(sub) ?? new Set<number>()
    const want = target.standby.get(sub) ?? new Set<number>()
    for (const p of now) add(want.has(p) ? assigned.standby : revoke.standby, sub, p)
    for (const p of want) {
      if (now.has(p)) continue
      const runHereByAnother = owners.activeProcess(sub, p) === m.processId && !has(cur.active, sub, p)
      if (runHereByAnother || owners.standbyProcesses(sub, p).has(m.processId)) unreleased = true
      else add(pendingStandby, sub, p)
    }
  }
  // An active task becoming a standby of the same member needs no wait.
  for (const [sub, ps] of cur.active)
    for (const p of ps.keys())
      if (has(pendingStandby, sub, p)) {
        remove(pendingStandby, sub, p)
        add(assigned.standby, sub, p)
      }
  // A standby becoming active is not revoked: it stays a standby until the active task is granted.
  for (const [sub, ps] of cur.standby) for (const p of ps) if (target.active.get(sub)?.has(p)) remove(revoke.standby, sub, p)
  const revoking = !isEmptyTasks(revoke) && notReleased(owned, revoke)
  for (const [sub, ps] of cur.standby)
    for (const p of ps) {
      const promotedNow = !revoking && pendingActive.get(sub)?.has(p)
      if (target.active.get(sub)?.has(p) && !promotedNow) add(assigned.standby, sub, p)
    }

  if (revoking) return { memberEpoch: epoch, state: 'unrevoked', assigned, pendingRevocation: revoke }
  for (const [sub, ps] of pendingActive) for (const [p, e] of ps) addActive(assigned.active, sub, p, e)
  for (const [sub, ps] of pendingStandby) for (const p of ps) add(assigned.standby, sub, p)
  return { memberEpoch: targetEpoch, state: unreleased ? 'unreleased' : 'stable', assigned, pendingRevocation: emptyTasks() }
}
