/**
 * Start-up time of `wafka broker --data-dir` against the data directory's
 * size (issue 22, fast restart): what a restart reads after a clean stop and
 * after a kill -9. For each size, each wafka build given: a fresh directory
 * filled through the broker (one topic of 4 partitions, 1 KiB values, the
 * idempotent producer's 16 KiB batches, log.segment.bytes 128 MiB), the
 * broker killed with SIGKILL right after the last acknowledgement, then
 * timed from spawn to serving: the restart after the kill, then two after
 * clean stops (SIGTERM). The page cache is warm (what was just written).
 *
 *   npm run build
 *   node dist/bench/restart.js [--gb=1,10] [--cli=label=path/to/cli.js,...] [--write]
 *
 * --cli defaults to this build (after=dist/cli.js); the figures committed
 * compare it with the build before fast restart (before=…/cli.js). --write
 * writes bench/results/restart.json and restart.md.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Kafka } from '../src/index.js'
import { machine, option, repositoryRoot } from './support/environment.js'

const TOPIC = 'restart'
const PARTITIONS = 4
const VALUE = Buffer.alloc(1024, 'x')
const SEGMENT_BYTES = 128 * 1024 * 1024

interface Figure {
  build: string
  gb: number
  fillSeconds: number
  batches: number
  /** Bytes of the newest segment of each partition when it was killed: what a kill -9 restart past the recovery point checks. */
  activeBytes: number
  afterKillMs: number
  cleanMs: number[]
}

/** The newest segment's size of each partition of the topic, summed. */
function activeSegmentBytes(data: string): number {
  let sum = 0
  const broker = join(data, 'broker-0')
  for (const part of readdirSync(broker).filter((d) => d.startsWith(`${TOPIC}-`))) {
    const logs = readdirSync(join(broker, part))
      .filter((f) => /^\d{20}\.log$/.test(f))
      .sort()
    if (logs.length) sum += statSync(join(broker, part, logs.at(-1)!)).size
  }
  return sum
}

const sizes = (option('gb') ?? '1').split(',').map(Number)
const builds = (option('cli') ?? `after=${join(repositoryRoot(), 'dist', 'cli.js')}`).split(',').map((s) => {
  const [label, path] = s.split('=')
  return { label, cli: resolve(path) }
})

/** Starts `wafka broker` on `dir`; resolves with the process and its bootstrap servers once it serves. */
function startBroker(cli: string, dir: string, config: string): Promise<{ child: ChildProcess; bootstrap: string; ms: number }> {
  const t0 = process.hrtime.bigint()
  const child = spawn(process.execPath, [cli, 'broker', '--port', '0', '--data-dir', dir, '--config', config], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /bootstrap servers (\S+)/.exec(out)
      if (m) {
        child.stdout!.removeAllListeners('data')
        child.stdout!.resume()
        resolve({ child, bootstrap: m[1], ms: Number(process.hrtime.bigint() - t0) / 1e6 })
      }
    })
    child.once('exit', (code) => reject(new Error(`wafka broker exited (${code}) before serving: ${out}`)))
  })
}

function stopBroker(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit')
    child.once('exit', () => resolve())
    child.kill(signal)
  })
}

/** Produces `bytes` of 1 KiB records; returns how many batches that was (16 KiB each, about). */
async function fill(bootstrap: string, bytes: number): Promise<number> {
  const kafka = new Kafka({ clientId: 'restart-bench', brokers: bootstrap.split(','), logLevel: 0 })
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] })
  await admin.disconnect()
  const producer = kafka.producer({ batchSize: 16_384, lingerMs: 5 })
  await producer.connect()
  const total = Math.ceil(bytes / VALUE.length)
  const chunk = 1000
  let sent = 0
  let last = Date.now()
  const inflight = new Set<Promise<unknown>>()
  while (sent < total) {
    const n = Math.min(chunk, total - sent)
    const p = producer.send({ topic: TOPIC, messages: Array.from({ length: n }, () => ({ value: VALUE })) })
    inflight.add(p)
    void p.finally(() => inflight.delete(p))
    sent += n
    if (inflight.size >= 32) await Promise.race(inflight)
    if (Date.now() - last > 10_000) {
      last = Date.now()
      process.stderr.write(`  ${((sent * VALUE.length) / 2 ** 30).toFixed(1)} GiB\n`)
    }
  }
  await Promise.all(inflight)
  await producer.disconnect()
  return Math.ceil((total * VALUE.length) / 16_384)
}

async function measure(build: { label: string; cli: string }, gb: number): Promise<Figure> {
  const dir = mkdtempSync(join(tmpdir(), 'wafka-restart-bench-'))
  const config = join(dir, 'server.properties')
  const data = join(dir, 'data')
  writeFileSync(config, `log.segment.bytes=${SEGMENT_BYTES}\nnum.partitions=${PARTITIONS}\n`)
  try {
    let b = await startBroker(build.cli, data, config)
    const t0 = Date.now()
    const batches = await fill(b.bootstrap, gb * 2 ** 30)
    const fillSeconds = (Date.now() - t0) / 1000
    await stopBroker(b.child, 'SIGKILL')
    const activeBytes = activeSegmentBytes(data)
    b = await startBroker(build.cli, data, config)
    const afterKillMs = b.ms
    const cleanMs: number[] = []
    for (let i = 0; i < 2; i++) {
      await stopBroker(b.child, 'SIGTERM')
      b = await startBroker(build.cli, data, config)
      cleanMs.push(b.ms)
    }
    await stopBroker(b.child, 'SIGTERM')
    const f = { build: build.label, gb, fillSeconds, batches, activeBytes, afterKillMs, cleanMs }
    process.stderr.write(`${JSON.stringify(f)}\n`)
    return f
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const figures: Figure[] = []
for (const gb of sizes) for (const build of builds) figures.push(await measure(build, gb))

const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${Math.round(n)} ms`)
const table = [
  '| data | build | after kill -9 | (active segments then) | after a clean stop |',
  '| ---: | --- | ---: | ---: | ---: |',
  ...figures.map(
    (f) =>
      `| ${f.gb} GiB | ${f.build} | ${ms(f.afterKillMs)} | ${(f.activeBytes / 2 ** 20).toFixed(0)} MiB | ${ms(Math.min(...f.cleanMs))} |`,
  ),
].join('\n')
process.stdout.write(`${table}\n`)
if (process.argv.includes('--write')) {
  const dir = join(repositoryRoot(), 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'restart.json'), `${JSON.stringify({ date: new Date().toISOString(), machine: machine(), figures }, null, 2)}\n`)
  writeFileSync(
    join(dir, 'restart.md'),
    `# wafka broker --data-dir: start-up time against data size\n\n` +
      `\`node dist/bench/restart.js --write\` (bench/restart.ts): one topic of ${PARTITIONS} partitions, 1 KiB records in the idempotent producer's 16 KiB batches, ` +
      `log.segment.bytes ${SEGMENT_BYTES / 2 ** 20} MiB; from spawn to serving (the best of two restarts after a clean stop), page cache warm. ` +
      `Before: every batch header of every segment read (after a kill -9 every batch read and its CRC-32C checked); after: the segments below the recovery point trusted, ` +
      `so a kill -9 restart checks the active segments (their size when killed is in the table: it depends on where the fill ended in a segment) and a clean one reads the active segments' last index interval. ` +
      `Machine: ${machine().cpu}, ${machine().cores} cores (shared), ${machine().memoryGiB} GiB, ${machine().node}.\n\n${table}\n`,
  )
}
