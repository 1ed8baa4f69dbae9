// librdkafka's own test suite (tests/ in its sources, full mode: not `-Q`)
// against the embedded broker or a real Apache Kafka 4.4 cluster, one test
// number per test-runner process so a crash or hang costs one number only.
//
//   node test/peers/librdkafka-suite.mjs --target=wafka|wafka-disk|kafka
//        [--protocol=classic|consumer] [--tests=0001,0034] [--list=classic|consumer|all]
//        [--jobs=2] [--timeout=600] [--out=DIR] [--no-write] [--merge] [--scenario=noautocreate]
//        [--cpu-load=N]
//
// --cpu-load=N runs N busy processes beside the run, for a machine as loaded
// as CI's (which runs three lists and the rest of the suite on 2 cores): how
// the tests that time the broker or the client were seen to fail on Kafka 4.4
// too (RACY_ON_KAFKA in librdkafka-suite/ci-lists.mjs).
//
// The sources are the ones @confluentinc/kafka-javascript ships (build.mjs
// installs it); they are copied once per librdkafka version into
// ~/.cache/wafka-peers/librdkafka-suite-<version>/ and `make test-runner`
// links the package's static librdkafka there (about 2 minutes, then cached).
// Results (JSON + markdown, per named test: PASSED/FAILED/SKIPPED, seconds,
// the first failure line) go to test/peers/librdkafka-results/.
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ckjsDir, installModern } from './build.mjs'
import { SKIPPED_TESTS, brokerTests, listNumbers } from './librdkafka-suite/lists.mjs'
import { kafkaRig, startRealKafka, startWafka as startWafkaBroker } from './suite-targets.mjs'

// The targets live in suite-targets.mjs (shared with franz-go-suite.mjs).

/**
 * Broker settings as librdkafka's own harness (trivup's server.properties)
 * leaves them, on both targets: Kafka's default group.initial.rebalance.delay.ms
 * (3 s), where the project's Kafka rig sets 0 for its own tests' speed. The
 * suite's group tests start their members together and expect them in one
 * generation (0102, 0118), which that delay gives on any broker.
 */
const SUITE_BROKER_CONFIG = { 'group.initial.rebalance.delay.ms': '3000' }

/**
 * The one setting the embedded broker gets that Kafka does not: a group
 * coordinator linger of 10 ms (Kafka 4.0-4.2's default). Kafka 4.4 answers a
 * KIP-848 heartbeat here in 5-30 ms (its adaptive linger, then the records
 * committed through its replica fetchers), the embedded broker in about 1 ms,
 * and librdkafka 2.15 has a race at that speed: in 0045_subscribe_many_updates
 * the answer to a subscription change lands inside the test's burst of
 * subscribe and unsubscribe calls, the member leaves from the steady state
 * with a subscribe pending and never rejoins (0 of 3 runs passed at 1 ms, 4 of
 * 4 at 10 ms, 0045 whole; Kafka 4.4 3 of 3; 2026-12-05).
 */
const WAFKA_ONLY_CONFIG = { 'group.coordinator.append.linger.ms': '10' }

/** `wafka broker` as the suite runs against it (the vitest file starts its brokers with this too): SUITE_BROKER_CONFIG and WAFKA_ONLY_CONFIG applied. */
export function startWafka(options = {}) {
  return startWafkaBroker({ ...options, config: { ...SUITE_BROKER_CONFIG, ...WAFKA_ONLY_CONFIG, ...options.config } })
}

const here = dirname(fileURLToPath(import.meta.url))
const sourceDir = join(ckjsDir, 'deps', 'librdkafka')
export const librdkafkaSourceDir = sourceDir
const cacheRoot = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'wafka-peers')
/** What the suite is told the broker is: it gates tests by version (4.4 has KIP-848 and every API the suite asks for). */
export const TEST_KAFKA_VERSION = '4.4.0'

/** librdkafka's version string from its header, e.g. '2.15.1'. */
export function librdkafkaVersion(dir = sourceDir) {
  const header = readFileSync(join(dir, 'src', 'rdkafka.h'), 'utf8')
  const m = /#define RD_KAFKA_VERSION\s+0x([0-9a-f]{8})/i.exec(header)
  if (!m) throw new Error(`no RD_KAFKA_VERSION in ${dir}/src/rdkafka.h`)
  const v = parseInt(m[1], 16)
  return `${(v >>> 24) & 0xff}.${(v >>> 16) & 0xff}.${(v >>> 8) & 0xff}`
}

