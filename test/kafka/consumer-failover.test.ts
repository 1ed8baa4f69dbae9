// Group members and brokers failing for real: a member killed with -9 (its
// partitions move to the others once the broker's session timeout passes, and
// nothing it committed is read again), and the group coordinator's broker
// killed in a 3-broker cluster (the group finds the new coordinator and
// carries on: reads, commits, no partition owned twice, nothing lost).
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { Connection } from '../../src/net/connection.js'
import { FindCoordinator } from '../../src/protocol/messages/index.js'
import { LineSplitter, killOnExit } from '../peers/child.js'
import { type KafkaCluster, requireKafka, startKafka } from '../peers/kafka.js'
import { duplicates, type Member, Ownership, partitionsOf, produce, type Read, startMember, until } from './consumer-support.js'

const kafka = requireKafka('4')
const root = join(import.meta.dirname, '..', '..')

/** A wafka member in a child process (test/kafka/group-member.mjs); its lines land in `reads` and `owned`. */
function childMember(bootstrap: string, groupId: string, topic: string, name: string, sessionTimeoutMs: number, sink: { reads: Read[] }) {
  if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('dist/index.js is missing: npm run build first')
  const child = spawn(
    process.execPath,
    [join(root, 'test', 'kafka', 'group-member.mjs'), bootstrap, groupId, topic, name, String(sessionTimeoutMs)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  killOnExit(child)
  const state = { child, owned: [] as string[], running: false, crashes: [] as string[], stderr: '' }
  const lines = new LineSplitter()
  lines.onLine = (line) => {
    const m = JSON.parse(line)
    if (m.assigned) state.owned = [...new Set([...state.owned, ...m.assigned])].sort()
    if (m.revoked) state.owned = state.owned.filter((p) => !m.revoked.includes(p))
    if (m.read !== undefined) sink.reads.push({ by: name, topic, partition: m.partition, offset: BigInt(m.offset), value: m.read })
    if (m.running) state.running = true
    if (m.crash) state.crashes.push(m.crash)
  }
  child.stdout.setEncoding('utf8').on('data', (c: string) => lines.push(c))
  child.stderr.setEncoding('utf8').on('data', (c: string) => (state.stderr += c))
  return state
}

describe.skipIf(!kafka)('consumer failover on real Kafka', () => {
  let cluster: KafkaCluster | undefined
  const members: Member[] = []
  const children: ChildProcess[] = []
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL')
    await Promise.allSettled(members.splice(0).map((m) => m.consumer.disconnect()))
    await cluster?.stop()
    cluster = undefined
  })

  it('a member killed with -9: its partitions move to the other member after the session timeout, and the reads resume at its commits', async () => {
    cluster = await startKafka({ brokers: 1 })
    const bootstrap = cluster.bootstrap
    const admin = new Kafka({ brokers: [bootstrap] }).admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'killed', numPartitions: 4, replicationFactor: 1 }] })
    await admin.disconnect()
    await produce(bootstrap, 'killed', 400)
    const sessionTimeoutMs = 6000
    const reads: Read[] = []
    const ownership = new Ownership()
    const victim = childMember(bootstrap, 'group-killed', 'killed', 'victim', sessionTimeoutMs, { reads })
    children.push(victim.child)
    await until(
      () => victim.running && victim.owned.length === 4,
      30_000,
      () => `victim owns ${victim.owned}; ${victim.stderr.slice(-500)}`,
    )
    const survivor = await startMember(
      bootstrap,
      'survivor',
      { groupId: 'group-killed', sessionTimeoutMs, heartbeatIntervalMs: 500, autoCommitIntervalMs: 200 },
      { topics: ['killed'] },
      { reads, ownership },
    )
    members.push(survivor)
    await until(
      () => partitionsOf(survivor.consumer).length === 2 && victim.owned.length === 2,
      30_000,
      () => `survivor ${partitionsOf(survivor.consumer)}, victim ${victim.owned}`,
    )
    await until(
      () => reads.length >= 400,
      20_000,
      () => `read ${reads.length}`,
    )
    // Let the victim commit what it read, then kill it mid-stream: it gets no chance to leave or commit again.
    await new Promise((r) => setTimeout(r, 1000))
    const victimOwned = victim.owned
    const victimReads = new Set(reads.filter((r) => r.by === 'victim').map((r) => r.value))
    victim.child.kill('SIGKILL')
    const killedAt = Date.now()
    await produce(bootstrap, 'killed', 400, 'v', { from: 400 })

    await until(
      () => partitionsOf(survivor.consumer).length === 4,
      sessionTimeoutMs + 20_000,
      () => `survivor owns ${partitionsOf(survivor.consumer)}`,
    )
    const movedAfter = Date.now() - killedAt
    // Not before the broker gave up on the victim's session (the broker checks expiry at its own pace, hence the slack).
    expect(movedAfter).toBeGreaterThan(sessionTimeoutMs - 1500)
    await until(
      () => new Set(reads.map((r) => r.value)).size >= 800,
      20_000,
      () => `read ${new Set(reads.map((r) => r.value)).size} distinct`,
    )
    // Nothing lost, and nothing read twice: the victim had been idle for a second (several auto-commit intervals) when it was killed, so all it read was committed.
    expect(new Set(reads.map((r) => r.value)).size).toBe(800)
    expect(victimReads.size).toBeGreaterThan(0)
    expect(duplicates(reads)).toEqual([])
    // The survivor read the victim's partitions from where the victim's commits left them: only new messages there.
    const survivorOnVictims = survivor.reads.filter((r) => victimOwned.includes(`killed-${r.partition}`))
    expect(survivorOnVictims.every((r) => Number(r.value.slice(1)) >= 400)).toBe(true)
  })

  it("the group coordinator's broker killed in a 3-broker cluster: the members find the new coordinator, keep reading and committing, nothing lost, no partition owned twice", async () => {
    cluster = await startKafka({ brokers: 3 })
    const c = cluster
    const bootstrap = c.bootstrap
    const admin = new Kafka({ brokers: bootstrap.split(','), retryBackoffMs: 100 }).admin()
    await admin.connect()
    await admin.createTopics({
      topics: [
        { topic: 'coordinated', numPartitions: 6, replicationFactor: 3, configEntries: [{ name: 'min.insync.replicas', value: '2' }] },
      ],
    })
    await produce(bootstrap, 'coordinated', 600)
    const groupId = 'group-coordinated'
    const reads: Read[] = []
    const ownership = new Ownership()
    const config = { groupId, sessionTimeoutMs: 10_000, heartbeatIntervalMs: 500, autoCommitIntervalMs: 200 }
    const commits: string[] = []
    for (const name of ['a', 'b']) {
      const m = await startMember(bootstrap, name, config, { topics: ['coordinated'] }, { reads, ownership })
      m.consumer.on(m.consumer.events.COMMIT_OFFSETS, (e) => void commits.push(e.payload.error ? `error ${e.payload.error.message}` : 'ok'))
      members.push(m)
    }
    await until(
      () => members.every((m) => partitionsOf(m.consumer).length === 3),
      30_000,
      () => members.map((m) => partitionsOf(m.consumer)).join(' / '),
    )
    await until(
      () => reads.length >= 600,
      30_000,
      () => `read ${reads.length}`,
    )

    const coordinator = async () => {
      const [host, port] = bootstrap
        .split(',')
        .find((b) => c.brokers.some((x) => x.port === Number(b.split(':')[1]) && c.isRunning(x.id)))!
        .split(':')
      const conn = await Connection.open({ host, port: Number(port), connectTimeoutMs: 2000, requestTimeoutMs: 5000 })
      try {
        const res = await conn.request(FindCoordinator, { keyType: 0, coordinatorKeys: [groupId] } as any)
        const answer = res.coordinators[0]
        if (answer.errorCode !== 0) throw new Error(`FindCoordinator: error ${answer.errorCode}`)
        return answer.nodeId as number
      } finally {
        conn.close()
      }
    }
    const before = await coordinator()
    const t0 = Date.now()
    const step = (what: string) => console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s: ${what}`)
    await new Promise((r) => setTimeout(r, 500))
    const commitsBefore = commits.length
    await c.kill(before)
    step(`killed broker ${before}, the coordinator`)
    await produce(bootstrap, 'coordinated', 600, 'v', { from: 600 })
    step('produced 600 more')
    let after = before
    await until(
      async () => (after = await coordinator().catch(() => before)) !== before,
      60_000,
      () => `coordinator still ${after}`,
    )
    step(`coordinator now ${after}`)
    await until(
      () => new Set(reads.map((r) => r.value)).size >= 1200,
      60_000,
      () => `read ${new Set(reads.map((r) => r.value)).size} distinct`,
    )
    step('read all 1200')
    // Commits go on at the new coordinator: the group's committed offsets reach the end of every partition.
    await until(
      async () => {
        const offsets = await admin.fetchOffsets({ groupId, topics: ['coordinated'] })
        const ends = await admin.fetchTopicOffsets('coordinated')
        return offsets[0].partitions.every(
          (p: { partition: number; offset: string }) => p.offset === ends.find((e) => e.partition === p.partition)!.high,
        )
      },
      30_000,
      () => `commits ${commits.slice(commitsBefore).join(', ')}`,
    )
    expect(commits.slice(commitsBefore).filter((x) => x === 'ok').length).toBeGreaterThan(0)
    expect(new Set(reads.map((r) => r.value)).size).toBe(1200)
    expect(ownership.violations).toEqual([])
    expect(members.flatMap((m) => partitionsOf(m.consumer)).sort()).toEqual([0, 1, 2, 3, 4, 5].map((p) => `coordinated-${p}`))
    await admin.disconnect()
  }, 180_000)
})
