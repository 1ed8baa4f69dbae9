// The embedded broker's segment files read by Apache Kafka's own
// DumpLogSegments (kafka-dump-log.sh): the real reference says the batches
// are valid (CRC, offsets) and the offset and time indexes match the log;
// and the metadata and group logs, record batches too, are as valid; and
// the producer snapshots and transaction indexes a restart reads.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { readIndexFile } from '../../src/broker/storage/indexes.js'
import { requireKafka, runJava } from '../peers/kafka.js'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { Kafka } from '../../src/index.js'
import { InitProducerId, OffsetCommit } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { groupCoordinator } from './support.js'
import { batch, batchesOf, produce } from './storage-support.js'

const dataDir = mkdtempSync(join(tmpdir(), 'wafka-dumplog-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe.skipIf(!requireKafka())("Kafka's DumpLogSegments reads the embedded broker's segments", () => {
  it(
    'every batch valid with the offsets the broker gave; the offset and time indexes pass its sanity check and match the log',
    { timeout: 120_000 },
    async () => {
      const cluster = await startCluster({ dataDir, topics: [{ name: 'dump', partitions: 1, configs: { 'segment.bytes': '1048576' } }] })
      const b = cluster.brokers[0]
      const c = await RawClient.open(`${b.host}:${b.port}`)
      const t0 = Date.now() - 60_000
      for (let i = 0; i < 1400; i++) expect((await produce(c, 'dump', batch(`d${i}`, 1 + (i % 4), 300, t0 + i * 7))).errorCode).toBe(0)
      c.close()
      await cluster.stop()
      const dir = join(dataDir, 'broker-0', 'dump-0')
      const logs = readdirSync(dir)
        .filter((f) => f.endsWith('.log'))
        .sort()
      expect(logs.length).toBeGreaterThanOrEqual(2)
      for (const log of logs) {
        const file = join(dir, log)
        const base = Number(log.slice(0, 20))
        const index = file.replace(/\.log$/, '.index')
        const timeIndex = file.replace(/\.log$/, '.timeindex')
        const dump = await runJava('org.apache.kafka.tools.DumpLogSegments', ['--files', file, '--deep-iteration'])
        expect(dump.code, dump.stderr).toBe(0)
        const batches = [
          ...dump.stdout.matchAll(/^baseOffset: (\d+) lastOffset: (\d+) .* position: (\d+) .* size: (\d+) .* isvalid: (\w+)/gm),
        ].map((m) => ({
          base: Number(m[1]),
          last: Number(m[2]),
          position: Number(m[3]),
          size: Number(m[4]),
          valid: m[5],
        }))
        expect(batches).toEqual(
          batchesOf(file).map((x) => ({ base: x.base, last: x.last, position: x.position, size: x.bytes.length, valid: 'true' })),
        )
        expect(dump.stdout).not.toMatch(/invalid bytes|corrupt/i)
        // The indexes, checked against the log by Kafka itself.
        const sanity = await runJava('org.apache.kafka.tools.DumpLogSegments', ['--files', `${index},${timeIndex}`, '--index-sanity-check'])
        expect(sanity.code, sanity.stderr).toBe(0)
        expect(sanity.stdout).toContain(`${index} passed sanity check`)
        expect(sanity.stdout).toContain(`${timeIndex} passed sanity check`)
        // Each entry against the batch at its position (offset index) and the log's timestamps (time index).
        const verify = await runJava('org.apache.kafka.tools.DumpLogSegments', ['--files', `${index},${timeIndex}`, '--verify-index-only'])
        expect(verify.code, verify.stderr).toBe(0)
        // It reports mismatches on stderr.
        expect(`${verify.stdout}${verify.stderr}`).not.toMatch(/mismatch|out of order|not found/i)
        const entries = await runJava('org.apache.kafka.tools.DumpLogSegments', ['--files', `${index},${timeIndex}`])
        const offsets = [...entries.stdout.matchAll(/^offset: (\d+) position: (\d+)$/gm)].map((m) => [Number(m[1]) - base, Number(m[2])])
        expect(offsets).toEqual(readIndexFile(index, 'offset'))
        const times = [...entries.stdout.matchAll(/^timestamp: (\d+) offset: (\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2]) - base])
        expect(times).toEqual(readIndexFile(timeIndex, 'time'))
        expect(offsets.length).toBeGreaterThan(10)
      }
    },
  )
})

