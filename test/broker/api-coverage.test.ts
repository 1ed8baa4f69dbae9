// Every API Kafka 4.4's broker serves is served by the embedded broker at
// Kafka's versions, or named in the README's "Where it differs" with the
// reason: both brokers' ApiVersions, side by side.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { apiKeyInfo } from '../../src/protocol/messages/api-keys.js'
import { ApiVersions } from '../../src/protocol/messages/ApiVersions.js'
import { type KafkaCluster, requireKafka, startKafka } from '../peers/kafka.js'
import { RawClient } from './raw-client.js'

const kafkaOk = requireKafka()

async function served(bootstrap: string): Promise<Map<string, { min: number; max: number }>> {
  const c = await RawClient.open(bootstrap.split(',')[0])
  try {
    const r = await c.request(ApiVersions, 3, { clientSoftwareName: 'coverage', clientSoftwareVersion: '1' })
    return new Map(r.apiKeys.map((k) => [apiKeyInfo[k.apiKey]?.name ?? `key ${k.apiKey}`, { min: k.minVersion, max: k.maxVersion }]))
  } finally {
    c.close()
  }
}

/** The APIs README.md's embedded-broker section names as not served (or served at fewer versions), each with its reason. */
function namedInReadme(): Map<string, string> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const section = /<!-- apis-not-served -->([\s\S]*?)<!-- \/apis-not-served -->/.exec(readme)
  if (!section) throw new Error('README.md has no <!-- apis-not-served --> list')
  return new Map([...section[1].matchAll(/^- `(\w+)`[^:]*: (.+)$/gm)].map((m) => [m[1], m[2]]))
}

describe.skipIf(!kafkaOk)("the embedded broker's APIs beside Kafka 4.4's", () => {
  let kafka: KafkaCluster
  let embedded: RunningCluster
  beforeAll(async () => {
    ;[kafka, embedded] = await Promise.all([startKafka(), startCluster({ brokers: 1 })])
  }, 240_000)
  afterAll(async () => {
    await Promise.all([kafka?.stop(), embedded?.stop()])
  })

  it("every API Kafka serves is served at Kafka's versions, or named in the README with its reason", async () => {
    const [theirs, ours] = await Promise.all([served(kafka.bootstrap), served(embedded.bootstrapServers)])
    const named = namedInReadme()
    const short: string[] = []
    for (const [name, v] of theirs) {
      const o = ours.get(name)
      if (o && o.min <= v.min && o.max >= v.max) continue
      if (!named.has(name)) short.push(`${name} ${v.min}-${v.max} (embedded: ${o ? `${o.min}-${o.max}` : 'not served'})`)
    }
    expect(short, 'served by Kafka 4.4, neither served alike nor named in README.md').toEqual([])
    // And the list holds no API that has since caught up (or that Kafka does not serve).
    const stale = [...named.keys()].filter((name) => {
      const v = theirs.get(name)
      const o = ours.get(name)
      return !v || (o && o.min <= v.min && o.max >= v.max)
    })
    expect(stale, 'named in README.md but served alike (or not a Kafka 4.4 API)').toEqual([])
  })
})
