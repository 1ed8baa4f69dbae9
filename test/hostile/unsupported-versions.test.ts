// A broker whose ApiVersions answer offers only versions wafka does not
// speak: the call fails at once with UnsupportedApiError naming the API and
// both ranges (the broker's, wafka's), on one connection, never retried as
// if the broker might change its mind. Where the ranges meet, the shared
// version is used.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka, UnsupportedApiError } from '../../src/index.js'
import { ApiVersions, Metadata, Produce } from '../../src/protocol/messages/index.js'
import { FAKE_VERSIONS, FakeCluster, type Behaviour } from './fake-broker.js'
import { SETTINGS, expectNothingLeft, expectTyped, liveResources, timed } from './support.js'

let cluster: FakeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

/** ApiVersions answered with the fake's versions, `api` offered only at [min, max]. */
const offering =
  (api: typeof Metadata | typeof Produce, min: number, max: number): Behaviour =>
  (req, s) =>
    void s.answer(req, {
      errorCode: 0,
      apiKeys: FAKE_VERSIONS.map(([a, lo, hi]) =>
        a.apiKey === api.apiKey
          ? { apiKey: a.apiKey, minVersion: min, maxVersion: max }
          : { apiKey: a.apiKey, minVersion: lo, maxVersion: hi },
      ),
    })

async function start(behaviour: Behaviour) {
  cluster = await FakeCluster.start({ topics: { t: 1 } })
  cluster.broker(1).on(ApiVersions, behaviour)
  return new Kafka({ brokers: cluster.bootstrap, ...SETTINGS })
}

describe('a broker that offers only versions wafka does not speak', () => {
  it(`Metadata 14-20 (wafka: 0-${Metadata.maxVersion}): admin.connect() fails at once, naming both ranges`, async () => {
    const kafka = await start(offering(Metadata, 14, 20))
    const baseline = liveResources()
    const admin = kafka.admin()
    const { ms, error } = await timed(() => admin.connect())
    expectTyped(error, UnsupportedApiError, false)
    expect((error as Error).message).toMatch(new RegExp(`Metadata \\(key 3\\) versions 14-20; wafka speaks 0-${Metadata.maxVersion}`))
    expect(ms).toBeLessThan(1000)
    // A call with a retry budget (8 s) does not spend it: one attempt, no new connection.
    const again = await timed(() => admin.listTopics())
    expectTyped(again.error, UnsupportedApiError, false)
    expect(again.ms).toBeLessThan(1000)
    expect(cluster!.broker(1).connections).toBe(1)
    expect(cluster!.broker(1).asked(ApiVersions)).toBe(1)
    expect(cluster!.broker(1).asked(Metadata)).toBe(0)
    await admin.disconnect()
    await expectNothingLeft(baseline)
  })

  it(`ApiVersions 13-20 (wafka: 0-${ApiVersions.maxVersion}, KIP-511's answer): connect() fails at once, naming both ranges`, async () => {
    const kafka = await start(
      (req, s) =>
        void s.answer(
          { ...req, apiVersion: 0 },
          { errorCode: 35, apiKeys: [{ apiKey: ApiVersions.apiKey, minVersion: 13, maxVersion: 20 }] },
        ),
    )
    const baseline = liveResources()
    const admin = kafka.admin()
    const { ms, error } = await timed(() => admin.connect())
    expectTyped(error, UnsupportedApiError, false)
    expect((error as Error).message).toMatch(
      new RegExp(`ApiVersions \\(key 18\\) versions 13-20; wafka speaks 0-${ApiVersions.maxVersion}`),
    )
    expect(ms).toBeLessThan(1000)
    // Not asked again lower, one version at a time: nothing below 13 exists.
    expect(cluster!.broker(1).asked(ApiVersions)).toBe(1)
    expect(cluster!.broker(1).connections).toBe(1)
    await admin.disconnect()
    await expectNothingLeft(baseline)
  })

  it(`Produce 14-20 (wafka: 3-${Produce.maxVersion}): send() fails at once, not retried until the delivery timeout`, async () => {
    const kafka = await start(offering(Produce, 14, 20))
    const producer = kafka.producer()
    await producer.connect()
    const { ms, error } = await timed(() => producer.send({ topic: 't', messages: [{ value: 'x' }] }))
    expectTyped(error, UnsupportedApiError, false)
    expect((error as Error).message).toMatch(/Produce \(key 0\) versions 14-20; wafka speaks \d+-\d+/)
    expect(ms).toBeLessThan(1000)
    expect(cluster!.broker(1).asked(Produce)).toBe(0)
    await producer.disconnect()
  })

  // The report's own case: Metadata 13-20 shares v13 with wafka, so it is used (the 3 s
  // TimeoutError was the fake broker failing to read the v13 request, not the client).
  it(`Metadata 13-20: the shared version (13) is used`, async () => {
    const kafka = await start(offering(Metadata, 13, 20))
    const admin = kafka.admin()
    const { ms, error, value } = await timed(async () => {
      await admin.connect()
      return admin.listTopics()
    })
    expect(error).toBeUndefined()
    expect(value).toEqual(['t'])
    expect(ms).toBeLessThan(1000)
    expect(
      cluster!
        .broker(1)
        .requests.filter((r) => r.apiKey === Metadata.apiKey)
        .map((r) => r.apiVersion),
    ).toEqual([13, 13])
    await admin.disconnect()
  })
})
