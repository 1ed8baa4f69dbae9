// wafka/kafkajs as a user gets it: the built package, by import and by
// require, and a TypeScript program written as KafkaJS's docs show compiling
// with --strict against it as it compiles against kafkajs.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const root = new URL('../..', import.meta.url).pathname
const built =
  existsSync(`${root}/dist/kafkajs.js`) && existsSync(`${root}/dist/kafkajs.cjs`) && existsSync(`${root}/dist/types/public/kafkajs.d.ts`)
if (!built && process.env.CI) throw new Error('dist/ is missing wafka/kafkajs: run npm run build first')

const dir = `${root}/test/kafkajs/typescript`
const tsc = (file: string) =>
  spawnSync(
    process.execPath,
    [
      `${root}/node_modules/typescript/bin/tsc`,
      '--strict',
      '--noEmit',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--types',
      'node',
      file,
    ],
    { cwd: root, encoding: 'utf8', timeout: 120_000 },
  )

/** Compiles `source` as a file beside app.ts (inside the package, so `wafka/kafkajs` resolves to its own exports). */
function compile(name: string, source: string) {
  const file = `${dir}/${name}`
  writeFileSync(file, source)
  try {
    return tsc(file)
  } finally {
    rmSync(file, { force: true })
  }
}

describe.skipIf(!built)('the built wafka/kafkajs', () => {
  it('package.json maps wafka/kafkajs to its ESM, CJS and type files', () => {
    const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'))
    expect(pkg.exports['./kafkajs']).toEqual({
      types: './dist/types/public/kafkajs.d.ts',
      import: './dist/kafkajs.js',
      require: './dist/kafkajs.cjs',
    })
  })

  it('import and require both give KafkaJS 2.2.4 every export it has, errors that are instances of their parents', () => {
    const script = `
      const { createRequire } = await import('node:module')
      const require = createRequire(process.cwd() + '/package.json')
      const esm = await import('wafka/kafkajs'), cjs = require('wafka/kafkajs'), kafkajs = require('kafkajs')
      const missing = (m) => Object.keys(kafkajs).filter((k) => !(k in m))
      const e = new esm.KafkaJSNumberOfRetriesExceeded(new esm.KafkaJSConnectionError('down', { broker: 'b:1' }), { retryCount: 5, retryTime: 100 })
      console.log(JSON.stringify({
        esmMissing: missing(esm), cjsMissing: missing(cjs),
        kafka: [typeof esm.Kafka, typeof cjs.Kafka], levels: [esm.logLevel, cjs.logLevel],
        chain: [e instanceof esm.KafkaJSNonRetriableError, e instanceof esm.KafkaJSError, e instanceof Error, e.name, e.retriable, e.retryCount],
      }))`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 30_000 })
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({
      esmMissing: [],
      cjsMissing: [],
      kafka: ['function', 'function'],
      levels: [
        { NOTHING: 0, ERROR: 1, WARN: 2, INFO: 4, DEBUG: 5 },
        { NOTHING: 0, ERROR: 1, WARN: 2, INFO: 4, DEBUG: 5 },
      ],
      chain: [true, true, true, 'KafkaJSNumberOfRetriesExceeded', false, 5],
    })
  })

  it("a program written as KafkaJS's TypeScript docs show compiles with --strict against kafkajs and against wafka/kafkajs", () => {
    const app = readFileSync(`${dir}/app.ts`, 'utf8')
    expect(app).toContain("from 'kafkajs'")
    const original = tsc(`${dir}/app.ts`)
    expect(original.stdout + original.stderr).toBe('')
    const wafka = compile('app-wafka.ts', app.replace("from 'kafkajs'", "from 'wafka/kafkajs'"))
    expect(wafka.stdout + wafka.stderr).toBe('')
    expect(wafka.status).toBe(0)
  }, 240_000)

  it('the types refuse what KafkaJS refuses (the compile can fail)', () => {
    const wrong = compile(
      'wrong-wafka.ts',
      `import type { ConsumerConfig, EachMessagePayload } from 'wafka/kafkajs'
       export const c: ConsumerConfig = { groupId: 1 }
       export const f = (p: EachMessagePayload): number => p.message.offset`,
    )
    expect(wrong.status).not.toBe(0)
    expect(wrong.stdout).toContain('wrong-wafka.ts')
    expect(wrong.stdout).toMatch(/TS2322/)
  }, 120_000)
})
