// The CommonJS typings: after tsc writes dist/types/**/*.d.ts (ESM, as the
// package is "type": "module"), each gets a .d.cts twin whose relative imports
// name .cjs, so TypeScript sees the `require` condition's files as CommonJS
// (node16/nodenext: no TS1479) and node10's typesVersions finds them. One
// source, two declaration formats; run by `npm run build:types`.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('../../dist/types/', import.meta.url).pathname
// A relative specifier ending in .js, in `from '…'`, `import('…')` or `export … from '…'`.
const RELATIVE_JS = /((?:from\s+|import\()['"])(\.{1,2}\/[^'"]*?)\.js(['"])/g

let count = 0
for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue
  const file = join(entry.parentPath, entry.name)
  const text = readFileSync(file, 'utf8').replace(RELATIVE_JS, '$1$2.cjs$3')
  writeFileSync(file.slice(0, -'.d.ts'.length) + '.d.cts', text)
  count++
}
console.log(`cjs-typings: ${count} .d.cts files beside their .d.ts in dist/types`)
