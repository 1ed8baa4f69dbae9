// kcat (Debian's, librdkafka 2.0.2) as a real client peer: produce, consume
// and list metadata, byte-exact both ways.
//
// Producing: kcat splits stdin into records at a delimiter (-D) and each
// record into key and value at a second one (-K). Both are random byte
// strings absent from the data, so any bytes go through. What kcat cannot
// express, this refuses rather than send something else:
//   - per-message headers and partitions: -H / -p hold for a whole run, so
//     messages are sent in consecutive runs that share them;
//   - null vs empty: -Z turns empty keys AND values into null, so a run has
//     -Z only when it holds a null value; a message with a null value and an
//     empty key, or a null key and an empty value, cannot be sent at all
//     (kcat skips an empty record);
//   - header values are command-line strings (UTF-8, no NUL); the producer
//     sets no timestamps.
// Consuming: -J output, read as latin1 — kcat writes key, value and header
// bytes into its JSON unvalidated (escaping only controls, '"' and '\'), so
// mapping each char back to one byte restores them exactly.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'

export type Bytes = string | Uint8Array
export type KcatHeaders = Record<string, string | null> | [string, string | null][]

export interface KcatProduceMessage {
  key?: Bytes | null
  value: Bytes | null
  headers?: KcatHeaders
  /** Default: librdkafka's partitioner (consistent_random on the key). */
  partition?: number
}

export interface KcatProduceOptions {
  compression?: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd'
  /** Sends everything in one transaction, committed at the end. */
  transactionalId?: string
  /** Any librdkafka producer property (-X), e.g. { 'enable.idempotence': true, acks: 1 }. */
  config?: Record<string, string | number | boolean>
  /** Per run: message.timeout.ms, and the kill deadline a few seconds later. Default 15000. */
  timeoutMs?: number
}

export interface KcatConsumeOptions {
  /** Stop after this many messages; without it, stop at the end of every partition (-e). */
  count?: number
  /** Default true: from the beginning; false: only new messages (needs count). */
  fromBeginning?: boolean
  /** An absolute start offset (-o N); overrides fromBeginning. */
  offset?: number
  partition?: number
  config?: Record<string, string | number | boolean>
  /** Default 15000. */
  timeoutMs?: number
}

export interface KcatMessage {
  topic: string
  partition: number
  offset: number
  timestamp: number
  timestampType: 'create' | 'logappend' | 'unknown'
  /** The broker id it was fetched from. */
  broker: number
  key: Buffer | null
  value: Buffer | null
  headers: [string, Buffer | null][]
}

export interface KcatMetadata {
  controllerId: number
  brokers: { id: number; host: string; port: number }[]
  topics: {
    name: string
    error?: string
    partitions: { id: number; leader: number; replicas: number[]; isrs: number[]; error?: string }[]
  }[]
}

const DEFAULT_TIMEOUT_MS = 15_000

interface KcatResult {
  stdout: Buffer
  stderr: string
}

/** Runs kcat; rejects on a non-zero exit or after timeoutMs (then kills it). */
function runKcat(args: string[], input: Buffer | null, timeoutMs: number): Promise<KcatResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => out.push(c))
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (c: string) => (stderr += c))
    child.stdin.on('error', () => {}) // reported through the exit status
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`kcat ${args.join(' ')} timed out after ${timeoutMs} ms\n${stderr}`))
    }, timeoutMs)
    child.once('error', (e) => {
      clearTimeout(timer)
      reject(new Error(`kcat could not run (apt-get install -y kcat): ${e.message}`))
    })
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve({ stdout: Buffer.concat(out), stderr })
      else reject(new Error(`kcat ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${stderr}`))
    })
    child.stdin.end(input ?? undefined)
  })
}

function configArgs(config: Record<string, string | number | boolean> = {}): string[] {
  return Object.entries(config).flatMap(([k, v]) => ['-X', `${k}=${v}`])
}

const toBuffer = (b: Bytes): Buffer => (typeof b === 'string' ? Buffer.from(b, 'utf8') : Buffer.from(b))

/** Random 8 bytes >= 0x80: kcat's -D/-K parser reads \xNN escapes and then
 * re-scans the result for '\', which such bytes can never form. */
