// Whether the real peers (the mock cluster binaries, kcat) are on this
// machine. Under CI they must be: a missing peer fails the run instead of
// silently skipping every integration test.
import { spawnSync } from 'node:child_process'
import { buildMockCluster, type PeerBuild } from './build.mjs'

export type { PeerBuild }

export interface PeerStatus {
  ok: boolean
  /** One line per missing peer, saying how to get it. */
  missing: string[]
  binaries: Partial<Record<PeerBuild, string>>
  kcat: boolean
}

export interface PeerNeeds {
  builds?: PeerBuild[]
  kcat?: boolean
}

const binaries = new Map<PeerBuild, { path: string } | { error: string }>()
let kcatFound: boolean | undefined

/** The compiled mock-cluster binary of a build (compiling it on first use). */
export function mockClusterBinary(build: PeerBuild): string {
  let r = binaries.get(build)
  if (!r) binaries.set(build, (r = buildMockCluster(build)))
  if ('error' in r) throw new Error(`mock cluster (${build}) unavailable: ${r.error}`)
  return r.path
}

function hasKcat(): boolean {
  kcatFound ??= spawnSync('kcat', ['-V'], { stdio: 'ignore' }).status === 0
  return kcatFound
}

export function peersAvailable(needs: PeerNeeds = {}): PeerStatus {
  const { builds = ['legacy', 'modern'], kcat = true } = needs
  const status: PeerStatus = { ok: true, missing: [], binaries: {}, kcat: false }
  for (const build of builds) {
    try {
      status.binaries[build] = mockClusterBinary(build)
    } catch (e) {
      status.missing.push((e as Error).message)
    }
  }
  status.kcat = hasKcat()
  if (kcat && !status.kcat) status.missing.push('kcat is not installed (apt-get install -y kcat)')
  status.ok = status.missing.length === 0
  return status
}

/**
 * For `describe.skipIf(!requirePeers())(...)`: true when the peers are here.
 * Under CI (process.env.CI set) a missing peer throws, which fails the test
 * file; elsewhere it warns once and returns false so the tests skip.
 */
export function requirePeers(needs: PeerNeeds = {}): boolean {
  const status = peersAvailable(needs)
  if (status.ok) return true
  const message = `real peers missing:\n  ${status.missing.join('\n  ')}\n(see test/peers/README.md)`
  if (process.env.CI) throw new Error(message)
  console.warn(`${message}\nskipping the tests that need them (they fail under CI)`)
  return false
}
