import { linkSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join, resolve } from 'node:path'

/** The lock file's name in a data directory, as Kafka's in each log dir. */
export const LOCK_FILE = '.lock'

/** A data directory another broker (this process or another) holds: starting on it is refused. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly lockFile: string,
    /** The holder's pid, as the lock file names it (null when it could not be read). */
    readonly holderPid: number | null,
    holder: string,
  ) {
    super(
      `Failed to acquire lock on file ${LOCK_FILE} in ${dir}: ${holder} is using this directory. ` +
        `Stop it first, or give this broker another data directory.`,
    )
    this.name = 'DataDirLockedError'
  }
}

/** The locks this process holds, by directory (its pid in the file cannot tell two clusters of one process apart). */
const heldHere = new Map<string, DirLock>()

/** process.exit() skips stop(): the files still go (a signal's default action skips this too: that is the stale case). */
function releaseAll(): void {
  for (const lock of [...heldHere.values()]) lock.release()
}

/**
 * The lock on a data directory, held from start to stop (Kafka's `.lock`).
 * Node has no flock, so the lock is the file itself, created exclusively
 * (linked into place, whole) and naming the holder's pid and host: a
 * second broker finds it and is refused while that process lives. A
 * holder killed with kill -9 leaves the file behind; its pid no longer
 * alive, the next broker takes the lock over (and says so). The takeover moves the stale file aside by rename
 * and checks it moved the file it judged stale, so two brokers starting
 * at once on an abandoned directory cannot both win.
 */
export class DirLock {
  private released = false

  private constructor(
    readonly dir: string,
    readonly path: string,
    private readonly content: string,
  ) {
    if (heldHere.size === 0) process.once('exit', releaseAll)
    heldHere.set(dir, this)
  }

  /** Takes the lock on `dir` (which exists), or throws DataDirLockedError; `notice` hears of a stale lock taken over. */
  static acquire(dir: string, notice: (message: string) => void = () => {}): DirLock {
    // The real path: two names of one directory (a symlink) are one lock.
    const abs = realpathSync(resolve(dir))
    const path = join(abs, LOCK_FILE)
    const content = `pid=${process.pid}\nhost=${hostname()}\n`
    if (heldHere.has(abs)) throw new DataDirLockedError(abs, path, process.pid, `another cluster in this process (pid ${process.pid})`)
    for (let attempt = 0; attempt < 5; attempt++) {
      if (createExclusive(path, content)) return new DirLock(abs, path, content)
      const found = readLock(path)
      if (found === null) continue // gone between the create and the read: try again
      const { pid, host } = parse(found)
      const alive = pid !== null && (host !== hostname() ? true : pid !== process.pid && isAlive(pid))
      if (alive) throw new DataDirLockedError(abs, path, pid, `process ${pid}${host !== hostname() ? ` on ${host}` : ''}`)
      // Stale: its process is gone (or the file is unreadable). Move it aside, then check it was that one.
      const aside = `${path}.stale-${process.pid}`
      try {
        renameSync(path, aside)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
        throw err
      }
      if (readLock(aside) !== found) {
        // Another broker took the stale lock over between our read and the rename: its lock goes back.
        try {
          linkSync(aside, path)
        } finally {
          rmSync(aside, { force: true })
        }
        continue
      }
      rmSync(aside, { force: true })
      notice(`took over the stale lock ${path} of process ${pid ?? '(unknown)'}, which is no longer running`)
    }
    throw new DataDirLockedError(abs, path, null, 'another broker starting at the same time')
  }

  /** Gives the lock up: the file goes (if it is still ours). */
  release(): void {
    if (this.released) return
    this.released = true
    heldHere.delete(this.dir)
    if (heldHere.size === 0) process.off('exit', releaseAll)
    if (readLock(this.path) === this.content) rmSync(this.path, { force: true })
  }
}

/** Creates the lock file with its content already in it (a reader never sees it empty): a whole file linked to the name, which fails if taken. */
function createExclusive(path: string, content: string): boolean {
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, content)
  try {
    linkSync(tmp, path)
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw err
  } finally {
    rmSync(tmp, { force: true })
  }
}

function readLock(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
}

function parse(content: string): { pid: number | null; host: string } {
  const pid = Number(/^pid=(\d+)$/m.exec(content)?.[1])
  return { pid: Number.isSafeInteger(pid) && pid > 0 ? pid : null, host: /^host=(.*)$/m.exec(content)?.[1] ?? hostname() }
}

/**
 * Whether a process `pid` runs: signal 0 checks without sending (EPERM: it
 * runs, as another user); a zombie (killed, not yet reaped by its parent)
 * answers signal 0 too, so on Linux its state is read as well.
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ...", comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true
  }
}