const randomDelimiter = () => Buffer.from(randomBytes(8).map((b) => b | 0x80))

function occurrences(haystack: Buffer, needle: Buffer): number {
  let n = 0
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) n++
  return n
}

/** The records joined for kcat's stdin, with delimiters that occur nowhere else. */
function encodeRun(records: Run['records']): { input: Buffer; recordDelim: Buffer; keyDelim: Buffer } {
  const keyed = records.filter((r) => r.key).length
  for (;;) {
    const recordDelim = randomDelimiter()
    const keyDelim = randomDelimiter()
    const input = Buffer.concat(
      records.flatMap((r) =>
        r.key
          ? [r.key, keyDelim, r.value, recordDelim]
          : // No key delimiter: kcat sends a null key. A lone one with -Z: null key and value.
            r.value.length
            ? [r.value, recordDelim]
            : [keyDelim, recordDelim],
      ),
    )
    const nullPairs = records.filter((r) => !r.key && !r.value.length).length
    // Checked on the whole input, so no delimiter can form across a boundary either.
    if (occurrences(input, recordDelim) === records.length && occurrences(input, keyDelim) === keyed + nullPairs) {
      return { input, recordDelim, keyDelim }
    }
  }
}
const escaped = (d: Buffer) => [...d].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')

function normalizeHeaders(h: KcatHeaders | undefined): [string, string | null][] {
  const list = !h ? [] : Array.isArray(h) ? h : Object.entries(h)
  for (const [name, value] of list) {
    if (!name || name.includes('=') || name.includes('\0') || value?.includes('\0')) {
      throw new Error(`kcat cannot send header ${JSON.stringify(name)}: names need no '=', neither may hold NUL`)
    }
  }
  return list
}

interface Run {
  partition: number | undefined
  headers: [string, string | null][]
  /** -Z: empty keys and values become null. */
  nulls: boolean | undefined
  records: { key: Buffer | null; value: Buffer }[]
}

/** Consecutive messages that one kcat invocation can send. */
function planRuns(messages: KcatProduceMessage[]): Run[] {
  const runs: Run[] = []
  messages.forEach((m, i) => {
    const key = m.key == null ? null : toBuffer(m.key)
    const value = m.value === null ? null : toBuffer(m.value)
    const emptyKey = key !== null && key.length === 0
    const emptyValue = value !== null && value.length === 0
    if (value === null && emptyKey) throw new Error(`message ${i}: kcat cannot send a null value with an empty key`)
    if (key === null && emptyValue) throw new Error(`message ${i}: kcat cannot send an empty value without a key`)
    // true: needs -Z; false: must not have it; undefined: either.
    const nulls = value === null ? true : emptyKey || emptyValue ? false : undefined
    const headers = normalizeHeaders(m.headers)
    const last = runs.at(-1)
    const fits =
      last &&
      last.partition === m.partition &&
      JSON.stringify(last.headers) === JSON.stringify(headers) &&
      (nulls === undefined || last.nulls === undefined || last.nulls === nulls)
    const record = { key, value: value ?? Buffer.alloc(0) }
    if (fits) {
      last.nulls ??= nulls
      last.records.push(record)
    } else {
      runs.push({ partition: m.partition, headers, nulls, records: [record] })
    }
  })
  return runs
}

/** Produces messages with kcat, in order; resolves when all are acknowledged. */
export async function kcatProduce(
  bootstrap: string,
  topic: string,
  messages: KcatProduceMessage[],
  opts: KcatProduceOptions = {},
): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
  for (const run of planRuns(messages)) {
    const { input, recordDelim, keyDelim } = encodeRun(run.records)
    // kcat reads each record into a buffer of message.max.bytes (1 MB by default).
    const largest = Math.max(...run.records.map((r) => (r.key?.length ?? 0) + r.value.length + keyDelim.length))
    const config: Record<string, string | number | boolean> = {
      'message.timeout.ms': timeoutMs,
      ...(opts.compression ? { 'compression.codec': opts.compression } : {}),
      ...(opts.transactionalId ? { 'transactional.id': opts.transactionalId } : {}),
      ...(largest > 900_000 ? { 'message.max.bytes': largest + 100_000 } : {}),
      ...opts.config,
    }
    const args = ['-P', '-b', bootstrap, '-t', topic, '-D', escaped(recordDelim), '-K', escaped(keyDelim)]
    if (run.nulls) args.push('-Z')
    if (run.partition !== undefined) args.push('-p', String(run.partition))
    for (const [name, value] of run.headers) args.push('-H', value === null ? name : `${name}=${value}`)
    args.push(...configArgs(config))
    await runKcat(args, input, timeoutMs + 5_000)
  }
}

