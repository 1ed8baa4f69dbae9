// Runs the smoke test under Node, Bun and Deno (the latter two from their
// npm packages). A runtime that is missing fails the run: these are not optional.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const smoke = fileURLToPath(new URL('./smoke.mjs', import.meta.url))
const bin = (name) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url))
const runs = [
  ['node', [process.execPath, smoke]],
  ['bun', [bin('bun'), smoke]],
  ['deno', [bin('deno'), 'run', '--allow-read', '--allow-env', smoke]],
]

let failed = 0
for (const [name, [cmd, ...args]] of runs) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', timeout: 120_000 })
  if (r.status !== 0) {
    failed++
    console.error(`${name}: smoke test failed (${r.error?.message ?? `exit ${r.status}`})`)
  }
}
console.log(`runtimes: ${runs.length - failed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
