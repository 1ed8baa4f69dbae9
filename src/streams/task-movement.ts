// The lag-aware half of Java Kafka Streams' HighAvailabilityTaskAssignor
// (with its TaskMovement, ClientState.computeTaskLags and
// ConstrainedPrioritySet), for the classic protocol's leader: after the
// stateful tasks are balanced, an active task placed on a client that is
// not caught up on it (its changelog lag above acceptableRecoveryLag) while
// another client is more caught up goes to a caught-up client (one with a
// standby of it first, else the least loaded; if none is caught up, the
// most caught-up), and the client it was balanced onto gets a warm-up copy
// (a standby) instead, at most maxWarmupReplicas in all; standbys not caught
// up are moved the same way. Any movement asks for a probing rebalance,
// which gives the task back to the balanced client once its warm-up caught up.
import { type AssignorTaskId, assignorTaskName, compareTaskIds } from './assignor-wire.js'
import { LATEST_OFFSET, UNKNOWN_OFFSET_SUM } from './subscription-info.js'

/** A client as the movements see it: its tasks are changed in place. */
export interface MovableClient {
  processId: string
  consumers: string[]
  assigned: AssignorTaskId[]
  standby: AssignorTaskId[]
  /** Changelog lag per stateful task name: -2 running here, -3 unknown, else offsets to catch up. */
  lags: Map<string, bigint>
}

/**
 * Java's ClientState.computeTaskLags: per stateful task, -2 where it runs,
 * -3 when its offset sum is unknown, else the end offset sum less the
 * client's offset sum (0 if it has none); a sum past the end (corrupt
 * state) counts as nothing restored.
 */
export function taskLags(offsetSums: ReadonlyMap<string, bigint>, endOffsetSums: ReadonlyMap<string, bigint>): Map<string, bigint> {
  const lags = new Map<string, bigint>()
  for (const [task, end] of endOffsetSums) {
    const sum = offsetSums.get(task) ?? 0n
    if (sum === LATEST_OFFSET || sum === UNKNOWN_OFFSET_SUM) lags.set(task, sum)
    else lags.set(task, end < sum ? end : end - sum)
  }
  return lags
}

/** Java's ProcessId.compareTo (UUID's): the two halves as signed 64-bit numbers. */
export function compareProcessIds(a: string, b: string): number {
  const halves = (id: string) => {
    const hex = id.replace(/-/g, '').padStart(32, '0')
    return [BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)), BigInt.asIntN(64, BigInt(`0x${hex.slice(16)}`))]
  }
  const [x, y] = [halves(a), halves(b)]
  for (let i = 0; i < 2; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1
  return 0
}

const has = (list: AssignorTaskId[], t: AssignorTaskId) => list.some((x) => compareTaskIds(x, t) === 0)
const remove = (list: AssignorTaskId[], t: AssignorTaskId) => {
  const i = list.findIndex((x) => compareTaskIds(x, t) === 0)
  if (i >= 0) list.splice(i, 1)
}
const load = (c: Pick<MovableClient, 'consumers' | 'assigned' | 'standby'>) => (c.assigned.length + c.standby.length) / c.consumers.length

/** ConstrainedPrioritySet.poll: the least loaded client (tasks, active and standby, per consumer) passing `ok`, the lower process id among equals. */
export function leastLoaded<C extends Pick<MovableClient, 'processId' | 'consumers' | 'assigned' | 'standby'>>(
  clients: C[],
  ok: (c: C) => boolean,
): C | undefined {
  let best: C | undefined
  for (const c of clients)
    if (ok(c) && (!best || load(c) < load(best) || (load(c) === load(best) && compareProcessIds(c.processId, best.processId) < 0))) best = c
  return best
}

export interface Movements {
  /** How many tasks wanted a more caught-up client: more than 0 asks for a probing rebalance. */
  needed: number
  /** Warm-up tasks given, by client. */
  warmups: Map<MovableClient, AssignorTaskId[]>
}

/**
 * HighAvailabilityTaskAssignor's movements, on clients whose stateful active
 * tasks (and standbys) are already balanced; stateless tasks come after.
 */
