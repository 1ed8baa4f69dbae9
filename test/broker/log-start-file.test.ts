// A partition's log-start-offset file (issue 22): it carries its offset's
// CRC-32C, so a corrupt one is told from a valid one; a start it cannot
// vouch for is said at WARN naming the file, and never hides acknowledged
// records. Kafka's own checkpoint has no checksum, and a log start past the
// log end makes its loader delete every segment; here nothing is deleted.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadCodecs } from '../../src/codec/index.js'
import { logLevel } from '../../src/logger.js'
import { DeleteRecords } from '../../src/protocol/messages/index.js'
import { batch, listOffset, produce, readAll, storageFixture } from './storage-support.js'
import type { RawClient } from './raw-client.js'

const fx = storageFixture('wafka-log-start-')

async function startOn(dataDir: string, topics?: { name: string; partitions: number; replicationFactor: number }[]) {
  await loadCodecs()
  const said: string[] = []
  const c = await fx.start({
    dataDir,
    topics,
    logLevel: logLevel.INFO,
    logCreator:
      () =>
      ({ label, log }) =>
        void said.push(`${label} ${log.message}`),
  })
  return { c, said }
}

const earliest = async (c: RawClient) => (await listOffset(c, 't', -2n)).offset

describe('log-start-offset', () => {
  it('holds its CRC-32C; one flipped digit, or an old unchecked file past the log end, is said at WARN and hides no record', async () => {
    const dataDir = fx.tempDir()
    let { c, said } = await startOn(dataDir, [{ name: 't', partitions: 1, replicationFactor: 1 }])
    for (let i = 0; i < 4; i++) expect((await produce(c, 't', batch(`b${i}`, 3))).errorCode).toBe(0)
    const deleted = await c.request(DeleteRecords, 2, {
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset: 4n }] }],
      timeoutMs: 5000,
    })
    expect(deleted.topics[0].partitions[0].errorCode).toBe(0)
    await fx.stop()
    const file = join(dataDir, 'broker-0', 't-0', 'log-start-offset')
    const written = readFileSync(file, 'latin1')
    expect(written).toMatch(/^4\n\d+\n$/)

    // As written: taken, nothing said.
    ;({ c, said } = await startOn(dataDir))
    expect(await earliest(c)).toBe(4n)
    expect(said.filter((m) => m.includes('log-start-offset'))).toEqual([])
    await fx.stop()

    // "4" flipped to "5": the checksum no longer matches. Not used, said at WARN, set aside; every record served.
    writeFileSync(file, written.replace(/^4/, '5'))
    ;({ c, said } = await startOn(dataDir))
    expect(said).toContain(
      `WARN ${file}: its CRC-32C does not match offset 5 (corrupt): not used, set aside as ${file}.corrupt; the log starts at its ` +
        "first segment's base offset 0, so records deleted below the start it held (DeleteRecords) may be served again: delete them again if need be",
    )
    expect(await earliest(c)).toBe(0n)
    expect((await readAll(c, 't')).length).toBe(12)
    expect(existsSync(file)).toBe(false)
    await fx.stop()

    // An earlier version's file (no checksum) within the log: taken as it is.
    writeFileSync(file, '4\n')
    ;({ c, said } = await startOn(dataDir))
    expect(await earliest(c)).toBe(4n)
    expect(said.filter((m) => m.includes('log-start-offset'))).toEqual([])
    await fx.stop()

    // One past the log end: nothing vouches for it (a flipped digit?). Kafka would delete every segment; here it is not used.
    writeFileSync(file, '40\n')
    ;({ c, said } = await startOn(dataDir))
    expect(said).toContainEqual(
      expect.stringMatching(/^WARN .*log-start-offset: its log start 40 \(no checksum\) is past the log end 12 \(corrupt\): not used/),
    )
    expect(await earliest(c)).toBe(0n)
    expect((await readAll(c, 't')).length).toBe(12)
  })

  it('a checked start past the log end (the records between cut at recovery) is said, and the log starts at its end, as Kafka', async () => {
    const dataDir = fx.tempDir()
    let { c, said } = await startOn(dataDir, [{ name: 't', partitions: 1, replicationFactor: 1 }])
    for (let i = 0; i < 4; i++) expect((await produce(c, 't', batch(`b${i}`, 3))).errorCode).toBe(0)
    await c.request(DeleteRecords, 2, { topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset: 6n }] }], timeoutMs: 5000 })
    await fx.stop()
    const file = join(dataDir, 'broker-0', 't-0', 'log-start-offset')
    // Written by this version for a log that reached 20 (its tail since cut): valid, past the end.
    const { writeLogStart } = await import('../../src/broker/storage/log-start-file.js')
    writeLogStart(join(dataDir, 'broker-0', 't-0'), 20)
    ;({ c, said } = await startOn(dataDir))
    expect(said).toContainEqual(
      `WARN ${file}: log start 20 is past the log end 12 (the records between were cut at recovery, or segment files removed): the log starts at 12`,
    )
    expect(await earliest(c)).toBe(12n)
    expect(existsSync(join(dataDir, 'broker-0', 't-0', '00000000000000000000.log'))).toBe(true)
  })
})
