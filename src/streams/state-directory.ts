// Java's StateDirectory: `<stateDir>/<applicationId>/` holds a directory per
// task (`<subtopology>_<partition>`), the `.lock` that keeps a second instance
// off it, and `kafka-streams-process-metadata` ({"processId": uuid}), so an
// instance keeps its process id across restarts. Made only when the topology
// has persistent stores, as Java's. Java locks `.lock` with an OS file lock;
// Node has none, so ours writes the owner's pid into it: a lock whose pid is
// alive (or is this process's and still held) refuses the next instance, a
// dead owner's lock (a crash) is taken over.
import { randomUUID } from 'node:crypto'
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../logger.js'
import { readCheckpoint } from './offset-checkpoint.js'
import { StreamsError } from './streams-error.js'

export const LOCK_FILE_NAME = '.lock'
export const PROCESS_FILE_NAME = 'kafka-streams-process-metadata'
export const CHECKPOINT_FILE_NAME = '.checkpoint'
/** Java's TASK_DIR_PATH_NAME: `<subtopology>_<partition>`. */
const TASK_DIR_NAME = /^\d+_\d+$/

/** The application directories this process holds, so two instances in one process are refused too. */
const heldHere = new Set<string>()

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export class StateDirectory {
  /** `<stateDir>/<applicationId>`. */
  readonly appDir: string
  private locked = false

  constructor(
    readonly stateDir: string,
    applicationId: string,
    private readonly log: Logger,
  ) {
    this.appDir = join(stateDir, applicationId)
  }

  /**
   * Makes the application directory and takes its lock (Java's
   * initializeProcessId): refused with a StreamsError when another instance
   * holds it. Returns the process id kept in the directory (new if none).
   */
  open(): string {
    try {
      mkdirSync(this.appDir, { recursive: true, mode: 0o750 })
    } catch (err) {
      throw new StreamsError(`state directory [${this.appDir}] doesn't exist and couldn't be created: ${(err as Error).message}`)
    }
    if (!statSync(this.appDir).isDirectory())
      throw new StreamsError(`state directory [${this.appDir}] can't be created as there is an existing file with the same name`)
    this.lock()
    return this.processId()
  }

  private lock(): void {
    const file = join(this.appDir, LOCK_FILE_NAME)
    const owner = this.refuseIfLocked('Unable to initialize state')
    if (Number.isInteger(owner) && owner !== process.pid)
      this.log.info('taking over the state directory lock of a process that is gone', { dir: this.appDir, pid: owner })
    writeFileSync(file, `${process.pid}\n`)
    heldHere.add(this.appDir)
    this.locked = true
  }

  /** Throws when another instance holds the directory; else the pid a lock file names (NaN if none). */
  private refuseIfLocked(what: string): number {
    const refuse = (owner: string) =>
      new StreamsError(
        `${what}, this can happen if multiple instances of Kafka Streams are running in the same state directory (current state directory is [${this.appDir}], locked by ${owner})`,
      )
    if (heldHere.has(this.appDir)) throw refuse(`another KafkaStreams of this process (pid ${process.pid})`)
    let owner = NaN
    try {
      owner = Number.parseInt(readFileSync(join(this.appDir, LOCK_FILE_NAME), 'utf8'), 10)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
    // An empty lock (left by Java, which locks it without writing) or a dead owner's: free.
    if (Number.isInteger(owner) && owner !== process.pid && alive(owner)) throw refuse(`process ${owner}`)
    return owner
  }

  private taskDirs(): string[] {
    if (!existsSync(this.appDir)) return []
    return readdirSync(this.appDir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && TASK_DIR_NAME.test(e.name))
      .map((e) => e.name)
  }

  /**
   * Java's StateDirectory.clean() (KafkaStreams.cleanUp()): deletes every
   * task directory, then the application directory unless the process id
   * and lock files remain (kept, as Java keeps them, so the process id
   * survives). Refused while another instance holds the directory.
   */
  clean(): void {
    if (!this.locked) this.refuseIfLocked('Unable to clean up the state')
    for (const name of this.taskDirs()) {
      this.log.info(`Deleting task directory ${name} for ${name} as user calling cleanup.`, { dir: this.appDir })
      rmSync(join(this.appDir, name), { recursive: true, force: true, maxRetries: 3 })
    }
    if (!existsSync(this.appDir)) return
    const left = readdirSync(this.appDir)
    if (left.length === 0) rmdirSync(this.appDir)
    else if (left.some((f) => f !== PROCESS_FILE_NAME && f !== LOCK_FILE_NAME))
      this.log.warn(`Failed to fully clean up state store directory ${this.appDir} because unexpected files remain.`, {
        files: left.filter((f) => f !== PROCESS_FILE_NAME && f !== LOCK_FILE_NAME),
      })
  }

  /**
   * Java's cleanRemovedTasks (the state directory cleaner): a task directory
   * this instance does not own, unmodified for more than `cleanupDelayMs`,
   * is deleted, with an INFO line as Java's.
   */
  cleanRemovedTasks(cleanupDelayMs: number, owned: (taskId: string) => boolean): void {
    for (const name of this.taskDirs()) {
      if (owned(name)) continue
      const dir = join(this.appDir, name)
      try {
        const now = Date.now()
        const lastModifiedMs = statSync(dir).mtimeMs
        if (now - cleanupDelayMs <= lastModifiedMs) continue
        this.log.info(
          `Deleting obsolete state directory ${name} for task ${name} as ${Math.round(now - lastModifiedMs)}ms has elapsed (cleanup delay is ${cleanupDelayMs}ms).`,
          { dir: this.appDir },
        )
        rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
      } catch (err) {
        this.log.warn(`Swallowed an error during deletion of obsolete state directory ${name} for task ${name}`, {
          error: (err as Error).message,
        })
      }
    }
  }

  private processId(): string {
    const file = join(this.appDir, PROCESS_FILE_NAME)
    try {
      const id = (JSON.parse(readFileSync(file, 'utf8')) as { processId?: unknown }).processId
      if (typeof id === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
        this.log.info('Reading UUID from process file', { processId: id })
        return id
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.log.warn('Failed to read json process file', { file, error: (err as Error).message })
    }
    const id = randomUUID()
    writeFileSync(file, JSON.stringify({ processId: id }))
    this.log.info('No process id found on disk, got fresh process id', { processId: id })
    return id
  }

  /** A task's directory, made if missing (Java's getOrCreateDirectoryForTask). */
  taskDir(taskId: string): string {
    const dir = join(this.appDir, taskId)
    mkdirSync(dir, { recursive: true })
    return dir
  }

  /**
   * What the task directories hold, by task id: each checkpoint's offsets
   * as Java's changelogOffsets gives them (the next offset of each
   * changelog, one past the checkpointed last record) summed, as Java's
   * StateDirectory reports the tasks it has state of (the task offsets of
   * both group protocols). A checkpoint that cannot be read counts as none.
   */
  taskOffsetSums(): Map<string, bigint> {
    const sums = new Map<string, bigint>()
    for (const entry of readdirSync(this.appDir, { withFileTypes: true })) {
      if (!entry.isDirectory() || !/^\d+_\d+$/.test(entry.name)) continue
      try {
        const offsets = readCheckpoint(join(this.appDir, entry.name, CHECKPOINT_FILE_NAME))
        if (offsets.length > 0) sums.set(entry.name, clampedSum(offsets.map((e) => e.offset + 1n)))
      } catch (err) {
        this.log.warn("a task directory's checkpoint cannot be read: its offsets are not reported", {
          task: entry.name,
          error: (err as Error).message,
        })
      }
    }
    return sums
  }

  /** Releases the lock (the file stays, as Java's). */
  close(): void {
    if (!this.locked) return
    this.locked = false
    heldHere.delete(this.appDir)
    try {
      const fd = openSync(join(this.appDir, LOCK_FILE_NAME), 'w')
      writeSync(fd, '')
      closeSync(fd)
    } catch (err) {
      this.log.warn('releasing the state directory lock failed', { dir: this.appDir, error: (err as Error).message })
    }
  }
}

/** Offsets summed as Java's sumOfChangelogOffsets: an overflow pins to Long.MAX_VALUE. */
export function clampedSum(offsets: bigint[]): bigint {
  const sum = offsets.reduce((a, b) => a + b, 0n)
  return sum > 0x7fffffffffffffffn ? 0x7fffffffffffffffn : sum
}
