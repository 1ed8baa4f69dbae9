import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { UnsupportedApiError } from '../../src/errors.js'
import {
  decodeRequestHeader,
  decodeResponseHeader,
  encodeRequestHeader,
  encodeResponseHeader,
  requestHeaderVersion,
  responseHeaderVersion,
} from '../../src/protocol/header.js'
import { ApiKeys, apiKeyInfo } from '../../src/protocol/messages/index.js'
import { Reader } from '../../src/protocol/reader.js'
import { Writer } from '../../src/protocol/writer.js'

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex')

describe('header versions', () => {
  it("follow each API's flexible versions", () => {
    expect(requestHeaderVersion(ApiKeys.Metadata, 8)).toBe(1)
    expect(requestHeaderVersion(ApiKeys.Metadata, 9)).toBe(2)
    expect(responseHeaderVersion(ApiKeys.Metadata, 8)).toBe(0)
    expect(responseHeaderVersion(ApiKeys.Metadata, 9)).toBe(1)
    expect(requestHeaderVersion(ApiKeys.Produce, 9)).toBe(2)
    expect(responseHeaderVersion(ApiKeys.Fetch, 11)).toBe(0)
    // Never flexible.
    expect(requestHeaderVersion(ApiKeys.SaslHandshake, 1)).toBe(1)
    expect(responseHeaderVersion(ApiKeys.SaslHandshake, 1)).toBe(0)
  })

  it('ApiVersions answers with header v0 even when flexible', () => {
    expect(requestHeaderVersion(ApiKeys.ApiVersions, 3)).toBe(2)
    expect(responseHeaderVersion(ApiKeys.ApiVersions, 3)).toBe(0)
    expect(responseHeaderVersion(ApiKeys.ApiVersions, 4)).toBe(0)
  })

  it('cover every API key in the spec, and refuse one outside it', () => {
    // Kafka 4.4 serves 91 API keys of 0-94; LeaderAndIsr, StopReplica, UpdateMetadata and ControlledShutdown are retired.
    expect(Object.keys(apiKeyInfo).length).toBe(91)
    for (const retired of [4, 5, 6, 7]) expect(() => requestHeaderVersion(retired, 0)).toThrow(UnsupportedApiError)
    for (const [key, info] of Object.entries(apiKeyInfo)) {
      expect(requestHeaderVersion(Number(key), info.maxVersion)).toBe(info.flexibleFrom <= info.maxVersion ? 2 : 1)
    }
    expect(() => requestHeaderVersion(999, 0)).toThrow(UnsupportedApiError)
  })
})

describe('request header', () => {
  it('v0, v1 and v2 byte for byte; the client id keeps its int16 length in v2', () => {
    const h = { apiKey: 3, apiVersion: 12, correlationId: 258, clientId: 'ab' }
    const encode = (version: number, header: object) => {
      const w = new Writer()
      encodeRequestHeader(w, version, header)
      return Buffer.from(w.finish())
    }
    expect(encode(0, h)).toEqual(hex('0003 000c 00000102'))
    expect(encode(1, h)).toEqual(hex('0003 000c 00000102 0002 6162'))
    expect(encode(2, h)).toEqual(hex('0003 000c 00000102 0002 6162 00'))
    expect(encode(1, { ...h, clientId: null })).toEqual(hex('0003 000c 00000102 ffff'))
    expect(encode(2, { ...h, _unknownTags: [[5, hex('ee')]] })).toEqual(hex('0003 000c 00000102 0002 6162 01 05 01 ee'))
  })

  it('decodes with the version its key and version imply', () => {
    expect(decodeRequestHeader(new Reader(hex('0003 000c 00000102 0002 6162 00')))).toEqual({
      apiKey: 3,
      apiVersion: 12,
      correlationId: 258,
      clientId: 'ab',
    })
    expect(decodeRequestHeader(new Reader(hex('0003 0001 00000102 ffff')))).toEqual({
      apiKey: 3,
      apiVersion: 1,
      correlationId: 258,
      clientId: null,
    })
    // A retired API (ControlledShutdown) is refused, not misread.
    expect(() => decodeRequestHeader(new Reader(hex('0007 0000 00000009')))).toThrow(UnsupportedApiError)
    const tagged = decodeRequestHeader(new Reader(hex('0012 0003 00000001 0000 01 05 01 ee')))
    expect(tagged._unknownTags).toEqual([[5, hex('ee')]])
  })
})

describe('response header', () => {
  it('v0 is the correlation id; v1 adds tagged fields, kept when unknown', () => {
    expect(decodeResponseHeader(new Reader(hex('0000002a')), 0)).toEqual({ correlationId: 42 })
    const r = new Reader(hex('0000002a 01 00 02 abcd ff'))
    expect(decodeResponseHeader(r, 1)).toEqual({ correlationId: 42, _unknownTags: [[0, hex('abcd')]] })
    expect(r.remaining).toBe(1)
    const w = new Writer()
    encodeResponseHeader(w, 1, { correlationId: 42, _unknownTags: [[0, hex('abcd')]] })
    expect(w.finish()).toEqual(hex('0000002a 01 00 02 abcd'))
  })
})
