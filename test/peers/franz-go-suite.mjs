// franz-go's own live-cluster tests (pkg/kgo's tests that talk to a broker:
// produce/consume, groups with every balancer and both protocols, the group
// and transactional ETL tests, SASL) against the embedded broker or a real
// Apache Kafka 4.4 cluster, with the suite's own knobs only (KGO_SEEDS,
// KGO_TEST_RECORDS, KGO_TEST_RF, KGO_TEST_SCRAM*, KGO_TEST_OAUTH_SEEDS).
//
//   node test/peers/franz-go-suite.mjs --target=wafka|wafka-disk|kafka
//        [--records=N] [--rf=3] [--run=REGEX] [--timeout=900] [--chaos]
//        [--out=DIR] [--no-write] [--prepare] [--render] [--timings=DIR]
//        [--broker-args='--no-network-thread ...'] (more flags for the wafka broker)
//
// The module comes from the Go module proxy (`go mod download`) into
// ~/.cache/wafka-peers/go/mod (read-only, as Go keeps it), is copied once to
// ~/.cache/wafka-peers/franz-go-<version>/ (writable: go test writes go.sum
// there) and tested there with GOFLAGS=-mod=mod; nothing of it is in this
// repository. --prepare only does that (what .ci/run calls); --render writes
// <target>.md again from <target>.json with lists.mjs's known differences. Results (JSON +
// markdown, per Go test and subtest: PASS/FAIL/SKIP, seconds, the first
// failure line) go to test/peers/franz-go-results/<target>.{json,md}
// (<target>-chaos, -partial with --chaos, --run). --timings=DIR measures the
// brokers under the load the same way on both targets: per-API request times
// in the broker (the embedded broker's WAFKA_BROKER_REQUEST_TIMINGS counter;
// Kafka's request logger, totalTimeMs), with the run's wall time, results,
// broker CPU and peak RSS, the load average and a once-a-second new
// connection + ApiVersions probe (franz-go-suite/load-watch.mjs), all in
// DIR/run.json.
import { spawn, spawnSync } from 'node:child_process'
import {
  chmodSync,
  closeSync,
  openSync,
  writeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readRequestLogs } from './franz-go-suite/kafka-request-log.mjs'
import { KNOWN_DIFFERENCES, RACY_ON_KAFKA } from './franz-go-suite/lists.mjs'
import { watchLoad } from './franz-go-suite/load-watch.mjs'
import { startRealKafka, startWafka } from './suite-targets.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const cacheRoot = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'wafka-peers')

export const FRANZ_GO_MODULE = 'github.com/twmb/franz-go'
export const FRANZ_GO_VERSION = 'v1.22.3'
/** franz-go's go.mod says `go 1.26.0`; GOTOOLCHAIN=local keeps go from fetching a newer toolchain. */
const GO_NEEDED = [1, 26]
/**
 * The suite's default is 500,000 records per ETL test; the embedded broker
 * passes the ETL tests at it (bench/results/broker-load.md: ~5 minutes on 2
 * cores), but 50,000 keeps every ETL test's chain of groups and producers
 * and runs the whole list in about 2 minutes.
 */
export const DEFAULT_RECORDS = 50_000
/** The SCRAM user the suite's KGO_TEST_SCRAM names (SCRAM-SHA-256, its default). */
const SCRAM_USER = { name: 'franz', password: 'franz-go-Pa55' }
const SCRAM_AUTH = `${SCRAM_USER.name}:${SCRAM_USER.password}`

/** The environment every go command of the suite runs with. */
export function goEnv(extra = {}) {
  const flags = `${process.env.GOFLAGS ?? ''} -mod=mod`.trim()
  return { ...process.env, GOMODCACHE: join(cacheRoot, 'go', 'mod'), GOFLAGS: flags, GOTOOLCHAIN: 'local', ...extra }
}

