// Defect 2 of issue 9: disconnect() ends every pending call at once with a
// non-retriable error, stops retries in progress (the producer's epoch-bump
// retry included) and leaves no timer or socket behind.
import * as net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka, WafkaError } from '../../src/index.js'
import { InitProducerId, Produce } from '../../src/protocol/messages/index.js'
import { FakeCluster, stall } from './fake-broker.js'
import { SETTINGS, expectNothingLeft, expectTyped, liveResources, sleep, timed } from './support.js'

let cluster: FakeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

/** A loopback port nothing listens on: connects are refused at once. */
async function refusingPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((r) => server.listen({ host: '127.0.0.1', port: 0 }, r))
  const port = (server.address() as net.AddressInfo).port
  await new Promise((r) => server.close(r))
  return port
}

describe('disconnect()', () => {
  it('ends a pending listTopics against a refusing bootstrap broker at once', async () => {
    const port = await refusingPort()
    const baseline = liveResources()
    const kafka = new Kafka({ brokers: [`127.0.0.1:${port}`], ...SETTINGS, defaultApiTimeoutMs: 60_000 })
    const admin = kafka.admin()
    const pending = timed(() => admin.listTopics())
    await sleep(700)
    const disconnectedAt = Date.now()
    await admin.disconnect()
    const { error } = await pending
    expect(Date.now() - disconnectedAt).toBeLessThan(500)
    expectTyped(error, WafkaError, false)
    expect((error as Error).message).toMatch(/disconnected/)
    await expectNothingLeft(baseline)
  })

  it('ends a pending call waiting on a silent broker at once', async () => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    const baseline = liveResources()
    const kafka = new Kafka({ brokers: cluster.bootstrap, ...SETTINGS, defaultApiTimeoutMs: 60_000 })
    const admin = kafka.admin()
    await admin.connect()
    cluster.broker(1).on('any', stall)
    const pending = timed(() => admin.fetchTopicOffsets('t'))
    await sleep(3500) // past one request timeout: in a retry now
    const disconnectedAt = Date.now()
    await admin.disconnect()
    const { error } = await pending
    expect(Date.now() - disconnectedAt).toBeLessThan(500)
    expectTyped(error, WafkaError, false)
    await expectNothingLeft(baseline)
  })

  it("stops the producer's epoch-bump retry", async () => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    const baseline = liveResources()
    const kafka = new Kafka({ brokers: cluster.bootstrap, ...SETTINGS, defaultApiTimeoutMs: 60_000 })
    const producer = kafka.producer({ lingerMs: 0, deliveryTimeoutMs: 3100, requestTimeoutMs: 3000 })
    await producer.connect()
    // The batch times out unanswered (a sequence gap): the epoch must be bumped, and InitProducerId is refused.
    cluster.broker(1).on(Produce, stall)
    cluster.broker(1).on(InitProducerId, (req, s) => void s.answer(req, { errorCode: 15 /* COORDINATOR_NOT_AVAILABLE: retriable */ }))
    const bumpsBefore = cluster.broker(1).asked(InitProducerId)
    const { error } = await timed(() => producer.send({ topic: 't', messages: [{ value: 'v' }] }))
    expect(error).toBeInstanceOf(WafkaError)
    // The bump is being retried (InitProducerId refused again and again) when disconnect() comes.
    const deadline = Date.now() + 5000
    while (cluster.broker(1).asked(InitProducerId) < bumpsBefore + 2 && Date.now() < deadline) await sleep(20)
    expect(cluster.broker(1).asked(InitProducerId)).toBeGreaterThanOrEqual(bumpsBefore + 2)
    const disconnectedAt = Date.now()
    await producer.disconnect()
    expect(Date.now() - disconnectedAt).toBeLessThan(1000)
    await expectNothingLeft(baseline)
    const bumpsAtDisconnect = cluster.broker(1).asked(InitProducerId)
    await sleep(1500)
    expect(cluster.broker(1).asked(InitProducerId)).toBe(bumpsAtDisconnect)
  })
})
