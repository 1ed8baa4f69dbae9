// Rewrites the configuration reference in README.md (npm run generate:readme).
import { readFileSync, writeFileSync } from 'node:fs'
import { REFERENCE_BEGIN, REFERENCE_END, configurationReference } from './reference.js'

const path = process.argv[2] ?? 'README.md'
const readme = readFileSync(path, 'utf8')
const start = readme.indexOf(REFERENCE_BEGIN)
const end = readme.indexOf(REFERENCE_END)
if (start < 0 || end < start) throw new Error(`${path} has no configuration reference markers`)
writeFileSync(path, readme.slice(0, start) + configurationReference() + readme.slice(end + REFERENCE_END.length))
