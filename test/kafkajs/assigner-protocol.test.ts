import { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { encodeData } from '../../src/protocol/api.js'
import { ConsumerProtocolAssignment, ConsumerProtocolSubscription } from '../../src/protocol/messages/ConsumerProtocol.js'
import { AssignerProtocol as ours } from '../../src/kafkajs/index.js'

const { AssignerProtocol: theirs } = createRequire(import.meta.url)('kafkajs') as { AssignerProtocol: typeof ours }

// The drop-in's AssignerProtocol rides on the generated consumer-protocol codecs: the bytes must be KafkaJS 2.2.4's, both ways.
describe('AssignerProtocol, byte for byte with KafkaJS', () => {
  const metadata = [
    { version: 0, topics: [], userData: Buffer.alloc(0) },
    { version: 0, topics: ['a', 'ünïcode', 'b'.repeat(300)], userData: Buffer.from([1, 2, 3]) },
    { version: 1, topics: ['a'], userData: Buffer.from('u') },
    { version: 7, topics: ['x', 'y'], userData: null as unknown as Buffer },
  ]
  const assignments = [
    { version: 0, assignment: {}, userData: Buffer.alloc(0) },
    { version: 0, assignment: { a: [0, 2], b: [1] }, userData: Buffer.from('data') },
    { version: 3, assignment: { t: [5, 4, 3, 2, 1, 0] }, userData: null as unknown as Buffer },
  ]

  it('MemberMetadata: same bytes out, same values back in', () => {
    for (const m of [...metadata, { version: 0, topics: ['no-user-data'] }]) {
      const bytes = theirs.MemberMetadata.encode(m as never)
      expect(ours.MemberMetadata.encode(m as never)).toEqual(bytes)
      const back = { ...theirs.MemberMetadata.decode(bytes) }
      expect({ ...ours.MemberMetadata.decode(bytes) }).toEqual({ ...back, userData: back.userData ?? Buffer.alloc(0) })
      expect(theirs.MemberMetadata.decode(ours.MemberMetadata.encode(m as never))).toEqual(back)
    }
  })

  it('MemberAssignment: same bytes out, same values back in', () => {
    for (const a of assignments) {
      const bytes = theirs.MemberAssignment.encode(a)
      expect(ours.MemberAssignment.encode(a)).toEqual(bytes)
      const back = { ...theirs.MemberAssignment.decode(bytes) }
      expect({ ...ours.MemberAssignment.decode(bytes) }).toEqual({ ...back, userData: back.userData ?? Buffer.alloc(0) })
      expect({ ...theirs.MemberAssignment.decode(ours.MemberAssignment.encode(a)) }).toEqual(back)
    }
    expect(ours.MemberAssignment.decode(Buffer.alloc(0))).toBeNull()
  })

  it("reads the v0 prefix of a newer version's bytes, as KafkaJS does", () => {
    const subscription = encodeData(ConsumerProtocolSubscription, 3, {
      topics: ['a', 'b'],
      userData: Buffer.from('u'),
      ownedPartitions: [{ topic: 'a', partitions: [0] }],
      generationId: 4,
      rackId: 'r1',
    })
    expect({ ...ours.MemberMetadata.decode(subscription) }).toEqual({ ...theirs.MemberMetadata.decode(subscription) })
    const assignment = encodeData(ConsumerProtocolAssignment, 3, {
      assignedPartitions: [{ topic: 'a', partitions: [0, 1] }],
      userData: null,
    })
    expect({ ...ours.MemberAssignment.decode(assignment) }).toEqual({
      ...theirs.MemberAssignment.decode(assignment),
      userData: Buffer.alloc(0),
    })
  })
})
