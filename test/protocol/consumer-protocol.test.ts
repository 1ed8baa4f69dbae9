import { createRequire } from 'node:module'
import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { UnsupportedApiError } from '../../src/errors.js'
import { ConsumerProtocolAssignment, ConsumerProtocolSubscription, decodeData, encodeData } from '../../src/protocol/messages/index.js'

const require = createRequire(import.meta.url)
const { MemberMetadata, MemberAssignment } = require('kafkajs/src/consumer/assignerProtocol')

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex')

describe('ConsumerProtocolSubscription / Assignment', () => {
  it('v0 subscription: what KafkaJS writes, we write, and the other way round', () => {
    const ours = encodeData(ConsumerProtocolSubscription, 0, { topics: ['a', 'bc'], userData: hex('0102') })
    const theirs: Buffer = MemberMetadata.encode({ version: 0, topics: ['a', 'bc'], userData: hex('0102') })
    expect(ours).toEqual(theirs)
    expect(ours).toEqual(hex('0000 00000002 0001 61 0002 6263 00000002 0102'))
    expect(MemberMetadata.decode(ours)).toEqual({ version: 0, topics: ['a', 'bc'], userData: hex('0102') })
  })

  it('v0 assignment: the same both ways', () => {
    const ours = encodeData(ConsumerProtocolAssignment, 0, {
      assignedPartitions: [{ topic: 't', partitions: [0, 2] }],
      userData: Buffer.alloc(0),
    })
    const theirs: Buffer = MemberAssignment.encode({ version: 0, assignment: { t: [0, 2] } })
    expect(ours).toEqual(theirs)
    expect(decodeData(ConsumerProtocolAssignment, theirs)).toEqual({
      version: 0,
      value: { assignedPartitions: [{ topic: 't', partitions: [0, 2] }], userData: Buffer.alloc(0) },
    })
  })

  it('v3 subscription byte for byte: owned partitions, generation, rack', () => {
    const value = { topics: ['t'], userData: null, ownedPartitions: [{ topic: 't', partitions: [1] }], generationId: 5, rackId: 'r1' }
    const bytes = encodeData(ConsumerProtocolSubscription, 3, value)
    expect(bytes).toEqual(hex('0003 00000001 0001 74 ffffffff 00000001 0001 74 00000001 00000001 00000005 0002 7231'))
    expect(decodeData(ConsumerProtocolSubscription, bytes)).toEqual({ version: 3, value })
  })

  it('reads a version newer than the spec as the newest it knows (later versions only append), as Java does', () => {
    const v3 = encodeData(ConsumerProtocolSubscription, 3, { topics: ['t'], generationId: 9 })
    const v7 = Buffer.concat([hex('0007'), v3.subarray(2), hex('deadbeef')])
    const { version, value } = decodeData(ConsumerProtocolSubscription, v7)
    expect(version).toBe(7)
    expect(value.generationId).toBe(9)
  })

  it('refuses to write a version it does not know', () => {
    expect(() => encodeData(ConsumerProtocolAssignment, 4, {})).toThrow(UnsupportedApiError)
  })
})
