/**
 * Where a one-shot run's time goes: the cold run issue 16 describes, in a
 * fresh process under the V8 CPU profiler (started through node:inspector
 * just before wafka is imported, so the benchmark's own data set-up is left
 * out) and --trace-gc, summarized as the top self-time functions and the GC
 * counts (bench/results/profile-producer.md, profile-consumer.md); and the
 * cold-start figures (bench/results/cold-start.md): the same runs unprofiled,
 * the first acknowledged send after `new Kafka()`, the import alone.
 *
 *   npm run bench:profile   (builds, then runs it in full and writes the results; about 1 minute)
 *   or: npm run build (bundles it into dist/bench/), then:
 *   node dist/bench/profile.js [--only=producer|consumer|first-send] [--runs=N] [--no-prof] [--write]
 *
 * producer: a fresh process imports dist/index.js (the published bundle),
 * connects, sends 500,000 messages (16-byte key, 100-byte value) to a
 * 64-partition topic on librdkafka 2.15's mock (3 brokers) in send() calls
 * of 1,000 with 10 in flight, and exits; the clock starts before
 * `new Kafka()`, so connect is in it. Scenarios: acks=1 and idempotent
 * acks=all, uncompressed and lz4.
 * consumer: the parent produces 1,000,000 messages to a 64-partition topic;
 * a fresh process connects, subscribes from the beginning and reads them
 * through eachBatch (and, a second scenario, eachMessage), touching every key and value, and exits.
 *
 * --bundle=a.js,b.js alternates the wafka bundles run (before/after
 * comparisons, interleaved; use an even --runs).
 * --messages=N sends N messages in the producer runs (the cold cost is
 * what a short run adds over a long one). --node-flags="..." starts the
 * unprofiled children with those Node/V8 flags (--trace-opt, --no-opt,
 * --max-semi-space-size=...), --child-output shows what they print.
 * --runs=N runs each scenario N times without the profiler for the figures
 * (the profiled run is slower); --write writes bench/results/profile-*.md.
 * The figures are CPU time (process.cpuUsage) per message, since the
 * machine is shared.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { windowed, startRig } from './support/clients.js'
import { CHUNK, INFLIGHT, type ChildFigures, type Job, type Scenario } from './profile-child.js'
import { MESSAGE_POOL as POOL, messagePool } from './support/data.js'
import { machine, option, repositoryRoot, wafkaRevision } from './support/environment.js'
import { selfTimes } from './support/cpu-profile.js'

const PARTITIONS = 64
const PRODUCE_MESSAGES = Number(option('messages') ?? 500_000)
const CONSUME_MESSAGES = 1_000_000
const TOP = 25

const name = (s: Scenario) =>
  s.kind === 'first-send'
    ? 'first send (1 message, defaults)'
    : `${s.kind} acks=${s.acks === -1 ? 'all' : '1'}, ${s.compression === 'none' ? 'uncompressed' : s.compression}`.replace(
        /^consumer acks=1, /,
        'consumer ',
      ) +
      (s.each === 'message' ? ', eachMessage' : '') +
      (s.times ? `, ${(s.times * PRODUCE_MESSAGES).toLocaleString('en')} messages` : '') +
      (s.nodeFlags ? `, node ${s.nodeFlags.join(' ')}` : '')

// ---- parent --------------------------------------------------------------------

/** --trace-gc lines: counts and pause sums per kind. */
function gcCounts(out: string): Record<string, { count: number; ms: number }> {
  const kinds: Record<string, { count: number; ms: number }> = {}
  for (const line of out.split('\n')) {
    const m = /ms: (Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Sweep|Minor Mark-Compact)[^,]*?,\s*([\d.]+)\s*\/\s*([\d.]+)\s*ms/.exec(line)
    if (!m) continue
    const k = (kinds[m[1]] ??= { count: 0, ms: 0 })
    k.count++
    k.ms += Number(m[2])
  }
  return kinds
}

