// One test per way a broker can fail a call, against the fake broker: the
// typed error and its retriability, the time taken against the configured
// timeouts, the number of connections made, bounded memory, and nothing left
// alive after disconnect(). The call is admin.listTopics() (a Metadata
// request on a fresh client: connection setup included).
import { Buffer } from 'node:buffer'
import { afterEach, describe, expect, it } from 'vitest'
import { ConnectionError, Kafka, KafkaError, ProtocolError, TimeoutError, UnsupportedApiError, type WafkaError } from '../../src/index.js'
import { ApiVersions, Metadata } from '../../src/protocol/messages/index.js'
import {
  FakeCluster,
  claimSize,
  drip,
  rawBody,
  resetMidFrame,
  stall,
  truncateAndClose,
  wrongCorrelationId,
  type Behaviour,
} from './fake-broker.js'
import { SLACK_MS, expectNothingLeft, expectTyped, liveResources, timed } from './support.js'

const FAST = { requestTimeoutMs: 1500, connectTimeoutMs: 1000, retryBackoffMs: 100, retryBackoffMaxMs: 1000, defaultApiTimeoutMs: 4000 }

let cluster: FakeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

interface Case {
  name: string
  api: typeof Metadata | typeof ApiVersions
  behaviour: Behaviour
  type: abstract new (...args: any[]) => WafkaError
  retriable: boolean
  /** The call ends by then (ms), and not before `atLeast`. */
  within: number
  atLeast?: number
  maxConnections: number
  message?: RegExp
}

/** A Metadata v1 body whose broker array claims 2^31-1 entries. */
const hugeArray = (() => {
  const b = Buffer.alloc(8)
  b.writeInt32BE(0x7fffffff, 0)
  return b
})()

const CASES: Case[] = [
  // Retriable: each attempt ends at requestTimeoutMs (the connection is closed), until defaultApiTimeoutMs.
  {
    name: 'stalls (reads, never answers)',
    api: Metadata,
    behaviour: stall,
    type: TimeoutError,
    retriable: true,
    atLeast: FAST.requestTimeoutMs,
    within: FAST.defaultApiTimeoutMs + SLACK_MS,
    maxConnections: 4,
  },
  {
    name: 'drips its answer a byte every 200 ms',
    api: Metadata,
    behaviour: drip(200),
    type: TimeoutError,
    retriable: true,
    atLeast: FAST.requestTimeoutMs,
    within: FAST.defaultApiTimeoutMs + SLACK_MS,
    maxConnections: 4,
  },
  // While connecting, the error is "no broker answered", carrying the last broker's error.
  {
    name: 'stalls ApiVersions',
    api: ApiVersions,
    behaviour: stall,
    type: ConnectionError,
    retriable: true,
    atLeast: FAST.requestTimeoutMs,
    within: FAST.defaultApiTimeoutMs + SLACK_MS,
    maxConnections: 4,
    message: /ApiVersions v\d to .* got no response within 1500 ms/,
  },
  // Retriable, with backoff between attempts (retry 100 ms doubling to 1 s, reconnect 50 ms doubling to 1 s).
  {
    name: 'truncates its answer and closes',
    api: Metadata,
    behaviour: truncateAndClose(10),
    type: ConnectionError,
    retriable: true,
    atLeast: 1000,
    within: FAST.defaultApiTimeoutMs + SLACK_MS,
    maxConnections: 16,
  },
  {
    name: 'resets the connection mid-frame',
    api: Metadata,
    behaviour: resetMidFrame(10),
    type: ConnectionError,
    retriable: true,
    atLeast: 1000,
    within: FAST.defaultApiTimeoutMs + SLACK_MS,
    maxConnections: 16,
  },
  {
    name: 'answers with a wrong correlation id',
    api: Metadata,
    behaviour: wrongCorrelationId,
    type: ConnectionError,
    retriable: true,
    atLeast: 1000,
    within: FAST.defaultApiTimeoutMs + SLACK_MS,
    maxConnections: 16,
    message: /correlation id/,
  },
  {
    name: 'claims a 2 GiB frame',
    api: Metadata,
    behaviour: claimSize(0x80000000),
    type: ConnectionError,
    retriable: true,
    atLeast: 1000,
    within: FAST.defaultApiTimeoutMs + SLACK_MS,
    maxConnections: 16,
    message: /2147483648 bytes, past the/,
  },
  {
    name: 'claims a 2^31-1 byte frame',
    api: Metadata,
    behaviour: claimSize(0x7fffffff),
    type: ConnectionError,
    retriable: true,
    atLeast: 1000,
    within: FAST.defaultApiTimeoutMs + SLACK_MS,
    maxConnections: 16,
    message: /2147483647 bytes, past the/,
  },
  // Not retriable: the same broker will answer the same way; the call ends at once, on one connection,
  // with the error itself (as an authentication failure does), not wrapped.
  {
    name: 'claims an array of 2^31-1 brokers',
    api: Metadata,
    behaviour: rawBody(hugeArray),
    type: ProtocolError,
    retriable: false,
    within: 1000,
    maxConnections: 1,
  },
  {
    name: 'refuses every ApiVersions version',
    api: ApiVersions,
    behaviour: (req, s) => void s.answer({ ...req, apiVersion: 0 }, { errorCode: 35, apiKeys: [] }),
    type: KafkaError,
    retriable: false,
    within: 1000,
    maxConnections: 1,
    message: /UNSUPPORTED_VERSION/,
  },
  {
    name: 'answers ApiVersions with garbage',
    api: ApiVersions,
    behaviour: rawBody(Buffer.from([0, 0, 0xff, 0xff, 0xff, 0x7f])),
    type: ProtocolError,
    retriable: false,
    within: 1000,
    maxConnections: 1,
  },
  {
    name: 'speaks no Metadata version wafka knows',
    api: ApiVersions,
    behaviour: (req, s) =>
      void s.answer(req, {
        errorCode: 0,
        apiKeys: [
          { apiKey: ApiVersions.apiKey, minVersion: 0, maxVersion: 4 },
          { apiKey: Metadata.apiKey, minVersion: 90, maxVersion: 99 },
        ],
      }),
    type: UnsupportedApiError,
    retriable: false,
    within: 1000,
    maxConnections: 1,
  },
]

describe('a broker that', () => {
  it.each(CASES)('$name: $type.name (retriable: $retriable), bounded in time, connections and memory', async (c) => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    cluster.broker(1).on(c.api, c.behaviour)
    const baseline = liveResources()
    const rss = process.memoryUsage().rss
    const admin = new Kafka({ brokers: cluster.bootstrap, ...FAST }).admin()
    const { ms, error } = await timed(() => admin.listTopics())
    expectTyped(error, c.type, c.retriable)
    if (c.message) expect((error as Error).message).toMatch(c.message)
    expect(ms).toBeLessThan(c.within)
    if (c.atLeast) expect(ms).toBeGreaterThanOrEqual(c.atLeast - 100)
    expect(cluster.broker(1).connections).toBeGreaterThanOrEqual(1)
    expect(cluster.broker(1).connections).toBeLessThanOrEqual(c.maxConnections)
    // Nothing was allocated for a claimed size.
    expect(process.memoryUsage().rss - rss).toBeLessThan(200 * 1024 * 1024)
    await admin.disconnect()
    await expectNothingLeft(baseline)
  })
})
