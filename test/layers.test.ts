// The layer rule docs/ARCHITECTURE.md states, kept by reading every
// src/**/*.ts's imports: no cycle among value imports, and no import (value
// or type) from a lower layer to a higher one. Layers come from directory
// names, so moving a file inside its folder changes nothing here.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(new URL('..', import.meta.url).pathname)
const src = join(root, 'src')

/**
 * The layers, lowest first. A file may import its own layer and any on a
 * lower line; layers on one line are siblings and do not import each other.
 * docs/ARCHITECTURE.md states the same order (a test below checks).
 */
const LAYERS: readonly (readonly string[])[] = [
  ['base'],
  ['codec'],
  ['protocol'],
  ['net'],
  ['cluster', 'broker'],
  ['producer', 'consumer', 'admin'],
  ['client'],
  ['kafkajs', 'streams'],
  ['public'],
  ['cli'],
  ['tools'],
]

/** The layer of each folder of src/ (a folder's subfolders are in it too). */
const FOLDERS: Record<string, string> = {
  config: 'base', // the options mechanism: tables, checkKeys, resolvers
  types: 'base', // ambient declarations (*.wasm)
  observe: 'base', // the tracing channels: net and every client above it publish on them
  codec: 'codec',
  protocol: 'protocol',
  net: 'net',
  cluster: 'cluster',
  broker: 'broker',
  producer: 'producer',
  consumer: 'consumer',
  admin: 'admin',
  kafkajs: 'kafkajs',
  streams: 'streams',
  public: 'public',
  cli: 'cli',
  build: 'tools',
}

/** Files whose layer is not their folder's; each says why. Files at src/'s top are 'base' unless named here. */
const EXCEPTIONS: Record<string, string> = {
  // Generated from Kafka's error table and importing nothing: errors.ts and
  // error-policy.ts name codes from it, and every layer above uses both.
  'protocol/error-codes.ts': 'base',
  // The entry point and the root export: they build every client.
  'kafka.ts': 'client',
  'index.ts': 'client',
  // The `wafka` command's bin.
  'cli.ts': 'cli',
}

function layerOf(file: string): string | undefined {
  const rel = relative(src, file).split('\\').join('/')
  if (rel in EXCEPTIONS) return EXCEPTIONS[rel]
  const slash = rel.indexOf('/')
  return slash < 0 ? 'base' : FOLDERS[rel.slice(0, slash)]
}

interface Import {
  specifier: string
  /** Erased at compile time: `import type`, `export type`, every specifier `type`, or `typeof import()`. */
  type: boolean
  line: number
}

const onlyTypes = (braces: string) => {
  const names = braces
    .slice(1, -1)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return names.length > 0 && names.every((n) => /^type\s/.test(n))
}

const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length

/**
 * The module specifiers a TypeScript file imports: static `import`/`export
 * ... from` at the start of a line (so comments and strings mentioning one
 * are not taken), `import 'x'`, and `import('x')` anywhere outside a comment.
 */