export function assignTaskMovements(
  stateful: AssignorTaskId[],
  clients: MovableClient[],
  acceptableRecoveryLag: bigint,
  maxWarmupReplicas: number,
): Movements {
  const sortedClients = [...clients].sort((a, b) => compareProcessIds(a.processId, b.processId))
  const lag = (c: MovableClient, t: AssignorTaskId) => c.lags.get(assignorTaskName(t)) ?? UNKNOWN_OFFSET_SUM
  const caughtUp = new Map<string, Set<MovableClient>>()
  const byLag = new Map<string, MovableClient[]>()
  for (const t of stateful) {
    const name = assignorTaskName(t)
    caughtUp.set(
      name,
      new Set(
        sortedClients.filter((c) => {
          const l = lag(c, t)
          return l === LATEST_OFFSET || (l >= 0n && l <= acceptableRecoveryLag)
        }),
      ),
    )
    byLag.set(
      name,
      [...sortedClients].sort((a, b) => {
        const [x, y] = [lag(a, t), lag(b, t)]
        return x !== y ? (x < y ? -1 : 1) : compareProcessIds(a.processId, b.processId)
      }),
    )
  }
  const isCaughtUp = (c: MovableClient, t: AssignorTaskId) => caughtUp.get(assignorTaskName(t))?.has(c) ?? true
  // Java's taskIsNotCaughtUpOnClientAndOtherMoreCaughtUpClientsExist.
  const shouldMove = (c: MovableClient, t: AssignorTaskId) => !isCaughtUp(c, t) && lag(byLag.get(assignorTaskName(t))![0], t) < lag(c, t)
  // The clients more caught up than `destination`, most first.
  const moreCaughtUp = (t: AssignorTaskId, destination: MovableClient) => {
    const list = byLag.get(assignorTaskName(t))!
    return list.slice(0, list.indexOf(destination))
  }
  const queue = (list: Array<{ task: AssignorTaskId; destination: MovableClient }>) =>
    list.sort(
      (a, b) =>
        caughtUp.get(assignorTaskName(a.task))!.size - caughtUp.get(assignorTaskName(b.task))!.size || compareTaskIds(a.task, b.task),
    )

  let warmupsLeft = maxWarmupReplicas
  const warmups = new Map<MovableClient, AssignorTaskId[]>()
  const swap = (t: AssignorTaskId, source: MovableClient, destination: MovableClient) => {
    remove(source.standby, t)
    source.assigned.push(t)
    remove(destination.assigned, t)
    destination.standby.push(t)
  }
  const moveActive = (t: AssignorTaskId, source: MovableClient, destination: MovableClient) => {
    source.assigned.push(t)
    remove(destination.assigned, t)
    if (warmupsLeft-- > 0) {
      destination.standby.push(t)
      warmups.set(destination, [...(warmups.get(destination) ?? []), t])
    }
  }

  const activeMoves = queue(
    sortedClients.flatMap((destination) =>
      destination.assigned.filter((t) => shouldMove(destination, t)).map((task) => ({ task, destination })),
    ),
  )
  for (const { task, destination } of activeMoves) {
    const withStandby = leastLoaded(sortedClients, (c) => isCaughtUp(c, task) && has(c.standby, task))
    if (withStandby) {
      swap(task, withStandby, destination)
      continue
    }
    const caught = leastLoaded(sortedClients, (c) => isCaughtUp(c, task))
    if (caught) {
      moveActive(task, caught, destination)
      continue
    }
    const most = moreCaughtUp(task, destination)[0]!
    if (has(most.standby, task)) swap(task, most, destination)
    else moveActive(task, most, destination)
  }

  let standbyMoves = 0
  const holds = (c: MovableClient, t: AssignorTaskId) => has(c.assigned, t) || has(c.standby, t)
  const standbyQueue = queue(
    sortedClients.flatMap((destination) =>
      destination.standby
        .filter((t) => !has(warmups.get(destination) ?? [], t) && shouldMove(destination, t))
        .map((task) => ({ task, destination })),
    ),
  )
  for (const { task, destination } of standbyQueue) {
    const source =
      leastLoaded(sortedClients, (c) => isCaughtUp(c, task) && !holds(c, task)) ??
      moreCaughtUp(task, destination).find((c) => !holds(c, task))
    if (!source) continue
    source.standby.push(task)
    // Within the warm-up budget the standby stays where it was balanced as a warm-up, else it moves.
    if (warmupsLeft-- <= 0) remove(destination.standby, task)
    standbyMoves++
  }
  return { needed: activeMoves.length + standbyMoves, warmups }
}
