// The files of wafka/streams' state directory, without a cluster: the
// persistent store's log-structured file (entries replayed in order, a torn
// tail cut and reported, a damaged entry before the end refused with its file
// and offset, compaction keeping each key's last value and dropping what the
// store no longer holds), the task's `.checkpoint` held to Kafka Streams' own
// OffsetCheckpoint (RigCheckpoint reads ours and writes one we read), and the
// application directory's lock and process id.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createLogger, logLevel, type LogEntry } from '../../src/logger.js'
import { StoreCorruptedError, StoreFile, type StoreFileRecord } from '../../src/streams/store-file.js'
import { InMemoryKeyValueStore } from '../../src/streams/key-value-store.js'
import { crc32c } from '../../src/codec/crc.js'
import { formatCheckpoint, parseCheckpoint, readCheckpoint, writeCheckpoint } from '../../src/streams/offset-checkpoint.js'
import { StateDirectory } from '../../src/streams/state-directory.js'
import { StreamsError } from '../../src/streams/streams-error.js'
import { requireKafka, runJava } from '../peers/kafka.js'

let dir: string
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'wafka-state-files-'))))
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const b = (s: string) => Buffer.from(s)

function logger() {
  const entries: LogEntry[] = []
  return { log: createLogger({ logLevel: logLevel.DEBUG, logCreator: () => (e: LogEntry) => void entries.push(e) }), entries }
}

/** Opens `path`, returning the file and the records replayed. */
function open(path: string, options: { minCompactBytes?: number } = {}) {
  const records: StoreFileRecord[] = []
  const { log, entries } = logger()
  const { file, opened } = StoreFile.open(path, (r) => records.push(r), log, options)
  return { file, opened, records, entries }
}

const asText = (records: StoreFileRecord[]) =>
  records.map((r) => `${r.key}=${r.value === null ? 'null' : r.value.toString()}@${r.timestamp}`)

describe('the persistent store file', () => {
  it('replays what was appended, in order, deletes included', () => {
    const path = join(dir, 'counts.store')
    const { file } = open(path)
    file.append(b('a'), b('1'), 10)
    file.append(b('b'), b('2'), 11)
    file.append(b('a'), null, 12)
    file.append(b(''), b(''), -5)
    file.close()
    expect(asText(open(path).records)).toEqual(['a=1@10', 'b=2@11', 'a=null@12', '=@-5'])
  })

  it('a write cut short at the end is cut off and reported; the file goes on from there', () => {
    const path = join(dir, 'torn.store')
    const { file } = open(path)
    for (let i = 0; i < 5; i++) file.append(b(`k${i}`), b(`value-${i}`), i)
    file.close()
    const full = statSync(path).size
    truncateSync(path, full - 3)
    const { file: again, opened, records, entries } = open(path)
    expect(asText(records)).toEqual(['k0=value-0@0', 'k1=value-1@1', 'k2=value-2@2', 'k3=value-3@3'])
    const entryBytes = 8 + 16 + 2 + 7
    expect(opened.torn).toEqual({ offset: full - entryBytes, bytes: entryBytes - 3 })
    expect(statSync(path).size).toBe(full - entryBytes)
    const warned = entries.find((e) => e.level === logLevel.WARN)
    expect(warned?.log).toMatchObject({ file: path, offset: full - entryBytes, bytes: entryBytes - 3 })
    again.append(b('k9'), b('after'), 9)
    again.close()
    expect(asText(open(path).records).at(-1)).toBe('k9=after@9')
  })

  it('a last entry whose checksum fails (its bytes written out of order) is a torn tail too', () => {
    const path = join(dir, 'torn-crc.store')
    const { file } = open(path)
    file.append(b('a'), b('1'), 1)
    file.append(b('b'), b('2'), 2)
    file.close()
    const bytes = readFileSync(path)
    bytes[bytes.length - 1] ^= 0xff
    writeFileSync(path, bytes)
    const { records, opened } = open(path)
    expect(asText(records)).toEqual(['a=1@1'])
    expect(opened.torn?.offset).toBe(8 + 8 + 16 + 2)
  })

  it('a damaged entry with entries after it is refused, naming the file and the offset', () => {
    const path = join(dir, 'corrupt.store')
    const { file } = open(path)
    file.append(b('a'), b('1'), 1)
    file.append(b('b'), b('2'), 2)
    file.close()
    const bytes = readFileSync(path)
    bytes[8 + 8 + 12] ^= 0x01 // the first entry's key
    writeFileSync(path, bytes)
    let thrown: unknown
    try {
      open(path)
    } catch (err) {
      thrown = err
    }
    expect(thrown).toBeInstanceOf(StoreCorruptedError)
    expect(thrown).toBeInstanceOf(StreamsError)
    expect(thrown).toMatchObject({ file: path, offset: 8 })
    expect((thrown as Error).message).toContain(`store file ${path} is corrupt at offset 8`)
  })

  it('refuses a file that is not one of ours', () => {
    const path = join(dir, 'foreign.store')
    writeFileSync(path, 'SQLite format 3\0')
    expect(() => open(path)).toThrow(/is not a wafka store file/)
  })

  it('compaction, once the garbage outweighs the live entries, keeps each key’s last value and what the store holds', () => {
    const path = join(dir, 'compact.store')
    const { file } = open(path, { minCompactBytes: 1 })
    for (let round = 0; round < 50; round++) for (const k of ['a', 'b', 'c', 'gone']) file.append(b(k), b(`${k}${round}`), round)
    file.append(b('gone'), null, 99)
    file.append(b('expired'), b('x'), 100)
    const before = file.garbageBytes
    expect(file.maybeCompact((key) => key.toString() !== 'expired')).toBe(true)
    expect(file.garbageBytes).toBe(0)
    expect(before).toBeGreaterThan(0)
    // Nothing to gain now: no rewrite.
    expect(file.maybeCompact()).toBe(false)
    file.append(b('d'), b('new'), 101)
    file.close()
    expect(statSync(path).size).toBeLessThan(8 + 4 * 33)
    expect(asText(open(path).records)).toEqual(['a=a49@49', 'b=b49@49', 'c=c49@49', 'd=new@101'])
  })
})

