import { describe, expect, it } from 'vitest'
import { ProtocolError } from '../../src/errors.js'
import { decodeResponseFrame, encodeRequestFrame } from '../../src/net/wire.js'
import { ApiVersions, Metadata } from '../../src/protocol/messages/index.js'

describe('request and response frames', () => {
  it('writes size, header and body, with the header version the API version calls for', () => {
    // Metadata v1 for topic "foo", client id "c", by hand from the spec:
    // size, key 3, version 1, correlation 7, client id (int16 length), topics int32 count 1, "foo".
    const frame = encodeRequestFrame(Metadata, 1, 7, 'c', { topics: [{ name: 'foo' }] })
    expect(frame.toString('hex')).toBe('00000014' + '0003' + '0001' + '00000007' + '000163' + '00000001' + '0003666f6f')
  })

  it("reads an UNSUPPORTED_VERSION ApiVersions answer's v0 body, whatever version was asked", () => {
    // correlation 1; v0 body: error 35, one ApiKeys entry (key 18, versions 0-3).
    const frame = Buffer.from('00000001' + '0023' + '00000001' + '0012' + '0000' + '0003', 'hex')
    const res = decodeResponseFrame(ApiVersions, 4, frame) as any
    expect(res.errorCode).toBe(35)
    expect(res.apiKeys).toEqual([expect.objectContaining({ apiKey: 18, minVersion: 0, maxVersion: 3 })])
  })

  it('takes a non-standard UNSUPPORTED_VERSION body (as librdkafka 2.15 writes it) as "go to v0"', () => {
    const frame = Buffer.from('00000001' + '00230100120000000200000000', 'hex')
    expect(decodeResponseFrame(ApiVersions, 4, frame)).toMatchObject({ errorCode: 35, apiKeys: [] })
  })

  it('names the API and version of an undecodable response', () => {
    expect(() => decodeResponseFrame(Metadata, 9, Buffer.from('0000000100', 'hex'))).toThrow(ProtocolError)
    expect(() => decodeResponseFrame(Metadata, 9, Buffer.from('0000000100', 'hex'))).toThrow(/Metadata v9 response/)
  })
})
