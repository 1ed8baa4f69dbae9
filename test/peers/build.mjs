// Compiles test/peers/mock-cluster.c (and the other C peers beside it, such
// as late-revoke.c) against both librdkafka builds into
// node_modules/.cache/wafka-peers/, once per distinct source + toolchain
// input (the file name carries a hash of them), so tests can call it freely.
//
//   legacy  Debian's librdkafka-dev 2.0.2 (/usr/include, system -lrdkafka)
//   modern  librdkafka 2.15 built by @confluentinc/kafka-javascript's
//           install script (CKJS_LINKING=dynamic), linked with an rpath
//
// The npm package is not a devDependency: its install needs Debian packages
// and CKJS_LINKING=dynamic (else it tries to download and fails), which would
// break a plain `npm ci` on a fresh machine. `--install` puts it in a cache
// outside node_modules (kept across npm ci), pinned to CKJS_VERSION.
//
// CLI (.ci/run): `node test/peers/build.mjs --install` builds both and exits
// non-zero if either cannot be built.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..', '..')
export const cacheDir = join(root, 'node_modules', '.cache', 'wafka-peers')

/** librdkafka 2.15.1 ships in this release of the package. */
export const CKJS_VERSION = '1.10.1'
const ckjsPrefix = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'wafka-peers', `kafka-javascript-${CKJS_VERSION}`)
/** The package's folder: also a modern librdkafka client for tests (require it from here). */
export const ckjsDir = join(ckjsPrefix, 'node_modules', '@confluentinc', 'kafka-javascript')

/** Where the npm package leaves librdkafka.so and its headers. */
function modernDepsDir() {
  return join(ckjsDir, 'build', 'deps')
}

/** Installs and builds the package into the cache when it is not there (about 2 minutes). */
export function installModern() {
  if (existsSync(join(modernDepsDir(), 'librdkafka.so'))) return null
  mkdirSync(ckjsPrefix, { recursive: true })
  const r = spawnSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefix',
      ckjsPrefix,
      `@confluentinc/kafka-javascript@${CKJS_VERSION}`,
    ],
    { stdio: 'inherit', env: { ...process.env, CKJS_LINKING: 'dynamic' } },
  )
  return r.status === 0
    ? null
    : `npm install of @confluentinc/kafka-javascript@${CKJS_VERSION} failed (needs libcurl4-openssl-dev libzstd-dev libssl-dev zlib1g-dev)`
}

/**
 * @typedef {'legacy' | 'modern'} PeerBuild
 * @typedef {{ build: PeerBuild, include: string, libDir: string | null }} Toolchain
 */

/** @returns {Toolchain | string} the inputs of a build, or why it cannot be built */
function toolchain(build) {
  if (build === 'legacy') {
    const include = '/usr/include'
    if (!existsSync(join(include, 'librdkafka', 'rdkafka_mock.h')))
      return 'Debian librdkafka-dev is not installed (apt-get install -y librdkafka-dev)'
    return { build, include, libDir: null }
  }
  const deps = modernDepsDir()
  const include = join(deps, 'include')
  if (!existsSync(join(include, 'librdkafka', 'rdkafka_mock.h')) || !existsSync(join(deps, 'librdkafka.so')))
    return `librdkafka of @confluentinc/kafka-javascript is not built in ${deps} (run: node test/peers/build.mjs --install)`
  return { build, include, libDir: deps }
}

function gccArgs(tc, source, out) {
  const args = ['-std=c11', '-D_POSIX_C_SOURCE=200809L', '-O2', '-Wall', '-o', out, source]
  if (tc.libDir) {
    // -I before the system dirs so the 2.15 headers win over Debian's 2.0.2.
    args.unshift('-I', tc.include)
    args.push('-L', tc.libDir, '-lrdkafka', `-Wl,-rpath,${tc.libDir}`)
  } else {
    args.push('-lrdkafka')
  }
  return args
}

function binaryPath(tc, name, source) {
  const hash = createHash('sha256')
  hash.update(readFileSync(source))
  hash.update(JSON.stringify(gccArgs(tc, source, '')))
  hash.update(readFileSync(join(tc.include, 'librdkafka', 'rdkafka.h')))
  return join(cacheDir, `${name}-${tc.build}-${hash.digest('hex').slice(0, 16)}`)
}

/**
 * Builds (or finds in the cache) the mock-cluster binary for one build.
 * @param {PeerBuild} build
 * @returns {{ path: string } | { error: string }}
 */
export function buildMockCluster(build) {
  return buildPeerProgram('mock-cluster', build)
}

/**
 * Builds (or finds in the cache) test/peers/NAME.c linked with one librdkafka build.
 * @param {string} name
 * @param {PeerBuild} build
 * @returns {{ path: string } | { error: string }}
 */
export function buildPeerProgram(name, build) {
  const tc = toolchain(build)
  if (typeof tc === 'string') return { error: tc }
  const source = join(here, `${name}.c`)
  const out = binaryPath(tc, name, source)
  if (existsSync(out)) return { path: out }

  mkdirSync(cacheDir, { recursive: true })
  // Compile beside, then rename: parallel test workers never see half a file.
  const tmp = `${out}.${process.pid}.tmp`
  const gcc = spawnSync('gcc', gccArgs(tc, source, tmp), { encoding: 'utf8' })
  if (gcc.error) return { error: `gcc: ${gcc.error.message}` }
  if (gcc.status !== 0) {
    rmSync(tmp, { force: true })
    return { error: `gcc failed for the ${build} ${name}:\n${gcc.stderr}` }
  }
  renameSync(tmp, out)
  for (const f of readdirSync(cacheDir)) {
    const stale = f.startsWith(`${name}-${build}-`) && join(cacheDir, f) !== out && !f.endsWith('.tmp')
    if (stale) rmSync(join(cacheDir, f), { force: true })
  }
  return { path: out }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let failed = false
  if (process.argv.includes('--install')) {
    const err = installModern()
    if (err) console.error(`peers: modern: ${err}`)
  }
  for (const build of /** @type {PeerBuild[]} */ (['legacy', 'modern'])) {
    const started = Date.now()
    const r = buildMockCluster(build)
    if ('error' in r) {
      failed = true
      console.error(`peers: ${build}: ${r.error}`)
    } else {
      console.log(`peers: ${build}: ${r.path} (${Date.now() - started} ms)`)
    }
  }
  process.exit(failed ? 1 : 0)
}
