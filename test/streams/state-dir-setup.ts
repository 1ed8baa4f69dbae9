// The streams tests (and the CLI's, test/cli/streams.test.ts) get an
// os.tmpdir() of their own (TMPDIR, which child processes inherit): one per
// file for its beforeAll hooks, inside it one per test. So the default
// stateDir (`<os.tmpdir()>/kafka-streams`) is fresh for each test: an
// application id reused by the next test, by the other target cluster or by
// the next run never finds a store and checkpoint of another cluster's
// changelog. Each directory is removed when its test, or its file, ends.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'

const base = tmpdir()
const original = process.env.TMPDIR
let fileDir: string | undefined
let testDir: string | undefined

const isStreamsFile = (path: string | undefined) =>
  path !== undefined && (path.includes('/test/streams/') || path.endsWith('/test/cli/streams.test.ts'))

const remove = (dir: string) => rmSync(dir, { recursive: true, force: true, maxRetries: 3 })

const use = (dir: string | undefined) => {
  if (dir !== undefined) process.env.TMPDIR = dir
  else if (original === undefined) delete process.env.TMPDIR
  else process.env.TMPDIR = original
}

// Vitest hands the file's suite second; the first argument, fixtures, must be a pattern.
// eslint-disable-next-line no-empty-pattern
beforeAll(({}, suite) => {
  if (!isStreamsFile((suite as { filepath?: string }).filepath)) return
  fileDir = mkdtempSync(join(base, 'wafka-streams-test-'))
  use(fileDir)
})

afterAll(() => {
  if (fileDir === undefined) return
  use(undefined)
  remove(fileDir)
  fileDir = undefined
})

beforeEach(() => {
  if (fileDir === undefined) return
  testDir = mkdtempSync(join(fileDir, 'test-'))
  use(testDir)
})

afterEach(() => {
  if (testDir === undefined) return
  use(fileDir)
  remove(testDir)
  testDir = undefined
})
