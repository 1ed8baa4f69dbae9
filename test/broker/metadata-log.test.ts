// The embedded broker's own logs on disk (the cluster metadata log, and
// the group log of earlier versions, moved once into __consumer_offsets):
// record batches with CRC-32Cs, a torn or corrupt tail cut and
// reported, a corrupt batch in the middle refusing the start by name, an
// earlier version's JSON lines migrated; and a partition directory never
// deleted because the metadata does not know it (moved aside as -stray).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DiskLog } from '../../src/broker/storage/disk-log.js'
import { RecordFile } from '../../src/broker/storage/record-file.js'
import { startCluster } from '../../src/broker/index.js'
import { decodeRecordSet } from '../../src/codec/index.js'
import { Metadata, OffsetFetch, ShareGroupDescribe } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { batch, batchesOf, listing, listOffset, produce, readAll, storageFixture } from './storage-support.js'
import { groupCoordinator, keepLog } from './support.js'

const fx = storageFixture('wafka-metalog-')
const { tempDir, start, stop } = fx

const metadataLog = (dataDir: string) => join(dataDir, '__cluster_metadata-0', '00000000000000000000.log')
const groupLog = (dataDir: string) => join(dataDir, '__consumer_offsets', '00000000000000000000.log')

/** The batches of one of the broker's own logs, each with its records' JSON. */
function jsonBatches(file: string) {
  return batchesOf(file).map((b) => ({
    ...b,
    records: decodeRecordSet(b.bytes).batches[0].records.map((r) => JSON.parse(r.value!.toString('utf8'))),
  }))
}

function flipByte(file: string, at: number): void {
  const bytes = readFileSync(file)
  bytes[at] ^= 0x01
  writeFileSync(file, bytes)
}

async function topicNames(c: RawClient): Promise<string[]> {
  const md = await c.request(Metadata, 12, { topics: null, allowAutoTopicCreation: false })
  return md.topics.map((t) => t.name).sort()
}

/** The set-up: three topics of 100 acknowledged records each, then a clean stop. */
async function threeTopics(dataDir: string): Promise<void> {
  const c = await start({ dataDir, topics: ['t1', 't2', 't3'].map((name) => ({ name, partitions: 1 })) })
  for (const t of ['t1', 't2', 't3']) expect((await produce(c, t, batch(t, 100, 20))).errorCode).toBe(0)
  await stop()
}