/** `go1.26.8`, or why there is no usable Go (missing, or older than franz-go's go.mod asks). */
export function goStatus() {
  const r = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8', env: goEnv() })
  if (r.error || r.status !== 0)
    return {
      ok: false,
      why: `go is not installed or not on PATH (${r.error?.message ?? r.stderr.trim()}); Go ${GO_NEEDED.join('.')}+ is needed`,
    }
  const version = r.stdout.trim()
  const m = /^go(\d+)\.(\d+)/.exec(version)
  if (!m || Number(m[1]) < GO_NEEDED[0] || (Number(m[1]) === GO_NEEDED[0] && Number(m[2]) < GO_NEEDED[1]))
    return { ok: false, version, why: `${version} is older than the go ${GO_NEEDED.join('.')} franz-go's go.mod asks for` }
  return { ok: true, version }
}

function makeWritable(dir) {
  chmodSync(dir, 0o755)
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) makeWritable(p)
    else chmodSync(p, 0o644)
  }
}

/**
 * Downloads franz-go from the module proxy (once), copies it to a writable
 * directory and compiles pkg/kgo's tests there (their dependencies come
 * from the proxy too); returns the copy's directory.
 */
export function prepareSuite(log = console.log) {
  const go = goStatus()
  if (!go.ok) throw new Error(go.why)
  const moduleDir = join(cacheRoot, `franz-go-${FRANZ_GO_VERSION}`)
  const ready = join(moduleDir, '.wafka-prepared')
  if (existsSync(ready)) return { moduleDir, go: go.version }
  const cwd = join(cacheRoot, 'go')
  mkdirSync(cwd, { recursive: true })
  const dl = spawnSync('go', ['mod', 'download', '-json', `${FRANZ_GO_MODULE}@${FRANZ_GO_VERSION}`], {
    cwd,
    env: goEnv(),
    encoding: 'utf8',
  })
  if (dl.status !== 0) throw new Error(`go mod download ${FRANZ_GO_MODULE}@${FRANZ_GO_VERSION} failed:\n${dl.stdout}${dl.stderr}`)
  const source = JSON.parse(dl.stdout).Dir
  log(
    `franz-go-suite: ${FRANZ_GO_MODULE}@${FRANZ_GO_VERSION} from the module cache (${source}) into ${moduleDir}, compiling pkg/kgo's tests (once)`,
  )
  const partial = `${moduleDir}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  cpSync(source, partial, { recursive: true })
  makeWritable(partial)
  rmSync(moduleDir, { recursive: true, force: true })
  renameSync(partial, moduleDir)
  const build = spawnSync('go', ['test', '-count=1', '-run', '^$', './pkg/kgo'], { cwd: moduleDir, env: goEnv(), encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`go test -run '^$' ./pkg/kgo failed:\n${build.stdout}${build.stderr}`)
  writeFileSync(ready, `${go.version}\n`)
  return { moduleDir, go: go.version }
}

/** What in a test's body talks to a broker: the suite's helpers that dial KGO_SEEDS (or the SASL seeds). */
const LIVE_MARKERS =
  /\b(adm|newTestClient|testClientOpts|getSeedBrokers|tmpTopic|tmpTopicPartitions|tmpNamedTopicPartitions|tmpGroup|tmpShareGroup|internalTopic)\(|\b(scramSeeds|oauthSeeds)\b/

/**
 * pkg/kgo's top-level tests that need a broker, found in its test files:
 * the others (about 120) are unit tests of the client's pieces and pass
 * without one in a second.
 */
export function liveTests(moduleDir) {
  const dir = join(moduleDir, 'pkg', 'kgo')
  const tests = []
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('_test.go'))
    .sort()) {
    const lines = readFileSync(join(dir, file), 'utf8').split('\n')
    for (let i = 0; i < lines.length; i++) {
      const m = /^func (Test\w+)\(t \*testing\.T\) \{/.exec(lines[i])
      if (!m) continue
      let end = i + 1
      while (end < lines.length && lines[end] !== '}') end++
      if (LIVE_MARKERS.test(lines.slice(i + 1, end).join('\n'))) tests.push({ name: m[1], file })
      i = end
    }
  }
  return tests
}

/** A `go test -run` pattern for exactly these top-level tests. */
export const runPattern = (names) => `^(${names.join('|')})$`

// ---------------------------------------------------------------- targets

/**
 * The cluster under test and a SASL listener for the SCRAM and OAUTHBEARER
 * tests, with the KGO_* variables that point the suite at them. The
 * embedded broker serves SASL on every listener or none, so its SASL
 * listener is a second `wafka broker` (one broker), OAUTHBEARER with Kafka's
 * default unsecured validator as Kafka's here.
 */
export async function startTarget(target, { dataDir, requestLog = false, brokerArgs = [] } = {}) {
  if (target === 'kafka') {
    const sasl = {
      'sasl.enabled.mechanisms': 'SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER',
      'scram-sha-256.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
      'scram-sha-512.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
      'oauthbearer.sasl.jaas.config':
        'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker";',
    }
    const kafka = await startRealKafka({
      listeners: [
        { name: 'PLAINTEXT', protocol: 'PLAINTEXT' },
        { name: 'SASL', protocol: 'SASL_PLAINTEXT', config: sasl },
      ],
      formatArgs: ['SCRAM-SHA-256', 'SCRAM-SHA-512'].flatMap((m) => [
        '--add-scram',
        `${m}=[name=${SCRAM_USER.name},password=${SCRAM_USER.password}]`,
      ]),
      requestLog,
    })
    const saslSeeds = kafka.cluster.bootstrapFor('SASL')
    return {
      describe: `${kafka.describe}; SASL_PLAINTEXT listener (SCRAM-SHA-256/512, OAUTHBEARER unsecured) for the SASL tests`,
      env: { KGO_SEEDS: kafka.bootstrap, KGO_TEST_SCRAM_SEEDS: saslSeeds, KGO_TEST_SCRAM: SCRAM_AUTH, KGO_TEST_OAUTH_SEEDS: saslSeeds },
      cpuSeconds: () => kafka.cluster.brokers.reduce((s, b) => s + cpuSeconds(kafka.cluster.pid(b.id)), 0),
      pids: () => kafka.cluster.brokers.map((b) => kafka.cluster.pid(b.id)).filter(Boolean),
      requestLogs: () => kafka.cluster.logDirs.map((d) => join(d, 'request.log')),
      stop: () => kafka.stop(),
    }
  }
  const work = mkdtempSync(join(tmpdir(), 'franz-go-sasl-'))
  const users = join(work, 'users')
  writeFileSync(users, `${SCRAM_USER.name}:${SCRAM_USER.password}\n`)
  const main = await startWafka({ dataDir, args: brokerArgs })
  let scram
  try {
    scram = await startWafka({ brokers: 1, args: ['--sasl-users', users, '--sasl-mechanisms', 'SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER'] })
  } catch (e) {
    await main.stop()
    throw e
  }
  return {
    describe: `${main.describe}; for the SASL tests a second one, wafka broker --brokers 1 --sasl-users FILE --sasl-mechanisms SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER`,
    env: {
      KGO_SEEDS: main.bootstrap,
      KGO_TEST_SCRAM_SEEDS: scram.bootstrap,
      KGO_TEST_SCRAM: SCRAM_AUTH,
      KGO_TEST_OAUTH_SEEDS: scram.bootstrap,
    },
    cpuSeconds: () => cpuSeconds(main.pid),
    pids: () => [main.pid],
    output: () => main.output(),
    stop: async () => {
      await Promise.all([main.stop(), scram.stop()])
      rmSync(work, { recursive: true, force: true })
    },
  }
}

/** User + system CPU seconds of a process so far (Linux /proc), 0 when it is gone. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

// ---------------------------------------------------------------- running

/** Lines of a test's own output that say why it failed or skipped (not the client's log lines, not its cleanup notes). */
function reasonOf(output) {
  const lines = output
    .join('')
    .split('\n')
    .filter((l) => /^\s+\w+\.go:\d+: /.test(l) || /^panic: /.test(l))
    .filter((l) => !/FAILED TESTING -- NOT DELETING|deleting (topic|group)|^\s+\w+\.go:\d+: \[\d\d:/.test(l))
    .map((l) => l.trim())
  return lines.slice(0, 3).join(' / ').slice(0, 500)
}

/**
 * Runs `go test -json` on pkg/kgo with `run` as -run; resolves with one row
 * per test and subtest. A test that started and never ended (a panic, the
 * timeout) is FAIL with the package's last words.
 */
export function runGoTests({ moduleDir, env, run, timeoutS = 900, log = console.log }) {
  const logDir = mkdtempSync(join(tmpdir(), 'franz-go-suite-'))
  const args = ['test', '-json', '-count=1', '-timeout', `${timeoutS}s`, '-run', run, './pkg/kgo']
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const child = spawn('go', args, { cwd: moduleDir, env: goEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
    const tests = new Map()
    const packageOutput = []
    const stderr = []
    const raw = []
    let pending = ''
    // A parent whose own output says nothing failed through its subtests (they end before it).
    const failedSubtests = (name) => {
      const failed = [...tests.values()].filter((s) => s.name.startsWith(`${name}/`) && s.state === 'FAIL')
      return failed.length ? `subtests failed: ${failed.map((s) => `${s.name} (${s.reason})`).join('; ')}`.slice(0, 500) : ''
    }
    const onEvent = (e) => {
      if (!e.Test) {
        if (e.Action === 'output') packageOutput.push(e.Output)
        return
      }
      let t = tests.get(e.Test)
      if (!t) tests.set(e.Test, (t = { name: e.Test, state: 'RUNNING', seconds: 0, output: [] }))
      if (e.Action === 'output') t.output.push(e.Output)
      else if (e.Action === 'pass' || e.Action === 'fail' || e.Action === 'skip') {
        t.state = e.Action.toUpperCase()
        t.seconds = e.Elapsed ?? 0
        if (t.state !== 'PASS') t.reason = reasonOf(t.output) || failedSubtests(t.name)
        if (!t.name.includes('/'))
          log(`${t.state.padEnd(4)} ${t.name.padEnd(56)} ${t.seconds.toFixed(1).padStart(7)}s${t.state === 'PASS' ? '' : `  ${t.reason}`}`)
      }
    }
    child.stdout.on('data', (chunk) => {
      raw.push(chunk)
      const lines = (pending + chunk).split('\n')
      pending = lines.pop()
      for (const line of lines) {
        if (!line.startsWith('{')) continue
        try {
          onEvent(JSON.parse(line))
        } catch {
          packageOutput.push(`${line}\n`)
        }
      }
    })
    child.stderr.on('data', (c) => stderr.push(String(c)))
    // go test's own -timeout panics the binary; this is for a build or a go command that hangs.
    const timer = setTimeout(() => child.kill('SIGKILL'), (timeoutS + 300) * 1000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      writeFileSync(join(logDir, 'go-test.json'), Buffer.concat(raw))
      const last = packageOutput
        .join('')
        .split('\n')
        .filter((l) => l.trim() && !/^(FAIL|ok)\b/.test(l))
      const rows = [...tests.values()].sort((a, b) => a.name.localeCompare(b.name))
      for (const t of rows) {
        if (t.state === 'RUNNING') {
          t.state = 'FAIL'
          t.reason = `unfinished: ${reasonOf(t.output) || last.slice(0, 3).join(' / ') || `go test exit ${code}`}`.slice(0, 500)
        }
        // Line by line: a failing ETL test at 200,000+ records logs more than one string holds (RangeError).
        if (t.state !== 'PASS') {
          const fd = openSync(join(logDir, `${t.name.replace(/\//g, '__')}.log`), 'w')
          for (const line of t.output) writeSync(fd, line)
          closeSync(fd)
        }
        delete t.output
      }
      if (rows.length === 0 && code !== 0)
        return reject(new Error(`go test ${args.join(' ')} ran no test (exit ${code}):\n${packageOutput.join('')}${stderr.join('')}`))
      resolve({ rows, code, wallSeconds: (Date.now() - started) / 1000, logDir })
    })
  })
}