describe.skipIf(!requireKafka())("Kafka's DumpLogSegments reads the embedded broker's metadata log and __consumer_offsets", () => {
  it(
    "every batch valid (CRC, offsets); the metadata records the JSON the broker wrote, the offset commit a record Kafka's --offsets-decoder reads",
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'wafka-dumpmeta-'))
      try {
        const cluster = await startCluster({
          dataDir: dir,
          topics: [{ name: 'dumped', partitions: 2, configs: { 'retention.ms': '60000' } }],
        })
        const b = cluster.brokers[0]
        const c = await RawClient.open(`${b.host}:${b.port}`)
        expect(await groupCoordinator(c, 'dump-group')).toBe(0)
        const r = await c.request(OffsetCommit, 8, {
          groupId: 'dump-group',
          generationIdOrMemberEpoch: -1,
          memberId: '',
          groupInstanceId: null,
          topics: [
            {
              name: 'dumped',
              partitions: [{ partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: -1, committedMetadata: null }],
            },
          ],
        })
        expect(r.topics[0].partitions[0].errorCode).toBe(0)
        c.close()
        await cluster.stop()
        for (const [file, needle, decoder] of [
          [join(dir, '__cluster_metadata-0', '00000000000000000000.log'), '"name":"dumped"', []],
          // 'dump-group': abs(hashCode) % 50 = 36.
          [join(dir, 'broker-0', '__consumer_offsets-36', '00000000000000000000.log'), '"offset":42', ['--offsets-decoder']],
        ] as const) {
          const dump = await runJava('org.apache.kafka.tools.DumpLogSegments', [
            '--files',
            file,
            '--deep-iteration',
            '--print-data-log',
            ...decoder,
          ])
          expect(dump.code, dump.stderr).toBe(0)
          const batches = [
            ...dump.stdout.matchAll(/^baseOffset: (\d+) lastOffset: (\d+) .* position: (\d+) .* size: (\d+) .* isvalid: (\w+)/gm),
          ].map((m) => ({ base: Number(m[1]), last: Number(m[2]), position: Number(m[3]), size: Number(m[4]), valid: m[5] }))
          expect(batches).toEqual(
            batchesOf(file).map((x) => ({ base: x.base, last: x.last, position: x.position, size: x.bytes.length, valid: 'true' })),
          )
          expect(dump.stdout).toContain(needle)
          expect(dump.stdout).not.toMatch(/invalid bytes|corrupt/i)
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  )
})

describe.skipIf(!requireKafka())("Kafka's DumpLogSegments reads the embedded broker's producer snapshots and transaction indexes", () => {
  it('a .snapshot decodes to the producers the broker had; a .txnindex to its aborted transaction', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wafka-dumpsnap-'))
    try {
      const cluster = await startCluster({ dataDir: dir, topics: [{ name: 'snap', partitions: 1 }] })
      const b = cluster.brokers[0]
      const c = await RawClient.open(`${b.host}:${b.port}`)
      const kafka = new Kafka({ clientId: 'dumpsnap', brokers: [`${b.host}:${b.port}`], logLevel: 0 })
      const producer = kafka.producer({ transactionalId: 'dumpsnap-1' })
      await producer.connect()
      const txn = await producer.transaction()
      await txn.send({ topic: 'snap', messages: [{ value: 'aborted', partition: 0 }] })
      await txn.abort()
      await producer.disconnect()
      const init = await c.request(InitProducerId, 4, {
        transactionalId: null,
        transactionTimeoutMs: 60_000,
        producerId: -1n,
        producerEpoch: -1,
        enable2Pc: false,
        keepPreparedTxn: false,
      })
      for (let seq = 0; seq < 6; seq += 2)
        await produce(
          c,
          'snap',
          encodeRecordBatch([{ value: 'a' }, { value: 'b' }], {
            producerId: init.producerId,
            producerEpoch: init.producerEpoch,
            baseSequence: seq,
          }),
        )
      c.close()
      await cluster.stop()
      const part = join(dir, 'broker-0', 'snap-0')
      // Offsets: 0 the aborted record, 1 its marker, 2-7 the idempotent producer's three batches; the stop's snapshot is at 8.
      const snapshot = await runJava('org.apache.kafka.tools.DumpLogSegments', ['--files', join(part, '00000000000000000008.snapshot')])
      expect(snapshot.code, snapshot.stderr).toBe(0)
      // Kafka keeps a producer's newest entry: the last batch (sequences 4-5, offsets 6-7).
      expect(snapshot.stdout).toMatch(
        new RegExp(`producerId: ${init.producerId} producerEpoch: ${init.producerEpoch} .*lastSequence: 5 lastOffset: 7 offsetDelta: 1`),
      )
      const txnIndex = await runJava('org.apache.kafka.tools.DumpLogSegments', ['--files', join(part, '00000000000000000000.txnindex')])
      expect(txnIndex.code, txnIndex.stderr).toBe(0)
      expect(txnIndex.stdout).toMatch(/version: 0 producerId: \d+ firstOffset: 0 lastOffset: 1 lastStableOffset: 2/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
