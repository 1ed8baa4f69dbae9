// The share consumer's pieces that need no broker: its options (Java's
// names and defaults, unknown keys refused), acknowledgements as the
// protocol's batches, and the share session's epochs and partition lists.
// Its behaviour against Kafka 4.4 is test/kafka/share-groups.test.ts.
import { describe, expect, it } from 'vitest'
import { ConfigError, Kafka } from '../../src/index.js'
import { AcknowledgeTypes, PartitionAcknowledgements, PendingAcknowledgements } from '../../src/consumer/share/acknowledgements.js'
import { resolveShareConsumerConfig } from '../../src/consumer/share/config.js'
import { CLOSE_EPOCH, OPEN_EPOCH, ShareSession } from '../../src/consumer/share/share-session.js'

describe('share consumer options', () => {
  it("take Java's KafkaShareConsumer defaults", () => {
    expect(resolveShareConsumerConfig({ groupId: 'g' })).toMatchObject({
      acknowledgementMode: 'implicit',
      maxPollRecords: 500,
      shareAcquireMode: 'batch_optimized',
      minBytes: 1,
      maxBytes: 52_428_800,
      maxWaitTimeInMs: 500,
      requestTimeoutMs: 30_000,
    })
  })

  it('refuse an unknown key, a missing groupId, a value out of range or not among the choices', () => {
    const kafka = new Kafka({ brokers: ['127.0.0.1:9'] })
    expect(() => kafka.shareConsumer({ groupId: 'g', maxPollRecord: 5 } as never)).toThrow(/maxPollRecord.*maxPollRecords/s)
    expect(() => kafka.shareConsumer({} as never)).toThrow(ConfigError)
    expect(() => kafka.shareConsumer({ groupId: 'g', maxPollRecords: 0 })).toThrow(/maxPollRecords/)
    expect(() => kafka.shareConsumer({ groupId: 'g', acknowledgementMode: 'manual' as never })).toThrow(/'implicit', 'explicit'/)
    expect(() => kafka.shareConsumer({ groupId: 'g', shareAcquireMode: 'strict' as never })).toThrow(/'batch_optimized', 'record_limit'/)
  })

  it("refuse a consumer's option that a share group keeps elsewhere, saying where", () => {
    const kafka = new Kafka({ brokers: ['127.0.0.1:9'] })
    expect(() => kafka.shareConsumer({ groupId: 'g', autoOffsetReset: 'earliest' } as never)).toThrow(/share\.auto\.offset\.reset/)
    expect(() => kafka.shareConsumer({ groupId: 'g', autoCommit: true } as never)).toThrow(/acknowledg/)
  })
})

describe('acknowledgements', () => {
  it('consecutive offsets of one type are one batch with one type; mixed types list one per offset', () => {
    const a = new PartitionAcknowledgements('t', 0, 1)
    for (const o of [5n, 3n, 4n]) a.add(o, AcknowledgeTypes.ACCEPT)
    a.add(9n, AcknowledgeTypes.REJECT)
    a.add(10n, AcknowledgeTypes.RELEASE)
    a.add(11n, AcknowledgeTypes.GAP)
    expect(a.batches()).toEqual([
      { firstOffset: 3n, lastOffset: 5n, acknowledgeTypes: [AcknowledgeTypes.ACCEPT] },
      { firstOffset: 9n, lastOffset: 11n, acknowledgeTypes: [AcknowledgeTypes.REJECT, AcknowledgeTypes.RELEASE, AcknowledgeTypes.GAP] },
    ])
  })

  it('a later acknowledgement of an offset replaces the earlier one; take() empties the pending set', () => {
    const p = new PendingAcknowledgements()
    p.add('t', 0, 1, 7n, AcknowledgeTypes.ACCEPT)
    p.add('t', 0, 1, 7n, AcknowledgeTypes.RELEASE)
    p.add('u', 2, 3, 1n, AcknowledgeTypes.ACCEPT)
    const taken = p.take()
    expect(taken.map((a) => [a.topic, a.partition, a.nodeId, a.batches()])).toEqual([
      ['t', 0, 1, [{ firstOffset: 7n, lastOffset: 7n, acknowledgeTypes: [AcknowledgeTypes.RELEASE] }]],
      ['u', 2, 3, [{ firstOffset: 1n, lastOffset: 1n, acknowledgeTypes: [AcknowledgeTypes.ACCEPT] }]],
    ])
    expect(p.size).toBe(0)
  })

  it("a partition's records acquired from another broker void the acknowledgements pending for the old one", () => {
    const p = new PendingAcknowledgements()
    p.add('t', 0, 1, 7n, AcknowledgeTypes.ACCEPT)
    p.add('t', 0, 2, 8n, AcknowledgeTypes.ACCEPT)
    expect(p.take().map((a) => [a.nodeId, a.size])).toEqual([[2, 1]])
  })
})

describe('a share session', () => {
  const tp = (topic: string, partition: number) => ({ topic, partition, topicId: `${topic}-id` })

  it('opens at epoch 0 with every partition, then names only what is added and forgotten, one epoch further each answer', () => {
    const s = new ShareSession(1)
    expect(s.nextEpoch).toBe(OPEN_EPOCH)
    expect(s.plan([tp('a', 0), tp('a', 1)])).toEqual({
      added: [
        { topicId: 'a-id', partition: 0 },
        { topicId: 'a-id', partition: 1 },
      ],
      forgotten: [],
    })
    s.answered()
    expect(s.nextEpoch).toBe(1)
    expect(s.plan([tp('a', 0), tp('a', 1)])).toEqual({ added: [], forgotten: [] })
    s.answered()
    expect(s.plan([tp('a', 1), tp('b', 0)])).toEqual({
      added: [{ topicId: 'b-id', partition: 0 }],
      forgotten: [{ topicId: 'a-id', partition: 0 }],
    })
    s.answered()
    expect(s.nextEpoch).toBe(3)
  })

  it('lost (SHARE_SESSION_NOT_FOUND, a failed request): the next request opens a new one with every partition', () => {
    const s = new ShareSession(1)
    s.plan([tp('a', 0)])
    s.answered()
    s.reset()
    expect(s.opening).toBe(true)
    expect(s.plan([tp('a', 0)]).added).toEqual([{ topicId: 'a-id', partition: 0 }])
  })

  it('wraps from int32 max to 1, never to 0 (which would open a new session); -1 closes', () => {
    const s = new ShareSession(1)
    for (let i = 0; i < 3; i++) s.answered()
    ;(s as unknown as { epoch: number }).epoch = 0x7fffffff
    s.answered()
    expect(s.nextEpoch).toBe(1)
    expect(CLOSE_EPOCH).toBe(-1)
  })

  it('runs its requests one at a time, in order, whatever each one does', async () => {
    const s = new ShareSession(1)
    const order: string[] = []
    const slow = s.exclusive(async () => {
      await new Promise((r) => setTimeout(r, 20))
      order.push('first')
      throw new Error('first failed')
    })
    const second = s.exclusive(async () => void order.push('second'))
    await expect(slow).rejects.toThrow('first failed')
    await second
    expect(order).toEqual(['first', 'second'])
  })
})
