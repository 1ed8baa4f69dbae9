// `npm run build:js`: the bundles package.json's "exports" and "bin" name.
//
// - ESM: one build of every client entry point with shared chunks, so
//   `wafka`, `wafka/codec`, `wafka/protocol` and `wafka/kafkajs` share their
//   classes and one wasm instance.
// - CJS: the same promise for require(): one bundle (src/public/cjs.ts) holds
//   the root, codec and protocol entries as namespaces, and each
//   dist/<entry>.cjs hands out its part. The KafkaJS drop-in is a bundle of its
//   own there: in the shared one it made require('wafka') a quarter slower.
// - The CLI, the embedded broker and the benchmarks: a bundle each. The
//   benchmarks land in dist/bench/, which the package does not ship.
//
// Names are not kept (keepNames costs ~15% of the import); a class that names
// itself in its own body, or whose name another module uses, is renamed by
// esbuild, so the source avoids that for exported classes, and
// test/built-names.test.ts pins every exported name.
import { build } from 'esbuild'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
const common = {
  absWorkingDir: root,
  bundle: true,
  loader: { '.wasm': 'binary' },
  packages: 'external',
  target: 'es2022',
  logLevel: 'warning',
}
const node = (entry, format, outfile) => build({ ...common, entryPoints: [entry], platform: 'node', format, outfile })

// The codec benchmark measures wafka as a user runs it: its imports of the
// root and codec entries resolve to the built dist/index.js and dist/codec.js
// (one wasm instance, the shipped bytes), not to a second bundle of src/.
const builtEntries = {
  name: 'built-entries',
  setup(b) {
    const shipped = { 'src/index.ts': '../index.js', 'src/public/codec.ts': '../codec.js' }
    b.onResolve({ filter: /(^|\/)(index|codec)\.js$/ }, async (args) => {
      if (args.pluginData === 'inner') return undefined
      const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'inner' })
      const path = resolved.path.slice(root.length)
      return path in shipped ? { path: shipped[path], external: true } : resolved
    })
  },
}
const builtBenches = new Set(['codec'])

const entries = {
  index: 'src/index.ts',
  codec: 'src/public/codec.ts',
  protocol: 'src/public/protocol.ts',
  kafkajs: 'src/public/kafkajs.ts',
}
const sharedCjs = ['index', 'codec', 'protocol']
// bench/<name>.ts → dist/bench/<name>.js, run by `npm run bench*` (package.json).
const benches = ['codec', 'codec-runtimes', 'producer', 'consumer', 'charts', 'broker', 'profile', 'profile-child', 'metadata-memory']

// Chunks are named by hash: old ones would pile up beside the new.
await rm(`${root}dist/chunks`, { recursive: true, force: true })
await mkdir(`${root}dist`, { recursive: true })
await Promise.all([
  build({
    ...common,
    entryPoints: Object.entries(entries).map(([out, entry]) => ({ in: entry, out })),
    splitting: true,
    platform: 'neutral',
    format: 'esm',
    outdir: 'dist',
    chunkNames: 'chunks/[name]-[hash]',
  }),
  node('src/public/cjs.ts', 'cjs', 'dist/chunks/wafka.cjs'),
  node('src/public/kafkajs.ts', 'cjs', 'dist/kafkajs.cjs'),
  ...sharedCjs.map((name) =>
    writeFile(
      `${root}dist/${name}.cjs`,
      `'use strict'\n// wafka${name === 'index' ? '' : `/${name}`} for require(): the bundle behind the root, codec and protocol entries.\nmodule.exports = require('./chunks/wafka.cjs').${name}\n`,
    ),
  ),
  node('src/cli.ts', 'esm', 'dist/cli.js'),
  node('src/broker/index.ts', 'esm', 'dist/broker.js'),
  node('src/broker/index.ts', 'cjs', 'dist/broker.cjs'),
  ...benches.map((b) =>
    build({
      ...common,
      entryPoints: [`bench/${b}.ts`],
      platform: 'node',
      format: 'esm',
      outfile: `dist/bench/${b}.js`,
      plugins: builtBenches.has(b) ? [builtEntries] : [],
    }),
  ),
])
