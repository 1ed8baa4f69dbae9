// The real-Kafka rig itself: clusters of 1 and 3 KRaft nodes start and
// serve, a broker killed with -9 comes back with its id and data, the Java
// tools run on the same class path, and stop() leaves no JVM and no files.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { type KafkaCluster, requireKafka, startKafka } from './kafka.js'
import { kcatConsume, kcatMetadata, kcatProduce } from './kcat.js'
import { until } from '../support/until.js'

const kafka = requireKafka('4')
const kafka39 = requireKafka('3.9')

/** Pids of processes whose command line mentions `text` (a cluster's log dir). */
function processesMentioning(text: string): number[] {
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

async function brokerIds(bootstrap: string): Promise<number[]> {
  const admin = new Kafka({ brokers: bootstrap.split(','), retryBackoffMs: 100 }).admin()
  await admin.connect()
  try {
    const { brokers } = await admin.describeCluster()
    return brokers.map((b) => b.nodeId).sort()
  } finally {
    await admin.disconnect()
  }
}

describe.skipIf(!kafka)('real Kafka rig: one broker', () => {
  let cluster: KafkaCluster
  beforeAll(async () => {
    cluster = await startKafka()
  })
  afterAll(() => cluster?.stop())

  it('serves Metadata with one broker, and kcat produces and consumes through it', async () => {
    expect(await brokerIds(cluster.bootstrap)).toEqual([1])
    // The rig's log4j2 config: the broker logs into its log dir, not the test's stdout.
    expect(readFileSync(join(cluster.logDirs[0], 'server.log'), 'utf8')).toMatch(/Kafka Server started/)
    const md = await kcatMetadata(cluster.bootstrap)
    expect(md.brokers.map((b) => b.id)).toEqual([1])
    await kcatProduce(cluster.bootstrap, 'rig-one', [{ key: 'k', value: 'v', partition: 0 }])
    const got = await kcatConsume(cluster.bootstrap, 'rig-one', { count: 1 })
    expect(got.map((m) => [m.key?.toString(), m.value?.toString()])).toEqual([['k', 'v']])
  })

  it('runs the Java tools on its class path', async () => {
    const r = await cluster.runJava('org.apache.kafka.tools.TopicCommand', ['--bootstrap-server', cluster.bootstrap, '--list'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.split('\n')).toContain('rig-one')
  })
})

describe.skipIf(!kafka)('real Kafka rig: three brokers', () => {
  let cluster: KafkaCluster
  beforeAll(async () => {
    cluster = await startKafka({ brokers: 3 })
  })
  afterAll(() => cluster?.stop())

  it('serves Metadata with all three brokers from each of them', async () => {
    for (const b of cluster.brokers) expect(await brokerIds(`${b.host}:${b.port}`)).toEqual([1, 2, 3])
  })

  it('a broker killed with -9 leaves the cluster and comes back with its id and data', async () => {
    await kcatProduce(cluster.bootstrap, 'rig-three', [{ key: 'a', value: '1', partition: 0 }], { config: { acks: 'all' } })
    await cluster.kill(2)
    expect(cluster.isRunning(2)).toBe(false)
    expect(processesMentioning(cluster.logDirs[1])).toEqual([])
    await until(
      'brokers after kill -9 of broker 2',
      () => brokerIds(cluster.bootstrap),
      (ids) => ids.join() === '1,3',
    )
    await cluster.startBroker(2)
    expect(cluster.isRunning(2)).toBe(true)
    expect(await brokerIds(cluster.bootstrapFor('PLAINTEXT'))).toEqual([1, 2, 3])
    const got = await kcatConsume(cluster.bootstrap, 'rig-three', { count: 1 })
    expect(got.map((m) => m.value?.toString())).toEqual(['1'])
  })

  it('a controlled shutdown stops one broker; the other two go on serving', async () => {
    await cluster.stopBroker(3)
    expect(cluster.isRunning(3)).toBe(false)
    await until(
      'brokers after stopping broker 3',
      () => brokerIds(cluster.bootstrap),
      (ids) => ids.join() === '1,2',
    )
    await cluster.startBroker(3)
    expect(await brokerIds(cluster.bootstrap)).toEqual([1, 2, 3])
  })

  it('stop() leaves no process and no files behind', async () => {
    const dirs = cluster.logDirs
    expect(dirs.every((d) => processesMentioning(d).length === 1)).toBe(true)
    await cluster.stop()
    for (const d of dirs) {
      expect(processesMentioning(d)).toEqual([])
      expect(existsSync(d)).toBe(false)
    }
  })
})

describe.skipIf(!kafka39)('real Kafka rig: 3.9', () => {
  it('a 3.9 broker starts, serves and stops', async () => {
    const cluster = await startKafka({ version: '3.9' })
    try {
      expect(cluster.version).toMatch(/^3\.9\./)
      expect(await brokerIds(cluster.bootstrap)).toEqual([1])
      expect(readFileSync(join(cluster.logDirs[0], 'server.log'), 'utf8')).toMatch(/Kafka Server started/)
    } finally {
      await cluster.stop()
    }
    expect(processesMentioning(cluster.logDirs[0])).toEqual([])
  })
})