function runChild(job: Job, prof: string | null): Promise<{ figures: ChildFigures; out: string }> {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'profile-child.js')
  const flags = prof ? ['--trace-gc'] : (job.nodeFlags ?? option('node-flags')?.split(' ').filter(Boolean) ?? [])
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [...flags, script, `--child=${JSON.stringify(job)}`, ...(prof ? [`--profile-dir=${prof}`] : [])], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    c.stdout.setEncoding('utf8')
    c.stdout.on('data', (s: string) => {
      if (process.argv.includes('--child-output')) process.stderr.write(s)
      out += s
    })
    const timer = setTimeout(() => c.kill('SIGKILL'), 120_000)
    c.on('exit', (code) => {
      clearTimeout(timer)
      const m = /RESULT (.*)/.exec(out)
      if (code !== 0 || !m) reject(new Error(`${name(job)}: child exited ${code}: ${out.slice(-2000)}`))
      else resolve({ figures: JSON.parse(m[1]), out: out.slice(out.indexOf('--- measured part starts ---')) })
    })
  })
}

const f1 = (x: number) => x.toFixed(1)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

function figureLine(s: Scenario, f: ChildFigures): string {
  const usPerMsg = (f.cpuS / f.messages) * 1e6
  const rate = f.messages / (f.totalMs / 1000)
  return `${name(s)}: ${Math.round(rate / 1000)} k msg/s, ${usPerMsg.toFixed(2)} µs CPU/msg (${f.cpuS.toFixed(2)} s${f.mainThreadS === null ? '' : `: main thread ${f.mainThreadS.toFixed(2)} s, other threads ${(f.cpuS - f.mainThreadS).toFixed(2)} s`}; whole process ${f.processCpuS.toFixed(2)} s), import ${f1(f.importMs)} ms, connect ${f1(f.connectMs)} ms, first ${s.kind === 'consumer' ? 'batch' : 'ack'} ${f1(f.firstMs)} ms, total ${Math.round(f.totalMs)} ms, ${f.writes} socket writes, peak RSS ${Math.round(f.peakRssMiB)} MiB (${Math.round(f.startRssMiB)} MiB as the process started, ${Math.round(f.importedRssMiB)} MiB after the import; at the peak: V8 heap ${Math.round(f.atPeakMiB.heapTotal)} MiB of which ${Math.round(f.atPeakMiB.heapUsed)} used, ArrayBuffers ${Math.round(f.atPeakMiB.arrayBuffers)} MiB, external ${Math.round(f.atPeakMiB.external)} MiB)`
}

