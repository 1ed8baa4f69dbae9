// The brokers the peer suites (librdkafka-suite.mjs, franz-go-suite.mjs) run
// against, as a user runs them: `wafka broker` from the built package as a
// child process, or a 3-broker Apache Kafka 4.4 cluster from the rig
// (test/peers/kafka.ts, bundled by esbuild so plain node can load it).
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { RIG_INTERNAL_TOPICS } from './internal-topics.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..', '..')

/**
 * Starts `wafka broker` from the built package (dist/cli.js) as a child
 * process; `args` are more of its flags (--sasl-users FILE, ...), `config`
 * Kafka broker settings (given as a --config properties file) over
 * RIG_INTERNAL_TOPICS, as the Kafka rig's.
 */
export async function startWafka({ dataDir, autoCreate = true, brokers = 3, partitions = 4, args = [], config: own = {} } = {}) {
  const config = { ...RIG_INTERNAL_TOPICS, ...own }
  const cli = join(root, 'dist', 'cli.js')
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build`)
  const shown = ['--brokers', String(brokers), '--partitions', String(partitions)]
  if (dataDir) shown.push('--data-dir', 'DIR')
  if (!autoCreate) shown.push('--no-auto-create-topics')
  shown.push(...args)
  let file
  if (Object.keys(config).length) {
    file = join(mkdtempSync(join(tmpdir(), 'wafka-broker-config-')), 'server.properties')
    writeFileSync(
      file,
      Object.entries(config)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
    )
    shown.push(
      '--config',
      Object.entries(config)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    )
  }
  const flags = [...shown.map((f) => (f === 'DIR' ? dataDir : f)), '--port', '0']
  if (file) flags.splice(flags.indexOf('--config') + 1, 1, file)
  // WAFKA_BROKER_NODE_ARGS: node's own flags for the broker process (--cpu-prof, --heap-prof, ...: not allowed in NODE_OPTIONS).
  const nodeArgs = (process.env.WAFKA_BROKER_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawn(process.execPath, [...nodeArgs, cli, 'broker', ...flags], { stdio: ['ignore', 'pipe', 'pipe'] })
  const output = []
  const bootstrap = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output.push(String(chunk))
      const m = /bootstrap servers (\S+)/.exec(output.join(''))
      if (m) resolve(m[1])
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', (code) => reject(new Error(`wafka broker exited (${code}): ${output.join('')}`)))
    setTimeout(() => reject(new Error(`wafka broker did not start in 30 s: ${output.join('')}`)), 30_000).unref()
  })
  return {
    bootstrap,
    pid: child.pid,
    describe: `wafka broker ${shown.join(' ')} (dist/cli.js)`,
    /** What it printed so far (problems it reported on stderr among it). */
    output: () => output.join(''),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref()
      }),
  }
}

/**
 * The Kafka rig (test/peers/kafka.ts), bundled by esbuild into the cache so
 * plain node can load it. node_modules may be a checkout's shared by other
 * worktrees: the bundle is named for this checkout, and told it is this
 * checkout's kafka.ts (import.meta.url), so it finds this checkout's
 * test/peers/kafka files rather than those beside the real node_modules.
 */
export async function kafkaRig() {
  const tag = createHash('sha256').update(root).digest('hex').slice(0, 12)
  const out = join(root, 'node_modules', '.cache', 'wafka-peers', `kafka-rig-${tag}.mjs`)
  const { build } = await import('esbuild')
  await build({
    entryPoints: [join(here, 'kafka.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: out,
    logLevel: 'error',
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(join(here, 'kafka.ts')).href) },
  })
  return import(pathToFileURL(out).href)
}

/**
 * Starts 3 KRaft brokers of Apache Kafka 4.4 with the rig; `options` go to
 * its startKafka (listeners, formatArgs, config on top of these).
 */
export async function startRealKafka({ autoCreate = true, ...options } = {}) {
  const { startKafka } = await kafkaRig()
  const cluster = await startKafka({
    brokers: 3,
    ...options,
    config: { 'num.partitions': '4', 'auto.create.topics.enable': String(autoCreate), ...options.config },
  })
  return {
    bootstrap: cluster.bootstrap,
    cluster,
    describe: `Apache Kafka ${cluster.version}, 3 KRaft brokers (test/peers/kafka.ts, num.partitions=4${autoCreate ? '' : ', auto.create.topics.enable=false'})`,
    stop: () => cluster.stop(),
  }
}
