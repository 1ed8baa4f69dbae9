// The maps cannot go stale silently: every folder of src/ (and every file at
// its top) is named in docs/ARCHITECTURE.md, every top folder of src/ in the
// README's Layout, and every path either names exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(new URL('..', import.meta.url).pathname)
const read = (path: string) => readFileSync(join(root, path), 'utf8')

/**
 * The repository paths a text names: src/…, test/…, bench/…, assembly/…,
 * docs/…, without a trailing slash or full stop. A placeholder or glob
 * (`src/protocol/messages/<Api>.ts`, `test/**`) names the folder before it.
 */
function pathsIn(text: string): string[] {
  const found = text.match(/(?<![\w./-])(?:src|test|bench|assembly|docs)\/[\w./-]*/g) ?? []
  return [...new Set(found.map((p) => p.replace(/[./]+$/, '')))]
}

/**
 * The files a map table names by their bare name (`wasm.ts`), as paths: each
 * in one of the folders the row's first cell names (or the row above's, when
 * the cell is empty); a file named in a first cell stands for its folder.
 */
function tableFiles(text: string): string[] {
  let dirs: string[] = []
  return text
    .split('\n')
    .filter((line) => line.startsWith('| '))
    .flatMap((line) => {
      const [first, ...rest] = line.slice(1).split(' | ')
      const paths = pathsIn(first)
      if (paths.length > 0) dirs = paths.map((p) => (/\.\w+$/.test(p) ? p.replace(/\/[^/]+$/, '') : p))
      const bare = [first, ...rest].join(' ').match(/(?<=`)[\w.-]+\.(?:ts|mjs|c|java)(?=`)/g) ?? []
      return bare.map((name) => dirs.map((d) => `${d}/${name}`).find((p) => existsSync(join(root, p))) ?? `${dirs.join(' or ')}/${name}`)
    })
}

function folders(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [`${dir}/${e.name}`, ...folders(`${dir}/${e.name}`)])
}

const missing = (paths: string[]) => paths.filter((p) => !existsSync(join(root, p)))
const layout = () => {
  const readme = read('README.md')
  const start = readme.indexOf('## Layout')
  expect(start, "README.md has a '## Layout' section").toBeGreaterThan(0)
  const end = readme.indexOf('\n## ', start + 1)
  return readme.slice(start, end < 0 ? undefined : end)
}

describe('docs/ARCHITECTURE.md', () => {
  const doc = read('docs/ARCHITECTURE.md')
  const named = pathsIn(doc)

  it('names every folder of src/ and every file at its top', () => {
    const topFiles = readdirSync(join(root, 'src')).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    const wanted = [...folders('src'), ...topFiles.map((f) => `src/${f}`)]
    const findable = (p: string) => named.some((n) => n === p || n.startsWith(`${p}/`))
    expect(
      wanted.filter((p) => !findable(p)),
      'add them to docs/ARCHITECTURE.md',
    ).toEqual([])
  })

  it('names only paths that exist', () => {
    expect(named.length).toBeGreaterThan(50)
    expect(missing(named), 'named in docs/ARCHITECTURE.md but not in the tree').toEqual([])
  })

  it("names in its tables only files that exist in the row's folders", () => {
    expect(tableFiles(doc).length).toBeGreaterThan(100)
    expect(missing(tableFiles(doc)), 'named in a table of docs/ARCHITECTURE.md but not in the tree').toEqual([])
  })
})

describe("README.md's Layout", () => {
  it('names every top folder of src/, and only paths that exist', () => {
    const named = pathsIn(layout())
    const tops = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `src/${e.name}`)
    expect(
      tops.filter((t) => !named.includes(t)),
      "add them to README.md's Layout",
    ).toEqual([])
    expect(missing(named), "named in README.md's Layout but not in the tree").toEqual([])
  })
})
