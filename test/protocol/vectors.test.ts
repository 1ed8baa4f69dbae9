import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { ProtocolError, UnsupportedApiError } from '../../src/errors.js'
import { encodeRequestHeader, requestHeaderVersion } from '../../src/protocol/header.js'
import { ApiVersions, Fetch, FindCoordinator, Metadata, Produce, type ApiSpec, type Input } from '../../src/protocol/messages/index.js'
import { Reader } from '../../src/protocol/reader.js'
import { Writer } from '../../src/protocol/writer.js'

/** Byte layouts written out by hand from the spec (README and message JSON), not from our encoder. */

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex')
const ascii = (s: string): string => Buffer.from(s).toString('hex')

function body<Req>(api: ApiSpec<Req, any>, version: number, req: Input<Req>): Buffer {
  const w = new Writer(16)
  api.encodeRequest(w, version, req)
  return Buffer.from(w.finish())
}

/** A whole request frame: size, header, body. */
function frame<Req>(api: ApiSpec<Req, any>, version: number, correlationId: number, clientId: string | null, req: Input<Req>): Buffer {
  const w = new Writer(16)
  const sizeAt = w.reserve(4)
  encodeRequestHeader(w, requestHeaderVersion(api.apiKey, version), { apiKey: api.apiKey, apiVersion: version, correlationId, clientId })
  api.encodeRequest(w, version, req)
  w.setInt32At(sizeAt, w.length - 4)
  return Buffer.from(w.finish())
}

describe('requests, byte for byte', () => {
  it('ApiVersions v3: header v2 with an int16-length client id, compact strings in the body', () => {
    const bytes = frame(ApiVersions, 3, 1, 'wafka', { clientSoftwareName: 'wafka', clientSoftwareVersion: '0.1.0' })
    expect(bytes.toString('hex')).toBe(
      hex(`
        0000001d
        0012 0003 00000001 0005 ${ascii('wafka')} 00
        06 ${ascii('wafka')} 06 ${ascii('0.1.0')} 00
      `).toString('hex'),
    )
  })

  it('ApiVersions v0-2: an empty body; v3 fields are ignorable, so they are dropped', () => {
    for (const v of [0, 1, 2]) expect(body(ApiVersions, v, { clientSoftwareName: 'wafka' })).toEqual(Buffer.alloc(0))
  })

  it('Metadata v1 for topic "foo": header v1, int32 array of int16 strings', () => {
    const bytes = frame(Metadata, 1, 7, 'wafka', { topics: [{ name: 'foo' }] })
    expect(bytes.toString('hex')).toBe(
      hex(`00000018 0003 0001 00000007 0005 ${ascii('wafka')} 00000001 0003 ${ascii('foo')}`).toString('hex'),
    )
  })

  it('Metadata: v0 asks for all topics with an empty list, v1+ with null', () => {
    expect(body(Metadata, 0, { topics: [] })).toEqual(hex('00000000'))
    expect(body(Metadata, 1, { topics: null })).toEqual(hex('ffffffff'))
    expect(body(Metadata, 9, { topics: null })).toEqual(hex('00 01 00 00 00'))
  })

  it('Metadata v9 for "foo": compact array and string, tagged sections, v8-10 booleans', () => {
    expect(body(Metadata, 9, { topics: [{ name: 'foo' }], allowAutoTopicCreation: false })).toEqual(
      hex(`02 04 ${ascii('foo')} 00  00 00 00  00`),
    )
  })

  it('Metadata v10 adds the topic id before the name (zero UUID by default)', () => {
    expect(body(Metadata, 10, { topics: [{ name: 'foo' }] })).toEqual(hex(`02 ${'00'.repeat(16)} 04 ${ascii('foo')} 00  01 00 00  00`))
  })

  it('Produce v3: nullable transactional id, records as an int32-length blob, given in pieces', () => {
    const req = {
      transactionalId: null,
      acks: -1,
      timeoutMs: 30000,
      topicData: [{ name: 'foo', partitionData: [{ index: 0, records: [Buffer.from([1]), Buffer.from([2, 3])] }] }],
    }
    expect(body(Produce, 3, req)).toEqual(hex(`ffff ffff 00007530 00000001 0003 ${ascii('foo')} 00000001 00000000 00000003 010203`))
    // v9+: compact records (uvarint length + 1).
    expect(body(Produce, 9, req)).toEqual(hex(`00 ffff 00007530 02 04 ${ascii('foo')} 02 00000000 04 010203 00 00 00`))
  })

  it('FindCoordinator v0 has only the key; v1-3 add the key type; v4+ a compact array of keys', () => {
    expect(body(FindCoordinator, 0, { key: 'g' })).toEqual(hex(`0001 ${ascii('g')}`))
    expect(body(FindCoordinator, 1, { key: 'g', keyType: 1 })).toEqual(hex(`0001 ${ascii('g')} 01`))
    expect(body(FindCoordinator, 3, { key: 'g', keyType: 1 })).toEqual(hex(`02 ${ascii('g')} 01 00`))
    expect(body(FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g', 'h'] })).toEqual(hex(`00 03 02 ${ascii('g')} 02 ${ascii('h')} 00`))
  })
})

describe('responses, decoded from hand-written bytes', () => {
  it('ApiVersions v0', () => {
    const res = ApiVersions.decodeResponse(new Reader(hex('0000 00000002 0000 0000 000b 0012 0000 0004')), 0)
    expect(res).toEqual({
      errorCode: 0,
      apiKeys: [
        { apiKey: 0, minVersion: 0, maxVersion: 11 },
        { apiKey: 18, minVersion: 0, maxVersion: 4 },
      ],
      throttleTimeMs: 0,
      supportedFeatures: [],
      finalizedFeaturesEpoch: -1n,
      finalizedFeatures: [],
      zkMigrationReady: false,
    })
  })

  it('ApiVersions v3 with tagged fields 1 and 3 (and back to the same bytes)', () => {
    const bytes = hex('0000 02 0012 0000 0004 00 00000064 02 01 08 0000000000000005 03 01 01')
    const res = ApiVersions.decodeResponse(new Reader(bytes), 3)
    expect(res).toEqual({
      errorCode: 0,
      apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }],
      throttleTimeMs: 100,
      supportedFeatures: [],
      finalizedFeaturesEpoch: 5n,
      finalizedFeatures: [],
      zkMigrationReady: true,
    })
    const w = new Writer()
    ApiVersions.encodeResponse(w, 3, res)
    expect(w.finish()).toEqual(bytes)
  })

  it('an unknown tagged field is kept, in tag order with the known ones, and written back', () => {
    // Tag 1 is FinalizedFeaturesEpoch; no version knows tag 9.
    const bytes = hex('0000 01 00000000 02 01 08 0000000000000007 09 03 aabbcc')
    const res = ApiVersions.decodeResponse(new Reader(bytes), 3)
    expect(res.finalizedFeaturesEpoch).toBe(7n)
    expect(res._unknownTags).toEqual([[9, hex('aabbcc')]])
    const w = new Writer()
    ApiVersions.encodeResponse(w, 3, res)
    expect(w.finish()).toEqual(bytes)
  })

  it('records and bytes are views of the frame, not copies', () => {
    // Fetch v4: throttle time; topic foo; partition 0, no error, high watermark 100, last stable offset 100, no aborted list; 3 record bytes.
    const bytes = hex('00000000 00000001 0003 666f6f 00000001 00000000 0000 0000000000000064 0000000000000064 ffffffff 00000003 010203')
    const res = Fetch.decodeResponse(new Reader(bytes), 4)
    const records = res.responses[0].partitions[0].records!
    expect(records).toEqual(hex('010203'))
    expect(records.buffer).toBe(bytes.buffer)
    expect(records.byteOffset).toBe(bytes.byteOffset + bytes.length - 3)
  })
})

