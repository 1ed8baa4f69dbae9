// wafka produce and wafka consume against kcat (librdkafka) on the embedded
// broker: what the CLI writes, kcat reads byte for byte, and the other way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { requirePeers } from '../peers/available.js'
import { kcatConsume, kcatProduce } from '../peers/kcat.js'
import { built, wafka } from './support.js'

const text = (b: Buffer | null) => (b === null ? null : b.toString('utf8'))

describe.skipIf(!built || !requirePeers({ builds: [], kcat: true }))('wafka produce / consume with kcat', () => {
  let cluster: RunningCluster
  let b: string
  beforeAll(async () => {
    cluster = await startCluster({
      brokers: 3,
      topics: [
        { name: 'from-cli', partitions: 3 },
        { name: 'from-cli-json', partitions: 3 },
        { name: 'from-kcat', partitions: 2 },
      ],
    })
    b = cluster.bootstrapServers
  })
  afterAll(() => cluster?.stop())

  it("produce: lines with --key-delimiter, -H, -p and lz4 reach kcat as sent; --verbose offsets are kcat's", async () => {
    const input = 'k1|one\nk2|two\nno key here\n|empty key\n'
    const r = await wafka(
      ['produce', '-b', b, '-t', 'from-cli', '--key-delimiter', '|', '-H', 'trace=abc', '-H', 'n=1', '-p', '2', '-z', 'lz4', '--verbose'],
      { input },
    )
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(['from-cli [2] @ 0', 'from-cli [2] @ 1', 'from-cli [2] @ 2', 'from-cli [2] @ 3', ''].join('\n'))
    const got = await kcatConsume(b, 'from-cli')
    expect(got.map((m) => [m.partition, m.offset, text(m.key), text(m.value)])).toEqual([
      [2, 0, 'k1', 'one'],
      [2, 1, 'k2', 'two'],
      [2, 2, null, 'no key here'],
      [2, 3, '', 'empty key'],
    ])
    for (const m of got)
      expect(m.headers.map(([k, v]) => [k, text(v)])).toEqual([
        ['trace', 'abc'],
        ['n', '1'],
      ])
  })

  it('produce --format json: key, value, headers and partition per line; keyed messages land where the Java partitioner puts them', async () => {
    const lines = [
      { key: 'a', value: 'alpha', headers: { h: 'x' } },
      { value: { nested: [1, 2] }, partition: 0 },
      { key: 'a', value: null },
    ]
      .map((o) => JSON.stringify(o))
      .join('\n')
    const r = await wafka(['produce', '-b', b, '-t', 'from-cli-json', '--format', 'json', '--verbose', '--json', '--acks', '1'], {
      input: lines + '\n',
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const acks = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(acks).toHaveLength(3)
    expect(acks[1]).toMatchObject({ topic: 'from-cli-json', partition: 0 })
    expect(acks[2].partition).toBe(acks[0].partition) // the same key, the same partition
    const got = await kcatConsume(b, 'from-cli-json')
    const byOffset = (p: number, o: number) => got.find((m) => m.partition === p && m.offset === o)!
    expect(text(byOffset(acks[0].partition, Number(acks[0].offset)).value)).toBe('alpha')
    expect(byOffset(acks[0].partition, Number(acks[0].offset)).headers.map(([k, v]) => [k, text(v)])).toEqual([['h', 'x']])
    expect(text(byOffset(0, Number(acks[1].offset)).value)).toBe('{"nested":[1,2]}')
    const tombstone = byOffset(acks[2].partition, Number(acks[2].offset))
    expect(text(tombstone.key)).toBe('a')
    expect(tombstone.value).toBeNull()
  })

  it('consume: what kcat produced, through a kcat-style format string and as JSON lines', async () => {
    await kcatProduce(b, 'from-kcat', [
      { key: 'k0', value: 'v0', headers: { a: '1' }, partition: 0 },
      { key: 'k1', value: 'v1', partition: 0 },
      { key: null, value: 'v2', headers: { b: '2', c: '3' }, partition: 1 },
    ])
    const f = await wafka(['consume', '-b', b, '-t', 'from-kcat', '-o', 'beginning', '-e', '-f', '%t|%p|%o|%k|%s|%h|%K|%S\\n'])
    expect(f.stderr).toBe('')
    expect(f.code).toBe(0)
    expect(f.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'from-kcat|0|0|k0|v0|a=1|2|2',
      'from-kcat|0|1|k1|v1||2|2',
      'from-kcat|1|0||v2|b=2,c=3|-1|2',
    ])
    const j = await wafka(['consume', '-b', b, '-t', 'from-kcat', '-o', 'beginning', '-e', '--json'])
    expect(j.code).toBe(0)
    const rows = j.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .sort((x, y) => x.partition - y.partition || x.offset - y.offset)
    const kcat = await kcatConsume(b, 'from-kcat')
    expect(rows).toEqual(
      kcat
        .map((m) => ({
          topic: 'from-kcat',
          partition: m.partition,
          offset: m.offset,
          timestamp: m.timestamp,
          key: text(m.key),
          value: text(m.value),
          headers: Object.fromEntries(m.headers.map(([k, v]) => [k, text(v)])),
        }))
        .sort((x, y) => x.partition - y.partition || x.offset - y.offset),
    )
  })

  it('consume: -p with -o OFFSET, -o -N and -c; -o end with -e prints nothing', async () => {
    const p0 = await wafka(['consume', '-b', b, '-t', 'from-kcat', '-p', '0', '-o', '1', '-e', '-f', '%o:%s\\n'])
    expect(p0.stdout).toBe('1:v1\n')
    const tail = await wafka(['consume', '-b', b, '-t', 'from-kcat', '-p', '0', '-o', '-2', '-c', '1', '-f', '%o\\n'])
    expect(tail.stdout).toBe('0\n')
    // @TIMESTAMP: from the first message at or after it.
    const p0msgs = await kcatConsume(b, 'from-kcat', { partition: 0 })
    const at = p0msgs[1].timestamp
    const first = p0msgs.find((m) => m.timestamp >= at)!.offset
    const byTime = await wafka(['consume', '-b', b, '-t', 'from-kcat', '-p', '0', '-o', `@${at}`, '-e', '-f', '%o\\n'])
    expect(byTime.stdout).toBe(
      p0msgs
        .filter((m) => m.offset >= first)
        .map((m) => `${m.offset}\n`)
        .join(''),
    )
    const end = await wafka(['consume', '-b', b, '-t', 'from-kcat', '-o', 'end', '-e'])
    expect(end).toEqual({ code: 0, stdout: '', stderr: '' })
  })

  it('consume -g: a group member commits what it printed, so the next run goes on from there', async () => {
    const first = await wafka(['consume', '-b', b, '-t', 'from-kcat', '-g', 'cli-group', '-o', 'beginning', '-c', '3', '-f', '%p/%o '])
    expect(first.code).toBe(0)
    expect(first.stdout.trim().split(' ').sort()).toEqual(['0/0', '0/1', '1/0'])
    await kcatProduce(b, 'from-kcat', [{ key: 'k3', value: 'after', partition: 1 }])
    const second = await wafka(['consume', '-b', b, '-t', 'from-kcat', '-g', 'cli-group', '-e', '-f', '%p/%o %s\\n'])
    expect(second.stdout).toBe('1/1 after\n')
  })
})
