// RecordFile, the one mechanism under the metadata log and the group log:
// a short write fails the append (nothing acknowledged, nothing torn left
// behind), and a syncing file is flushed before an append returns.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { diskIo } from '../../src/broker/storage/disk-io.js'
import { RecordFile } from '../../src/broker/storage/record-file.js'

// The storage layer's one write seam (diskIo): a test makes a write fall short (a full disk) or counts flushes.
const disk = { short: false, syncs: 0 }
const realWrite = diskIo.write
const realFsync = diskIo.fsync
beforeEach(() => {
  // A full disk: half of what is asked, then nothing (writeFully asks again for the rest, as Kafka's).
  diskIo.write = (fd, b, offset, length, position) => {
    if (!disk.short) return realWrite(fd, b, offset, length, position)
    return length > 1 ? realWrite(fd, b, offset, Math.floor(length / 2), position) : 0
  }
  diskIo.fsync = (fd) => {
    disk.syncs++
    realFsync(fd)
  }
})

const dirs: string[] = []
afterEach(() => {
  diskIo.write = realWrite
  diskIo.fsync = realFsync
  disk.short = false
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function tempFile(): string {
  const d = mkdtempSync(join(tmpdir(), 'wafka-record-file-'))
  dirs.push(d)
  return join(d, '00000000000000000000.log')
}

describe('RecordFile', () => {
  it('a short write fails the append: it throws, the partial batch is cut off, and the next start reads only whole ones', () => {
    const path = tempFile()
    const { file } = RecordFile.open<{ n: number }>(path)
    file.append([{ n: 1 }])
    const whole = statSync(path).size
    disk.short = true
    expect(() => file.append([{ n: 2 }, { n: 3 }])).toThrow(
      expect.objectContaining({ name: 'StorageError', path, message: expect.stringMatching(/bytes written, then none/) }),
    )
    disk.short = false
    expect(statSync(path).size).toBe(whole)
    // Taken offline, as Kafka takes a failed log directory: nothing more is appended until a restart.
    expect(() => file.append([{ n: 4 }])).toThrow(/an earlier write failed \(.*bytes written, then none\); restart the broker/)
    file.close()
    const problems: string[] = []
    const again = RecordFile.open<{ n: number }>(path, { report: (m) => problems.push(m) })
    again.file.append([{ n: 4 }])
    again.file.close()
    expect(again.records).toEqual([{ n: 1 }])
    const third = RecordFile.open<{ n: number }>(path)
    third.file.close()
    expect(third.records).toEqual([{ n: 1 }, { n: 4 }])
    expect(problems).toEqual([])
  })

  it('a syncing file (the metadata log) is flushed before append returns; one with no flush policy is not', () => {
    const synced = RecordFile.open<string>(tempFile(), { sync: true }).file
    const before = disk.syncs
    synced.append(['a'])
    expect(disk.syncs).toBe(before + 1)
    synced.close()
    const unsynced = RecordFile.open<string>(tempFile()).file
    const after = disk.syncs
    unsynced.append(['b'])
    expect(disk.syncs).toBe(after)
    unsynced.close()
  })

  it('a batch is all or none of its records: offsets run on from batch to batch', () => {
    const path = tempFile()
    const { file } = RecordFile.open<number>(path)
    file.append([1, 2, 3])
    file.append([4])
    file.close()
    const bytes = readFileSync(path)
    expect(bytes.readBigInt64BE(0)).toBe(0n)
    const second = 12 + bytes.readInt32BE(8)
    expect(bytes.readBigInt64BE(second)).toBe(3n)
    const again = RecordFile.open<number>(path)
    again.file.close()
    expect(again.records).toEqual([1, 2, 3, 4])
  })
})
