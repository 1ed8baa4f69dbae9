/**
 * `npm run bench`: the codec benchmark (dist/bench/codec.js) on Node, Bun and
 * Deno in turn, each in a process of its own, then the cross-runtime summary
 * (bench/results/codec.md and the README's codec table) from their results.
 *
 *   npm run bench [-- --runtime=bun] [-- --quick] [-- --only=<text>] [-- --out=<dir>]
 *
 * --runtime: node, bun or deno (or a comma-separated list; default all three).
 * Bun and Deno are the devDependencies' (node_modules/.bin). --quick: a short
 * smoke run of every case, written to a temporary folder unless --out says
 * where (so the committed results stay). Other options go to each run as
 * they are (bench/codec.ts). A runtime that fails does not stop the others;
 * the exit status says whether all succeeded.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import process from 'node:process'
import { readmeBlock, RUNTIMES, summaryMarkdown, withReadmeBlock, type CodecResults } from './support/codec-summary.js'
import { option, repositoryRoot } from './support/environment.js'
import type { RuntimeName } from './support/runtime.js'

const root = repositoryRoot()
const args = process.argv.slice(2)
const quick = args.includes('--quick')
const chosen = (option('runtime') ?? RUNTIMES.join(',')).split(',') as RuntimeName[]
const unknown = chosen.filter((r) => !RUNTIMES.includes(r))
if (unknown.length) {
  console.error(`--runtime: ${unknown.join(', ')}? (node, bun or deno)`)
  process.exit(2)
}
const out = option('out') ?? (quick ? join(tmpdir(), 'wafka-bench-quick') : join(root, 'bench', 'results'))
const passOn = args.filter(
  (a, i) => !a.startsWith('--runtime') && !a.startsWith('--out') && args[i - 1] !== '--runtime' && args[i - 1] !== '--out',
)
const script = join(root, 'dist', 'bench', 'codec.js')
const bin = (name: string) => join(root, 'node_modules', '.bin', name)

/** How each runtime runs the bundled benchmark, with garbage collection exposed. */
const launch: Record<RuntimeName, [string, string[]]> = {
  node: [process.execPath, ['--expose-gc', script]],
  bun: [bin('bun'), [script]],
  deno: [bin('deno'), ['run', '-A', '--v8-flags=--expose-gc', script]],
}

const failed: string[] = []
for (const runtime of chosen) {
  const [command, base] = launch[runtime]
  console.log(`\n=== ${runtime}: ${[command, ...base, ...passOn, `--out=${out}`].join(' ')}\n`)
  const run = spawnSync(command, [...base, ...passOn, `--out=${out}`], { cwd: root, stdio: 'inherit' })
  if (run.status !== 0) failed.push(`${runtime} (${run.error?.message ?? `exit ${run.status ?? run.signal}`})`)
}

// The summary of whatever results the folder holds (a run of one runtime keeps the others' last).
if (!option('only')) {
  const byRuntime: Partial<Record<RuntimeName, CodecResults>> = {}
  for (const r of RUNTIMES) {
    const file = join(out, `codec-${r}.json`)
    if (existsSync(file)) byRuntime[r] = JSON.parse(readFileSync(file, 'utf8'))
  }
  writeFileSync(join(out, 'codec.md'), summaryMarkdown(byRuntime))
  console.log(`\nwrote ${join(out, 'codec.md')}`)
  if (out === join(root, 'bench', 'results')) {
    const readme = join(root, 'README.md')
    const before = readFileSync(readme, 'utf8')
    const after = withReadmeBlock(before, readmeBlock(byRuntime))
    if (after !== before) writeFileSync(readme, after)
    console.log(after !== before ? `rewrote the codec table in ${readme}` : `${readme}: codec table unchanged`)
  }
}
if (failed.length) {
  console.error(`\nfailed: ${failed.join(', ')}`)
  process.exit(1)
}
