import { existsSync, readFileSync } from 'node:fs'
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
