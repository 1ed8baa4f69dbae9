// The finalized features (transaction.version) live in the metadata log:
// a new log starts at the level the options give, UpdateFeatures changes
// it, and a restart on the same dataDir keeps what it was changed to (the
// options then set nothing, and say so), with an epoch that has not gone
// back. What Kafka answers for each update is test/kafka/newest-versions.test.ts's.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ApiVersions, UpdateFeatures } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'
import { keepLog } from './support.js'

const dirs: string[] = []
const running: RunningCluster[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()))
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function finalized(cluster: RunningCluster): Promise<{ level: number; epoch: bigint }> {
  const c = await RawClient.open(cluster.bootstrapServers.split(',')[0])
  try {
    const r = await c.request(ApiVersions, 4, { clientSoftwareName: 'features', clientSoftwareVersion: '1' })
    return {
      level: r.finalizedFeatures.find((f) => f.name === 'transaction.version')?.maxVersionLevel ?? 0,
      epoch: r.finalizedFeaturesEpoch,
    }
  } finally {
    c.close()
  }
}

async function update(cluster: RunningCluster, level: number, upgradeType: number): Promise<number> {
  const c = await RawClient.open(cluster.bootstrapServers.split(',')[0])
  try {
    const r = await c.request(UpdateFeatures, 2, {
      featureUpdates: [{ feature: 'transaction.version', maxVersionLevel: level, upgradeType }],
    })
    return r.errorCode
  } finally {
    c.close()
  }
}

describe('transaction.version in the metadata log', () => {
  it('a new log takes the option; UpdateFeatures changes it; a restart keeps the change, whatever the option says then', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wafka-features-'))
    dirs.push(dataDir)
    const first = await startCluster({ brokers: 1, dataDir, transactionVersion: 1 })
    running.push(first)
    const started = await finalized(first)
    expect(started.level).toBe(1)
    expect(await update(first, 0, 2)).toBe(0)
    const changed = await finalized(first)
    expect(changed.level).toBe(0)
    expect(changed.epoch).toBeGreaterThan(started.epoch)
    await first.stop()
    running.pop()

    const log: string[] = []
    const again = await startCluster({ brokers: 1, dataDir, transactionVersion: 2, ...keepLog(log) })
    running.push(again)
    expect(await finalized(again)).toEqual(changed)
    expect(log.join('\n')).toContain('transaction.version is 0 in the metadata log')
    expect(await update(again, 2, 1)).toBe(0)
    const upgraded = await finalized(again)
    expect(upgraded.level).toBe(2)
    expect(upgraded.epoch).toBeGreaterThan(changed.epoch)
    await again.stop()
    running.pop()

    // Restarted without the option: the log's level, not the default's.
    const third = await startCluster({ brokers: 1, dataDir })
    running.push(third)
    expect(await finalized(third)).toEqual(upgraded)
  })

  // With the network thread a new connection's ApiVersions is its answer, made again when the features change.
  it.each([false, true])(
    'in memory the options set it, and UpdateFeatures changes it until the broker stops (network thread: %s)',
    async (networkThread) => {
      const cluster = await startCluster({ brokers: 1, transactionVersion: 0, networkThread })
      running.push(cluster)
      const before = await finalized(cluster)
      expect(before.level).toBe(0)
      expect(await update(cluster, 2, 1)).toBe(0)
      const after = await finalized(cluster)
      expect(after.level).toBe(2)
      expect(after.epoch).toBeGreaterThan(before.epoch)
    },
  )
})
