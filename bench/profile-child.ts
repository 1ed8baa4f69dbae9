/**
 * The measured process of bench/profile.ts: one fresh Node process per run,
 * holding nothing but this file (and the wafka bundle it imports), so that
 * its RSS and CPU are a user's process's, not the benchmark harness's.
 * Started by profile.ts with --child=<job as JSON> [--profile-dir=DIR];
 * prints RESULT <figures as JSON>.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { windowed } from '../src/cli/bench/windowed.js'
import { MESSAGE_POOL as POOL, messagePool } from './support/data.js'

export const CHUNK = 1000
export const INFLIGHT = 10

export interface Scenario {
  /** first-send: one message, sent and acknowledged after connect, in a fresh process (idempotent, the default). */
  kind: 'producer' | 'consumer' | 'first-send'
  acks: 1 | -1
  compression: 'none' | 'lz4'
  /** Consumer: through eachBatch (the default) or eachMessage. */
  each?: 'batch' | 'message'
  /** Producer: this many times the usual messages (a long run: what the short one pays for start-up and warm-up shows against it). Not profiled. */
  times?: number
  /** Node/V8 flags for this scenario's process (--no-opt: what the run costs without TurboFan compiling on the other threads). Not profiled. */
  nodeFlags?: string[]
}

export interface Job extends Scenario {
  bootstrap: string
  topic: string
  messages: number
  groupId: string
  /** The wafka bundle to import (dist/index.js unless --bundle=...: for before/after runs). */
  bundle: string
}

export interface ChildFigures {
  importMs: number
  /** From before `new Kafka()` to connected (producer) or to the first message (consumer). */
  connectMs: number
  /** From before `new Kafka()` to the first acknowledged send (producer) or the first batch (consumer). */
  firstMs: number
  /** From before `new Kafka()` to the last acknowledgement / message. */
  totalMs: number
  /** CPU time over totalMs, and over the whole process (import included), in seconds. */
  cpuS: number
  /** Of cpuS, the main thread's (JavaScript, wasm, syscalls) and the other threads' (V8's compilers and GC helpers, libuv): Linux only, else null. */
  mainThreadS: number | null
  processCpuS: number
  peakRssMiB: number
  /** process.memoryUsage() at the peak RSS sample: what held the memory (V8 heap, ArrayBuffers such as fetched bytes and wasm memory). */
  /** RSS once the bundle is imported, before `new Kafka()`; and as the child started (Node and the benchmark's own code). */
  importedRssMiB: number
  startRssMiB: number
  atPeakMiB: { heapTotal: number; heapUsed: number; external: number; arrayBuffers: number }
  messages: number
  /** Socket writes (requests, about) over the run. */
  writes: number
}

/** CPU seconds of this process's main thread and of all its threads, from /proc (Linux); null elsewhere. */
function threadCpu(): { main: number; all: number } | null {
  try {
    let all = 0
    let main = 0
    for (const t of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8')
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100 a second).
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const s = (Number(f[11]) + Number(f[12])) / 100
      all += s
      if (Number(t) === process.pid) main = s
    }
    return { main, all }
  } catch {
    return null
  }
}

/** The V8 profiler over the measured part only (not the benchmark's own data set-up); writes a .cpuprofile into `dir`. */
async function startProfiler(dir: string): Promise<() => Promise<void>> {
  const { Session } = await import('node:inspector')
  const session = new Session()
  session.connect()
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))))
  await post('Profiler.enable')
  await post('Profiler.setSamplingInterval', { interval: 200 })
  await post('Profiler.start')
  return async () => {
    const { profile } = await post('Profiler.stop')
    writeFileSync(join(dir, 'run.cpuprofile'), JSON.stringify(profile))
    session.disconnect()
  }
}

