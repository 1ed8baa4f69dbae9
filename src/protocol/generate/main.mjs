// Writes src/protocol/messages/ and src/protocol/error-codes.ts from Kafka's
// message definitions.
//   node src/protocol/generate/main.mjs [--check] [spec dir]
// The spec dir defaults to src/protocol/spec, the project's copy of Kafka's
// definitions (its README says where they come from).
// --check writes nothing and fails if the committed files differ.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MESSAGES_OUT, generate } from './generate.mjs'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const args = process.argv.slice(2)
const check = args.includes('--check')
const specDir = resolve(args.find((a) => !a.startsWith('--')) ?? join(root, 'src', 'protocol', 'spec'))

const files = generate(specDir)
const stale = existsSync(join(root, MESSAGES_OUT))
  ? readdirSync(join(root, MESSAGES_OUT))
      .map((f) => `${MESSAGES_OUT}/${f}`)
      .filter((path) => !files.has(path))
  : []

if (check) {
  const read = (path) => {
    try {
      return readFileSync(join(root, path), 'utf8')
    } catch {
      return null
    }
  }
  const differ = [...files].filter(([path, text]) => read(path) !== text).map(([path]) => path)
  for (const path of [...differ, ...stale]) console.error(`out of date: ${path}`)
  if (differ.length + stale.length > 0) {
    console.error('run `npm run generate:protocol`')
    process.exit(1)
  }
  console.log(`${files.size} generated files are up to date with ${specDir}`)
} else {
  mkdirSync(join(root, MESSAGES_OUT), { recursive: true })
  for (const path of stale) rmSync(join(root, path))
  for (const [path, text] of files) writeFileSync(join(root, path), text)
  console.log(`wrote ${files.size} files from ${specDir}`)
}