// ---------------------------------------------------------------- reporting

function markdown(report) {
  const top = report.tests.filter((t) => !t.name.includes('/'))
  const count = (s, rows = top) => rows.filter((r) => r.state === s).length
  const subs = report.tests.filter((t) => t.name.includes('/'))
  const escape = (s) => (s ?? '').replace(/\|/g, '\\|')
  const lines = [
    `# franz-go ${report.franzGo} kgo integration tests: ${report.target}`,
    '',
    `- command: \`${report.command}\``,
    `- target: ${report.describe}`,
    `- knobs: KGO_TEST_RECORDS=${report.records}, KGO_TEST_RF=${report.rf}${report.chaos ? ', KGO_TEST_CHAOS=1' : ''}; ${report.go}, \`go test -json -count=1 -run PATTERN ./pkg/kgo\` (tests in parallel at GOMAXPROCS)`,
    `- when: ${report.date}; wall time ${report.wallSeconds.toFixed(0)} s; broker CPU ${report.brokerCpuSeconds.toFixed(0)} s`,
    `- tests: ${count('PASS')} passed, ${count('FAIL')} failed, ${count('SKIP')} skipped (subtests: ${count('PASS', subs)} passed, ${count('FAIL', subs)} failed, ${count('SKIP', subs)} skipped)`,
    '',
    '| test | state | seconds | failure / skip reason | known difference |',
    '|---|---|---:|---|---|',
    ...report.tests.map(
      (r) =>
        `| ${r.name.includes('/') ? `&nbsp;&nbsp;${r.name}` : r.name} | ${r.state} | ${r.seconds.toFixed(1)} | ${escape(r.reason).slice(0, 300)} | ${escape(report.known[r.name])} |`,
    ),
    '',
  ]
  return lines.join('\n')
}