describe('the cluster metadata log', () => {
  it("names its cluster: meta.properties of another cluster refuses the start naming the file; a missing one is written again from the log's id", async () => {
    const dataDir = tempDir()
    await threeTopics(dataDir)
    const props = join(dataDir, 'meta.properties')
    const id = /cluster\.id=(\S+)/.exec(readFileSync(props, 'utf8'))![1]
    expect(jsonBatches(metadataLog(dataDir))[0].records[0]).toEqual({ type: 'cluster-id', id })
    // One character of the id changed into another valid one (Kafka's file has no checksum: nothing else tells).
    const other = `${id.slice(0, 10)}${id[10] === 'A' ? 'B' : 'A'}${id.slice(11)}`
    writeFileSync(props, `version=1\ncluster.id=${other}\n`)
    const refused = await start({ dataDir }).catch((e) => e)
    expect(refused.message).toContain(`${props} names cluster ${other}, but the metadata log beside it was written by cluster ${id}`)
    expect(refused.message).toContain(`cluster.id=${id}`)
    unlinkSync(props)
    const problems: string[] = []
    const c = await start({ dataDir, ...keepLog(problems) })
    expect(problems.join('\n')).toContain(`${props} was missing: written again with the cluster id its metadata log names (${id})`)
    expect(readFileSync(props, 'utf8')).toBe(`version=1\ncluster.id=${id}\n`)
    expect(await topicNames(c)).toEqual(expect.arrayContaining(['t1', 't2', 't3']))
    await stop()
  })

  it('is record batches with CRCs: one topic is one batch (the topic, its configs and its partitions together)', async () => {
    const dataDir = tempDir()
    await start({ dataDir, topics: [{ name: 'meta', partitions: 2, configs: { 'retention.ms': '1000' } }] })
    await stop()
    const topic = jsonBatches(metadataLog(dataDir)).find((b) => b.records[0].type === 'topic')!
    expect(topic.records.map((r) => r.type)).toEqual(['topic', 'config', 'partition', 'partition'])
    // Offsets run on from batch to batch, as a partition log's.
    const batches = batchesOf(metadataLog(dataDir))
    for (let i = 1; i < batches.length; i++) expect(batches[i].base).toBe(batches[i - 1].last + 1)
  })

  it("the issue's reproduction: a byte flipped in the middle of the log refuses the start naming the file and the offset; nothing is deleted", async () => {
    const dataDir = tempDir()
    await threeTopics(dataDir)
    const file = metadataLog(dataDir)
    const t2 = jsonBatches(file).find((b) => b.records[0].type === 'topic' && b.records[0].name === 't2')!
    flipByte(file, t2.position + Math.floor(t2.bytes.length / 2))
    const before = listing(dataDir)
    const problems: string[] = []
    const refused = await startCluster({ dataDir, ...keepLog(problems) }).then(
      (c) => ((fx.cluster = c), null),
      (err: Error) => err,
    )
    expect(refused).toMatchObject({ name: 'RecordFileError', path: file, offset: t2.position })
    expect(refused!.message).toContain(file)
    expect(refused!.message).toContain(`byte ${t2.position}`)
    expect(refused!.message).toMatch(/Restore the file from a backup; or move it aside/)
    // Nothing cut, nothing deleted: every file as it was.
    expect(listing(dataDir)).toEqual(before)
  })

  it('on 3 brokers too: a byte flipped in a topic batch in the middle refuses the start; every broker directory is left as it was', async () => {
    const dataDir = tempDir()
    await start({ dataDir, brokers: 3, topics: ['t1', 't2', 't3'].map((name) => ({ name, partitions: 3 })) })
    await stop()
    const file = metadataLog(dataDir)
    const t2 = jsonBatches(file).find((b) => b.records[0].type === 'topic' && b.records[0].name === 't2')!
    flipByte(file, t2.position + 30)
    const before = listing(dataDir)
    expect(Object.keys(before).filter((f) => /^broker-\d\/t\d-\d\/partition\.metadata$/.test(f))).toHaveLength(27)
    await expect(startCluster({ dataDir, brokers: 3 })).rejects.toMatchObject({ name: 'RecordFileError', path: file, offset: t2.position })
    expect(listing(dataDir)).toEqual(before)
  })

  it('moved aside as the refusal says: the partition directories it no longer names are reported and kept; a topic recreated under a name moves the old directory aside as -stray, its records kept', async () => {
    const dataDir = tempDir()
    await threeTopics(dataDir)
    const t3Log = join(dataDir, 'broker-0', 't3-0', '00000000000000000000.log')
    const t3Bytes = readFileSync(t3Log)
    renameSync(metadataLog(dataDir), `${metadataLog(dataDir)}.aside`)
    const problems: string[] = []
    const c = await start({ dataDir, ...keepLog(problems) })
    for (const t of ['t1', 't2', 't3'])
      expect(problems).toContainEqual(
        expect.stringMatching(new RegExp(`t${t.slice(1)}-0 holds topic id \\S+, which the metadata log does not know: kept`)),
      )
    expect(await topicNames(c)).toEqual([])
    // One record to t3, auto-created (as a client's Metadata request asks) under a new id.
    await c.request(Metadata, 12, { topics: [{ name: 't3' }], allowAutoTopicCreation: true })
    expect(await produce(c, 't3', batch('new', 1))).toMatchObject({ errorCode: 0, baseOffset: 0n })
    const stray = readdirSync(join(dataDir, 'broker-0')).filter((d) => d.startsWith('t3-0.'))
    expect(stray).toEqual([expect.stringMatching(/^t3-0\.[0-9a-f]{32}-stray$/)])
    // The 100 acknowledged records are all there, byte for byte.
    expect(readFileSync(join(dataDir, 'broker-0', stray[0], '00000000000000000000.log')).equals(t3Bytes)).toBe(true)
    expect(problems).toContainEqual(expect.stringContaining(`moved aside to ${join(dataDir, 'broker-0', stray[0])}`))
    expect((await readAll(c, 't3')).map((r) => r.key)).toEqual(['new-0'])
    // t1 and t2 untouched.
    expect(existsSync(join(dataDir, 'broker-0', 't1-0', '00000000000000000000.log'))).toBe(true)
  })

  it('a torn last batch is cut and reported (the file, the offset, the bytes cut); the topics before it are intact', async () => {
    const dataDir = tempDir()
    await threeTopics(dataDir)
    const file = metadataLog(dataDir)
    const batches = jsonBatches(file)
    const last = batches.at(-1)!
    truncateSync(file, last.position + last.bytes.length - 3)
    const problems: string[] = []
    const c = await start({ dataDir, ...keepLog(problems) })
    expect(problems).toContainEqual(
      `metadata log: ${file}: cut ${last.bytes.length - 3} bytes at byte ${last.position}, a torn last batch (the change it held was never acknowledged); ` +
        `the bytes cut are kept as ${file}.cut-${last.position}`,
    )
    expect(readFileSync(`${file}.cut-${last.position}`)).toEqual(last.bytes.subarray(0, last.bytes.length - 3))
    // The last batch was t3's creation: it goes (torn, it was never acknowledged); its partition directory is kept and said.
    expect(last.records[0]).toMatchObject({ type: 'topic', name: 't3' })
    expect(await topicNames(c)).toEqual(['t1', 't2'])
    for (const t of ['t1', 't2']) expect(await listOffset(c, t, -1n)).toMatchObject({ offset: 100n })
    expect(problems).toContainEqual(expect.stringMatching(/t3-0 holds topic id \S+, which the metadata log does not know: kept/))
    // The log goes on from the cut: nothing more to cut at the next start.
    await stop()
    const again: string[] = []
    await start({ dataDir, ...keepLog(again) })
    expect(again.filter((m) => m.includes('cut'))).toEqual([])
  })

  it('a byte flipped in the last batch fails its CRC: cut and reported as a torn tail', async () => {
    const dataDir = tempDir()
    await threeTopics(dataDir)
    const file = metadataLog(dataDir)
    const last = batchesOf(file).at(-1)!
    flipByte(file, last.position + last.bytes.length - 2)
    const problems: string[] = []
    const c = await start({ dataDir, ...keepLog(problems) })
    expect(problems).toContainEqual(expect.stringContaining(`${file}: cut ${last.bytes.length} bytes at byte ${last.position}`))
    expect(await topicNames(c)).toEqual(['t1', 't2'])
  })

  it("an earlier version's JSON-lines log is migrated once (kept as .migrated); one with a bad line in the middle refuses", async () => {
    const dataDir = tempDir()
    await threeTopics(dataDir)
    const dir = join(dataDir, '__cluster_metadata-0')
    // The file as earlier versions wrote it: a record a line, an atomic change's records as an array.
    const lines = jsonBatches(metadataLog(dataDir)).map((b) => JSON.stringify(b.records.length === 1 ? b.records[0] : b.records))
    unlinkSync(metadataLog(dataDir))
    const legacy = join(dir, 'records.jsonl')
    writeFileSync(legacy, `${lines.join('\n')}\n`)
    const problems: string[] = []
    const c = await start({ dataDir, ...keepLog(problems) })
    expect(await topicNames(c)).toEqual(['t1', 't2', 't3'])
    expect(problems).toContainEqual(expect.stringContaining(`${legacy}: migrated ${lines.length} lines`))
    expect(readFileSync(`${legacy}.migrated`, 'utf8')).toBe(`${lines.join('\n')}\n`)
    expect(existsSync(legacy)).toBe(false)
    await stop()

    // A bad line with whole ones after it: not migrated, refused by name.
    const broken = [...lines]
    broken[2] = broken[2].slice(0, -1)
    writeFileSync(legacy, `${broken.join('\n')}\n`)
    unlinkSync(metadataLog(dataDir))
    await expect(startCluster({ dataDir })).rejects.toMatchObject({ name: 'RecordFileError', path: legacy })
    expect(existsSync(metadataLog(dataDir))).toBe(false)
    expect(readFileSync(legacy, 'utf8')).toBe(`${broken.join('\n')}\n`)
  })
})

