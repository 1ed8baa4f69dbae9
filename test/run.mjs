// `npm test`: vitest on the whole suite, then the runtime smoke tests under
// Node, Bun and Deno; ends with one line that counts everything.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const report = `${root}dist/vitest-report.json`
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit' }).status ?? 1

const vitestStatus = run(process.execPath, [
  `${root}node_modules/vitest/vitest.mjs`,
  'run',
  '--config',
  'test/vitest.config.ts',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
])
let passed = 0
let failed = 0
try {
  const json = JSON.parse(readFileSync(report, 'utf8'))
  passed = json.numPassedTests
  failed = json.numFailedTests + (vitestStatus !== 0 && json.numFailedTests === 0 ? 1 : 0)
} catch {
  failed++
}
const runtimesStatus = run(process.execPath, [`${root}test/runtimes/run.mjs`])
if (runtimesStatus === 0) passed += 3
else failed++
console.log(`tests: ${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