function importsOf(text: string): Import[] {
  const found: Import[] = []
  const clause = String.raw`(?:[\w$]+\s*,\s*)?(\*\s*as\s+[\w$]+|\{[^}]*\}|[\w$]+)`
  const statement = new RegExp(
    String.raw`^[ \t]*(import|export)\s+(type\s+)?(?:${clause}|(\*(?:\s*as\s+[\w$]+)?))\s*from\s*(['"])([^'"\n]+)\5`,
    'gm',
  )
  for (const m of text.matchAll(statement)) {
    const [, , typeKeyword, names, , , specifier] = m
    if (m[1] === 'export' && /^[\w$]+$/.test(names ?? '')) continue // `export x from` is not TypeScript
    const type = Boolean(typeKeyword) || (names?.startsWith('{') === true && !/,/.test(m[0].split('{')[0]) && onlyTypes(names))
    found.push({ specifier, type, line: lineAt(text, m.index) })
  }
  for (const m of text.matchAll(/^[ \t]*import\s*(['"])([^'"\n]+)\1/gm)) {
    found.push({ specifier: m[2], type: false, line: lineAt(text, m.index) })
  }
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
  for (const m of code.matchAll(/(\btypeof\s+)?\bimport\s*\(\s*(['"])([^'"\n]+)\2\s*\)/g)) {
    found.push({ specifier: m[3], type: Boolean(m[1]), line: lineAt(code, m.index) })
  }
  return found
}

interface Edge extends Import {
  from: string
  to: string
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(path)
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : []
  })
}

/** Every relative import between files of src/, resolved to the file (`./x.js` is `./x.ts`). */
function importGraph(): Edge[] {
  return sourceFiles(src).flatMap((from) =>
    importsOf(readFileSync(from, 'utf8'))
      .filter((i) => i.specifier.startsWith('.'))
      .map((i) => ({ ...i, from, to: resolve(dirname(from), i.specifier).replace(/\.js$/, '.ts') }))
      .filter((e) => e.to.startsWith(src + '/')),
  )
}

const name = (file: string) => relative(root, file)
const rank = (layer: string) => LAYERS.findIndex((line) => line.includes(layer))

/** A cycle among `edges`, as the files around it (first = last), or null. */
function findCycle(edges: readonly Edge[]): string[] | null {
  const next = new Map<string, string[]>()
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to])
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (file: string): string[] | null => {
    if (state.get(file) === 'done') return null
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file]
    state.set(file, 'open')
    path.push(file)
    for (const to of next.get(file) ?? []) {
      const cycle = visit(to)
      if (cycle) return cycle
    }
    path.pop()
    state.set(file, 'done')
    return null
  }
  for (const file of next.keys()) {
    const cycle = visit(file)
    if (cycle) return cycle
  }
  return null
}

/** Each import that goes up the layers, or sideways to a sibling, as one line. */
function layerViolations(edges: readonly Edge[]): string[] {
  return edges.flatMap((e) => {
    const [a, b] = [layerOf(e.from), layerOf(e.to)]
    if (a === undefined || b === undefined || a === b || rank(b) < rank(a)) return []
    const how = rank(b) === rank(a) ? 'its sibling' : 'the higher layer'
    return [`${name(e.from)}:${e.line} (${a}) imports${e.type ? ' type' : ''} ${name(e.to)}: ${how} ${b}`]
  })
}

describe('layers', () => {
  const edges = importGraph()

  it('reads the imports a file can have', () => {
    const text = [
      "import a from './a.js'",
      "import type { B } from './b.js'",
      "import { type C, type D } from './c.js'",
      "import { type E, f } from './e.js'",
      "import g, { type G } from './g.js'",
      "import * as h from './h.js'",
      'import {',
      '  i,',
      "} from './i.js'",
      "export { j } from './j.js'",
      "export type { K } from './k.js'",
      "export * from './l.js'",
      "export * as m from './m.js'",
      "import './n.js'",
      "const o = await import('./o.js')",
      "type P = typeof import('./p.js')",
      "// import q from './q.js' and import('./q.js')",
      " * import r from './r.js'",
      'const s = "import t from \'./t.js\'"',
    ].join('\n')
    const seen = importsOf(text).map((i) => `${i.specifier}${i.type ? ' type' : ''}`)
    expect(seen.sort()).toEqual(
      [
        './a.js',
        './b.js type',
        './c.js type',
        './e.js',
        './g.js',
        './h.js',
        './i.js',
        './j.js',
        './k.js type',
        './l.js',
        './m.js',
        './n.js',
        './o.js',
        './p.js type',
      ].sort(),
    )
  })

  it('resolves every relative import to a file of src/', () => {
    expect(edges.length).toBeGreaterThan(500)
    expect(edges.filter((e) => !existsSync(e.to)).map((e) => `${name(e.from)}:${e.line} → ${name(e.to)}`)).toEqual([])
  })

  it('gives every file of src/ a layer in the table', () => {
    const unplaced = sourceFiles(src).filter((f) => rank(layerOf(f) ?? '') < 0)
    expect(unplaced.map(name), 'add their folder to FOLDERS in test/layers.test.ts and to docs/ARCHITECTURE.md').toEqual([])
  })

  it('has no cycle among value imports', () => {
    const cycle = findCycle(edges.filter((e) => !e.type))
    expect(cycle?.map(name).join(' → ') ?? 'none').toBe('none')
  })

  it('never imports up the layers, nor across to a sibling', () => {
    expect(layerViolations(edges), 'a layer imports only its own and lower ones (docs/ARCHITECTURE.md, Layers)').toEqual([])
  })

  it('states the same order as docs/ARCHITECTURE.md', () => {
    const doc = readFileSync(join(root, 'docs/ARCHITECTURE.md'), 'utf8')
    const order = LAYERS.map((line) => line.join(' | ')).join(' → ')
    expect(doc.includes(order), `docs/ARCHITECTURE.md should state the layers as: ${order}`).toBe(true)
  })
})
