// `wafka streams wordcount` as a user runs it (the built CLI in a subprocess):
// lines on stdin, the counts printed from the running application's store.
// On its own embedded broker, and twice against one cluster with the same
// application id, where the second run goes on from the first's counts (its
// store restored from the changelog, its input from the committed offsets),
// as a restarted Java Kafka Streams word count does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { built, wafka } from './support.js'

const TEXT = ['the quick brown fox', 'jumps over the lazy dog', 'The dog barks', 'a fox, a dog and THE end']

function counted(lines: string[]): Map<string, number> {
  const m = new Map<string, number>()
  for (const l of lines) for (const w of l.toLowerCase().split(/\W+/).filter(Boolean)) m.set(w, (m.get(w) ?? 0) + 1)
  return m
}

/** The printed table as word -> count; checks its order (most frequent first, then by word). */
function table(stdout: string): Map<string, number> {
  const [header, ...rows] = stdout.trimEnd().split('\n')
  expect(header).toMatch(/^word +count$/)
  const entries = rows.map((r) => {
    const [word, n] = r.trim().split(/ +/)
    return [word, Number(n)] as [string, number]
  })
  const sorted = [...entries].sort(([a, x], [b, y]) => (x === y ? (a < b ? -1 : 1) : y - x))
  expect(entries).toEqual(sorted)
  return new Map(entries)
}

describe.skipIf(!built)('wafka streams wordcount', () => {
  it('on its embedded broker: counts the words of stdin, most frequent first', async () => {
    const r = await wafka(['streams', 'wordcount'], { input: TEXT.join('\n') + '\n', timeoutMs: 90_000 })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/^embedded broker at 127\.0\.0\.1:\d+$/m)
    expect(r.stderr).toMatch(/^4 lines to wordcount-input; application wordcount-\w+; counts also in wordcount-output$/m)
    expect(table(r.stdout)).toEqual(counted(TEXT))
  })

  it('--help, and an application it does not have', async () => {
    const help = await wafka(['streams', 'wordcount', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('usage: wafka streams wordcount')
    const wrong = await wafka(['streams', 'wordcuont'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('unknown streams application "wordcuont": wafka streams wordcount')
  })

  describe('against a cluster (-b), one application id run twice', () => {
    let cluster: RunningCluster
    beforeAll(async () => {
      cluster = await startCluster({ brokers: 1 })
    })
    afterAll(async () => cluster?.stop())

    it('the second run counts on from the first', async () => {
      const args = ['streams', 'wordcount', '-b', cluster.bootstrapServers, '--input', 'wc-in', '--application-id', 'wc-twice']
      const first = await wafka(args, { input: TEXT.slice(0, 2).join('\n'), timeoutMs: 90_000 })
      expect(first.code, first.stderr).toBe(0)
      expect(table(first.stdout)).toEqual(counted(TEXT.slice(0, 2)))
      const second = await wafka(args, { input: TEXT.slice(2).join('\n'), timeoutMs: 90_000 })
      expect(second.code, second.stderr).toBe(0)
      expect(table(second.stdout)).toEqual(counted(TEXT))
    })
  })
})
