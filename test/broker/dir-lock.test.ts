// The data directory's lock (Kafka's `.lock`): one broker per directory,
// in this process or another; released at stop so a restart works; a lock
// left by a process killed with kill -9 is taken over, with a notice.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { DataDirLockedError } from '../../src/broker/storage/dir-lock.js'
import { keepLog } from './support.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const built = existsSync(join(root, 'dist', 'cli.js'))

const dirs: string[] = []
const clusters: RunningCluster[] = []
const children: ChildProcess[] = []

afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
  await Promise.all(clusters.splice(0).map((c) => c.stop()))
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function tempDir(): string {
  // Its real path (the lock names the directory so).
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'wafka-lock-')))
  dirs.push(d)
  return d
}

async function start(dataDir: string, log?: string[]): Promise<RunningCluster> {
  const c = await startCluster({ dataDir, ...(log ? keepLog(log) : {}) })
  clusters.push(c)
  return c
}

/** `wafka broker --data-dir dir` in a child process; resolves once it serves (or rejects with what it printed). */
async function serve(dataDir: string): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'broker', '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s))
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (out += s))
  const deadline = Date.now() + 20_000
  while (!/bootstrap servers/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`wafka broker did not start: ${out}`)
    await new Promise((r) => setTimeout(r, 20))
  }
  return { child, out: () => out }
}

/** The pid of a process that has exited (as one killed with kill -9 leaves in its lock file). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  return Number(r.stdout)
}

describe('the data directory lock', () => {
  it('a second cluster in this process on the same dataDir is refused, naming the directory and the lock; after stop a restart works', async () => {
    const dataDir = tempDir()
    const first = await start(dataDir)
    const lock = join(resolve(dataDir), '.lock')
    expect(readFileSync(lock, 'utf8')).toBe(`pid=${process.pid}\nhost=${hostname()}\n`)
    const refused = await startCluster({ dataDir }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(DataDirLockedError)
    expect(refused).toMatchObject({ dir: resolve(dataDir), lockFile: lock, holderPid: process.pid })
    expect((refused as Error).message).toBe(
      `Failed to acquire lock on file .lock in ${resolve(dataDir)}: another cluster in this process (pid ${process.pid}) is using this directory. ` +
        'Stop it first, or give this broker another data directory.',
    )
    // The refusal took nothing from the first: its lock is still there.
    expect(existsSync(lock)).toBe(true)
    await first.stop()
    clusters.splice(clusters.indexOf(first), 1)
    expect(existsSync(lock)).toBe(false)
    await start(dataDir)
    expect(existsSync(lock)).toBe(true)
  })

  it('a dataDir given as another path to the same directory (relative, through a symlink) is the same lock', async () => {
    const dataDir = tempDir()
    await start(dataDir)
    await expect(startCluster({ dataDir: join(dataDir, '.', 'x', '..') })).rejects.toBeInstanceOf(DataDirLockedError)
    const link = join(tempDir(), 'link')
    symlinkSync(dataDir, link)
    await expect(startCluster({ dataDir: link })).rejects.toBeInstanceOf(DataDirLockedError)
  })

  it('a start refused while opening the directory (here an unreadable meta.properties) leaves it unlocked for the next try', async () => {
    const dataDir = tempDir()
    mkdirSync(join(dataDir, 'meta.properties'))
    await expect(startCluster({ dataDir })).rejects.toThrow(/EISDIR/)
    expect(existsSync(join(dataDir, '.lock'))).toBe(false)
    rmSync(join(dataDir, 'meta.properties'), { recursive: true })
    await start(dataDir)
  })

  it('a lock left by a process no longer running (kill -9) is taken over, with a notice', async () => {
    const dataDir = tempDir()
    const pid = deadPid()
    writeFileSync(join(dataDir, '.lock'), `pid=${pid}\nhost=${hostname()}\n`)
    const notices: string[] = []
    await start(dataDir, notices)
    expect(notices).toEqual([`took over the stale lock ${join(resolve(dataDir), '.lock')} of process ${pid}, which is no longer running`])
    expect(readFileSync(join(dataDir, '.lock'), 'utf8')).toBe(`pid=${process.pid}\nhost=${hostname()}\n`)
  })

  it('a lock naming another host is never judged stale (its pid cannot be checked from here)', async () => {
    const dataDir = tempDir()
    writeFileSync(join(dataDir, '.lock'), `pid=${deadPid()}\nhost=not-${hostname()}\n`)
    await expect(startCluster({ dataDir })).rejects.toThrow(/Failed to acquire lock on file \.lock in .*: process \d+ on not-/)
  })

  it('a process that exits without stopping its cluster (process.exit) leaves no lock behind', { skip: !built, timeout: 30_000 }, () => {
    const dataDir = tempDir()
    const script = `require(${JSON.stringify(join(root, 'dist', 'broker.cjs'))}).startCluster({ dataDir: ${JSON.stringify(dataDir)} })
      .then(() => { process.stdout.write(require('fs').readFileSync(${JSON.stringify(join(dataDir, '.lock'))}, 'utf8')); process.exit(0) })`
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 })
    expect(r.stdout).toMatch(/^pid=\d+\nhost=/)
    expect(existsSync(join(dataDir, '.lock'))).toBe(false)
  })

  it(
    '`wafka broker --data-dir` in another process holds it: a cluster here and a second `wafka broker` are refused; after its kill -9 the lock is taken over',
    { skip: !built, timeout: 60_000 },
    async () => {
      const dataDir = tempDir()
      const { child } = await serve(dataDir)
      const refused = await startCluster({ dataDir }).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(DataDirLockedError)
      expect(refused).toMatchObject({ holderPid: child.pid })
      expect((refused as Error).message).toMatch(`in ${resolve(dataDir)}: process ${child.pid} is using this directory`)
      // The same refusal from the CLI: it exits non-zero saying why.
      const second = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), 'broker', '--port', '0', '--data-dir', dataDir], {
        encoding: 'utf8',
        timeout: 20_000,
      })
      expect(second.status).not.toBe(0)
      expect(second.stdout + second.stderr).toMatch(`Failed to acquire lock on file .lock in ${resolve(dataDir)}: process ${child.pid}`)
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGKILL')
      await exited
      const notices: string[] = []
      await start(dataDir, notices)
      expect(notices).toEqual([expect.stringMatching(`took over the stale lock .* of process ${child.pid}, which is no longer running`)])
    },
  )
})