const latin1 = (s: string | null | undefined): Buffer | null => (s == null ? null : Buffer.from(s, 'latin1'))

/** Consumes with kcat -J; messages in the order kcat printed them (per partition, by offset). */
export async function kcatConsume(bootstrap: string, topic: string, opts: KcatConsumeOptions = {}): Promise<KcatMessage[]> {
  const { count, fromBeginning = true, timeoutMs = DEFAULT_TIMEOUT_MS } = opts
  const start = opts.offset !== undefined ? String(opts.offset) : fromBeginning ? 'beginning' : 'end'
  const args = ['-C', '-J', '-q', '-b', bootstrap, '-t', topic, '-o', start]
  if (count !== undefined) args.push('-c', String(count))
  else args.push('-e')
  if (opts.partition !== undefined) args.push('-p', String(opts.partition))
  args.push(...configArgs(opts.config))
  const { stdout } = await runKcat(args, null, timeoutMs)
  return stdout
    .toString('latin1')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const j = JSON.parse(line)
      const h: (string | null)[] = j.headers ?? []
      const headers: [string, Buffer | null][] = []
      for (let i = 0; i + 1 < h.length; i += 2) headers.push([latin1(h[i])!.toString('utf8'), latin1(h[i + 1])])
      return {
        topic: latin1(j.topic)!.toString('utf8'),
        partition: j.partition,
        offset: j.offset,
        timestamp: j.ts,
        timestampType: j.tstype,
        broker: j.broker,
        key: latin1(j.key),
        value: latin1(j.payload),
        headers,
      }
    })
}

/** kcat -L -J: brokers and topics as the cluster reports them (all topics, or one). */
export async function kcatMetadata(
  bootstrap: string,
  opts: { topic?: string; timeoutMs?: number } = {},
): Promise<KcatMetadata> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const args = ['-L', '-J', '-q', '-b', bootstrap, '-m', String(Math.max(1, Math.ceil(timeoutMs / 1000) - 1))]
  if (opts.topic !== undefined) args.push('-t', opts.topic)
  const { stdout } = await runKcat(args, null, timeoutMs)
  const j = JSON.parse(stdout.toString('utf8'))
  const ids = (list: { id: number }[] = []) => list.map((r) => r.id)
  return {
    controllerId: j.controllerid,
    brokers: (j.brokers as { id: number; name: string }[]).map((b) => {
      const at = b.name.lastIndexOf(':')
      return { id: b.id, host: b.name.slice(0, at), port: Number(b.name.slice(at + 1)) }
    }),
    topics: (j.topics as any[]).map((t) => ({
      name: t.topic,
      ...(t.error ? { error: t.error } : {}),
      partitions: (t.partitions as any[]).map((p) => ({
        id: p.partition,
        leader: p.leader,
        replicas: ids(p.replicas),
        isrs: ids(p.isrs),
        ...(p.error ? { error: p.error } : {}),
      })),
    })),
  }
}

/**
 * The API versions a broker advertises, as kcat's ApiVersions debug log
 * shows them: apiKey -> [min, max].
 */
export async function kcatApiVersions(bootstrap: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Map<number, [number, number]>> {
  const first = bootstrap.split(',')[0]
  const { stderr } = await runKcat(['-L', '-b', first, '-d', 'feature', '-m', '5'], null, timeoutMs)
  const versions = new Map<number, [number, number]>()
  for (const m of stderr.matchAll(/ApiKey \S+ \((\d+)\) Versions (\d+)\.\.(\d+)/g)) {
    versions.set(Number(m[1]), [Number(m[2]), Number(m[3])])
  }
  return versions
}
