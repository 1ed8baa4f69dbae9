// A partition leader that accepts TCP and never answers, then loses the
// partition to a good broker: once a metadata refresh (here metadata.max.age;
// equally another request's error) shows the move, the client follows it
// without waiting out the dead request where it can. A connection still
// being opened (nothing sent) and a read (admin's ListOffsets) are given up
// on and the request goes to the new leader at once. A Produce already
// written is not (its outcome is unknown until the broker answers, as in the
// Java client): it alone waits its request timeout, while sends made after
// the move go to the new leader without waiting behind it.
import { afterEach, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { ApiVersions, ListOffsets, Metadata, Produce } from '../../src/protocol/messages/index.js'
import { FakeCluster, stall, type Behaviour } from './fake-broker.js'
import { SETTINGS, SLACK_MS, expectNothingLeft, liveResources, timed, until } from './support.js'

/** Long enough that waiting it out cannot pass for following the move. */
const REQUEST_TIMEOUT_MS = 6000
const MAX_AGE_MS = 500
const MOVE_AT_MS = 300

let cluster: FakeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

const HOW: Record<string, Behaviour> = {
  // Its connection never opens: nothing is ever sent to it.
  'answers nothing, not even ApiVersions': stall,
  // Its connection opens; requests are written and never answered.
  'answers ApiVersions, then nothing': (req) => req.apiKey !== ApiVersions.apiKey,
}

/** t-0 led by broker 2, silent as `how` says; it moves to broker 1 at MOVE_AT_MS. */
async function stalledLeader(how: string) {
  cluster = await FakeCluster.start({ brokers: 2, topics: { t: 1 } })
  cluster.setLeader('t', 0, 2)
  cluster.append('t', 0, [{ value: 'x' }])
  cluster.broker(2).on('any', HOW[how])
  const kafka = new Kafka({
    brokers: [cluster.bootstrap[0]],
    ...SETTINGS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    defaultApiTimeoutMs: 20_000,
    metadataMaxAgeMs: MAX_AGE_MS,
  })
  const start = Date.now()
  const moved = new Promise<number>((resolve) =>
    setTimeout(() => {
      cluster!.setLeader('t', 0, 1)
      resolve(Date.now())
    }, MOVE_AT_MS),
  )
  return { kafka, start, moved }
}

/** Resolves once broker 1 has answered a Metadata request made after `at` (the client has seen the move). */
async function refreshedAfter(at: number): Promise<void> {
  await until(() => cluster!.broker(1).requests.some((r) => r.apiKey === Metadata.apiKey && r.at > at), 4 * MAX_AGE_MS + SLACK_MS)
}

describe.each(Object.keys(HOW))('a leader that %s, then loses its partition to a good broker', (how) => {
  const written = how === 'answers ApiVersions, then nothing'

  it('admin: fetchTopicOffsets waiting on it is asked again at the new leader once metadata shows the move', async () => {
    const { kafka, moved } = await stalledLeader(how)
    const baseline = liveResources()
    const admin = kafka.admin()
    await admin.connect()
    const { ms, error, value } = await timed(() => admin.fetchTopicOffsets('t'))
    expect(error).toBeUndefined()
    expect(value).toEqual([{ partition: 0, offset: '1', high: '1', low: '0' }])
    expect(cluster!.broker(2).asked(written ? ListOffsets : ApiVersions)).toBeGreaterThanOrEqual(1)
    // The move, then a refresh within two max ages, then the retry: far before the 6 s request timeout.
    await moved
    expect(ms).toBeLessThan(MOVE_AT_MS + 2 * MAX_AGE_MS + SLACK_MS)
    expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS)
    await admin.disconnect()
    await expectNothingLeft(baseline)
  })

  it(`producer: a send after the move goes to the new leader at once; the one before it ${written ? 'waits its request timeout (written, outcome unknown)' : 'follows the move too (never written)'}`, async () => {
    const { kafka, start, moved } = await stalledLeader(how)
    const baseline = liveResources()
    const producer = kafka.producer()
    await producer.connect()
    const first = timed(() => producer.send({ topic: 't', messages: [{ value: 'before the move' }] }))
    await refreshedAfter(await moved)
    const second = await timed(() => producer.send({ topic: 't', messages: [{ value: 'after the move' }] }))
    expect(second.error).toBeUndefined()
    expect(second.ms).toBeLessThan(1000)
    const answered = await first
    expect(answered.error).toBeUndefined()
    if (written) {
      // The Java client's semantics: a Produce written is not given up on before its request timeout.
      expect(cluster!.broker(2).asked(Produce)).toBe(1)
      expect(Date.now() - start).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100)
    } else {
      expect(cluster!.broker(2).asked(Produce)).toBe(0)
      expect(answered.ms).toBeLessThan(MOVE_AT_MS + 2 * MAX_AGE_MS + SLACK_MS)
    }
    expect(cluster!.partition('t', 0).end).toBe(3n)
    await producer.disconnect()
    await expectNothingLeft(baseline)
  })
})
