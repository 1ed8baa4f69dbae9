// Connection creation quotas (KIP-612), on real Kafka and on the embedded
// broker with the same assertions, set by Kafka's own kafka-configs on both:
// an address over its `ip` quota's connection_creation_rate has its new
// connections held unserved and closed (Kafka's acceptor delays the close),
// other addresses are served; past the broker-wide
// max.connection.creation.rate (a dynamic broker config) new connections are
// taken later, none refused. Other loopback addresses (127.0.0.x) stand for
// other clients.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import * as M from '../../src/protocol/messages/index.js'
import { javaPeer, type JavaPeer, requireKafka, startKafka } from '../peers/kafka.js'
import { RawClient } from '../broker/raw-client.js'
import { until } from './support.js'

const kafkaOk = requireKafka()
const CONFIGS = 'org.apache.kafka.tools.ConfigCommand'
// Rates over 2 windows of a second (throttles of at most a second).
const WINDOWS = { 'quota.window.num': '2', 'quota.window.size.seconds': '1' }

type Target = Pick<JavaPeer, 'bootstrap' | 'runJava'> & { stop(): Promise<void> }

const targets: Array<[string, () => Promise<Target>]> = [
  [
    'real Kafka',
    async () => {
      const k = await startKafka({ config: WINDOWS })
      return { bootstrap: k.bootstrap, runJava: (main, args, o) => k.runJava(main, args, o), stop: () => k.stop() }
    },
  ],
  [
    'the embedded broker',
    async () => {
      const c = await startCluster({ brokers: 1, config: WINDOWS })
      return { ...javaPeer(c.bootstrapServers), stop: () => c.stop() }
    },
  ],
]

/** What became of one connection that asked ApiVersions: answered, or closed unanswered, and when (ms after it was opened). */
type Outcome = { answered: boolean; afterMs: number }

for (const [target, start] of targets)
  describe.skipIf(!kafkaOk)(`connection creation quotas on ${target} (KIP-612)`, () => {
    let cluster: Target
    const raws: RawClient[] = []

    /** kafka-configs --alter `args` then waits until --describe of `entity` shows `key`. */
    async function configure(entity: string[], alter: string[], key: string): Promise<void> {
      const base = ['--bootstrap-server', cluster.bootstrap, ...entity]
      const set = await cluster.runJava(CONFIGS, [...base, '--alter', ...alter], { timeoutMs: 60_000 })
      expect(set.code, set.stderr).toBe(0)
      await until(
        `${key} described`,
        async () => (await cluster.runJava(CONFIGS, [...base, '--describe'], { timeoutMs: 60_000 })).stdout,
        (out) => out.includes(key),
      )
    }

    /** `n` connections from `from` at once, each asking ApiVersions once. */
    async function connections(n: number, from: string): Promise<Outcome[]> {
      return Promise.all(
        Array.from({ length: n }, async () => {
          const opened = Date.now()
          const raw = await RawClient.open(cluster.bootstrap, from)
          raws.push(raw)
          try {
            await raw.request(M.ApiVersions, 3, { clientSoftwareName: 'wafka-test', clientSoftwareVersion: '1' }, 15_000)
            return { answered: true, afterMs: Date.now() - opened }
          } catch {
            await raw.whenClosed
            return { answered: false, afterMs: Date.now() - opened }
          } finally {
            raw.close()
          }
        }),
      )
    }

    beforeAll(async () => {
      cluster = await start()
    }, 240_000)
    afterAll(async () => {
      for (const r of raws) r.close()
      await cluster?.stop()
    })

    it('an address over its connection_creation_rate has its new connections closed unserved, after a delay; others are served', async () => {
      await configure(
        ['--entity-type', 'ips', '--entity-name', '127.0.0.2'],
        ['--add-config', 'connection_creation_rate=2'],
        'connection_creation_rate',
      )
      const outcomes = await connections(8, '127.0.0.2')
      const answered = outcomes.filter((o) => o.answered)
      const closed = outcomes.filter((o) => !o.answered)
      // 2 a second over a second or two: a few of 8 at once are served, the rest closed.
      expect(answered.length).toBeGreaterThanOrEqual(1)
      expect(answered.length).toBeLessThanOrEqual(4)
      expect(closed.length).toBeGreaterThanOrEqual(4)
      // Closed once the throttle has passed (half a second for each here), not at once.
      for (const o of closed) expect(o.afterMs).toBeGreaterThanOrEqual(200)
      // Another address is not held to it.
      const other = await connections(3, '127.0.0.3')
      expect(other.every((o) => o.answered)).toBe(true)
    })

    it('past max.connection.creation.rate new connections are taken later, none refused', async () => {
      await configure(
        ['--entity-type', 'brokers', '--entity-default'],
        ['--add-config', 'max.connection.creation.rate=5'],
        'max.connection.creation.rate',
      )
      const started = Date.now()
      const outcomes = await connections(15, '127.0.0.4')
      expect(outcomes.every((o) => o.answered)).toBe(true)
      // 15 at 5 a second: the listener took them over more than a second.
      expect(Date.now() - started).toBeGreaterThan(1000)
      const times = outcomes.map((o) => o.afterMs).sort((a, b) => a - b)
      expect(times[times.length - 1] - times[0]).toBeGreaterThan(800)
    })
  })
