// Every public codec export, exercised on the built bundle (dist/codec.js; the client from dist/index.js)
// under whichever runtime runs this file: node, bun or deno.
import assert from 'node:assert/strict'
import * as wafka from '../../dist/index.js'
import * as codec from '../../dist/codec.js'

const runtime = typeof Deno !== 'undefined' ? 'deno' : typeof Bun !== 'undefined' ? 'bun' : 'node'
const te = new TextEncoder()
let checks = 0
const check = (name, fn) => {
  fn()
  checks++
}

await wafka.loadCodecs()

check('crc32c', () => assert.equal(codec.crc32c(te.encode('123456789')), 0xe3069283))
check('crc32', () => assert.equal(codec.crc32(te.encode('123456789')), 0xcbf43926))
check('crc32c RFC 3720 B.4 vectors', () => {
  assert.equal(codec.crc32c(new Uint8Array(32)), 0x8a9136aa)
  assert.equal(codec.crc32c(new Uint8Array(32).fill(0xff)), 0x62a8ab43)
  assert.equal(codec.crc32c(Uint8Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e)
  assert.equal(codec.crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i)), 0x113fdb5c)
})
// Both CRCs switch method at 640 bytes and work in 4 KiB chunks (assembly/crc.ts):
// every length 0..4096 at unaligned starts and the chunk edges, with a carried-in
// crc, against a bitwise reference, on this runtime's wasm SIMD.
function crcReference(poly, data, crc) {
  let c = ~crc
  for (const b of data) {
    c ^= b
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1
  }
  return ~c >>> 0
}
const crcData = Uint8Array.from({ length: 3 * 4096 + 400 }, (_, i) => Math.imul(i, 2654435761) >>> 24)
const crcLengths = [...Array(4097).keys(), 8191, 8192 + 290, 8192 + 305, 12288 + 16]
for (const [name, fn, poly] of [
  ['crc32c', codec.crc32c, 0x82f63b78],
  ['crc32', codec.crc32, 0xedb88320],
]) {
  check(`${name} at every length 0..4096, unaligned, carried-in crc`, () => {
    for (const len of crcLengths) {
      const data = crcData.subarray(len % 17, (len % 17) + len)
      const carried = len % 3 ? Math.imul(len, 40503) >>> 0 : 0
      assert.equal(fn(data, carried), crcReference(poly, data, carried), `${name} of ${len} bytes`)
    }
  })
}
check('varints', () => {
  for (const v of [0, -1, 1, 63, -64, 2 ** 31 - 1, -(2 ** 31)]) assert.equal(codec.decodeVarint(codec.encodeVarint(v)).value, v)
  for (const v of [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n)]) assert.equal(codec.decodeVarlong(codec.encodeVarlong(v)).value, v)
  assert.equal(codec.decodeUvarint(codec.encodeUvarint(300)).value, 300)
})

const records = Array.from({ length: 50 }, (_, i) => ({
  key: i % 7 === 0 ? null : `key-${i}`,
  value: i % 5 === 0 ? null : te.encode(`value ${i} ✓`.repeat(i)),
  headers: { trace: `t${i}`, dup: ['a', 'b'] },
  timestamp: 1_700_000_000_000 + i,
}))

for (const compression of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) {
  check(`batch ${compression}`, () => {
    const batch = codec.encodeRecordBatch(records, { compression, baseOffset: 10n })
    const { batches } = codec.decodeRecordSet(batch)
    assert.equal(batches.length, 1)
    assert.equal(batches[0].compression, compression)
    const got = batches[0].records
    assert.equal(got.length, records.length)
    got.forEach((r, i) => {
      assert.equal(r.offset, 10n + BigInt(i))
      assert.equal(r.timestamp, records[i].timestamp)
      assert.equal(r.key === null ? null : r.key.toString(), records[i].key)
      assert.deepEqual(r.value === null ? null : new Uint8Array(r.value), records[i].value)
      assert.deepEqual(
        r.headerList.map(([k, v]) => [k, v.toString()]),
        [
          ['trace', `t${i}`],
          ['dup', 'a'],
          ['dup', 'b'],
        ],
      )
    })
  })
}