function parseArgs(argv) {
  const opts = {
    target: 'wafka',
    records: DEFAULT_RECORDS,
    rf: 3,
    run: null,
    timeout: 900,
    chaos: false,
    write: true,
    prepare: false,
    render: false,
    timings: null,
    brokerArgs: [],
    out: join(here, 'franz-go-results'),
  }
  for (const a of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a)
    if (!m) throw new Error(`unknown argument ${a}`)
    const [, k, v] = m
    if (k === 'target') opts.target = v
    else if (k === 'records') opts.records = Number(v)
    else if (k === 'rf') opts.rf = Number(v)
    else if (k === 'run') opts.run = v
    else if (k === 'timeout') opts.timeout = Number(v)
    else if (k === 'chaos') opts.chaos = true
    else if (k === 'out') opts.out = v
    else if (k === 'no-write') opts.write = false
    else if (k === 'prepare') opts.prepare = true
    else if (k === 'render') opts.render = true
    else if (k === 'timings') opts.timings = v
    else if (k === 'broker-args') opts.brokerArgs = v.split(' ').filter(Boolean)
    else throw new Error(`unknown option --${k}`)
  }
  if (!['wafka', 'wafka-disk', 'kafka'].includes(opts.target)) throw new Error('--target: wafka, wafka-disk or kafka')
  if (!(opts.records > 0) || !(opts.rf > 0)) throw new Error('--records and --rf: positive numbers')
  return opts
}

