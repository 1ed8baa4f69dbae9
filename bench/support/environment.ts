import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Where the script runs from: bench/ as source, dist/bench/ when bundled. */
const here = dirname(fileURLToPath(import.meta.url))

/** The nearest folder above this script that holds package.json: the repository. */
export function repositoryRoot(): string {
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) return process.cwd()
  }
}

/** A package's installed version, read from its package.json (some packages do not export it). */
export function packageVersion(name: string): string {
  for (let dir = here; ; dir = dirname(dir)) {
    const file = join(dir, 'node_modules', name, 'package.json')
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).version
    if (dirname(dir) === dir) return 'unknown'
  }
}

export function machine() {
  const cpus = os.cpus()
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    arch: process.arch,
    node: process.version,
    v8: process.versions.v8,
  }
}

/**
 * A command-line option's value: `--name=value` or `--name value`
 * (undefined when absent).
 */
export function option(name: string): string | undefined {
  const args = process.argv
  const joined = args.find((a) => a.startsWith(`--${name}=`))
  if (joined) return joined.slice(name.length + 3)
  const at = args.indexOf(`--${name}`)
  return at >= 0 && at + 1 < args.length && !args[at + 1].startsWith('--') ? args[at + 1] : undefined
}

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

/**
 * Which wafka a run measures: the commit checked out at the start, whether
 * src/ or assembly/ differed from it, and whether either changed after the
 * bundle was built (then the figures are not that commit's: rebuild).
 * Read-only git commands only.
 */
export function wafkaRevision(root: string, bundle: string): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' })
  const head = git('rev-parse', '--short', 'HEAD')
  let stamp = head.status === 0 ? head.stdout.trim() : packageVersion('wafka')
  if (head.status === 0) {
    const changed = git('diff', '--quiet', 'HEAD', '--', 'src', 'assembly').status !== 0
    const untracked = git('ls-files', '--others', '--exclude-standard', '--', 'src', 'assembly').stdout.trim() !== ''
    if (changed || untracked) stamp += ' with uncommitted changes in src/ or assembly/'
  }
  const stale = Math.max(newestMtime(join(root, 'src')), newestMtime(join(root, 'assembly'))) > statSync(bundle).mtimeMs
  if (stale) stamp += ' (STALE: src/ or assembly/ changed after this bundle was built; rebuild before trusting the figures)'
  return stamp
}