// Keys, values and headers reach wasm memory by a copy chosen per runtime (src/codec/byte-copy.ts):
// every size 0..2 KiB from unaligned Buffers, and strings with 1- to 4-byte UTF-8 and lone surrogates
// (written as TextEncoder writes them), must come back byte for byte.
check('every key/value size 0..2 KiB and UTF-8 strings copied in byte for byte', () => {
  const backing = new Uint8Array(2048 + 8).map((_, i) => (i * 31 + 7) & 0xff)
  const chars = ['a', '\u007f', 'é', '\u07ff', '€', '\uffff', '𝄞', '\ud800', '\udfff', 'x\ud83d']
  const text = (n) => {
    let s = ''
    for (let i = 0; s.length < n; i++) s += chars[(i * 7 + n) % chars.length]
    return s.slice(0, n)
  }
  for (let from = 0; from <= 2048; from += 128) {
    const sizes = Array.from({ length: 128 }, (_, i) => from + i).filter((n) => n <= 2048)
    const input = sizes.map((n) => ({
      key: backing.subarray(3 + (n % 5), 3 + (n % 5) + n),
      value: n % 2 ? text(n) : 'v'.repeat(n),
      headers: [['h', text(n % 40)]],
    }))
    const got = codec.decodeRecordSet(codec.encodeRecordBatch(input)).batches[0].records
    got.forEach((r, i) => {
      assert.deepEqual(new Uint8Array(r.key), input[i].key, `key of ${sizes[i]} B`)
      assert.deepEqual(new Uint8Array(r.value), te.encode(input[i].value), `value of ${sizes[i]} chars`)
      assert.deepEqual(new Uint8Array(r.headerList[0][1]), te.encode(input[i].headers[0][1]), `header of ${sizes[i]}`)
    })
  }
})

check('corrupt batch gives a typed error', () => {
  const batch = codec.encodeRecordBatch(records)
  batch[batch.length - 1] ^= 0xff
  assert.throws(
    () => codec.decodeRecordSet(batch),
    (e) => e instanceof wafka.CorruptRecordError && e.reason === 'checksum',
  )
})

// A client round trip, where run.mjs started a mock cluster: the producer and
// a consumer group over this runtime's sockets, timers and crypto.
function env(name) {
  return globalThis.process?.env?.[name] ?? (typeof Deno !== 'undefined' ? Deno.env.get(name) : undefined)
}
const bootstrap = env('WAFKA_SMOKE_BOOTSTRAP')
if (bootstrap) {
  // The tracing channels on this runtime: a send, its requests and the rebalance, as a subscriber sees them.
  const dc = await import('node:diagnostics_channel')
  const traced = []
  const subscriptions = ['send', 'request', 'rebalance'].map((name) => {
    const channel = dc.tracingChannel(wafka.channelNames[name])
    const on = (event) => (context) => traced.push({ name, event, context })
    const handlers = { start: on('start'), end: on('end'), asyncStart: on('asyncStart'), asyncEnd: on('asyncEnd'), error: on('error') }
    channel.subscribe(handlers)
    return () => channel.unsubscribe(handlers)
  })
  const topic = `smoke-${runtime}`
  const kafka = new wafka.Kafka({ clientId: `smoke-${runtime}`, brokers: bootstrap.split(',') })
  const producer = kafka.producer({ compression: 'zstd' })
  await producer.connect()
  const sent = Array.from({ length: 300 }, (_, i) => ({ key: `k${i % 7}`, value: `${runtime}-${i}` }))
  await producer.send({ topic, messages: sent })
  await producer.disconnect()
  const consumer = kafka.consumer({ groupId: `smoke-${runtime}`, maxWaitTimeInMs: 100 })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  const read = []
  for await (const batch of consumer.batches()) {
    for (const m of batch.messages) read.push(m.value.toString())
    if (read.length >= sent.length) break
  }
  await consumer.disconnect()
  for (const unsubscribe of subscriptions) unsubscribe()
  check('produce and consume through a group', () => assert.deepEqual(read.sort(), sent.map((m) => m.value).sort()))
  check('tracing channels: start, end, asyncStart, asyncEnd for a send, its Produce request and the rebalance', () => {
    const order = (context) => traced.filter((t) => t.context === context).map((t) => t.event)
    const ok = ['start', 'end', 'asyncStart', 'asyncEnd']
    const send = traced.find((t) => t.name === 'send').context
    assert.equal(send.topicMessages[0].topic, topic)
    assert.deepEqual(order(send), ok)
    const produce = traced.find((t) => t.name === 'request' && t.context.apiName === 'Produce').context
    assert.deepEqual(order(produce), ok)
    assert.ok(produce.duration >= 0 && produce.size > 0, `duration ${produce.duration}, size ${produce.size}`)
    const rebalance = traced.find((t) => t.name === 'rebalance').context
    assert.deepEqual(order(rebalance), ok)
    assert.equal(rebalance.assigned.length, 3)
  })
}

