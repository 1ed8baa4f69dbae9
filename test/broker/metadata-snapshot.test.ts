// Snapshots of the cluster metadata log: the image as the fewest records
// whose replay gives it back, the log rewritten as them at each start (a
// deleted topic's records go with it) and, while running, by Kafka's
// metadata.log.max.snapshot.interval.bytes / .ms.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EmbeddedCluster } from '../../src/broker/cluster.js'
import { Controller } from '../../src/broker/controller.js'
import { SnapshotPolicy, snapshotRecords } from '../../src/broker/metadata-snapshot.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { decodeRecordSet, loadCodecs } from '../../src/codec/index.js'
import { Kafka } from '../../src/index.js'
import { batchesOf } from './storage-support.js'

const dirs: string[] = []
let cluster: RunningCluster | undefined
let stopEmbedded: EmbeddedCluster | undefined
afterEach(async () => {
  await cluster?.stop()
  cluster = undefined
  await stopEmbedded?.stop()
  stopEmbedded = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** What a controller holds, as plain data. */
function image(c: Controller) {
  return {
    brokers: [...c.brokers.values()],
    topics: [...c.topics.values()].map((t) => ({ ...t, configs: [...t.configs] })),
    byId: [...c.topicsById.keys()].sort(),
    dynamic: {
      broker: [...c.dynamicConfigs.broker].map(([k, v]) => [k, [...v]]),
      group: [...c.dynamicConfigs.group].map(([k, v]) => [k, [...v]]),
    },
    scram: [...c.scramCredentials],
    producerIds: c.producerIdBlockEnd,
  }
}

describe('metadata snapshots', () => {
  it("a snapshot's replay gives the same image as the whole log's, producer ids included", () => {
    const log = new Controller('cluster')
    for (let id = 0; id < 3; id++) log.registerBroker(id, 'localhost', 9092 + id, id === 2 ? 'rack-b' : null)
    log.createTopic('kept', { partitions: 3, replicationFactor: 2, configs: { 'retention.ms': '1000' } })
    log.createTopic('gone', { partitions: 1, replicationFactor: 1 })
    log.deleteTopic('gone')
    log.createPartitions('kept', 5)
    log.setTopicConfig('kept', 'cleanup.policy', 'compact')
    log.setDynamicConfig('broker', '', 'log.retention.ms', '5000')
    log.setDynamicConfig('group', 'g', 'consumer.session.timeout.ms', '45000')
    log.append({
      type: 'scram',
      user: 'alice',
      mechanism: 1,
      credential: { salt: 'c2FsdA==', iterations: 4096, storedKey: 'aw==', serverKey: 'cw==' },
    })
    log.append({ type: 'scram', user: 'bob', mechanism: 2, credential: null })
    log.setFenced(1, true)
    log.allocateProducerId()
    const fromLog = Controller.replay(log.log, 'cluster')
    const snapshot = snapshotRecords(fromLog)
    const fromSnapshot = Controller.replay(snapshot, 'cluster')
    expect(image(fromSnapshot)).toEqual(image(fromLog))
    expect(snapshot.length).toBeLessThan(log.log.length)
    expect(snapshot.some((r) => r.type === 'remove-topic' || (r.type === 'topic' && r.name === 'gone'))).toBe(false)
    // Both hand out the same next producer id (a new block after the last one handed out).
    expect(fromSnapshot.allocateProducerId()).toBe(fromLog.allocateProducerId())
  })

  it('every start rewrites the log as the image: a deleted topic and the start-up records of earlier runs are gone, the rest comes back', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wafka-snapshot-'))
    dirs.push(dataDir)
    const file = join(dataDir, '__cluster_metadata-0', '00000000000000000000.log')
    const records = () =>
      batchesOf(file).flatMap((b) => decodeRecordSet(b.bytes).batches[0].records.map((r) => JSON.parse(r.value!.toString())))
    cluster = await startCluster({ dataDir, topics: [{ name: 'a', partitions: 2, configs: { 'retention.ms': '1000' } }, { name: 'b' }] })
    const admin = new Kafka({ clientId: 'snap', brokers: cluster.bootstrapServers.split(','), logLevel: 0 }).admin()
    await admin.connect()
    await admin.deleteTopics({ topics: ['b'] })
    await admin.disconnect()
    await cluster.stop()
    for (let i = 0; i < 3; i++) {
      cluster = await startCluster({ dataDir })
      await cluster.stop()
    }
    cluster = undefined
    const held = records()
    // Four runs registered the broker four times: the image's registration and the last run's are left. No trace of b;
    // a's topic, config and partitions.
    expect(held.filter((r) => r.type === 'broker')).toHaveLength(2)
    expect(held.filter((r) => r.type === 'remove-topic' || r.name === 'b')).toEqual([])
    expect(held.filter((r) => r.type === 'topic').map((r) => r.name)).toEqual(['a'])
    expect(held.filter((r) => r.type === 'partition')).toHaveLength(2)
    expect(held.filter((r) => r.type === 'config')).toMatchObject([{ name: 'a', key: 'retention.ms', value: '1000' }])
    cluster = await startCluster({ dataDir })
    expect(cluster.metadataLog.filter((r) => r.type === 'topic').map((r) => (r as { name: string }).name)).toEqual(['a'])
  })

  it('while running, a log past interval.bytes is rewritten as the image once the change that passed it has applied', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wafka-snapshot-'))
    dirs.push(dataDir)
    const file = join(dataDir, '__cluster_metadata-0', '00000000000000000000.log')
    const records = () =>
      batchesOf(file).flatMap((b) => decodeRecordSet(b.bytes).batches[0].records.map((r) => JSON.parse(r.value!.toString())))
    await loadCodecs()
    const embedded = new EmbeddedCluster({ dataDir })
    stopEmbedded = embedded
    await embedded.start([{ name: 'a' }, { name: 'b' }])
    // From here every append passes the interval: each change is followed by a snapshot.
    embedded.metadataSnapshots.maxBytes = 1
    embedded.controller.deleteTopic('b')
    expect(records().some((r) => r.type === 'remove-topic')).toBe(true)
    await Promise.resolve()
    const held = records()
    expect(held.some((r) => r.type === 'remove-topic' || r.name === 'b')).toBe(false)
    expect(held.filter((r) => r.type === 'topic').map((r) => r.name)).toEqual(['a'])
    // Offsets start again at the snapshot: the image's records are 0..n-1.
    expect(batchesOf(file)[0].base).toBe(0)
  })

  it('is due after interval.bytes appended, or interval.ms with anything appended', () => {
    const p = new SnapshotPolicy(1000, 60_000)
    p.taken(0)
    expect(p.appended(600, 10)).toBe(false)
    expect(p.appended(600, 20)).toBe(true)
    p.taken(30)
    expect(p.appended(0, 60_030)).toBe(false)
    expect(p.appended(1, 60_031)).toBe(true)
    expect(new SnapshotPolicy().maxBytes).toBe(20 * 1024 * 1024)
    expect(new SnapshotPolicy().maxMs).toBe(3_600_000)
  })
})