/**
 * The one change made to the suite, in its harness (tests/test.c), not in
 * any test nor in librdkafka: rd_kafka_rebalance_protocol() returns NULL
 * once the consumer's group has terminated (documented: "NULL on error"),
 * and test.c's rebalance helpers pass it to strcmp. A revoke callback that
 * runs after close() has ended the group (a slow application thread: the
 * commit of the revoked partitions is refused with UNKNOWN_MEMBER_ID, as
 * Kafka 4.4 refuses it, and the group terminates first) then crashes the
 * test-runner with SIGSEGV (0018_cgrp_term, about 1 run in 50 under load).
 * test/kafka/late-revoke.test.ts shows that sequence on Kafka 4.4 and on
 * wafka alike. Patched, a NULL protocol takes the plain (un)assign, which
 * librdkafka treats as an unassign while terminating.
 */
export const HARNESS_PATCH = {
  id: 'p1',
  from: 'rd_kafka_rebalance_protocol(rk)',
  to: 'test_rebalance_protocol_or_eager(rk)',
  helper: [
    '/* Added by wafka (test/peers/librdkafka-suite.mjs): NULL once the group has terminated. */',
    'static const char *test_rebalance_protocol_or_eager(rd_kafka_t *rk) {',
    '        const char *protocol = rd_kafka_rebalance_protocol(rk);',
    '        return protocol ? protocol : "EAGER";',
    '}',
    '',
  ].join('\n'),
}

/** Applies HARNESS_PATCH to test.c; throws when the text it changes is not there (another librdkafka version). */
export function patchHarness(file) {
  const text = readFileSync(file, 'utf8')
  const uses = text.split(HARNESS_PATCH.from).length - 1
  const anchor = text.indexOf('\nvoid test_consumer_assign_by_rebalance_protocol(')
  if (uses !== 3 || anchor < 0) throw new Error(`${file}: the harness patch expects 3 uses of ${HARNESS_PATCH.from} (found ${uses})`)
  const patched = text.replaceAll(HARNESS_PATCH.from, HARNESS_PATCH.to)
  const at = patched.indexOf('\n', patched.indexOf('#include "test.h"')) + 1
  writeFileSync(file, patched.slice(0, at) + HARNESS_PATCH.helper + patched.slice(at))
}

/**
 * Builds tests/test-runner in the cache once per librdkafka version; returns
 * its tests/ directory. The copy drops the shared libraries so the runner
 * links the static ones and needs no LD_LIBRARY_PATH.
 */
