// The runtimes smoke test (test/runtimes/smoke.mjs, on the built bundle)
// under Node, Bun and Deno against a real broker's SASL_SSL listener with
// SCRAM-SHA-512: their node:tls and node:crypto carry wafka's security.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireSecuredKafka, startSecuredKafka, USERS, type SecuredKafka } from './secured-kafka.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const smoke = `${root}test/runtimes/smoke.mjs`
const bin = (name: string) => `${root}node_modules/.bin/${name}`
const RUNTIMES: Array<[string, string, string[]]> = [
  ['node', process.execPath, [smoke]],
  ['bun', bin('bun'), [smoke]],
  ['deno', bin('deno'), ['run', '--allow-read', '--allow-env', '--allow-net', '--allow-sys', smoke]],
]

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (b) => (output += b))
    child.stderr.on('data', (b) => (output += b))
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

describe.skipIf(!requireSecuredKafka())('runtimes over SASL_SSL / SCRAM-SHA-512 against real Kafka', () => {
  let k: SecuredKafka
  beforeAll(async () => {
    k = await startSecuredKafka()
  })
  afterAll(async () => {
    await k?.stop()
  })

  for (const [name, cmd, args] of RUNTIMES) {
    it(
      name,
      async () => {
        expect(existsSync(`${root}dist/index.js`), 'npm run build first: the smoke test runs the bundle').toBe(true)
        const secure = JSON.stringify({ bootstrap: k.listener('SASL_SSL'), ca: k.certs.ca, username: 'alice', password: USERS.alice })
        const { WAFKA_SMOKE_BOOTSTRAP: _, ...env } = process.env
        const r = await run(cmd, args, { ...env, WAFKA_SMOKE_SECURE: secure })
        expect(r.code, r.output).toBe(0)
        expect(r.output).toMatch(new RegExp(`${name}: SASL_SSL SCRAM-SHA-512 round trip of 100 messages`))
        expect(r.output).toMatch(new RegExp(`${name}: \\d+ passed, 0 failed`))
      },
      120_000,
    )
  }
})
