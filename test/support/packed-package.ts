// The package as it ships: `npm pack` of this checkout (dist/ and
// package.json, nothing else), unpacked into a user's project under
// node_modules/wafka, so imports, requires and TypeScript resolve it only
// through its own "exports", "types" and "typesVersions".
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

export const root = new URL('../..', import.meta.url).pathname

/** Whether dist/ has the entries and typings the package maps (a missing build fails under CI). */
export function built(): boolean {
  const ok = ['index.js', 'index.cjs', 'kafkajs.js', 'kafkajs.cjs', 'types/public/kafkajs.d.ts'].every((f) =>
    existsSync(`${root}/dist/${f}`),
  )
  if (!ok && process.env.CI) throw new Error('dist/ is incomplete: run npm run build first')
  return ok
}

export interface PackedProject {
  /** The user's project: package.json (CommonJS, as `npm init` writes it) and node_modules/wafka. */
  dir: string
  remove(): void
}

/**
 * A user's project with the packed package installed. Its dependencies, and
 * kafkajs and @types/node (the user's own), are links to this checkout's
 * node_modules: installing them again would only slow the test.
 */
export function packedProject(): PackedProject {
  const dir = mkdtempSync(join(tmpdir(), 'wafka-packed-'))
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  })
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`)
  const [{ filename }] = JSON.parse(packed.stdout) as Array<{ filename: string }>
  const target = join(dir, 'node_modules', 'wafka')
  mkdirSync(target, { recursive: true })
  const untar = spawnSync('tar', ['-xzf', join(dir, filename), '-C', target, '--strip-components=1'], { encoding: 'utf8' })
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`)
  rmSync(join(dir, filename))
  const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { dependencies?: Record<string, string> }
  for (const name of [...Object.keys(pkg.dependencies ?? {}), 'kafkajs', '@types/node']) {
    const link = join(dir, 'node_modules', name)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(join(root, 'node_modules', name), link, 'dir')
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'kafkajs-user', version: '1.0.0', private: true }))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
