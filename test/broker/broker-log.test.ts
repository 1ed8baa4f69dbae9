// The embedded broker logs as the client does (logLevel, logCreator): each
// entry at its level, with the broker it concerns, and nothing below the
// level asked for.
import { Buffer } from 'node:buffer'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ConfigError } from '../../src/errors.js'
import { logLevel, type LogEntry } from '../../src/index.js'
import { RawClient } from './raw-client.js'

const running: RunningCluster[] = []
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop()
})

async function loggedCluster(level: number): Promise<{ c: RunningCluster; entries: LogEntry[] }> {
  const entries: LogEntry[] = []
  const c = await startCluster({ brokers: 1, logLevel: level as never, logCreator: () => (e) => void entries.push(e) })
  running.push(c)
  return { c, entries }
}

/** A frame too small to hold a request header: the broker closes the connection and says why. */
async function sendGarbage(c: RunningCluster): Promise<void> {
  const raw = await RawClient.open(c.bootstrapServers)
  raw.write(Buffer.from([0, 0, 0, 2, 1, 2]))
  await raw.whenClosed
}

describe("the broker's log", () => {
  it('a connection closed for cause is INFO, in the Broker namespace, naming the broker', async () => {
    const { c, entries } = await loggedCluster(logLevel.INFO)
    await sendGarbage(c)
    const closed = entries.find((e) => /connection closed/.test(e.log.message))
    expect(closed, JSON.stringify(entries)).toMatchObject({ label: 'INFO', level: logLevel.INFO, namespace: 'Broker', log: { broker: 0 } })
  })

  it('below the level asked for, nothing is written', async () => {
    const { c, entries } = await loggedCluster(logLevel.WARN)
    await sendGarbage(c)
    expect(entries.filter((e) => /connection closed/.test(e.log.message))).toEqual([])
  })

  it('a wrong logLevel, or the onProblem callback it replaced, is refused', async () => {
    await expect(startCluster({ logLevel: 3 as never })).rejects.toThrow(ConfigError)
    await expect(startCluster({ logLevel: 3 as never })).rejects.toThrow(/logLevel must be one of/)
    await expect(startCluster({ onProblem: () => {} } as never)).rejects.toThrow(/onProblem/)
  })
})