async function parent(): Promise<void> {
  const only = option('only')
  const runs = Number(option('runs') ?? 3)
  const profile = !process.argv.includes('--no-prof')
  const write = process.argv.includes('--write')
  const scenarios: Scenario[] = [
    { kind: 'producer', acks: 1, compression: 'none' },
    { kind: 'producer', acks: -1, compression: 'none' },
    { kind: 'producer', acks: 1, compression: 'lz4' },
    { kind: 'producer', acks: -1, compression: 'lz4' },
    { kind: 'producer', acks: 1, compression: 'none', times: 4 },
    { kind: 'producer', acks: 1, compression: 'none', nodeFlags: ['--no-opt'] },
    { kind: 'consumer', acks: 1, compression: 'none' },
    { kind: 'consumer', acks: 1, compression: 'none', each: 'message' },
    { kind: 'first-send', acks: -1, compression: 'none' },
  ].filter((s) => !only || s.kind === only) as Scenario[]
  const root = repositoryRoot()
  const bundles = (option('bundle') ?? join(root, 'dist', 'index.js')).split(',')
  const rig = await startRig('mock', { consumers: true })
  const { cluster } = rig
  const reports: Record<string, string[]> = { producer: [], consumer: [] }
  let consumeTopic: string | undefined
  try {
    if (scenarios.some((s) => s.kind === 'consumer')) {
      consumeTopic = `profile-consume-${process.pid}`
      await rig.createTopic(consumeTopic, PARTITIONS)
      const { Kafka } = await import(pathToFileURL(join(root, 'dist', 'index.js')).href)
      const producer = new Kafka({ clientId: 'profile-data', brokers: cluster.bootstrap.split(',') }).producer({
        lingerMs: 5,
        batchSize: 65536,
      })
      await producer.connect()
      const { keys, values } = messagePool()
      await windowed(0, CONSUME_MESSAGES, 16, CHUNK, (a, b) => {
        const messages = new Array(b - a)
        for (let i = a; i < b; i++) messages[i - a] = { key: keys[i & (POOL - 1)], value: values[i & (POOL - 1)] }
        return producer.send({ topic: consumeTopic!, messages })
      })
      await producer.disconnect()
    }
    /** The last bundle's figures (the one written), and the others'. */
    const figures = new Map<Scenario, ChildFigures[]>()
    const before = new Map<Scenario, ChildFigures[]>()
    let seq = 0
    const jobFor = async (s: Scenario, bundle = bundles[bundles.length - 1]): Promise<Job> => {
      const n = seq++
      if (s.kind === 'consumer')
        return {
          ...s,
          bundle,
          bootstrap: cluster.bootstrap,
          topic: consumeTopic!,
          messages: CONSUME_MESSAGES,
          groupId: `profile-${process.pid}-${n}`,
        }
      const topic = `profile-${process.pid}-${n}`
      await rig.createTopic(topic, PARTITIONS)
      const messages = s.kind === 'first-send' ? 1 : PRODUCE_MESSAGES * (s.times ?? 1)
      return { ...s, bundle, bootstrap: cluster.bootstrap, topic, messages, groupId: '' }
    }
    // Unprofiled runs, interleaved across scenarios, for the figures.
    for (let r = 0; r < runs; r++) {
      for (const s of scenarios) {
        // Each bundle in turn, the order alternating by round.
        for (const bundle of r % 2 ? [...bundles].reverse() : bundles) {
          const job = await jobFor(s, bundle)
          const { figures: f } = await runChild(job, null)
          if (s.kind !== 'consumer') await rig.deleteTopic(job.topic)
          console.log(`run ${r + 1}${bundles.length > 1 ? ` [${bundle}]` : ''}: ${figureLine(s, f)}`)
          if (bundle === bundles[bundles.length - 1]) figures.set(s, [...(figures.get(s) ?? []), f])
          else before.set(s, [...(before.get(s) ?? []), f])
        }
      }
    }
    // Before/after medians (CPU per message, the figure a shared machine does not spoil).
    if (bundles.length > 1) {
      for (const s of scenarios) {
        const us = (fs: ChildFigures[]) => median(fs.map((f) => (f.cpuS / f.messages) * 1e6)).toFixed(2)
        console.log(
          `${name(s)}: ${bundles[0]} ${us(before.get(s)!)} µs CPU/msg → ${bundles[bundles.length - 1]} ${us(figures.get(s)!)} µs CPU/msg (medians of ${runs})`,
        )
      }
    }
    if (profile) {
      for (const s of scenarios) {
        if (s.kind === 'first-send' || s.times || s.nodeFlags) continue
        const dir = join(root, 'dist', 'bench', 'profiles', name(s).replace(/[^a-z0-9]+/gi, '-'))
        rmSync(dir, { recursive: true, force: true })
        mkdirSync(dir, { recursive: true })
        const job = await jobFor(s)
        const { figures: f, out } = await runChild(job, dir)
        if (s.kind !== 'consumer') await rig.deleteTopic(job.topic)
        const file = join(
          dir,
          readdirSync(dir).find((x) => x.endsWith('.cpuprofile'))!,
        )
        const { total, rows } = selfTimes(file)
        const gc = gcCounts(out)
        const lines = [
          `### ${name(s)}`,
          '',
          `Profiled run (slower than unprofiled): ${figureLine(s, f)}.`,
          `GC (--trace-gc): ${
            Object.entries(gc)
              .map(([k, v]) => `${k} ×${v.count} (${f1(v.ms)} ms)`)
              .join(', ') || 'none'
          }.`,
          `Sampled non-idle time ${Math.round(total)} ms; top ${TOP} functions by self time (file:line in dist/index.js):`,
          '',
          '| self ms | % | function |',
          '|---:|---:|---|',
          ...rows.slice(0, TOP).map((r) => `| ${f1(r.ms)} | ${f1((100 * r.ms) / total)} | \`${r.fn}\` |`),
          '',
        ]
        console.log(lines.join('\n'))
        reports[s.kind].push(...lines)
      }
    }
    const stamp = `Measured ${new Date().toISOString().slice(0, 10)} on ${machine().cpu} (${machine().cores} cores, shared with other work: noisy), Node ${process.version}; wafka ${wafkaRevision(root, join(root, 'dist', 'index.js'))}.`
    for (const kind of ['producer', 'consumer'] as const) {
      if (only && only !== kind) continue
      const mine = scenarios.filter((s) => s.kind === kind)
      if (!mine.length) continue
      const summary = mine.map((s) => {
        const fs = figures.get(s) ?? []
        if (!fs.length) return `- ${name(s)}: not run`
        const us = median(fs.map((f) => (f.cpuS / f.messages) * 1e6))
        const rate = median(fs.map((f) => f.messages / (f.totalMs / 1000)))
        return `- ${name(s)}: median of ${fs.length} one-shot runs ${Math.round(rate / 1000)} k msg/s, ${us.toFixed(2)} µs CPU/msg, import ${f1(median(fs.map((f) => f.importMs)))} ms, first ${kind === 'producer' ? 'acknowledged send' : 'batch'} ${f1(median(fs.map((f) => f.firstMs)))} ms after \`new Kafka()\`, peak RSS ${Math.round(median(fs.map((f) => f.peakRssMiB)))} MiB`
      })
      const text = [
        `<!-- Written by bench/profile.ts (node dist/bench/profile.js --write${only ? ` --only=${only}` : ''} --runs=${runs}); do not edit by hand. -->`,
        `# Where a cold one-shot ${kind} run's time goes`,
        '',
        stamp,
        kind === 'producer'
          ? `A fresh process imports dist/index.js, connects, sends ${PRODUCE_MESSAGES.toLocaleString('en')} messages (16-byte key, 100-byte value) to a ${PARTITIONS}-partition topic on librdkafka 2.15's mock cluster (3 brokers) in send() calls of ${CHUNK} with ${INFLIGHT} in flight, other options default, and exits. Clock and CPU from before \`new Kafka()\` to the last acknowledgement (connect included).`
          : `The parent produces ${CONSUME_MESSAGES.toLocaleString('en')} messages (16-byte key, 100-byte value) to a ${PARTITIONS}-partition topic on librdkafka 2.15's mock (3 brokers); a fresh process connects, subscribes from the beginning, reads them through eachBatch (or eachMessage) touching every key and value, and exits. Clock and CPU from before \`new Kafka()\` to the last message (connect and group join included).`,
        '',
        ...summary,
        '',
        "Reading the tables: self time is sampled wall time in a frame. `writev` / `writeBuffer` is the socket write (a request's header and its record batches in one gathering write; libuv tries the syscall at once, on loopback the kernel delivers to the broker inside it, and on 2 shared cores the process is often preempted there), so it is mostly not CPU of ours. `put` and `add` (RecordStage) copy each key and value into its batch's stage as the record is appended (TypedArray#set): the 65,536 pre-made pairs (~7.6 MiB) are reused every 65,536 messages, so the first touch of a value's bytes misses the cache; `append` is the producer's per-record loop (partitioner, buffer accounting, the batch's bookkeeping, inlined). With the machine loaded, a sample can land in whatever ran before the process was preempted: small functions with large self times (a Buffer#fill of 4 bytes) are such samples. `wasm-function[n]` is the codec core (CRC-32C, record encode/decode, LZ4). `(garbage collector)` includes collecting the benchmark's own message objects (one `{ key, value }` per message and an array per send()).",
        '',
        ...(kind === 'consumer'
          ? [
              "Reading the memory figures: peak RSS includes Node's own baseline and the imported bundle (the RSS after the import). Of what the run adds, the V8 heap is mostly the young generation (message objects and their key and value Buffers, ~320 bytes a message touched, all short-lived), ArrayBuffers are the fetched responses (about 650 KB each from this mock), queued or read and not yet collected, and `external` counts ArrayBuffers plus every WebAssembly memory (wafka's core stays under 1 MiB here; zstd's, when loaded, is 16 MiB). A response lives until the last of its partitions is handed over and its messages dropped; one that outlives two scavenges (eachMessage hands messages over one at a time, so most do) is freed only by a full collection, which V8 runs about every 100 ms here: that is the 40–50 MiB of ArrayBuffers an eachMessage run can peak with, whatever maxBytes is (8 MiB gives the same). The measured process is bench/profile-child.ts alone (RSS as it starts: Node and that file).",
              '',
            ]
          : []),
        ...reports[kind],
      ].join('\n')
      if (write) writeFileSync(join(root, 'bench', 'results', `profile-${kind}.md`), `${text}\n`)
      else console.log(text)
    }
    // Import alone (module evaluation, wasm compile and instantiation), in fresh processes.
    const imports: number[] = []
    const importCpu: number[] = []
    for (let i = 0; i < 10; i++) {
      const [wall, cpu] = await importOnly(bundles[bundles.length - 1])
      imports.push(wall)
      importCpu.push(cpu)
    }
    console.log(
      `import of ${bundles[bundles.length - 1]} in a fresh process: median ${f1(median(imports))} ms (${imports.map(f1).join(', ')})`,
    )
    const rows = scenarios
      .filter((s) => figures.get(s)?.length)
      .map((s) => {
        const fs = figures.get(s)!
        const med = (g: (f: ChildFigures) => number) => median(fs.map(g))
        return {
          scenario: name(s),
          runs: fs.length,
          messagesPerSec: Math.round(med((f) => f.messages / (f.totalMs / 1000))),
          cpuUsPerMessage: Number(med((f) => (f.cpuS / f.messages) * 1e6).toFixed(3)),
          otherThreadsUsPerMessage: fs.every((f) => f.mainThreadS !== null)
            ? Number(med((f) => ((f.cpuS - f.mainThreadS!) / f.messages) * 1e6).toFixed(3))
            : null,
          importMs: Number(f1(med((f) => f.importMs))),
          connectMs: Number(f1(med((f) => f.connectMs))),
          firstMs: Number(f1(med((f) => f.firstMs))),
          totalMs: Math.round(med((f) => f.totalMs)),
          peakRssMiB: Math.round(med((f) => f.peakRssMiB)),
        }
      })
    const cold = [
      `<!-- Written by bench/profile.ts: npm run bench:profile -- --runs=${runs}; do not edit by hand. -->`,
      '# Cold start and one-shot runs',
      '',
      stamp,
      '',
      `**Import** of dist/index.js (module evaluation, node: built-ins it imports, wasm compile and instantiation) in a fresh Node process, after an empty module (the ESM loader's start-up is not counted): median ${f1(median(imports))} ms of 10 (${[
        ...imports,
      ]
        .sort((a, b) => a - b)
        .map(f1)
        .join(
          ', ',
        )}); its CPU time (process.cpuUsage, every thread: V8 compiles and collects garbage in helper threads too) median ${f1(median(importCpu))} ms (${[
        ...importCpu,
      ]
        .sort((a, b) => a - b)
        .map(f1)
        .join(', ')}).`,
      '',
      `**One-shot runs**, each in a fresh process, medians of ${runs}: the clock and CPU run from before \`new Kafka()\` (after the import) to the last acknowledgement or message, so connecting, metadata and (consumer) joining the group are in them. Producer: ${PRODUCE_MESSAGES.toLocaleString('en')} messages (16-byte key, 100-byte value) to a fresh ${PARTITIONS}-partition topic on librdkafka 2.15's mock (3 brokers), send() calls of ${CHUNK} with ${INFLIGHT} in flight, lingerMs and batchSize default. Consumer: ${CONSUME_MESSAGES.toLocaleString('en')} such messages read through eachBatch (or eachMessage), every key and value touched, by a fresh group. First send: \`new Kafka()\`, \`producer()\` with its defaults (idempotent), connect(), send() of one message, acknowledged. CPU is process.cpuUsage (user + system, every thread); "threads other than the main one" is the part of it not on the main thread (from /proc: V8 compiling hot functions with TurboFan and its GC helpers, mostly), which is what a short run pays for warming up; peak RSS sampled every 50 ms; a producer's includes the benchmark's own ${POOL.toLocaleString('en')} key/value pairs (~20 MiB).`,
      '',
      '| run | messages/s | CPU µs/msg | of it, threads other than the main one | import ms | new Kafka() → connected ms | → first ack / batch ms | total ms | peak RSS MiB |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map(
        (r) =>
          `| ${r.scenario} | ${r.scenario.startsWith('first') ? '' : `${Math.round(r.messagesPerSec / 1000)} k`} | ${r.scenario.startsWith('first') ? '' : r.cpuUsPerMessage.toFixed(2)} | ${r.scenario.startsWith('first') || r.otherThreadsUsPerMessage === null ? '' : r.otherThreadsUsPerMessage.toFixed(2)} | ${r.importMs} | ${r.connectMs} | ${r.firstMs} | ${r.totalMs} | ${r.peakRssMiB} |`,
      ),
      '',
      'The machine (2 cores) is shared with other work while this runs: throughput is noisy, CPU per message much less so. Where the time goes: profile-producer.md and profile-consumer.md.',
      '',
      "The producer's last two rows show what a one-shot run of 500,000 messages pays to warm up. Four times the messages cost less per message, most of the difference in the threads other than the main one; those are V8 compiling the hot functions with TurboFan (and its GC helpers): the same run with `node --no-opt` (no TurboFan; the interpreter and baseline compiler only) leaves them almost idle, and runs slower on the main thread.",
    ].join('\n')
    if (write && !only) {
      writeFileSync(join(root, 'bench', 'results', 'cold-start.md'), `${cold}\n`)
      writeFileSync(
        join(root, 'bench', 'results', 'cold-start.json'),
        `${JSON.stringify({ measured: stamp, runs, importMs: imports, importCpuMs: importCpu, rows }, null, 2)}\n`,
      )
    } else console.log(cold)
  } finally {
    await rig.close()
  }
}

/** Wall and CPU ms of importing `bundle` in a fresh process. */
function importOnly(bundle: string): Promise<[number, number]> {
  const url = pathToFileURL(bundle).href
  // An empty module first: the ESM loader's own start-up is not wafka's.
  const code = `await import('data:text/javascript,export default 0'); const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(url)}); const u = process.cpuUsage(c); console.log(performance.now() - t, (u.user + u.system) / 1000)`
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    c.stdout.setEncoding('utf8')
    c.stdout.on('data', (x: string) => {
      out += x
    })
    c.on('exit', (code) =>
      code === 0
        ? resolve(out.trim().split(' ').map(Number) as [number, number])
        : reject(new Error(`import of ${bundle} failed (${code})`)),
    )
  })
}

await parent()