export function buildSuite(log = console.log) {
  if (!existsSync(join(sourceDir, 'tests', 'test.c'))) {
    const failed = installModern()
    if (failed) throw new Error(failed)
  }
  const version = librdkafkaVersion()
  const dir = join(cacheRoot, `librdkafka-suite-${version}-${HARNESS_PATCH.id}`)
  const runner = join(dir, 'tests', 'test-runner')
  if (existsSync(runner)) return { version, testsDir: join(dir, 'tests') }
  const partial = `${dir}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  log(`librdkafka-suite: building librdkafka ${version}'s test-runner in ${dir} (once, ~2-4 min)`)
  cpSync(sourceDir, partial, { recursive: true })
  for (const sub of ['src', 'src-cpp'])
    for (const f of readdirSync(join(partial, sub))) if (/\.so(\.\d+)?$/.test(f)) rmSync(join(partial, sub, f))
  patchHarness(join(partial, 'tests', 'test.c'))
  const r = spawnSync('make', ['-j2', 'test-runner'], { cwd: join(partial, 'tests'), encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`make test-runner failed:\n${(r.stdout + r.stderr).split('\n').slice(-30).join('\n')}`)
  rmSync(dir, { recursive: true, force: true })
  renameSync(partial, dir)
  return { version, testsDir: join(dir, 'tests') }
}

// ---------------------------------------------------------------- targets

const KAFKA_TOOLS = {
  'kafka-topics.sh': 'org.apache.kafka.tools.TopicCommand',
  'kafka-configs.sh': 'org.apache.kafka.tools.ConfigCommand',
}

/**
 * What trivup gives the suite for tests that change topics with Kafka's own
 * command-line tools (test_kafka_topics(): 0045's partition changes and
 * deletions, 0052's LogAppendTime topic, 0077's compacted topics):
 * KAFKA_PATH with bin/kafka-topics.sh and bin/kafka-configs.sh, here small
 * scripts running the tools' classes from the Maven jars the Kafka rig
 * resolves, and BROKERS. The tools speak the admin protocol, so they serve
 * both targets. Without Java the env stays empty and those tests fail.
 */
export async function kafkaToolsEnv(bootstrap) {
  const { javaBin, kafkaClassPath, KAFKA_VERSIONS } = await kafkaRig()
  const java = javaBin()
  if (!java) return {}
  const version = KAFKA_VERSIONS['4']
  const dir = join(cacheRoot, `librdkafka-suite-kafka-bin-${version}`)
  mkdirSync(join(dir, 'bin'), { recursive: true })
  for (const [script, mainClass] of Object.entries(KAFKA_TOOLS)) {
    const body = `#!/bin/sh\nexec '${java}' -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true -cp '${kafkaClassPath(version)}' ${mainClass} "$@"\n`
    writeFileSync(join(dir, 'bin', script), body, { mode: 0o755 })
  }
  return { KAFKA_PATH: dir, BROKERS: bootstrap }
}

// ---------------------------------------------------------------- running

/** Named-test rows of test-runner's summary table: `| 0034_offset_reset | PASSED | 12.345s |`. */
export function parseSummary(text) {
  const rows = []
  for (const line of stripColors(text).split('\n')) {
    const m = /^\|\s*(\d{4}_\S+)\s*\|\s*(PASSED|FAILED|SKIPPED|RUNNING|NOT_STARTED|\w+)\s*\|\s*([\d.]+)s\s*\|\s*(.*)$/.exec(line)
    if (m) rows.push({ name: m[1], state: m[2], seconds: Number(m[3]), extra: m[4].trim() })
  }
  return rows
}

// eslint-disable-next-line no-control-regex
const stripColors = (text) => text.replace(/\x1b\[[0-9;]*m/g, '')

/**
 * Named-test rows from the progress lines, for a test-runner that died
 * before its summary (an abort in a test thread, a kill on timeout): a test
 * that started and never ended is FAILED.
 */
export function parseProgress(text) {
  const rows = new Map()
  for (const line of text.split('\n')) {
    let m = /^\[(\d{4}_\S+)\s*\/\s*([\d.]+)s\] =+ (?:Running test|Test (\S+) (PASSED|SKIPPED|FAILED))/.exec(line)
    if (m) {
      const row = rows.get(m[1]) ?? { name: m[1], state: 'FAILED', seconds: 0, extra: '' }
      row.seconds = Number(m[2])
      if (m[4]) row.state = m[4]
      rows.set(m[1], row)
      continue
    }
    m = /^\[(\d{4}_\S+)\s*\/\s*([\d.]+)s\] TEST FAILURE/.exec(line)
    if (m) {
      const row = rows.get(m[1]) ?? { name: m[1], state: 'FAILED', seconds: 0, extra: '' }
      row.state = 'FAILED'
      row.seconds = Number(m[2])
      rows.set(m[1], row)
    }
  }
  return [...rows.values()]
}

/** Why a named test failed: test.c's `### Test "NAME" failed at FILE:LINE:FN() at DATE: ###` and the message line after it. */
export function failureOf(text, name) {
  const lines = text.split('\n')
  // `### Test "0011_produce_batch (test_message_single_partition_record_fail:629)" failed at ...`: a sub-test's
  const i = lines.findIndex((l) => l.startsWith(`### Test "${name}" failed at `) || l.startsWith(`### Test "${name} (`))
  if (i < 0) return ''
  const sub = /^### Test "[^"(]+\(([^)]*)\)"/.exec(lines[i])?.[1]
  const where = /failed at (\S+?)(?: at [A-Z][a-z]{2} .*)?: ###$/.exec(lines[i])?.[1] ?? ''
  const message = (lines[i + 1] ?? '').trim()
  return `${sub ? `[${sub}] ` : ''}${where}: ${message}`.slice(0, 400)
}

/** Keeps a log's head and tail when a test floods it (a failing fetch loop writes tens of MB). */
function capped(text, limit = 4 << 20) {
  if (text.length <= 2 * limit) return text
  return `${text.slice(0, limit)}\n\n[... ${text.length - 2 * limit} characters cut by librdkafka-suite.mjs ...]\n\n${text.slice(-limit)}`
}

/** Runs one test number in its own test-runner; resolves with its named tests' rows. */
function runNumber({ testsDir, number, names, confPath, protocol, timeoutS, logDir, extraEnv }) {
  const env = { ...process.env, ...extraEnv, TESTS: number, TEST_KAFKA_VERSION, RDKAFKA_TEST_CONF: confPath }
  delete env.CI // test.c: CI raises concurrency to 3 and the timeout multiplier
  if (protocol === 'consumer') env.TEST_CONSUMER_GROUP_PROTOCOL = 'consumer'
  else delete env.TEST_CONSUMER_GROUP_PROTOCOL
  const started = Date.now()
  return new Promise((resolve) => {
    const child = spawn(join(testsDir, 'test-runner'), ['-L', '-p1'], { cwd: testsDir, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const chunks = []
    child.stdout.on('data', (c) => chunks.push(c))
    child.stderr.on('data', (c) => chunks.push(c))
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, timeoutS * 1000)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const text = stripColors(Buffer.concat(chunks).toString('utf8'))
      const logPath = join(logDir, `${number}.log`)
      const wall = (Date.now() - started) / 1000
      const mine = (r) => r.name.startsWith(number) && (!names || names.has(r.name))
      let rows = parseSummary(text).filter(mine)
      if (rows.length === 0) rows = parseProgress(text).filter(mine)
      const why = timedOut
        ? `killed after ${timeoutS} s`
        : signal
          ? `test-runner died: ${signal}`
          : code !== 0
            ? `test-runner exit ${code}`
            : ''
      // The log ends with how the runner ended: a hang and a crash look alike from its last lines.
      writeFileSync(logPath, `${capped(text)}\n[librdkafka-suite.mjs] ${why || 'test-runner exit 0'} after ${wall.toFixed(1)} s\n`)
      if (rows.length === 0) rows = [{ name: number, state: why ? 'FAILED' : 'SKIPPED', seconds: wall, extra: '' }]
      for (const r of rows) {
        if (r.state === 'RUNNING' || r.state === 'NOT_STARTED') r.state = 'FAILED'
        if (why && r.state === 'PASSED' && (timedOut || signal)) r.state = 'FAILED'
        if (r.state === 'FAILED')
          r.failure = failureOf(text, r.name) || (why ? `no failure of its own (unfinished): ${why}` : 'no failure line (see the log)')
        if (r.state === 'SKIPPED') r.failure = r.extra
      }
      resolve({ number, wall, code, signal, timedOut, rows, log: logPath })
    })
  })
}

export function testConf(bootstrap) {
  return ['# written by test/peers/librdkafka-suite.mjs', `bootstrap.servers=${bootstrap}`, 'broker.address.family=v4', ''].join('\n')
}

/**
 * Runs test numbers against a bootstrap in `jobs` parallel test-runners.
 * @returns {{ results, wallSeconds }}
 */
export async function runSuite({ testsDir, bootstrap, numbers, protocol, jobs = 2, timeoutS = 600, log = console.log, env = {} }) {
  // The named tests that talk to a broker: -L leaves the local ones out, but the summary still lists them as skipped.
  const names = new Set(brokerTests(join(testsDir, 'test.c')).map((t) => t.name))
  const work = mkdtempSync(join(tmpdir(), 'rdk-suite-'))
  const confPath = join(work, 'test.conf')
  writeFileSync(confPath, testConf(bootstrap))
  const logDir = join(work, 'logs')
  mkdirSync(logDir)
  const queue = [...numbers]
  const results = []
  const started = Date.now()
  await Promise.all(
    Array.from({ length: Math.max(1, jobs) }, async () => {
      for (let number; (number = queue.shift()) !== undefined;) {
        const r = await runNumber({ testsDir, number, names, extraEnv: env, confPath, protocol, timeoutS, logDir })
        results.push(r)
        for (const row of r.rows)
          log(
            `${row.state.padEnd(7)} ${row.name.padEnd(48)} ${row.seconds.toFixed(1).padStart(7)}s${row.state === 'FAILED' ? `  ${row.failure}` : ''}`,
          )
      }
    }),
  )
  results.sort((a, b) => a.number.localeCompare(b.number))
  return { results, wallSeconds: (Date.now() - started) / 1000, logDir }
}

// ---------------------------------------------------------------- reporting

function markdown(report) {
  const rows = report.tests
  const count = (s) => rows.filter((r) => r.state === s).length
  const lines = [
    `# librdkafka ${report.librdkafka} test suite: ${report.target}, ${report.protocol} groups`,
    '',
    `- command: \`${report.command}\``,
    `- target: ${report.describe}`,
    `- test-runner: full mode (not -Q), \`-L -p1\` per test number, TEST_KAFKA_VERSION=${TEST_KAFKA_VERSION}` +
      (report.protocol === 'consumer' ? ', TEST_CONSUMER_GROUP_PROTOCOL=consumer' : ''),
    `- when: ${report.date}; wall time ${report.wallSeconds.toFixed(0)} s at --jobs=${report.jobs}`,
    ...(report.reruns ?? []).map((r) => `- rerun: \`${r.command}\` (${r.date}, ${r.wallSeconds.toFixed(0)} s)`),
    `- named tests: ${count('PASSED')} passed, ${count('FAILED')} failed, ${count('SKIPPED')} skipped`,
    '',
    '| test | state | seconds | failure / skip reason |',
    '|---|---|---:|---|',
    ...rows.map((r) => `| ${r.name} | ${r.state} | ${r.seconds.toFixed(1)} | ${(r.failure ?? '').replace(/\|/g, '\\|').slice(0, 300)} |`),
    '',
  ]
  return lines.join('\n')
}

/**
 * --merge: a rerun of some numbers (--tests) replaces their rows in the
 * full run's file; the full run's command and wall time stay, the rerun's
 * command is listed under `reruns`.
 */
function mergeInto(report, file) {
  const full = JSON.parse(readFileSync(file, 'utf8'))
  const rerun = new Set(report.numbers.map((n) => n.number))
  const keep = (name) => !rerun.has(name.slice(0, 4))
  report.tests = [...full.tests.filter((t) => keep(t.name)), ...report.tests].sort((a, b) => a.name.localeCompare(b.name))
  report.numbers = [...full.numbers.filter((n) => keep(n.number)), ...report.numbers].sort((a, b) => a.number.localeCompare(b.number))
  report.reruns = [...(full.reruns ?? []), { command: report.command, date: report.date, wallSeconds: report.wallSeconds }]
  Object.assign(report, { command: full.command, date: full.date, wallSeconds: full.wallSeconds, jobs: full.jobs })
}

function parseArgs(argv) {
  const opts = {
    target: 'wafka',
    scenario: 'default',
    merge: false,
    cpuLoad: 0,
    protocol: 'classic',
    jobs: 2,
    timeout: 600,
    write: true,
    list: null,
    tests: null,
    out: join(here, 'librdkafka-results'),
  }
  for (const a of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a)
    if (!m) throw new Error(`unknown argument ${a}`)
    const [, k, v] = m
    if (k === 'target') opts.target = v
    else if (k === 'protocol') opts.protocol = v
    else if (k === 'tests') opts.tests = v.split(',').filter(Boolean)
    else if (k === 'list') opts.list = v
    else if (k === 'jobs') opts.jobs = Number(v)
    else if (k === 'timeout') opts.timeout = Number(v)
    else if (k === 'out') opts.out = v
    else if (k === 'no-write') opts.write = false
    else if (k === 'merge') opts.merge = true
    else if (k === 'scenario') opts.scenario = v
    else if (k === 'cpu-load') opts.cpuLoad = Number(v)
    else throw new Error(`unknown option --${k}`)
  }
  if (!['wafka', 'wafka-disk', 'kafka'].includes(opts.target)) throw new Error(`--target: wafka, wafka-disk or kafka`)
  if (!['default', 'noautocreate'].includes(opts.scenario)) throw new Error(`--scenario: default or noautocreate`)
  if (!['classic', 'consumer'].includes(opts.protocol)) throw new Error(`--protocol: classic or consumer`)
  if (!Number.isInteger(opts.cpuLoad) || opts.cpuLoad < 0 || opts.cpuLoad > 8) throw new Error(`--cpu-load: 0 to 8 busy processes`)
  return opts
}

