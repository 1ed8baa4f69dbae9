// `npm run build:js`: the bundles package.json's "exports" and "bin" name.
//
// - ESM: one build of every client entry point with shared chunks, so
//   `wafka`, `wafka/codec`, `wafka/protocol`, `wafka/kafkajs` and
//   `wafka/streams` share their classes and one wasm instance.
// - CJS: the same promise for require(): one bundle (src/public/cjs.ts) holds
//   the root, codec, protocol and streams entries as namespaces, and each
//   dist/<entry>.cjs hands out its part. The KafkaJS drop-in is a bundle of its
//   own there: in the shared one it made require('wafka') a quarter slower.
// - wafka/otel: a bundle of its own in each format (it alone loads @opentelemetry/api).
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

const entries = {
  index: 'src/index.ts',
  codec: 'src/public/codec.ts',
  protocol: 'src/public/protocol.ts',
  kafkajs: 'src/public/kafkajs.ts',
  streams: 'src/public/streams.ts',
}
const sharedCjs = ['index', 'codec', 'protocol', 'streams']
// bench/<name>.ts → dist/bench/<name>.js, run by `npm run bench*` (package.json).
const benches = [
  'codec',
  'codec-runtimes',
  'producer',
  'consumer',
  'charts',
  'broker',
  'profile',
  'profile-child',
  'metadata-memory',
  'channels',
  'restart',
  'share',
  'streams',
]

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
  // wafka/otel loads @opentelemetry/api (an optional peer): a bundle of its own in both formats, so no other
  // entry loads it. It shares nothing with the others but the tracing channels' names, which are global.
  node('src/public/otel.ts', 'esm', 'dist/otel.js'),
  node('src/public/otel.ts', 'cjs', 'dist/otel.cjs'),
  ...sharedCjs.map((name) =>
    writeFile(
      `${root}dist/${name}.cjs`,
      `'use strict'\n// wafka${name === 'index' ? '' : `/${name}`} for require(): the bundle behind the root, codec, protocol and streams entries.\nmodule.exports = require('./chunks/wafka.cjs').${name}\n`,
    ),
  ),
  node('src/cli.ts', 'esm', 'dist/cli.js'),
  node('src/broker/index.ts', 'esm', 'dist/broker.js'),
  node('src/broker/index.ts', 'cjs', 'dist/broker.cjs'),
  ...benches.map((b) => node(`bench/${b}.ts`, 'esm', `dist/bench/${b}.js`)),
])
