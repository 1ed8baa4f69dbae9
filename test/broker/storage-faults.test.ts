// A full disk under the embedded broker's dataDir, simulated at the storage
// layer's one write seam (diskIo): a short write or ENOSPC fails the produce
// with KAFKA_STORAGE_ERROR, cuts what was written of the batch (its log
// bytes and index entries) back off, and the broker keeps serving reads;
// once the disk takes writes again the log goes on with no gap, and a
// restart reads exactly the acknowledged records.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { diskIo } from '../../src/broker/storage/disk-io.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { Metadata, Produce } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { batch, batchesOf, readAll } from './storage-support.js'

const realWrite = diskIo.write
const dirs: string[] = []
const open: RawClient[] = []
let cluster: RunningCluster | undefined

afterEach(async () => {
  diskIo.write = realWrite
  for (const c of open.splice(0)) c.close()
  await cluster?.stop()
  cluster = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'wafka-faults-'))
  dirs.push(d)
  return d
}

/** Starts the cluster and connects to the leader of `topic`-0. */
async function leaderClient(options: StartClusterOptions, topic: string): Promise<{ c: RawClient; leader: number }> {
  for (const c of open.splice(0)) c.close()
  await cluster?.stop()
  cluster = await startCluster(options)
  const b0 = cluster.brokers[0]
  const c0 = await RawClient.open(`${b0.host}:${b0.port}`)
  open.push(c0)
  const leader = (await c0.request(Metadata, 12, { topics: [{ name: topic }] })).topics[0].partitions[0].leaderId
  const b = cluster.brokers[leader]
  const c = await RawClient.open(`${b.host}:${b.port}`)
  open.push(c)
  return { c, leader }
}

async function produce(c: RawClient, topic: string, records: Buffer) {
  const r = await c.request(Produce, 9, { acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records }] }] })
  return r.responses[0].partitionResponses[0]
}

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' })

/** The disk fills: the `n`th write from now (1: the next) takes only half its bytes, and every later one fails with ENOSPC. */
function diskFullAt(n: number): void {
  let writes = 0
  diskIo.write = (fd, buffer, offset, length, position) => {
    writes++
    if (writes < n) return realWrite(fd, buffer, offset, length, position)
    if (writes === n && length > 1) return realWrite(fd, buffer, offset, length >> 1, position)
    throw enospc()
  }
}

const sizes = (dir: string) =>
  ['log', 'index', 'timeindex'].map((ext) => statSync(join(dir, `00000000000000000000.${ext}`)).size) as [number, number, number]

describe('a full disk (simulated short writes and ENOSPC)', () => {
  it.each([1, 3])(
    '%i broker(s): the produce fails with KAFKA_STORAGE_ERROR, nothing of the batch stays (log or index), reads go on; then appends go on with no gap, and a restart keeps exactly the acknowledged records',
    async (brokers) => {
      const dataDir = tempDir()
      const problems: string[] = []
      const options = {
        dataDir,
        brokers,
        onProblem: (m: string) => problems.push(m),
        // An index entry with every batch after the first: an index write to fail too.
        topics: [{ name: 'full', partitions: 1, configs: { 'index.interval.bytes': '0' } }],
      }
      let { c, leader } = await leaderClient(options, 'full')
      const dir = join(dataDir, `broker-${leader}`, 'full-0')
      for (let i = 0; i < 3; i++) expect((await produce(c, 'full', batch(`a${i}`, 3))).errorCode).toBe(0)
      const acked = await readAll(c, 'full')
      expect(acked).toHaveLength(9)
      const before = sizes(dir)
      expect(before[1]).toBeGreaterThan(0)

      // The batch's write is short (half of it), the rest of it refused.
      diskFullAt(1)
      const refused = await produce(c, 'full', batch('lost', 3))
      expect(refused).toMatchObject({ errorCode: ErrorCodes.KAFKA_STORAGE_ERROR, baseOffset: -1n })
      expect(refused.errorMessage).toMatch(/writing .*00000000000000000000\.log: ENOSPC: no space left on device/)
      expect(problems.some((p) => p.includes('produce to full-0') && p.includes('ENOSPC'))).toBe(true)
      expect(sizes(dir)).toEqual(before)
      // The batch's bytes go whole, its index entry (the second write) half, then no more.
      diskFullAt(2)
      expect((await produce(c, 'full', batch('lost', 3))).errorCode).toBe(ErrorCodes.KAFKA_STORAGE_ERROR)
      expect(sizes(dir)).toEqual(before)
      // The broker serves reads all along: the acknowledged records, nothing of the refused ones.
      expect(await readAll(c, 'full')).toEqual(acked)

      // The disk takes writes again: the log goes on at the next offset.
      diskIo.write = realWrite
      const next = await produce(c, 'full', batch('b', 3))
      expect(next).toMatchObject({ errorCode: 0, baseOffset: 9n })
      const all = await readAll(c, 'full')
      expect(all.map((r) => r.key)).toEqual([...acked.map((r) => r.key), 'b-0', 'b-1', 'b-2'])
      expect(batchesOf(join(dir, '00000000000000000000.log')).map((b) => b.base)).toEqual([0, 3, 6, 9])

      ;({ c } = await leaderClient(options, 'full'))
      expect(await readAll(c, 'full')).toEqual(all)
    },
  )
})
