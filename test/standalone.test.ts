// The repository stands on its own: a clone with nothing beside it builds
// and tests. Nothing may reach outside it for the protocol definitions, the
// design notes or anything else.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const skipDirs = new Set(['node_modules', 'dist', '.git'])
// Built from parts so that this file does not match itself.
const outside = new RegExp(['\\.\\./', 'shared'].join('') + '|' + ['shared', '/(kafka-protocol|DESIGN)'].join(''))

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (skipDirs.has(name)) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) yield* files(path)
    else yield path
  }
}

it('no file of the project refers to a folder outside the repository', () => {
  const offenders: string[] = []
  for (const path of files(root)) {
    if (statSync(path).size > 4_000_000) continue // lockfiles and results are small; nothing large is text of ours
    const lines = readFileSync(path, 'utf8').split('\n')
    lines.forEach((line, i) => {
      if (outside.test(line)) offenders.push(`${relative(root, path)}:${i + 1}: ${line.trim().slice(0, 120)}`)
    })
  }
  expect(offenders).toEqual([])
})

it('the protocol definitions the generator reads are in the project', () => {
  const messages = readdirSync(join(root, 'src/protocol/spec/messages')).filter((f) => f.endsWith('.json'))
  expect(messages.length).toBeGreaterThanOrEqual(186)
  for (const f of ['error-codes.tsv', 'record-batch-v2.md', 'README.md']) {
    expect(statSync(join(root, 'src/protocol/spec', f)).size, f).toBeGreaterThan(0)
  }
})
