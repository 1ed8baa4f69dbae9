// TypeScript programs against the packed package, as users compile them:
// CommonJS with node10 resolution (TypeScript's default for CommonJS), node16
// CommonJS and ESM, and bundler resolution; each imports every entry point,
// wafka/kafkajs by name and by default import, and every type name KafkaJS
// 2.2.4 exports (read from KafkaJS's own index.d.ts, so nothing is listed
// here), then runs what tsc emitted. Then KafkaJS's types against ours: a
// value of each KafkaJS type must be accepted where ours is asked for.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { built, packedProject, root, type PackedProject } from '../support/packed-package.js'

interface Exported {
  name: string
  kind: 'class' | 'interface' | 'type' | 'enum' | 'const' | 'var' | 'let' | 'function'
  /** How many type parameters it takes. */
  params: number
}

/** The names KafkaJS's types/index.d.ts exports, with what each is. */
function kafkajsExports(): Exported[] {
  const source = readFileSync(`${root}/node_modules/kafkajs/types/index.d.ts`, 'utf8')
  const found = source.matchAll(
    /^export\s+(?:declare\s+)?(class|interface|type|enum|const|var|let|function)\s+([A-Za-z_$][\w$]*)(<[^>]*>)?/gm,
  )
  return [...found].map(([, kind, name, generics]) => ({
    name,
    kind: kind as Exported['kind'],
    params: generics ? generics.split(',').length : 0,
  }))
}

const exported = kafkajsExports()
const VALUE_KINDS = new Set(['class', 'enum', 'const', 'var', 'let', 'function'])

/** One program: every entry point, wafka/kafkajs three ways, every KafkaJS name; prints what it got. */
function program(): string {
  return `import kafkajs, { Kafka, logLevel, type KafkaConfig } from 'wafka/kafkajs'
import * as named from 'wafka/kafkajs'
import type {
  ${exported.map((e) => `${e.name} as Kjs${e.name}`).join(',\n  ')}
} from 'wafka/kafkajs'
import { Kafka as RootKafka, type KafkaConfig as RootConfig } from 'wafka'
import { encodeRecordBatch } from 'wafka/codec'
import { Cluster } from 'wafka/protocol'
import * as broker from 'wafka/broker'

const config: KafkaConfig = { brokers: ['127.0.0.1:9092'], logLevel: logLevel.NOTHING }
const rootConfig: RootConfig = { brokers: ['127.0.0.1:9092'] }
new Kafka(config)
new kafkajs.Kafka(config)
new RootKafka(rootConfig)
const values = [${exported
    .filter((e) => VALUE_KINDS.has(e.kind))
    .map((e) => `'${e.name}'`)
    .join(', ')}] as const
console.log(JSON.stringify({
  defaultIsNamed: kafkajs.Kafka === Kafka && kafkajs.logLevel === named.logLevel,
  missingValues: values.filter((v) => typeof (named as Record<string, unknown>)[v] === 'undefined'),
  entries: [typeof encodeRecordBatch, typeof Cluster, Object.keys(broker).length > 0],
}))
`
}

const EXPECTED_OUTPUT = { defaultIsNamed: true, missingValues: [], entries: ['function', 'function', true] }

const TSC = `${root}/node_modules/typescript/bin/tsc`

describe.skipIf(!built())('TypeScript against the packed package', () => {
  let project: PackedProject
  beforeAll(() => {
    project = packedProject()
  }, 120_000)
  afterAll(() => project?.remove())

  const tsc = (args: string[]) =>
    spawnSync(process.execPath, [TSC, '--strict', '--target', 'es2022', '--skipLibCheck', 'false', ...args], {
      cwd: project.dir,
      encoding: 'utf8',
      timeout: 180_000,
    })
  const run = (file: string) => spawnSync(process.execPath, [file], { cwd: project.dir, encoding: 'utf8', timeout: 60_000 })

  /** Writes the program under each name, compiles them with `options`, runs each emitted file. */
  function compileAndRun(dir: string, files: Array<[source: string, emitted: string]>, options: string[]) {
    mkdirSync(join(project.dir, dir), { recursive: true })
    for (const [source] of files) writeFileSync(join(project.dir, dir, source), program())
    const compiled = tsc([...options, '--outDir', join(dir, 'out'), ...files.map(([source]) => join(dir, source))])
    expect(compiled.stdout + compiled.stderr).toBe('')
    for (const [, emitted] of files) {
      const r = run(join(dir, 'out', emitted))
      expect(r.stderr, emitted).toBe('')
      expect(JSON.parse(r.stdout), emitted).toEqual(EXPECTED_OUTPUT)
    }
  }

  it('KafkaJS exports the names this test reads (the parse found them)', () => {
    expect(exported.length).toBeGreaterThan(150)
    expect(exported.map((e) => e.name)).toEqual(expect.arrayContaining(['Kafka', 'SeekEntry', 'ConsumerCrashEvent', 'SASLMechanism']))
  })

  it('module commonjs, moduleResolution node10 (the default for CommonJS): typesVersions finds every entry', () => {
    compileAndRun('node10', [['app.ts', 'app.js']], ['--module', 'commonjs', '--moduleResolution', 'node10', '--esModuleInterop'])
  }, 240_000)

  it('module node16: a CommonJS file gets the require typings (.d.cts), an ESM file the import typings', () => {
    compileAndRun(
      'node16',
      [
        ['app.cts', 'app.cjs'],
        ['app.mts', 'app.mjs'],
      ],
      ['--module', 'node16', '--moduleResolution', 'node16'],
    )
  }, 240_000)

  it('module esnext, moduleResolution bundler', () => {
    compileAndRun('bundler', [['app.mts', 'app.mjs']], ['--module', 'esnext', '--moduleResolution', 'bundler'])
  }, 240_000)

  it("a value of each KafkaJS type is accepted where wafka/kafkajs's type of that name is asked for", () => {
    const checks = exported.filter((e) => !VALUE_KINDS.has(e.kind) || e.kind === 'enum')
    const args = (e: Exported) => (e.params ? `<${Array(e.params).fill('any').join(', ')}>` : '')
    const lines = checks.map((e) => `export const accepts${e.name} = (k: K.${e.name}${args(e)}): W.${e.name}${args(e)} => k`)
    const header = `import type * as K from 'kafkajs'\nimport type * as W from 'wafka/kafkajs'\n`
    writeFileSync(join(project.dir, 'shapes.mts'), header + lines.join('\n') + '\n')
    const r = tsc(['--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'shapes.mts'])
    const headerLines = header.split('\n').length - 1
    const refused = [...new Set([...r.stdout.matchAll(/^shapes\.mts\((\d+),/gm)].map((m) => checks[Number(m[1]) - 1 - headerLines]?.name))]
    expect(refused, r.stdout).toEqual([])
    expect(r.status, r.stdout).toBe(0)
  }, 240_000)
})
