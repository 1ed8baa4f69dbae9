// wafka topics, groups and cluster against the embedded broker and against
// Apache Kafka itself (the reference): the same commands, the same answers.
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { requireKafka, startKafka } from '../peers/kafka.js'
import { until } from '../broker/support.js'
import { built, cli, oneCleanLine, wafka, wafkaOnTty } from './support.js'

interface Target {
  bootstrap: string
  stop(): Promise<void>
}

const targets: Array<[string, boolean, () => Promise<Target>]> = [
  [
    'the embedded broker',
    true,
    async () => {
      const c = await startCluster({ brokers: 3 })
      return { bootstrap: c.bootstrapServers, stop: () => c.stop() }
    },
  ],
  [
    'Apache Kafka',
    built && requireKafka(),
    async () => {
      const k = await startKafka({ brokers: 1 })
      return { bootstrap: k.bootstrap, stop: () => k.stop() }
    },
  ],
]

const json = (stdout: string) => JSON.parse(stdout)

describe.skipIf(!built).each(targets)('wafka topics / groups / cluster on %s', (_name, available, start) => {
  let target: Target
  let b: string
  beforeAll(async () => {
    if (!available) return
    target = await start()
    b = target.bootstrap
  }, 120_000)
  afterAll(() => target?.stop())

  it.skipIf(!available)('topics create, list, describe, delete', async () => {
    const created = await wafka(['topics', 'create', 'cli-topic', '-b', b, '-P', '3', '-r', '1', '-c', 'retention.ms=3600000'])
    expect(created).toMatchObject({ code: 0, stdout: 'created topic cli-topic\n', stderr: '' })
    const again = await wafka(['topics', 'create', 'cli-topic', '-b', b, '-P', '3'])
    expect(again).toMatchObject({ code: 1, stderr: 'wafka topics: topic "cli-topic" already exists\n' })
    expect(json((await wafka(['topics', 'list', '-b', b, '--json'])).stdout)).toContain('cli-topic')

    await wafka(['produce', '-b', b, '-t', 'cli-topic', '-p', '1'], { input: 'a\nb\nc\n' })
    const d = await wafka(['topics', 'describe', 'cli-topic', '-b', b, '--json'])
    expect(d.code).toBe(0)
    const described = json(d.stdout)
    expect(described.partitions.map((p: { partition: number }) => p.partition)).toEqual([0, 1, 2])
    expect(described.partitions[1]).toMatchObject({ low: '0', high: '3' })
    for (const p of described.partitions) {
      expect(p.replicas).toHaveLength(1)
      expect(p.isr).toEqual(p.replicas)
      expect(p.leader).toBe(p.replicas[0])
    }
    const text = await wafka(['topics', 'describe', 'cli-topic', '-b', b])
    expect(text.stdout).toMatch(/^topic cli-topic: 3 partition\(s\), replication factor 1$/m)
    expect(text.stdout).toMatch(/^1 +\d+ +\d+ +\d+ +0 +3$/m)

    expect(await wafka(['topics', 'delete', 'cli-topic', '-b', b])).toMatchObject({ code: 0, stdout: 'deleted topic cli-topic\n' })
    const deadline = Date.now() + 20_000
    while ((await wafka(['topics', 'list', '-b', b])).stdout.split('\n').includes('cli-topic') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200))
    expect((await wafka(['topics', 'list', '-b', b])).stdout.split('\n')).not.toContain('cli-topic')
  })

  it.skipIf(!available)('topics alter: more partitions, configs set and deleted, validate-only, refusals', async () => {
    expect(await wafka(['topics', 'create', 'altered', '-b', b, '-P', '2', '-r', '1', '-c', 'retention.ms=3600000'])).toMatchObject({
      code: 0,
    })
    const describe = async () => json((await wafka(['topics', 'describe', 'altered', '-b', b, '--json'])).stdout)
    expect((await describe()).configs).toEqual({ 'retention.ms': '3600000' })

    const dry = await wafka([
      'topics',
      'alter',
      'altered',
      '-b',
      b,
      '-P',
      '4',
      '--config',
      'retention.bytes=1000000',
      '--validate-only',
      '--json',
    ])
    expect(dry.stderr).toBe('')
    expect(json(dry.stdout)).toEqual({
      altered: 'altered',
      validateOnly: true,
      partitions: { from: 2, to: 4 },
      configs: { 'retention.bytes': '1000000' },
    })
    expect((await describe()).partitions).toHaveLength(2)

    const r = await wafka([
      'topics',
      'alter',
      'altered',
      '-b',
      b,
      '-P',
      '4',
      '--config',
      'retention.bytes=1000000',
      '--config',
      'max.message.bytes=200000',
      '--delete-config',
      'retention.ms',
    ])
    expect(r).toMatchObject({ code: 0, stderr: '' })
    expect(r.stdout).toBe(
      'altered: partitions 2 -> 4\naltered: set retention.bytes=1000000\naltered: set max.message.bytes=200000\naltered: delete retention.ms\n',
    )
    // The new partitions reach every broker's metadata shortly after the controller has them.
    const deadline = Date.now() + 20_000
    let d = await describe()
    while (d.partitions.length < 4 && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 200))
      d = await describe()
    }
    expect(d.partitions.map((p: { partition: number }) => p.partition)).toEqual([0, 1, 2, 3])
    expect(d.configs).toEqual({ 'retention.bytes': '1000000', 'max.message.bytes': '200000' })
    const text = await wafka(['topics', 'describe', 'altered', '-b', b])
    expect(text.stdout).toMatch(/^configs: max\.message\.bytes=200000, retention\.bytes=1000000$/m)

    // The new partitions take messages.
    const produced = await wafka(['produce', '-b', b, '-t', 'altered', '-p', '3'], { input: 'x\n' })
    expect(produced, produced.stderr).toMatchObject({ code: 0, stderr: '' })

    const fewer = await wafka(['topics', 'alter', 'altered', '-b', b, '-P', '2'])
    expect(fewer.code).toBe(1)
    expect(fewer.stderr).toBe('wafka topics: altered has 4 partitions: Kafka can add partitions, never remove them\n')
    const unknown = await wafka(['topics', 'alter', 'altered', '-b', b, '--config', 'no.such.config=1'])
    expect(unknown.code).toBe(1)
    expect(oneCleanLine(unknown.stderr), unknown.stderr).toBe(true)
    expect(unknown.stderr).toMatch(/no\.such\.config/)
    const missing = await wafka(['topics', 'alter', 'no-such-topic', '-b', b, '-P', '3'])
    expect(missing).toMatchObject({ code: 1, stderr: 'wafka topics: topic "no-such-topic" does not exist\n' })
    const nothing = await wafka(['topics', 'alter', 'altered', '-b', b])
    expect(nothing.code).toBe(2)
    expect(nothing.stderr).toMatch(/^wafka topics: topics alter needs -P N, --config k=v or --delete-config k/)
    await wafka(['topics', 'delete', 'altered', '-b', b])
  })

  it.skipIf(!available)('groups list, describe with lag, reset-offsets, delete', async () => {
    await wafka(['topics', 'create', 'lagged', '-b', b, '-P', '2'])
    await wafka(['produce', '-b', b, '-t', 'lagged', '-p', '0'], { input: 'a\nb\nc\nd\n' })
    await wafka(['produce', '-b', b, '-t', 'lagged', '-p', '1'], { input: 'e\nf\n' })
    const read = await wafka(['consume', '-b', b, '-t', 'lagged', '-g', 'cli-g', '-o', 'beginning', '-e', '-f', '%p '])
    expect(read.code).toBe(0)
    expect(read.stdout.trim().split(' ').sort()).toEqual(['0', '0', '0', '0', '1', '1'])
    await wafka(['produce', '-b', b, '-t', 'lagged', '-p', '1'], { input: 'g\nh\ni\n' })

    const list = json((await wafka(['groups', 'list', '-b', b, '--json'])).stdout)
    expect(list.find((g: { groupId: string }) => g.groupId === 'cli-g')).toMatchObject({ groupState: 'Empty' })
    const d = json((await wafka(['groups', 'describe', 'cli-g', '-b', b, '--json'])).stdout)
    expect(d).toMatchObject({ groupId: 'cli-g', state: 'Empty', members: [] })
    expect(d.offsets).toEqual([
      { topic: 'lagged', partition: 0, committed: 4, logEnd: 4, lag: 0, member: null },
      { topic: 'lagged', partition: 1, committed: 2, logEnd: 5, lag: 3, member: null },
    ])
    const text = (await wafka(['groups', 'describe', 'cli-g', '-b', b])).stdout
    expect(text).toMatch(/^group cli-g: Empty, classic, .*0 member\(s\)$/m)
    expect(text).toMatch(/^lagged +1 +2 +5 +3 +-$/m)

    const dry = await wafka(['groups', 'reset-offsets', 'cli-g', '-t', 'lagged', '--to-earliest', '--dry-run', '-b', b, '--json'])
    expect(json(dry.stdout)).toMatchObject({
      applied: false,
      offsets: [
        { partition: 0, from: 4, to: 0 },
        { partition: 1, from: 2, to: 0 },
      ],
    })
    const shifted = await wafka(['groups', 'reset-offsets', 'cli-g', '-t', 'lagged', '--shift-by', '-3', '-b', b, '--json'])
    expect(json(shifted.stdout)).toMatchObject({
      applied: true,
      offsets: [
        { partition: 0, from: 4, to: 1 },
        { partition: 1, from: 2, to: 0 },
      ],
    })
    const after = json((await wafka(['groups', 'describe', 'cli-g', '-b', b, '--json'])).stdout)
    expect(after.offsets.map((o: { committed: number; lag: number }) => [o.committed, o.lag])).toEqual([
      [1, 3],
      [0, 5],
    ])
    // The group reads from the reset offsets.
    const reread = await wafka(['consume', '-b', b, '-t', 'lagged', '-g', 'cli-g', '-e', '-f', '%p:%s '])
    expect(reread.stdout.trim().split(' ').sort()).toEqual(['0:b', '0:c', '0:d', '1:e', '1:f', '1:g', '1:h', '1:i'])

    expect(await wafka(['groups', 'delete', 'cli-g', '-b', b])).toMatchObject({ code: 0, stdout: 'deleted group cli-g\n' })
    const gone = await wafka(['groups', 'describe', 'cli-g', '-b', b])
    expect(gone).toMatchObject({ code: 1, stderr: 'wafka groups: group "cli-g" does not exist\n' })
  })

  it.skipIf(!available)(
    'groups lag --watch: a look each interval with the rates since the last, until SIGINT; a JSON line per look; redrawn on a terminal',
    async () => {
      await wafka(['topics', 'create', 'watched', '-b', b, '-P', '1'])
      await wafka(['produce', '-b', b, '-t', 'watched'], { input: 'a\nb\nc\nd\n' })
      const read = await wafka(['consume', '-b', b, '-t', 'watched', '-g', 'watch-g', '-o', 'beginning', '-c', '1'])
      expect(read.code).toBe(0)
      // One look, as a table.
      const once = await wafka(['groups', 'lag', 'watch-g', '-b', b])
      expect(once.stdout).toMatch(/total lag 3$/m)
      expect(once.stdout).toMatch(/^watched +0 +1 +4 +3 +- +- +-$/m)
      // Watching, while 10 more records come: the looks see the log end move, then SIGINT ends it (exit 0).
      const child = spawn(process.execPath, [cli, 'groups', 'lag', 'watch-g', '-b', b, '--watch', '--interval', '300', '--json'])
      let out = ''
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c))
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
      const looks = () =>
        out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      await until(
        () => looks().length >= 1,
        30_000,
        () => `no look yet: ${out}`,
      )
      expect(looks()[0]).toMatchObject({
        state: 'Empty',
        totalLag: 3,
        offsets: [{ topic: 'watched', partition: 0, committed: 1, logEnd: 4, lag: 3 }],
      })
      await wafka(['produce', '-b', b, '-t', 'watched'], { input: Array.from({ length: 10 }, (_, i) => `m${i}`).join('\n') + '\n' })
      await until(
        () => looks().some((l) => l.totalLag === 13),
        30_000,
        () => `lag never reached 13: ${out}`,
      )
      child.kill('SIGINT')
      expect(await exited).toBe(0)
      const all = looks()
      expect(all.at(-1).offsets[0]).toMatchObject({ committed: 1, logEnd: 14, lag: 13 })
      // The look that saw the new records says they came at a positive rate; none saw a commit.
      expect(all.some((l) => l.offsets[0].producedPerSecond > 0)).toBe(true)
      expect(all.slice(1).every((l) => l.offsets[0].committedPerSecond === 0)).toBe(true)
      expect(all[0].offsets[0].producedPerSecond).toBeNull()
      // On a terminal the view is redrawn in place; --count ends it.
      const tty = await wafkaOnTty(['groups', 'lag', 'watch-g', '-b', b, '--watch', '--interval', '200', '--count', '2'])
      expect(tty.code).toBe(0)
      expect(tty.stdout.split('\x1b[H\x1b[2J')).toHaveLength(3)
      const misuse = await wafka(['groups', 'lag', 'watch-g', '-b', b, '--count', '2'])
      expect(misuse).toMatchObject({ code: 2 })
      expect(misuse.stderr).toMatch(/--interval and --count go with --watch/)
    },
  )

  it.skipIf(!available)('demo -b: the same produce / group-consume round trip, verified exactly once', async () => {
    const r = await wafka(['demo', '-b', b, '--messages', '20000', '--partitions', '3', '--json'])
    // With --json, stdout is the summary alone; the progress lines go to stderr.
    expect(r.stderr).toMatch(/^consume: 100%  20,000\/20,000 received/m)
    expect(r.stderr).not.toMatch(/^wafka demo:/m)
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).verified).toEqual({ received: 20000, missing: 0, duplicates: 0, unexpected: 0, exactlyOnce: true })
  })

  it.skipIf(!available)("cluster: brokers, controller, and each broker's API versions", async () => {
    const r = await wafka(['cluster', '-b', b, '--json'])
    expect(r.code).toBe(0)
    const c = json(r.stdout)
    expect(c.brokers.length).toBeGreaterThanOrEqual(1)
    expect(c.brokers.map((x: { nodeId: number }) => x.nodeId)).toContain(c.controller)
    for (const broker of c.brokers) {
      const produce = broker.apis.find((a: { apiKey: number }) => a.apiKey === 0)
      expect(produce).toMatchObject({ name: 'Produce' })
      expect(produce.used).toBeGreaterThanOrEqual(produce.minVersion)
      expect(produce.used).toBeLessThanOrEqual(produce.maxVersion)
      expect(broker.apis.find((a: { apiKey: number }) => a.apiKey === 18)).toMatchObject({ name: 'ApiVersions' })
    }
  })
})
