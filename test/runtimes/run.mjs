// Runs the smoke test under Node, Bun and Deno (the latter two from their
// npm packages). A runtime that is missing fails the run: these are not optional.
import { tmpdir } from 'node:os'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { buildMockCluster } from '../peers/build.mjs'
import { fileURLToPath } from 'node:url'

const smoke = fileURLToPath(new URL('./smoke.mjs', import.meta.url))

// A mock cluster (librdkafka 2.15's) for the client round trip; without the peers the
// round trip is left out, except under CI, where that fails the run.
const mock = await startMock()
if (!mock && process.env.CI) {
  console.error('runtimes: the mock cluster could not start (run `node test/peers/build.mjs --install`)')
  process.exit(1)
}

async function startMock() {
  const built = buildMockCluster('modern')
  if (built.error) return undefined
  const child = spawn(built.path, ['1'], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const bootstrap = (await lines.next()).value
  const commands = ['rebalance-delay 0', ...['node', 'bun', 'deno'].map((r) => `topic smoke-${r} 3 1`)]
  for (const command of commands) {
    child.stdin.write(`${command}\n`)
    const reply = (await lines.next()).value
    if (reply !== 'ok') throw new Error(`mock cluster: ${command}: ${reply}`)
  }
  return { bootstrap, stop: () => child.stdin.end() }
}
// The embedded broker from dist/ (as `wafka/broker` ships) for what the mock
// cluster does not serve: a share group and a wafka/streams application.
const { startCluster } = await import('../../dist/broker.js')
const embedded = await startCluster({ brokers: 1, groupInitialRebalanceDelayMs: 0 })
const bin = (name) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url))
const runs = [
  ['node', [process.execPath, smoke]],
  ['bun', [bin('bun'), smoke]],
  // --allow-write for the temporary directory: wafka/streams' persistent stores live in a state directory there.
  ['deno', [bin('deno'), 'run', '--allow-read', '--allow-env', '--allow-net', '--allow-sys', `--allow-write=${tmpdir()}`, smoke]],
]

// Each runtime in a child, waited for without blocking: the embedded broker
// serves from this process's event loop.
function runChild(cmd, args, env) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', env })
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.on('error', (error) => {
      clearTimeout(timer)
      resolve({ status: null, error })
    })
    child.on('exit', (status, signal) => {
      clearTimeout(timer)
      resolve({ status, error: signal ? new Error(`killed by ${signal}`) : undefined })
    })
  })
}

let failed = 0
for (const [name, [cmd, ...args]] of runs) {
  const r = await runChild(cmd, args, {
    ...process.env,
    ...(mock ? { WAFKA_SMOKE_BOOTSTRAP: mock.bootstrap } : {}),
    WAFKA_SMOKE_EMBEDDED: embedded.bootstrapServers,
  })
  if (r.status !== 0) {
    failed++
    console.error(`${name}: smoke test failed (${r.error?.message ?? `exit ${r.status}`})`)
  }
}
mock?.stop()
await embedded.stop()
console.log(`runtimes: ${runs.length - failed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