// On the embedded broker (dist/broker.js, started by run.mjs): a share group
// (KIP-932) read with explicit acknowledgements, and the README's word count
// on wafka/streams, over this runtime's sockets and timers.
const embedded = env('WAFKA_SMOKE_EMBEDDED')
if (embedded) {
  const { KafkaStreams, Serdes, StreamsBuilder } = await import('../../dist/streams.js')
  const kafka = new wafka.Kafka({ clientId: `smoke-embedded-${runtime}`, brokers: embedded.split(',') })
  const queue = `smoke-queue-${runtime}`
  const [lines, counts] = [`smoke-lines-${runtime}`, `smoke-counts-${runtime}`]
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [queue, lines, counts].map((topic) => ({ topic, numPartitions: 2 })) })
  // A new share group starts at the latest offset: earliest, so the records below are its.
  await admin.alterConfigs({
    resources: [
      { type: wafka.ConfigResourceTypes.GROUP, name: queue, configEntries: [{ name: 'share.auto.offset.reset', value: 'earliest' }] },
    ],
  })
  const producer = kafka.producer()
  await producer.connect()
  const jobs = Array.from({ length: 40 }, (_, i) => `${runtime}-job-${i}`)
  await producer.send({ topic: queue, messages: jobs.map((value) => ({ value })) })
  const text = ['to be or not to be', 'that is the question', 'to be']
  await producer.send({ topic: lines, messages: text.map((value, i) => ({ key: String(i), value })) })
  await producer.disconnect()

  const worker = kafka.shareConsumer({ groupId: queue, acknowledgementMode: 'explicit' })
  await worker.subscribe({ topics: [queue] })
  const done = []
  let released = false
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`share group: ${done.length} of ${jobs.length} in 30 s`)), 30_000)
    worker
      .run({
        eachMessage: async ({ message }) => {
          const value = message.value.toString()
          // The first job goes back once: it must come again, one delivery later.
          if (value === jobs[0] && !released) {
            released = true
            return worker.acknowledge(message, 'release')
          }
          worker.acknowledge(message, 'accept')
          done.push({ value, deliveryCount: message.deliveryCount })
          if (done.length === jobs.length) {
            clearTimeout(timer)
            resolve()
          }
        },
      })
      .catch(reject)
  })
  await worker.disconnect()

  const builder = new StreamsBuilder()
  builder
    .stream(lines)
    .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
    .groupBy((_key, word) => word)
    .count({ storeName: 'counts' })
    .toStream()
    .to(counts)
  // Its stores persistent (the default) in a state directory of its own: this runtime's node:fs.
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const stateDir = mkdtempSync(join(tmpdir(), `wafka-smoke-streams-${runtime}-`))
  const app = new KafkaStreams(builder.build(), {
    applicationId: `smoke-streams-${runtime}`,
    stateDir,
    brokers: embedded.split(','),
    defaultKeySerde: Serdes.String(),
    defaultValueSerde: Serdes.String(),
    commitIntervalMs: 100,
  })
  await app.start()
  const table = new Map()
  const reader = kafka.consumer({ groupId: `smoke-counts-reader-${runtime}`, maxWaitTimeInMs: 100 })
  await reader.connect()
  await reader.subscribe({ topics: [counts], fromBeginning: true })
  const expected = { be: 3n, is: 1n, not: 1n, or: 1n, question: 1n, that: 1n, the: 1n, to: 3n }
  const complete = () => Object.entries(expected).every(([word, n]) => table.get(word) === n)
  // The iterator ends when the reader disconnects: that bounds the wait.
  const bound = setTimeout(() => reader.disconnect(), 30_000)
  for await (const batch of reader.batches()) {
    for (const m of batch.messages) table.set(m.key.toString(), m.value.readBigInt64BE(0))
    if (complete()) break
  }
  clearTimeout(bound)
  await reader.disconnect()
  await app.close()
  rmSync(stateDir, { recursive: true, force: true })
  await admin.disconnect()
  check('share group: every job accepted once, the released one delivered again', () => {
    assert.deepEqual(done.map((d) => d.value).sort(), [...jobs].sort())
    for (const d of done) assert.equal(d.deliveryCount, d.value === jobs[0] ? 2 : 1, d.value)
  })
  check('wafka/streams word count', () => assert.deepEqual(Object.fromEntries([...table].sort()), expected))
  console.log(`${runtime}: share group of ${done.length} jobs, word count of ${table.size} words on the embedded broker`)
}