describe('the store file format', () => {
  /** An entry as the format says (int64 timestamp via bigint: the reference the in-place encoding must match). */
  function entry(key: Buffer, value: Buffer | null, timestamp: number): Buffer {
    const body = Buffer.alloc(16 + key.length + (value?.length ?? 0))
    body.writeBigInt64BE(BigInt(timestamp), 0)
    body.writeInt32BE(key.length, 8)
    key.copy(body, 12)
    body.writeInt32BE(value === null ? -1 : value.length, 12 + key.length)
    value?.copy(body, 16 + key.length)
    const frame = Buffer.alloc(8)
    frame.writeInt32BE(body.length, 0)
    frame.writeUInt32BE(crc32c(body), 4)
    return Buffer.concat([frame, body])
  }
  const records: Array<[Buffer, Buffer | null, number]> = [
    [b('a'), b('1'), 1_764_000_000_123],
    [b('neg'), b('x'), -1],
    [b('far'), b('y'), -(2 ** 40) - 7],
    [b('big'), Buffer.alloc(300 * 1024, 7), 2 ** 52 + 3], // larger than the write-behind buffer
    [b('a'), null, 0],
    [Buffer.from([0, 255, 128]), b(''), 4_294_967_296],
  ]

  it('a file written entry by entry in the documented format (as files before in-place encoding were) opens, and appends write the same bytes', () => {
    const reference = Buffer.concat([Buffer.from('WFKSTOR1', 'latin1'), ...records.map((r) => entry(...r))])
    const old = join(dir, 'old.store')
    writeFileSync(old, reference)
    const replayed = open(old).records
    expect(replayed.map((r) => [r.key, r.value, r.timestamp])).toEqual(records)
    const fresh = join(dir, 'fresh.store')
    const { file } = open(fresh)
    for (const r of records) file.append(...r)
    file.close()
    expect(readFileSync(fresh).equals(reference)).toBe(true)
  })
})

