// The names both doors export (`wafka` and `wafka/kafkajs`), found by the
// TypeScript checker (types and values), are the ones README's "Names on
// both doors" lists: a new shared name gets a line there saying which is which.
import { readFileSync } from 'node:fs'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

function exportedNames(program: ts.Program, file: string): Set<string> {
  const checker = program.getTypeChecker()
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!
  return new Set(checker.getExportsOfModule(module).map((s) => s.name))
}

describe('names exported by both wafka and wafka/kafkajs', () => {
  it("are the ones README's drop-in section lists", () => {
    const files = ['src/index.ts', 'src/public/kafkajs.ts']
    const program = ts.createProgram(files, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      skipLibCheck: true,
      noEmit: true,
    })
    const [root, dropin] = files.map((f) => exportedNames(program, f))
    const shared = [...root].filter((n) => dropin.has(n)).sort()
    const readme = readFileSync('README.md', 'utf8')
    const section = readme.slice(readme.indexOf('**Names on both doors.**'), readme.indexOf('## Embedded broker'))
    const table = section.split('\n').filter((l) => l.startsWith('| `'))
    const listed = table.flatMap((l) => [...l.split('|')[1].matchAll(/`(\w+)`/g)].map((m) => m[1])).sort()
    expect(shared.length).toBeGreaterThan(20)
    expect(listed).toEqual(shared)
  })
})
