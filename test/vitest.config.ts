import { readFileSync } from 'node:fs'
import { configDefaults, defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { builtPackage, type BuiltFormat } from './built-package.js'

// What runs again against the built package (dist/, ESM and CJS) after the
// whole suite has run against src/: the public surface and every exported
// name, the KafkaJS drop-in's suite, a slice of the client suites (a round
// trip both ways, every error class a hostile broker makes us throw, the
// share-group scenarios and a share partition's leader change on the
// embedded broker), the codec's checksums and batch round trips (the built
// wasm), and wafka/streams (its topology builder, a word count on the
// bundled broker, the stream-stream joins and session windows held to Java's on it,
// persistent stores across restarts and the record cache), and the embedded
// broker's network thread. The runtime smoke tests (test/runtimes) load dist/
// themselves.
export const builtSlice = [
  'test/public-surface.test.ts',
  'test/built-names.test.ts',
  'test/crc.test.ts',
  'test/batch.test.ts',
  'test/batch-header.test.ts',
  'test/legacy.test.ts',
  'test/kafkajs/*.test.ts',
  'test/hostile/fake-broker.test.ts',
  'test/hostile/failure-classes.test.ts',
  'test/hostile/truncated-batch.test.ts',
  'test/hostile/halted-partition.test.ts',
  'test/producer/producer.test.ts',
  'test/consumer/consumer.test.ts',
  'test/observe/channels.test.ts',
  'test/observe/otel.test.ts',
  'test/observe/statistics.test.ts',
  'test/kafka/share-groups-cluster.test.ts',
  'test/kafka/share-leader-change.test.ts',
  'test/streams/shipped.test.ts',
  'test/streams/topology.test.ts',
  'test/streams/stream-stream-join.test.ts',
  'test/streams/errors.test.ts',
  'test/streams/interactive-queries.test.ts',
  'test/streams/processor-api.test.ts',
  'test/streams/session-windows.test.ts',
  'test/streams/sliding-windows.test.ts',
  'test/streams/suppress.test.ts',
  'test/streams/global-table.test.ts',
  'test/streams/state-dir.test.ts',
  'test/streams/record-cache.test.ts',
  // The broker's network thread runs from its function's source text: the bundle's must run too.
  'test/broker/network-thread.test.ts',
]
// Unit tests of the drop-in's inner pieces, which the package does not export.
const notBuilt = ['test/kafkajs/layer.test.ts']

const built = (format: BuiltFormat) => ({
  extends: true as const,
  plugins: [builtPackage(format)],
  test: {
    name: `built-${format}`,
    include: builtSlice,
    // Read by tests that leave out, against dist/, what only tests a peer (share-groups-cluster.test.ts: real Kafka).
    env: { WAFKA_BUILT: format },
    exclude: [...configDefaults.exclude, ...notBuilt],
    server: { deps: { external: [/\/dist\/[^/]+\.c?js$/] } },
  },
})

// Files that hold a worker for minutes (librdkafka's own suite, its lists
// run concurrently and mostly wait on their peers; franz-go's, about 1.5
// minutes) start first, so the other worker drains the rest beside them
// instead of after them.
const longFirst = [/test\/broker\/librdkafka-suite/, /test\/broker\/franz-go-suite/]
class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const sorted = await super.sort(files)
    const long = (f: TestSpecification) => longFirst.some((re) => re.test(f.moduleId))
    return [...sorted.filter(long), ...sorted.filter((f) => !long(f))]
  }
}

// The bundle inlines dist/wafka.wasm (esbuild's binary loader); tests load
// the same bytes the same way, so they exercise the built module.
export default defineConfig({
  plugins: [
    {
      name: 'wasm-bytes',
      enforce: 'pre',
      load(id) {
        if (!id.endsWith('.wasm')) return null
        const b64 = readFileSync(id).toString('base64')
        return `export default Uint8Array.from(atob(${JSON.stringify(b64)}), (c) => c.charCodeAt(0))`
      },
    },
  ],
  test: {
    root: new URL('..', import.meta.url).pathname,
    // Both cores: most files wait on sockets, timers and peer processes.
    maxWorkers: 2,
    sequence: { sequencer: LongFirst },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The streams tests' default stateDir: a fresh one per test.
    setupFiles: ['test/streams/state-dir-setup.ts'],
    projects: [{ extends: true, test: { name: 'src', include: ['test/**/*.test.ts'] } }, built('esm'), built('cjs')],
  },
})
