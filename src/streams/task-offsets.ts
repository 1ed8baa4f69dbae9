// The task offsets a streams group member reports (Java's TaskManager
// taskOffsetSums under the streams protocol, over StateDirectory's): for each
// task this instance holds state of, its stores' changelog offsets summed
// (each the next offset of its changelog). The tasks in the state directory
// count by their persistent stores (read from the checkpoints at start, then
// as each task closes); the standby and warm-up tasks by every store, as they
// stand now; the tasks run as active here are left out.
import type { StandbyTasks } from './standby-tasks.js'
import type { StateDirectory } from './state-directory.js'

export class TaskOffsets {
  /** Java's StateDirectory.taskOffsetSums: by task, as last known. */
  private readonly onDisk = new Map<string, bigint>()

  /** The offsets the task directories' checkpoints hold, at start. */
  load(dir: StateDirectory): void {
    for (const [id, sum] of dir.taskOffsetSums()) this.onDisk.set(id, sum)
  }

  /** A task closed with its persistent stores' offsets summed (none: it has no persistent store). */
  closed(id: string, persistentSum: bigint | undefined): void {
    if (persistentSum !== undefined) this.onDisk.set(id, persistentSum)
  }

  /** A task whose state on disk cannot be trusted any longer (exactly_once_v2 closing it dirty: no checkpoint is left). */
  dropped(id: string): void {
    this.onDisk.delete(id)
  }

  /** What the heartbeat reports: every task held, but those in `active`. */
  sums(active: Iterable<string>, standbys: StandbyTasks | undefined): Map<string, bigint> {
    const sums = new Map(this.onDisk)
    for (const id of active) sums.delete(id)
    for (const [id, sum] of standbys?.offsetSums() ?? []) sums.set(id, sum)
    return sums
  }
}