/** `count` busy processes at the run's priority, killed when the run ends; orphaned (this process killed), each stops itself. */
function startCpuLoad(count) {
  const parent = process.pid
  const loop = `for (let i = 1; ; i++) if (i % 1e8 === 0 && process.ppid !== ${parent}) process.exit()`
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', loop], { stdio: 'ignore' }))
}

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  const { version, testsDir } = buildSuite()
  // The noautocreate scenario: the tests test.c marks `.scenario = "noautocreate"`, on a target that does not auto-create.
  const noAuto = opts.scenario === 'noautocreate'
  const numbers = opts.tests ?? listNumbers(join(testsDir, 'test.c'), noAuto ? 'noautocreate' : (opts.list ?? opts.protocol))
  let dataDir
  if (opts.target === 'wafka-disk') dataDir = mkdtempSync(join(tmpdir(), 'rdk-suite-data-'))
  const target =
    opts.target === 'kafka'
      ? await startRealKafka({ autoCreate: !noAuto, config: SUITE_BROKER_CONFIG })
      : await startWafka({ dataDir, autoCreate: !noAuto })
  console.log(
    `librdkafka-suite: librdkafka ${version}, ${numbers.length} test numbers, ${target.describe}, ${opts.protocol} groups, --jobs=${opts.jobs}`,
  )
  let run
  const hogs = startCpuLoad(opts.cpuLoad)
  try {
    const env = await kafkaToolsEnv(target.bootstrap)
    if (noAuto) env.TEST_SCENARIO = 'noautocreate'
    run = await runSuite({
      env,
      testsDir,
      bootstrap: target.bootstrap,
      numbers,
      protocol: opts.protocol,
      jobs: opts.jobs,
      timeoutS: opts.timeout,
    })
  } finally {
    for (const hog of hogs) hog.kill('SIGKILL')
    await target.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  }
  // The embedded broker's own log (INFO: topics created and deleted, with the client that asked), beside the tests'.
  if (target.output) writeFileSync(join(run.logDir, 'broker.log'), target.output())
  const tests = run.results.flatMap((r) => r.rows)
  const report = {
    librdkafka: version,
    target: opts.target,
    protocol: opts.protocol,
    describe: target.describe,
    command: `node test/peers/librdkafka-suite.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    date: new Date().toISOString(),
    jobs: opts.jobs,
    cpuLoad: opts.cpuLoad,
    wallSeconds: run.wallSeconds,
    skippedByRunner: SKIPPED_TESTS,
    numbers: run.results.map(({ number, wall, code, signal, timedOut }) => ({ number, wall, code, signal, timedOut })),
    tests,
  }
  const failed = tests.filter((t) => t.state === 'FAILED')
  console.log(
    `librdkafka-suite: ${tests.filter((t) => t.state === 'PASSED').length} passed, ${failed.length} failed, ` +
      `${tests.filter((t) => t.state === 'SKIPPED').length} skipped in ${run.wallSeconds.toFixed(0)} s; logs in ${run.logDir}`,
  )
  if (opts.write) {
    mkdirSync(opts.out, { recursive: true })
    const merging = opts.merge && opts.tests
    const scenario = opts.scenario === 'default' ? '' : `-${opts.scenario}`
    const base = join(opts.out, `${opts.target}-${opts.protocol}${scenario}${opts.tests && !merging ? '-partial' : ''}`)
    if (merging) mergeInto(report, `${base}.json`)
    writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`)
    writeFileSync(`${base}.md`, markdown(report))
    console.log(`librdkafka-suite: wrote ${base}.json and .md`)
  }
  process.exitCode = failed.length ? 1 : 0
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => {
    console.error(e)
    process.exit(2)
  })
}
