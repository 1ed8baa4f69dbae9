// Writes what the option tables document (npm run generate:readme): the
// configuration reference in README.md and the options interfaces' JSDoc.
// Run from the repository root.
import { readFileSync, writeFileSync } from 'node:fs'
import { REFERENCE_BEGIN, REFERENCE_END } from '../config/reference.js'
import { configurationReference, documentedFiles, withGeneratedJsDoc } from './option-docs.js'

const path = process.argv[2] ?? 'README.md'
const readme = readFileSync(path, 'utf8')
const start = readme.indexOf(REFERENCE_BEGIN.slice(0, REFERENCE_BEGIN.indexOf(':')))
const end = readme.indexOf(REFERENCE_END)
if (start < 0 || end < start) throw new Error(`${path} has no configuration reference markers`)
writeFileSync(path, readme.slice(0, start) + configurationReference() + readme.slice(end + REFERENCE_END.length))

for (const file of documentedFiles()) {
  const source = readFileSync(file, 'utf8')
  const written = withGeneratedJsDoc(file, source)
  if (written !== source) writeFileSync(file, written)
}