const knownFor = (target) => ({ ...RACY_ON_KAFKA, ...KNOWN_DIFFERENCES[target === 'kafka' ? 'kafka' : 'wafka'] })

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  if (opts.render) {
    // --render: the markdown again from the committed JSON, with the known differences as lists.mjs has them now.
    const base = join(opts.out, `${opts.target}${opts.chaos ? '-chaos' : ''}${opts.run ? '-partial' : ''}`)
    const report = JSON.parse(readFileSync(`${base}.json`, 'utf8'))
    report.known = knownFor(opts.target)
    writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`)
    writeFileSync(`${base}.md`, markdown(report))
    return console.log(`franz-go-suite: rendered ${base}.md`)
  }
  const { moduleDir, go } = prepareSuite()
  if (opts.prepare) return console.log(`franz-go-suite: ${FRANZ_GO_MODULE}@${FRANZ_GO_VERSION} ready in ${moduleDir} (${go})`)
  const live = liveTests(moduleDir).map((t) => t.name)
  const run = opts.run ?? runPattern(live)
  const dataDir = opts.target === 'wafka-disk' ? mkdtempSync(join(tmpdir(), 'franz-go-data-')) : undefined
  if (opts.timings) {
    mkdirSync(opts.timings, { recursive: true })
    // The embedded broker's own counter (src/broker/request-timings.ts), written by each broker process at its exit.
    if (opts.target !== 'kafka') process.env.WAFKA_BROKER_REQUEST_TIMINGS = join(opts.timings, 'timings-%p.json')
  }
  const target = await startTarget(opts.target, { dataDir, requestLog: !!opts.timings, brokerArgs: opts.brokerArgs })
  console.log(
    `franz-go-suite: ${FRANZ_GO_MODULE}@${FRANZ_GO_VERSION} (${go}), ${opts.run ? `-run ${opts.run}` : `${live.length} live tests`}; ${target.describe}`,
  )
  const env = { ...target.env, KGO_TEST_RECORDS: String(opts.records), KGO_TEST_RF: String(opts.rf) }
  if (opts.chaos) env.KGO_TEST_CHAOS = '1'
  let result
  let brokerCpuSeconds = 0
  let watched
  let kafkaTimings
  const watch = opts.timings ? watchLoad({ pids: target.pids, bootstrap: env.KGO_SEEDS }) : null
  const brokerPids = target.pids()
  try {
    result = await runGoTests({ moduleDir, env, run, timeoutS: opts.timeout })
    brokerCpuSeconds = target.cpuSeconds()
    watched = await watch?.stop()
    if (opts.timings && target.requestLogs) kafkaTimings = await readRequestLogs(target.requestLogs())
  } finally {
    await watch?.stop()
    await target.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  }
  const known = knownFor(opts.target)
  const report = {
    franzGo: FRANZ_GO_VERSION,
    go,
    target: opts.target,
    describe: target.describe,
    command: `node test/peers/franz-go-suite.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    date: new Date().toISOString(),
    records: opts.records,
    rf: opts.rf,
    chaos: opts.chaos,
    wallSeconds: result.wallSeconds,
    brokerCpuSeconds,
    known,
    tests: result.rows,
  }
  const top = result.rows.filter((t) => !t.name.includes('/'))
  const failed = top.filter((t) => t.state === 'FAIL')
  console.log(
    `franz-go-suite: ${top.filter((t) => t.state === 'PASS').length} passed, ${failed.length} failed, ` +
      `${top.filter((t) => t.state === 'SKIP').length} skipped in ${result.wallSeconds.toFixed(0)} s (broker CPU ${brokerCpuSeconds.toFixed(0)} s); logs in ${result.logDir}`,
  )
  if (opts.timings) {
    // The cluster's client requests: the main wafka broker process's counter, or the Kafka brokers' request logs.
    const timings = kafkaTimings
      ? kafkaTimings.clients
      : JSON.parse(readFileSync(join(opts.timings, `timings-${brokerPids[0]}.json`), 'utf8'))
    const summary = {
      command: `node test/peers/franz-go-suite.mjs ${process.argv.slice(2).join(' ')}`.trim(),
      target: opts.target,
      describe: target.describe,
      date: new Date().toISOString(),
      records: opts.records,
      tests: top.map((t) => ({ name: t.name, state: t.state, seconds: t.seconds })),
      wallSeconds: result.wallSeconds,
      brokerCpuSeconds,
      ...watched,
      timings,
      ...(kafkaTimings ? { brokerOwnRequests: kafkaTimings.brokers, unparsedLines: kafkaTimings.unparsed } : {}),
    }
    writeFileSync(join(opts.timings, 'run.json'), `${JSON.stringify(summary, null, 2)}\n`)
    console.log(
      `franz-go-suite: load ${watched.loadAverage.min}-${watched.loadAverage.max} (median ${watched.loadAverage.median}), ` +
        `peak RSS ${(watched.peakRssBytes / 2 ** 30).toFixed(2)} GiB, probe round trip p50/p99/max ` +
        `${watched.probe.roundTripMs.p50}/${watched.probe.roundTripMs.p99}/${watched.probe.roundTripMs.max} ms ` +
        `(${watched.probe.failures} failed); wrote ${join(opts.timings, 'run.json')}`,
    )
  }
  if (opts.write) {
    mkdirSync(opts.out, { recursive: true })
    const base = join(opts.out, `${opts.target}${opts.chaos ? '-chaos' : ''}${opts.run ? '-partial' : ''}`)
    writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`)
    writeFileSync(`${base}.md`, markdown(report))
    console.log(`franz-go-suite: wrote ${base}.json and .md`)
  }
  process.exitCode = failed.length ? 1 : 0
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => {
    console.error(e)
    process.exit(2)
  })
}
