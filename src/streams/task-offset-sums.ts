// Java's TaskManager.taskOffsetSums for the classic streams subscription:
// a task this instance runs counts -2 (Task.LATEST_OFFSET); a task whose
// directory under `<stateDir>/<applicationId>` holds a `.checkpoint` (its
// stores closed cleanly) counts the sum of the checkpointed changelog
// offsets, so a leader, Java's or ours, sees which instance has its state
// and how far behind it is.
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { CHECKPOINT_FILE_NAME } from './state-directory.js'
import { readCheckpoint } from './offset-checkpoint.js'
import type { AssignorTaskId } from './assignor-wire.js'

/** Long.MAX_VALUE: Java's sum when it overflows. */
const MAX_SUM = 0x7fffffffffffffffn

/** Tasks with a checkpoint in `appDir` (a missing directory: none), each with its offset sum. */
export function checkpointedOffsetSums(appDir: string | undefined): Array<AssignorTaskId & { offsetSum: bigint }> {
  if (!appDir || !existsSync(appDir)) return []
  const out: Array<AssignorTaskId & { offsetSum: bigint }> = []
  for (const entry of readdirSync(appDir, { withFileTypes: true })) {
    const m = entry.isDirectory() ? /^(\d+)_(\d+)$/.exec(entry.name) : null
    if (!m) continue
    const file = join(appDir, entry.name, CHECKPOINT_FILE_NAME)
    if (!existsSync(file)) continue
    let offsetSum = 0n
    try {
      for (const e of readCheckpoint(file)) offsetSum += e.offset
    } catch {
      // An unreadable checkpoint says nothing of the task (its restore will say more).
      continue
    }
    out.push({ subtopology: Number(m[1]), partition: Number(m[2]), offsetSum: offsetSum > MAX_SUM ? MAX_SUM : offsetSum })
  }
  return out
}
