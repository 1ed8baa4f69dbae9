// wafka/kafkajs as a user gets it: the packed package (npm pack, unpacked in
// a user's project), by import, by default import and by require (and
// wafka/otel, with and without its optional peer @opentelemetry/api), and a
// TypeScript program written as KafkaJS's docs show compiling with --strict
// against it as it compiles against kafkajs.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { built, packedProject, root, type PackedProject } from '../support/packed-package.js'

const app = readFileSync(`${root}/test/kafkajs/typescript/app.ts`, 'utf8')

describe.skipIf(!built())('the packed wafka/kafkajs', () => {
  let project: PackedProject
  beforeAll(() => {
    project = packedProject()
  }, 120_000)
  afterAll(() => project?.remove())

  const node = (args: string[]) => spawnSync(process.execPath, args, { cwd: project.dir, encoding: 'utf8', timeout: 60_000 })
  const tsc = (file: string, extra: string[] = []) =>
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
        ...extra,
        file,
      ],
      { cwd: project.dir, encoding: 'utf8', timeout: 120_000 },
    )

  it('package.json maps wafka/kafkajs to its ESM and CJS files, each with typings of its own format', () => {
    const pkg = JSON.parse(readFileSync(`${project.dir}/node_modules/wafka/package.json`, 'utf8'))
    expect(pkg.exports['./kafkajs']).toEqual({
      import: { types: './dist/types/public/kafkajs.d.ts', default: './dist/kafkajs.js' },
      require: { types: './dist/types/public/kafkajs.d.cts', default: './dist/kafkajs.cjs' },
    })
    // TypeScript's node10 resolution reads no "exports": typesVersions maps the subpaths.
    expect(pkg.typesVersions['*'].kafkajs).toEqual(['./dist/types/public/kafkajs.d.cts'])
  })

  it('ships the entries, their typings and the CLI, and not the benchmarks built beside them in dist/bench', () => {
    const dist = `${project.dir}/node_modules/wafka/dist`
    for (const f of ['index.js', 'index.cjs', 'kafkajs.cjs', 'broker.js', 'cli.js', 'types/index.d.ts'])
      expect(existsSync(`${dist}/${f}`), f).toBe(true)
    expect(existsSync(`${root}/dist/bench/codec.js`), 'the build makes dist/bench').toBe(true)
    expect(existsSync(`${dist}/bench`)).toBe(false)
  })

  it('import, default import and require all give KafkaJS 2.2.4 every export it has, errors that are instances of their parents', () => {
    const script = `
      import kafkajsDefault, * as esm from 'wafka/kafkajs'
      import { createRequire } from 'node:module'
      const require = createRequire(process.cwd() + '/package.json')
      const cjs = require('wafka/kafkajs'), kafkajs = require('kafkajs')
      const missing = (m) => Object.keys(kafkajs).filter((k) => !(k in m))
      const e = new esm.KafkaJSNumberOfRetriesExceeded(new esm.KafkaJSConnectionError('down', { broker: 'b:1' }), { retryCount: 5, retryTime: 100 })
      console.log(JSON.stringify({
        esmMissing: missing(esm), defaultMissing: missing(kafkajsDefault), cjsMissing: missing(cjs), cjsDefaultMissing: missing(cjs.default),
        kafka: [typeof esm.Kafka, typeof cjs.Kafka, kafkajsDefault.Kafka === esm.Kafka, cjs.default.Kafka === cjs.Kafka],
        levels: [esm.logLevel, cjs.logLevel],
        chain: [e instanceof esm.KafkaJSNonRetriableError, e instanceof esm.KafkaJSError, e instanceof Error, e.name, e.retriable, e.retryCount],
      }))`
    const r = node(['--input-type=module', '-e', script])
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({
      esmMissing: [],
      defaultMissing: [],
      cjsMissing: [],
      cjsDefaultMissing: [],
      kafka: ['function', 'function', true, true],
      levels: [
        { NOTHING: 0, ERROR: 1, WARN: 2, INFO: 4, DEBUG: 5 },
        { NOTHING: 0, ERROR: 1, WARN: 2, INFO: 4, DEBUG: 5 },
      ],
      chain: [true, true, true, 'KafkaJSNumberOfRetriesExceeded', false, 5],
    })
  })

  it('every entry point loads by import and by require', () => {
    const entries = ['wafka', 'wafka/codec', 'wafka/protocol', 'wafka/kafkajs', 'wafka/broker', 'wafka/streams']
    const script = `
      import { createRequire } from 'node:module'
      const require = createRequire(process.cwd() + '/package.json')
      const out = {}
      for (const name of ${JSON.stringify(entries)}) out[name] = [Object.keys(await import(name)).length > 0, Object.keys(require(name)).length > 0]
      console.log(JSON.stringify(out))`
    const r = node(['--input-type=module', '-e', script])
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual(Object.fromEntries(entries.map((e) => [e, [true, true]])))
  })

  it("a program written as KafkaJS's TypeScript docs show compiles with --strict against kafkajs and against wafka/kafkajs", () => {
    expect(app).toContain("from 'kafkajs'")
    writeFileSync(`${project.dir}/app.mts`, app)
    const original = tsc('app.mts')
    expect(original.stdout + original.stderr).toBe('')
    writeFileSync(`${project.dir}/app-wafka.mts`, app.replace("from 'kafkajs'", "from 'wafka/kafkajs'"))
    const wafka = tsc('app-wafka.mts')
    expect(wafka.stdout + wafka.stderr).toBe('')
    expect(wafka.status).toBe(0)
  }, 240_000)

  it('the types refuse what KafkaJS refuses (the compile can fail)', () => {
    writeFileSync(
      `${project.dir}/wrong-wafka.mts`,
      `import type { ConsumerConfig, EachMessagePayload } from 'wafka/kafkajs'
       export const c: ConsumerConfig = { groupId: 1 }
       export const f = (p: EachMessagePayload): number => p.message.offset`,
    )
    const wrong = tsc('wrong-wafka.mts')
    expect(wrong.status).not.toBe(0)
    expect(wrong.stdout).toContain('wrong-wafka.mts')
    expect(wrong.stdout).toMatch(/TS2322/)
  }, 120_000)

  it('wafka/otel: @opentelemetry/api is an optional peer, the other entries load without it (above); once installed, wafka/otel loads by import and by require', () => {
    const pkg = JSON.parse(readFileSync(`${project.dir}/node_modules/wafka/package.json`, 'utf8'))
    expect(pkg.exports['./otel']).toEqual({
      import: { types: './dist/types/public/otel.d.ts', default: './dist/otel.js' },
      require: { types: './dist/types/public/otel.d.cts', default: './dist/otel.cjs' },
    })
    expect(pkg.peerDependenciesMeta['@opentelemetry/api']).toEqual({ optional: true })
    expect(pkg.dependencies?.['@opentelemetry/api']).toBeUndefined()
    const load = `
      import { createRequire } from 'node:module'
      const require = createRequire(process.cwd() + '/package.json')
      const esm = await import('wafka/otel').then((m) => typeof m.instrument, (err) => err.code)
      let cjs
      try { cjs = typeof require('wafka/otel').instrument } catch (err) { cjs = err.code }
      console.log(JSON.stringify([esm, cjs]))`
    // Without the API, only wafka/otel fails, naming what is missing.
    const without = node(['--input-type=module', '-e', load])
    expect(JSON.parse(without.stdout)).toEqual(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'])
    const link = `${project.dir}/node_modules/@opentelemetry/api`
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(`${root}/node_modules/@opentelemetry/api`, link, 'dir')
    const withApi = node(['--input-type=module', '-e', load])
    expect(withApi.stderr).toBe('')
    expect(JSON.parse(withApi.stdout)).toEqual(['function', 'function'])
  })
})
