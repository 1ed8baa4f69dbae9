import { Buffer } from 'node:buffer'
import { decodeData, encodeData, type DataSpec } from '../protocol/api.js'
import { ConsumerProtocolAssignment, ConsumerProtocolSubscription } from '../protocol/messages/ConsumerProtocol.js'

/**
 * KafkaJS's AssignerProtocol: the consumer protocol's subscription
 * (MemberMetadata) and assignment (MemberAssignment), which custom
 * assigners encode and decode, through the generated codecs. KafkaJS writes
 * whatever version it is given with v0's layout, and reads only the v0
 * prefix of anything (newer versions append fields): so both sides use v0
 * and only the version number in front is the caller's.
 */
export interface MemberMetadata {
  version: number
  topics: string[]
  userData: Buffer
}

export interface MemberAssignment {
  version: number
  assignment: Record<string, number[]>
  userData: Buffer
}

/** v0's bytes under the caller's version number. */
function withVersion(bytes: Buffer, version: number): Buffer {
  bytes.writeInt16BE(version, 0)
  return bytes
}

/** The value under any version number, read as v0; a userData cut off reads as empty (a -1 length follows the input). */
function asV0<T>(spec: DataSpec<T>, buffer: Buffer): T {
  const framed = Buffer.alloc(buffer.length + 4, 0xff)
  buffer.copy(framed)
  framed.writeInt16BE(0, 0)
  return decodeData(spec, framed).value
}

export const AssignerProtocol = {
  MemberMetadata: {
    encode({ version, topics, userData = Buffer.alloc(0) }: { version: number; topics: string[]; userData?: Buffer }): Buffer {
      return withVersion(encodeData(ConsumerProtocolSubscription, 0, { topics, userData }), version)
    },
    decode(buffer: Buffer): MemberMetadata {
      const { topics, userData } = asV0(ConsumerProtocolSubscription, buffer)
      return { version: buffer.readInt16BE(0), topics, userData: userData ?? Buffer.alloc(0) }
    },
  },
  MemberAssignment: {
    encode({
      version,
      assignment,
      userData = Buffer.alloc(0),
    }: {
      version: number
      assignment: Record<string, number[]>
      userData?: Buffer
    }): Buffer {
      const assignedPartitions = Object.keys(assignment).map((topic) => ({ topic, partitions: assignment[topic] }))
      return withVersion(encodeData(ConsumerProtocolAssignment, 0, { assignedPartitions, userData }), version)
    },
    decode(buffer: Buffer): MemberAssignment | null {
      if (buffer.length < 2) return null
      const { assignedPartitions, userData } = asV0(ConsumerProtocolAssignment, buffer)
      const assignment: Record<string, number[]> = Object.create(null)
      for (const { topic, partitions } of assignedPartitions) assignment[topic] = partitions
      return { version: buffer.readInt16BE(0), assignment, userData: userData ?? Buffer.alloc(0) }
    },
  },
}