describe('the group log of an earlier version: moved once into __consumer_offsets', () => {
  async function committed(c: RawClient, group: string): Promise<bigint> {
    expect(await groupCoordinator(c, group)).toBe(0)
    const r = await c.request(OffsetFetch, 7, { groupId: group, topics: [{ name: 't1', partitionIndexes: [0] }], requireStable: false })
    return r.topics[0].partitions[0].committedOffset
  }

  const offset = (group: string, value: string) => ({
    type: 'offset',
    group,
    topic: 't1',
    partition: 0,
    offset: value,
    leaderEpoch: -1,
    metadata: null,
    commitTimestamp: 1,
  })

  /** A data directory as the last version left it: t1 in its metadata, three groups' commits in the group log (one batch each). */
  async function threeGroups(dataDir: string) {
    await start({ dataDir, topics: [{ name: 't1', partitions: 1 }] })
    await stop()
    // As that version wrote it: a RecordFile of JSON records beside the brokers' directories.
    const { file } = RecordFile.open<object>(groupLog(dataDir))
    file.append([offset('g1', '10')])
    file.append([offset('g2', '20')])
    file.append([offset('g3', '30')])
    file.close()
    const batches = jsonBatches(groupLog(dataDir))
    expect(batches.map((b) => b.records[0].group)).toEqual(['g1', 'g2', 'g3'])
    return batches
  }

  it('its commits are written into the partitions, the old log moved aside (not deleted), and they stay after another restart', async () => {
    const dataDir = tempDir()
    await threeGroups(dataDir)
    const problems: string[] = []
    let c = await start({ dataDir, ...keepLog(problems) })
    expect(problems).toContainEqual(expect.stringContaining('3 group(s) written into __consumer_offsets'))
    expect(existsSync(join(dataDir, '__consumer_offsets'))).toBe(false)
    expect(existsSync(join(dataDir, '__consumer_offsets.migrated', '00000000000000000000.log'))).toBe(true)
    for (const [g, o] of [
      ['g1', 10n],
      ['g2', 20n],
      ['g3', 30n],
    ] as const)
      expect(await committed(c, g)).toBe(o)
    await stop()
    c = await start({ dataDir })
    for (const [g, o] of [
      ['g1', 10n],
      ['g2', 20n],
      ['g3', 30n],
    ] as const)
      expect(await committed(c, g)).toBe(o)
  })

  it("a share group's membership in it (as the version before wrote it) is written as ShareGroup* records and stays after another restart", async () => {
    const dataDir = tempDir()
    const first = await start({ dataDir, topics: [{ name: 't1', partitions: 1 }] })
    const md = await first.request(Metadata, 12, { topics: [{ name: 't1' }], allowAutoTopicCreation: false })
    await stop()
    const topicId = md.topics[0].topicId
    const { file } = RecordFile.open<object>(groupLog(dataDir))
    file.append([offset('g1', '10')])
    file.append([
      {
        type: 'share-group',
        group: 'sg',
        groupEpoch: 3,
        assignmentEpoch: 3,
        members: [
          {
            memberId: 'm1',
            memberEpoch: 3,
            rackId: null,
            clientId: 'c',
            clientHost: '/127.0.0.1',
            subscribedTopicNames: ['t1'],
            assigned: [[topicId, [0]]],
            target: [[topicId, [0]]],
          },
        ],
      },
    ])
    file.close()
    const problems: string[] = []
    let c = await start({ dataDir, ...keepLog(problems) })
    expect(problems).toContainEqual(expect.stringContaining('2 group(s) written into __consumer_offsets'))
    for (let round = 0; round < 2; round++) {
      expect(await groupCoordinator(c, 'sg')).toBe(0)
      const d = (await c.request(ShareGroupDescribe, 1, { groupIds: ['sg'], includeAuthorizedOperations: false })).groups[0]
      expect(d).toMatchObject({ errorCode: 0, groupEpoch: 3, assignmentEpoch: 3 })
      expect(d.members.map((m) => [m.memberId, m.memberEpoch, m.assignment.topicPartitions])).toEqual([
        ['m1', 3, [expect.objectContaining({ topicId, partitions: [0] })]],
      ])
      expect(await committed(c, 'g1')).toBe(10n)
      await stop()
      if (round === 0) c = await start({ dataDir })
    }
  })

  it('a byte flipped in the middle refuses the start naming the file and the offset, and changes no file', async () => {
    const dataDir = tempDir()
    const batches = await threeGroups(dataDir)
    const g2 = batches[1]
    flipByte(groupLog(dataDir), g2.position + g2.bytes.length - 4)
    const before = listing(dataDir)
    await expect(startCluster({ dataDir })).rejects.toMatchObject({ name: 'RecordFileError', path: groupLog(dataDir), offset: g2.position })
    expect(listing(dataDir)).toEqual(before)
  })

  it('a data directory of a version without the __consumer_offsets topic: it is created at start for the groups kept, which answer with their offsets', async () => {
    const dataDir = tempDir()
    // The group log as a version before record batches and before the topic wrote it, beside no metadata at all.
    mkdirSync(join(dataDir, '__consumer_offsets'), { recursive: true })
    const line = (group: string, value: string) => JSON.stringify(offset(group, value))
    writeFileSync(join(dataDir, '__consumer_offsets', 'groups.jsonl'), `${line('old-a', '11')}\n${line('old-b', '22')}\n`)
    const problems: string[] = []
    const c = await start({ dataDir, topics: [{ name: 't1', partitions: 1 }], ...keepLog(problems) })
    expect(problems).toContainEqual(expect.stringContaining('created __consumer_offsets'))
    const md = await c.request(Metadata, 12, { topics: [{ name: '__consumer_offsets' }], allowAutoTopicCreation: false })
    expect(md.topics[0]).toMatchObject({ errorCode: 0, isInternal: true })
    expect(await committed(c, 'old-a')).toBe(11n)
    expect(await committed(c, 'old-b')).toBe(22n)
  })

  it('a torn last batch is cut and reported; the commits before it are kept', async () => {
    const dataDir = tempDir()
    const batches = await threeGroups(dataDir)
    const g3 = batches[2]
    truncateSync(groupLog(dataDir), g3.position + 10)
    const problems: string[] = []
    const c = await start({ dataDir, ...keepLog(problems) })
    expect(problems).toContainEqual(expect.stringContaining(`group log: ${groupLog(dataDir)}: cut 10 bytes at byte ${g3.position}`))
    expect(await committed(c, 'g1')).toBe(10n)
    expect(await committed(c, 'g2')).toBe(20n)
    expect(await committed(c, 'g3')).toBe(-1n)
  })
})

