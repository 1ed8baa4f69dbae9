// What a member does with its AssignmentInfo under the classic group protocol
// (Java's StreamsPartitionAssignor.onAssignment handing the tasks to its
// TaskManager and the hosts' partitions to StreamsMetadataState): the map of
// where every instance runs its tasks is taken at once; the standby tasks
// (Java's leader also sends its warm-up tasks as standbys) only once the
// rebalance has revoked what it revokes, so a task active here until now is
// closed before its standby opens the same stores. A new active task whose
// standby is kept here waits for that (ready()), to take over its stores;
// any other waits only for an update already under way, never for a
// rebalance still revoking (under exactly_once_v2 the revocation's commit
// waits for the batch that asked).
import type { Logger } from '../logger.js'
import { assignorTaskName } from './assignor-wire.js'
import type { AssignmentInfo } from './assignment-info.js'
import { assignmentEndpoints, type StreamsMetadataState } from './streams-metadata.js'

export class ClassicAssignment {
  /** The last assignment's standby and active tasks, until the rebalance ends. */
  private target: { standby: string[]; active: Set<string> } | undefined
  private done: (() => void) | undefined
  private applied: Promise<void> = Promise.resolve()
  /** The standby updates, one after another. */
  private updating: Promise<void> = Promise.resolve()

  constructor(
    private readonly metadata: StreamsMetadataState,
    /** Keeps exactly these standby tasks, handing those in `active` to their new active task (StandbyTasks.update). */
    private readonly updateStandbys: (standby: string[], active: Set<string>) => Promise<void>,
    /** Whether a standby of this task is kept here now. */
    private readonly kept: (id: string) => boolean,
    private readonly log: Logger,
  ) {}

  /** The assignor's onAssignment: a new AssignmentInfo, before the rebalance revokes and assigns partitions. */
  assigned(info: AssignmentInfo): void {
    this.metadata.onChange(assignmentEndpoints(info))
    this.target = {
      standby: info.standbyTasks.map((t) => assignorTaskName(t.task)),
      active: new Set(info.activeTasks.map(assignorTaskName)),
    }
    if (!this.done) this.applied = new Promise((resolve) => (this.done = resolve))
  }

  /** The rebalance ended (revoked tasks closed): the standby tasks follow the assignment. */
  rebalanced(): void {
    const target = this.target
    const done = this.done
    if (!target || !done) return
    this.target = this.done = undefined
    this.updating = this.updating
      .then(() => this.updateStandbys(target.standby, target.active))
      .catch(this.log.caught('updating the standby tasks failed: they are not kept', 'warn'))
      .finally(done)
  }

  /** Resolves when active task `id` may open its stores: its standby here handed over, no standby update under way. */
  ready(id: string): Promise<void> {
    if (this.target?.active.has(id) && this.kept(id)) return this.applied
    return this.updating
  }

  /** Closing: nothing waits for standby tasks any more. */
  close(): void {
    this.target = undefined
    this.done?.()
    this.done = undefined
  }
}