// Against a secured real broker, where test/security/runtimes.test.ts started
// one: SASL_SSL with SCRAM-SHA-512 over this runtime's node:tls and node:crypto.
const secure = env('WAFKA_SMOKE_SECURE')
if (secure) {
  const { bootstrap: brokers, ca, username, password } = JSON.parse(secure)
  const topic = `smoke-secure-${runtime}`
  const kafka = new wafka.Kafka({ clientId: topic, brokers, ssl: { ca: [ca] }, sasl: { mechanism: 'scram-sha-512', username, password } })
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] })
  const producer = kafka.producer()
  await producer.connect()
  const sent = Array.from({ length: 100 }, (_, i) => ({ key: `k${i % 5}`, value: `${runtime}-secure-${i}` }))
  await producer.send({ topic, messages: sent, compression: 'lz4' })
  await producer.disconnect()
  const consumer = kafka.consumer({ groupId: topic, maxWaitTimeInMs: 100 })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  const read = []
  for await (const batch of consumer.batches()) {
    for (const m of batch.messages) read.push(m.value.toString())
    if (read.length >= sent.length) break
  }
  await consumer.disconnect()
  const wrong = new wafka.Kafka({
    clientId: topic,
    brokers,
    ssl: { ca: [ca] },
    sasl: { mechanism: 'scram-sha-512', username, password: 'not-the-password' },
  }).admin()
  const refused = await wrong.connect().then(
    () => null,
    (err) => err,
  )
  await wrong.disconnect()
  await admin.disconnect()
  check('SASL_SSL SCRAM-SHA-512 produce and consume through a group', () => assert.deepEqual(read.sort(), sent.map((m) => m.value).sort()))
  check('SASL_SSL wrong password is an AuthenticationError', () => assert.ok(refused instanceof wafka.AuthenticationError, String(refused)))
  console.log(`${runtime}: SASL_SSL SCRAM-SHA-512 round trip of ${read.length} messages`)
}

console.log(`${runtime}: ${checks} passed, 0 failed`)