async function child(job: Job, profileDir: string | undefined): Promise<void> {
  const startRss = process.memoryUsage.rss()
  // The consumer reads what the parent produced: only producers need the pool (~20 MiB of RSS).
  const { keys, values } = job.kind === 'consumer' ? { keys: [], values: [] } : messagePool()
  const processStart = process.cpuUsage()
  let peak = process.memoryUsage.rss()
  let atPeak = process.memoryUsage()
  const sampler = setInterval(() => {
    const m = process.memoryUsage()
    if (m.rss > peak) [peak, atPeak] = [m.rss, m]
  }, 50)
  let writes = 0
  const { Socket } = await import('node:net')
  const write = Socket.prototype.write
  Socket.prototype.write = function (this: InstanceType<typeof Socket>, ...args: any[]) {
    writes++
    return (write as any).apply(this, args)
  } as typeof write
  const stopProfiler = profileDir ? await startProfiler(profileDir) : null
  if (profileDir) console.log('--- measured part starts ---')
  const t0 = performance.now()
  const { Kafka } = await import(pathToFileURL(job.bundle).href)
  const importMs = performance.now() - t0
  const importedRss = process.memoryUsage.rss()
  const threads0 = threadCpu()
  const cpu0 = process.cpuUsage()
  const start = performance.now()
  const kafka = new Kafka({ clientId: 'bench-profile', brokers: job.bootstrap.split(',') })
  let connectMs = 0
  let firstMs = 0
  const mask = POOL - 1
  if (job.kind !== 'consumer') {
    const producer =
      job.kind === 'first-send'
        ? kafka.producer()
        : kafka.producer({ acks: job.acks === -1 ? 'all' : 1, idempotent: job.acks === -1, compression: job.compression })
    await producer.connect()
    connectMs = performance.now() - start
    await windowed(0, job.messages, INFLIGHT, CHUNK, async (a, b) => {
      const messages = new Array(b - a)
      for (let i = a; i < b; i++) messages[i - a] = { key: keys[i & mask], value: values[i & mask] }
      await producer.send({ topic: job.topic, messages })
      if (firstMs === 0) firstMs = performance.now() - start
    })
    await producer.disconnect()
  } else {
    const consumer = kafka.consumer({ groupId: job.groupId })
    await consumer.connect()
    connectMs = performance.now() - start
    await consumer.subscribe({ topics: [job.topic], fromBeginning: true })
    let received = 0
    let bytes = 0
    type Message = { key: Uint8Array | null; value: Uint8Array | null }
    await new Promise<void>((resolve, reject) => {
      consumer
        .run(
          job.each === 'message'
            ? {
                eachMessage: async ({ message: m }: { message: Message }) => {
                  if (firstMs === 0) firstMs = performance.now() - start
                  bytes += (m.key?.length ?? 0) + (m.value?.length ?? 0)
                  if (++received >= job.messages) resolve()
                },
              }
            : {
                eachBatch: async ({ batch }: { batch: { messages: Message[] } }) => {
                  if (firstMs === 0) firstMs = performance.now() - start
                  for (const m of batch.messages) bytes += (m.key?.length ?? 0) + (m.value?.length ?? 0)
                  received += batch.messages.length
                  if (received >= job.messages) resolve()
                },
              },
        )
        .catch(reject)
    })
    if (bytes !== received * 116) throw new Error(`read ${bytes} key and value bytes for ${received} messages, not 116 a message`)
    await consumer.disconnect()
  }
  const totalMs = performance.now() - start
  const cpu = process.cpuUsage(cpu0)
  const threads = threadCpu()
  const whole = process.cpuUsage(processStart)
  await stopProfiler?.()
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage.rss())
  const figures: ChildFigures = {
    importMs,
    connectMs,
    firstMs,
    totalMs,
    cpuS: (cpu.user + cpu.system) / 1e6,
    mainThreadS: threads && threads0 ? threads.main - threads0.main : null,
    processCpuS: (whole.user + whole.system) / 1e6,
    peakRssMiB: peak / 2 ** 20,
    importedRssMiB: importedRss / 2 ** 20,
    startRssMiB: startRss / 2 ** 20,
    atPeakMiB: {
      heapTotal: atPeak.heapTotal / 2 ** 20,
      heapUsed: atPeak.heapUsed / 2 ** 20,
      external: atPeak.external / 2 ** 20,
      arrayBuffers: atPeak.arrayBuffers / 2 ** 20,
    },
    messages: job.messages,
    writes,
  }
  process.stdout.write(`\nRESULT ${JSON.stringify(figures)}\n`)
  process.exit(0)
}

function argument(name: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`))
  return arg?.slice(name.length + 3)
}

const job = argument('child')
if (job) await child(JSON.parse(job), argument('profile-dir'))