describe('a key-value store restored from its changelog', () => {
  it('gives back each restored value and timestamp, in key order and by range, as a put one does', () => {
    const serde = {
      serialize: (_t: string, v: string | null) => (v === null ? null : Buffer.from(v, 'latin1')),
      deserialize: (_t: string, v: Buffer | null) => (v === null ? null : v.toString('latin1')),
    }
    const logged: string[] = []
    const store = new InMemoryKeyValueStore<string, string>(
      's',
      serde as never,
      serde as never,
      't',
      (k) => void logged.push(k.toString('latin1')),
    )
    store.restore(b('b'), b('two'), -(2 ** 40) - 7)
    store.restore(Buffer.from([0xff]), b(''), 2 ** 52 + 3)
    store.restore(b('a'), b('one'), 1)
    store.restore(b('gone'), b('x'), 2)
    store.restore(b('gone'), null, 3)
    store.put('c', 'three', 4)
    expect(store.getWithTimestamp('b')).toEqual({ value: 'two', timestamp: -(2 ** 40) - 7 })
    expect(store.getWithTimestamp('\xff')).toEqual({ value: '', timestamp: 2 ** 52 + 3 })
    expect(store.get('gone')).toBeNull()
    expect(store.allInKeyOrder()).toEqual([
      { key: 'a', value: 'one' },
      { key: 'b', value: 'two' },
      { key: 'c', value: 'three' },
      { key: '\xff', value: '' },
    ])
    expect(store.range('b', '\xff')).toEqual([
      { key: 'b', value: 'two' },
      { key: 'c', value: 'three' },
      { key: '\xff', value: '' },
    ])
    expect(store.approximateNumEntries()).toBe(4)
    expect(store.holds(b('a')) && !store.holds(b('gone'))).toBe(true)
    expect(logged).toEqual(['c'])
  })

  it('tells its file what is live: the file then counts the same garbage as with an index of its own, and compacts to none', () => {
    const serde = {
      serialize: (_t: string, v: string | null) => (v === null ? null : b(v)),
      deserialize: (_t: string, v: Buffer | null) => v?.toString() ?? null,
    }
    const indexed = open(join(dir, 'indexed.store'), { minCompactBytes: 1 }).file
    let file!: StoreFile
    const store = new InMemoryKeyValueStore<string, string>('s', serde as never, serde as never, 't', (k, v, ts) => file.append(k, v, ts))
    file = StoreFile.open(join(dir, 'held.store'), () => {}, undefined, { minCompactBytes: 1, held: () => store.held() }).file
    const change = (k: string, v: string | null, ts: number) => {
      indexed.append(b(k), v === null ? null : b(v), ts)
      store.restore(b(k), v === null ? null : b(v), ts)
      file.append(b(k), v === null ? null : b(v), ts)
    }
    for (let round = 0; round < 20; round++) for (const k of ['a', 'bb', 'ccc']) change(k, `${k}-${round}`.repeat(round % 3), round)
    change('bb', null, 30)
    store.put('d', 'put', 31)
    indexed.append(b('d'), b('put'), 31)
    expect(file.garbageBytes).toBeGreaterThan(0)
    expect(file.garbageBytes).toBe(indexed.garbageBytes)
    expect(file.maybeCompact((k) => store.holds(k))).toBe(true)
    expect(file.garbageBytes).toBe(0)
    file.close()
    indexed.close()
    expect(asText(open(join(dir, 'held.store')).records)).toEqual(['a=a-19@19', 'ccc=ccc-19@19', 'd=put@31'])
  })
})

describe('the checkpoint file', () => {
  it("is Java's OffsetCheckpoint format: version 0, the count, then `topic partition offset` lines", () => {
    const bytes = formatCheckpoint([
      { topic: 'app-counts-changelog', partition: 0, offset: 1999n },
      { topic: 'app-other-changelog', partition: 3, offset: 0n },
    ])
    expect(bytes.toString()).toBe('0\n2\napp-counts-changelog 0 1999\napp-other-changelog 3 0\n')
    expect(() => formatCheckpoint([{ topic: 't', partition: 0, offset: -1n }])).toThrow(/>= 0/)
  })

  it("reads by Java's rules: an invalid offset is skipped and not counted, a wrong count or version refused", () => {
    expect(parseCheckpoint('0\n2\nt 0 5\nu  1   7\n')).toEqual([
      { topic: 't', partition: 0, offset: 5n },
      { topic: 'u', partition: 1, offset: 7n },
    ])
    expect(parseCheckpoint('0\n2\nt 0 5\nt 1 -1\n')).toEqual([{ topic: 't', partition: 0, offset: 5n }])
    expect(parseCheckpoint('0\n1\nt 0 -4\n')).toEqual([{ topic: 't', partition: 0, offset: -4n }])
    expect(() => parseCheckpoint('0\n3\nt 0 5\n')).toThrow(/expected 3 entries but found 1/)
    expect(() => parseCheckpoint('1\n0\n')).toThrow(/version 1/)
    expect(() => parseCheckpoint('0\n1\nt 0\n')).toThrow(/malformed line/)
    expect(() => parseCheckpoint('0\n')).toThrow(/ended before its entry count/)
  })

  it('is written whole (a temporary file renamed over it), and deleted when there is nothing to write', () => {
    const file = join(dir, '.checkpoint')
    writeCheckpoint(file, [{ topic: 't', partition: 2, offset: 41n }])
    expect(readCheckpoint(file)).toEqual([{ topic: 't', partition: 2, offset: 41n }])
    writeCheckpoint(file, [])
    expect(readCheckpoint(file)).toEqual([])
  })

  describe.skipIf(!requireKafka())("held to Kafka Streams' OffsetCheckpoint", () => {
    it('Java reads the checkpoint we write, and we read the one Java writes', async () => {
      const ours = join(dir, 'ours')
      const entries = [
        { topic: 'wafka-app-counts-changelog', partition: 0, offset: 1999n },
        { topic: 'wafka-app-KSTREAM-AGGREGATE-STATE-STORE-0000000003-changelog', partition: 11, offset: 0n },
      ]
      writeCheckpoint(ours, entries)
      const read = await runJava('RigCheckpoint', ['read', ours])
      expect(read.code, read.stderr).toBe(0)
      expect(read.stdout.trim().split('\n')).toEqual(entries.map((e) => `${e.topic} ${e.partition} ${e.offset}`).sort())
      const theirs = join(dir, 'theirs')
      const wrote = await runJava('RigCheckpoint', ['write', theirs], { input: `${entries[0]!.topic} 0 1999\n` })
      expect(wrote.code, wrote.stderr).toBe(0)
      expect(readCheckpoint(theirs)).toEqual([entries[0]])
      // One entry has one order: the bytes are the same.
      expect(readFileSync(theirs)).toEqual(formatCheckpoint([entries[0]!]))
    }, 60_000)
  })
})

