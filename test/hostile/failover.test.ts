// Defect 1 of issue 9: a timeout (connect or request) counts as "this broker
// may not lead any more": the producer and admin refresh metadata and follow
// a partition that moved away from a silent broker.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { Metadata } from '../../src/protocol/messages/index.js'
import { startBlackhole, type Blackhole } from './blackhole.js'
import { FakeCluster, stall } from './fake-broker.js'
import { SETTINGS, SLACK_MS, expectNothingLeft, liveResources, sleep, timed } from './support.js'

let cluster: FakeCluster | undefined
let hole: Blackhole | undefined
afterEach(async () => {
  await cluster?.close()
  await hole?.close()
  cluster = hole = undefined
})

/** t-0 led by broker 2, which is silent as `how` says; it moves to broker 1 after 500 ms. */
async function silentLeader(how: 'drops SYNs' | 'accepts and never answers') {
  cluster = await FakeCluster.start({ brokers: 2, topics: { t: 1 } })
  cluster.setLeader('t', 0, 2)
  cluster.append('t', 0, [{ value: 'x' }])
  if (how === 'drops SYNs') {
    hole = await startBlackhole()
    cluster.advertise(2, hole)
  } else cluster.broker(2).on('any', stall)
  const kafka = new Kafka({ brokers: [cluster.bootstrap[0]], ...SETTINGS })
  setTimeout(() => cluster!.setLeader('t', 0, 1), 500)
  return kafka
}

describe.each(['drops SYNs', 'accepts and never answers'] as const)('a leader that %s', (how) => {
  it('producer: send() follows the move to broker 1 after one timeout', async () => {
    const kafka = await silentLeader(how)
    const baseline = liveResources()
    const producer = kafka.producer()
    await producer.connect()
    const metadataBefore = cluster!.broker(1).asked(Metadata)
    const { ms, error, value } = await timed(() => producer.send({ topic: 't', messages: [{ value: 'v' }] }))
    expect(error).toBeUndefined()
    expect(value![0].baseOffset).toBe('1')
    // One timeout (connect 2 s or request 3 s), then a refresh: far before the 8 s API timeout.
    expect(ms).toBeLessThan(SETTINGS.requestTimeoutMs + SLACK_MS)
    expect(cluster!.broker(1).asked(Metadata)).toBeGreaterThan(metadataBefore)
    if (how !== 'drops SYNs') expect(cluster!.broker(2).connections).toBeLessThanOrEqual(2)
    await producer.disconnect()
    await expectNothingLeft(baseline)
  })

  it('admin: fetchTopicOffsets follows the move to broker 1 after one timeout', async () => {
    const kafka = await silentLeader(how)
    const baseline = liveResources()
    const admin = kafka.admin()
    await admin.connect()
    const { ms, error, value } = await timed(() => admin.fetchTopicOffsets('t'))
    expect(error).toBeUndefined()
    expect(value).toEqual([{ partition: 0, offset: '1', high: '1', low: '0' }])
    expect(ms).toBeLessThan(SETTINGS.requestTimeoutMs + SLACK_MS)
    if (how !== 'drops SYNs') expect(cluster!.broker(2).connections).toBeLessThanOrEqual(2)
    await admin.disconnect()
    await expectNothingLeft(baseline)
  })
})
