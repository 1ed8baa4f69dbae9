// Defect 8 of issue 9: a value, key or header value that is not a string,
// Buffer/Uint8Array or null fails that send with a ConfigError naming the
// message index and the field, before anything is written.
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, Kafka } from '../../src/index.js'
import { Produce } from '../../src/protocol/messages/index.js'
import { FakeCluster } from './fake-broker.js'
import { SETTINGS, expectTyped, timed } from './support.js'

let cluster: FakeCluster | undefined
afterEach(async () => {
  await cluster?.close()
  cluster = undefined
})

const CASES: Array<[string, any, RegExp]> = [
  ['an object value', { value: { a: 1 } }, /messages\[1\]\.value is an object/],
  ['a number value', { value: 42 }, /messages\[1\]\.value is a number/],
  ['a boolean value', { value: true }, /messages\[1\]\.value is a boolean/],
  ['an array value', { value: [1, 2] }, /messages\[1\]\.value is an array/],
  ['an undefined value', { value: undefined }, /messages\[1\]\.value is undefined/],
  ['an object key', { key: { k: 1 }, value: 'v' }, /messages\[1\]\.key is an object/],
  ['a number header value', { value: 'v', headers: { h: 5 } }, /messages\[1\]\.headers\['h'\] is a number/],
  ['a number in a header array', { value: 'v', headers: { h: ['ok', 5] } }, /messages\[1\]\.headers\['h'\]\[1\] is a number/],
  ['a pair header with an object', { value: 'v', headers: [['h', {}]] }, /messages\[1\]\.headers\['h'\] is an object/],
]

describe('send() with values that are not bytes', () => {
  it.each(CASES)('%s: ConfigError naming the message and field; nothing written', async (_name, bad, pattern) => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    const producer = new Kafka({ brokers: cluster.bootstrap, ...SETTINGS }).producer()
    await producer.connect()
    const { error } = await timed(() => producer.send({ topic: 't', messages: [{ value: 'fine' }, bad] }))
    expectTyped(error, ConfigError, false)
    expect((error as Error).message).toMatch(pattern)
    await producer.disconnect()
    expect(cluster.asked(Produce)).toBe(0)
    expect(cluster.partition('t', 0).end).toBe(0n)
  })

  it('strings, Buffers, Uint8Arrays and null are accepted', async () => {
    cluster = await FakeCluster.start({ topics: { t: 1 } })
    const producer = new Kafka({ brokers: cluster.bootstrap, ...SETTINGS }).producer()
    await producer.connect()
    await producer.send({
      topic: 't',
      messages: [
        { value: 's' },
        { value: Buffer.from('b'), key: new Uint8Array([1]) },
        { value: null, key: null, headers: { a: 'x', b: [Buffer.from('y'), null] } },
      ],
    })
    await producer.disconnect()
    expect(cluster.partition('t', 0).end).toBe(3n)
  })
})