describe('tagged fields of 128 bytes or more', () => {
  it('get a two-byte size, the value moved up behind it', () => {
    const host = 'h'.repeat(200)
    const w = new Writer(8)
    Fetch.encodeResponse(w, 16, { nodeEndpoints: [{ nodeId: 1, host, port: 9092, rack: null }] })
    const bytes = Buffer.from(w.finish())
    // Tag section: 1 field, tag 0, size 213 (uvarint d5 01), then the array.
    const value = hex(`02 00000001 c901 ${ascii(host)} 00002384 00 00`)
    expect(value.length).toBe(213)
    expect(bytes.subarray(bytes.length - 217)).toEqual(Buffer.concat([hex('01 00 d501'), value]))
    expect(Fetch.decodeResponse(new Reader(bytes), 16).nodeEndpoints).toEqual([{ nodeId: 1, host, port: 9092, rack: null }])
  })
})

describe('what the Java writer refuses, refused too', () => {
  it('a non-ignorable field set in a version without it', () => {
    const req = { topics: [{ topic: 't', partitions: [{ partition: 0, lastFetchedEpoch: 5 }] }] }
    expect(() => body(Fetch, 11, req)).toThrow(ProtocolError)
    expect(() => body(Fetch, 11, req)).toThrow(/^Fetch v11 request: FetchPartition.LastFetchedEpoch is set, but only versions 12\+ have it/)
    expect(() => body(Fetch, 12, req)).not.toThrow()
    // At its default it is fine: nothing is lost.
    expect(() => body(Fetch, 11, { topics: [{ partitions: [{ lastFetchedEpoch: -1 }] }] })).not.toThrow()
  })

  it('Metadata before v4 cannot say "do not create topics"', () => {
    expect(() => body(Metadata, 3, { topics: [], allowAutoTopicCreation: false })).toThrow(/AllowAutoTopicCreation/)
    expect(body(Metadata, 3, { topics: [], allowAutoTopicCreation: true })).toEqual(hex('00000000'))
  })

  it('FindCoordinator: the single key before v4, the key list from v4', () => {
    expect(() => body(FindCoordinator, 4, { key: 'g', coordinatorKeys: ['g'] })).toThrow(/FindCoordinatorRequest.Key is set/)
    expect(() => body(FindCoordinator, 3, { key: 'g', coordinatorKeys: ['g'] })).toThrow(/CoordinatorKeys is set/)
  })

  it('an ignorable field is dropped silently', () => {
    // SessionId (v7+) and RackId (v11+) are ignorable.
    expect(body(Fetch, 4, { sessionId: 5, rackId: 'r', topics: [] })).toEqual(body(Fetch, 4, { topics: [] }))
  })

  it('null where the version does not allow it', () => {
    expect(() => body(Metadata, 0, { topics: null })).toThrow(/MetadataRequest.Topics is null, which only versions 1\+ allow/)
  })

  it('a version outside the spec', () => {
    expect(() => body(Fetch, 19, {})).toThrow(UnsupportedApiError)
    expect(() => body(Fetch, 3, {})).toThrow(UnsupportedApiError) // Kafka 4 removed v0-3
    expect(() => Fetch.decodeResponse(new Reader(Buffer.alloc(0)), -1)).toThrow(UnsupportedApiError)
  })

  it('a malformed UUID or an out-of-range integer, naming the API', () => {
    expect(() => body(Fetch, 13, { topics: [{ topicId: 'not-a-uuid' }] })).toThrow(/^Fetch v13 request: "not-a-uuid" is not a UUID/)
    expect(() => body(Fetch, 13, { maxWaitMs: 2 ** 31 })).toThrow(ProtocolError)
  })
})