describe('a partition directory of another topic id', () => {
  it('DiskLog.open moves it aside as Kafka names a stray log, says so, and never deletes it', () => {
    const brokerDir = tempDir()
    const dir = join(brokerDir, 'orders-0')
    mkdirSync(dir)
    writeFileSync(join(dir, 'partition.metadata'), 'version: 0\ntopic_id: OLD-ID\n')
    writeFileSync(join(dir, '00000000000000000000.log'), 'acknowledged records')
    const problems: string[] = []
    const config = () => ({ segmentBytes: 1 << 20, segmentMs: 3_600_000, indexIntervalBytes: 4096 })
    const log = DiskLog.open(dir, 'NEW-ID', config, { clean: false, recoveryPoint: 0 }, (m) => problems.push(m))
    log.close()
    const stray = readdirSync(brokerDir).filter((d) => d !== 'orders-0')
    expect(stray).toEqual([expect.stringMatching(/^orders-0\.[0-9a-f]{32}-stray$/)])
    expect(readFileSync(join(brokerDir, stray[0], '00000000000000000000.log'), 'utf8')).toBe('acknowledged records')
    expect(readFileSync(join(brokerDir, stray[0], 'partition.metadata'), 'utf8')).toContain('OLD-ID')
    expect(readFileSync(join(dir, 'partition.metadata'), 'utf8')).toContain('NEW-ID')
    expect(problems).toEqual([
      `${dir} holds topic id OLD-ID, not NEW-ID: moved aside to ${join(brokerDir, stray[0])}, kept (its records are not this topic's; delete it once you know it is not needed)`,
    ])
  })

  it("a reassignment onto a broker holding another topic's directory of that name moves it aside (the target opens it first), not deletes it", async () => {
    const dataDir = tempDir()
    const c = await start({ dataDir, brokers: 2, topics: [{ name: 'mv', partitions: 1, replicationFactor: 1 }] })
    const md = await c.request(Metadata, 12, { topics: [{ name: 'mv' }], allowAutoTopicCreation: false })
    const to = 1 - md.topics[0].partitions[0].leaderId
    const other = join(dataDir, `broker-${to}`, 'mv-0')
    mkdirSync(other, { recursive: true })
    writeFileSync(join(other, 'partition.metadata'), 'version: 0\ntopic_id: OTHER-ID\n')
    writeFileSync(join(other, '00000000000000000000.log'), 'kept')
    fx.cluster!.moveLeader('mv', 0, to)
    const stray = readdirSync(join(dataDir, `broker-${to}`)).filter((d) => d.endsWith('-stray'))
    expect(stray).toEqual([expect.stringMatching(/^mv-0\.[0-9a-f]{32}-stray$/)])
    expect(readFileSync(join(dataDir, `broker-${to}`, stray[0], '00000000000000000000.log'), 'utf8')).toBe('kept')
  })
})