describe('the state directory', () => {
  it('keeps its process id, and refuses a second instance while one holds it', () => {
    const { log } = logger()
    const first = new StateDirectory(dir, 'app', log)
    const id = first.open()
    expect(JSON.parse(readFileSync(join(dir, 'app', 'kafka-streams-process-metadata'), 'utf8'))).toEqual({ processId: id })
    expect(readFileSync(join(dir, 'app', '.lock'), 'utf8').trim()).toBe(String(process.pid))
    expect(() => new StateDirectory(dir, 'app', log).open()).toThrow(
      /multiple instances of Kafka Streams are running in the same state directory/,
    )
    // Another application on the same stateDir has its own directory.
    const other = new StateDirectory(dir, 'other-app', log)
    expect(other.open()).not.toBe(id)
    other.close()
    first.close()
    const second = new StateDirectory(dir, 'app', log)
    expect(second.open()).toBe(id)
    expect(second.taskDir('1_3')).toBe(join(dir, 'app', '1_3'))
    expect(statSync(join(dir, 'app', '1_3')).isDirectory()).toBe(true)
    second.close()
  })

  it('takes over the lock of a process that is gone (a crash), and refuses one held by a live process', () => {
    const { log } = logger()
    const gone = spawnSync(process.execPath, ['-e', '']).pid!
    const first = new StateDirectory(dir, 'app', log)
    first.open()
    first.close()
    // A lock naming a dead process: free. An empty one (Java's, which locks without writing): free.
    for (const owner of [`${gone}\n`, '']) {
      writeFileSync(join(dir, 'app', '.lock'), owner)
      const taken = new StateDirectory(dir, 'app', log)
      taken.open()
      expect(readFileSync(join(dir, 'app', '.lock'), 'utf8').trim()).toBe(String(process.pid))
      taken.close()
    }
    // A lock naming a live process (the one that started this one): refused.
    writeFileSync(join(dir, 'app', '.lock'), `${process.ppid}\n`)
    expect(() => new StateDirectory(dir, 'app', log).open()).toThrow(`locked by process ${process.ppid}`)
  })

  it("gives the task offsets its task directories' checkpoints hold (Java's offset sums: each changelog's next offset, summed); a bad checkpoint counts as none, with a WARN", () => {
    const { log, entries } = logger()
    const state = new StateDirectory(dir, 'app', log)
    state.open()
    try {
      writeCheckpoint(join(state.taskDir('1_0'), '.checkpoint'), [
        { topic: 'app-counts-changelog', partition: 0, offset: 41n },
        { topic: 'app-other-changelog', partition: 0, offset: 9n },
      ])
      writeCheckpoint(join(state.taskDir('1_2'), '.checkpoint'), [{ topic: 'app-counts-changelog', partition: 2, offset: 0n }])
      state.taskDir('0_1')
      writeFileSync(join(state.taskDir('1_3'), '.checkpoint'), '7\n')
      expect(state.taskOffsetSums()).toEqual(
        new Map([
          ['1_0', 52n],
          ['1_2', 1n],
        ]),
      )
      expect(entries.filter((e) => e.level === logLevel.WARN).map((e) => e.log.task)).toEqual(['1_3'])
    } finally {
      state.close()
    }
  })
})
