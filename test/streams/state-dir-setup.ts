// Each streams test (and the CLI's, test/cli/streams.test.ts) gets its own os.tmpdir() (TMPDIR, which child processes
// inherit), so the default stateDir (`<os.tmpdir()>/kafka-streams`) is fresh
// for it: an application id reused by the next test, by the other target
// cluster or by the next run never finds a store and checkpoint of another
// cluster's changelog. The state is removed after the test.
import { mkdtempSync, rmSync, rmdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'

const base = tmpdir()
let dir: string | undefined
let before: string | undefined

beforeEach((ctx) => {
  const file = ctx.task.file.filepath
  if (!file.includes('/test/streams/') && !file.endsWith('/test/cli/streams.test.ts')) return
  before = process.env.TMPDIR
  dir = mkdtempSync(join(base, 'wafka-streams-test-'))
  process.env.TMPDIR = dir
})

afterEach(() => {
  if (dir === undefined) return
  if (before === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = before
  rmSync(join(dir, 'kafka-streams'), { recursive: true, force: true })
  try {
    rmdirSync(dir)
  } catch {
    // Something else made files here during the test: left to its owner.
  }
  dir = undefined
})
