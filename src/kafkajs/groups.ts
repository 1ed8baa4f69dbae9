import { Buffer } from 'node:buffer'
import type { Admin as EngineAdmin } from '../admin/admin.js'
import type { ConsumerGroupState, GroupDescription } from './admin-types.js'

type EngineGroup = Awaited<ReturnType<EngineAdmin['describeGroups']>>['groups'][number]

/** Bytes as a Buffer, without a copy (KIP-848 members' empty assignment bytes are plain Uint8Arrays). */
const asBuffer = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength))

/**
 * A group as KafkaJS's describeGroups gives it: its fields only (the engine
 * tells more: group type, instance ids, decoded assignments), the members'
 * metadata and assignment as Buffers, so AssignerProtocol decodes them.
 */
export function describedGroup(g: EngineGroup): GroupDescription & { errorCode: number } {
  return {
    errorCode: g.errorCode,
    groupId: g.groupId,
    members: g.members.map(({ memberId, clientId, clientHost, memberMetadata, memberAssignment }) => ({
      memberId,
      clientId,
      clientHost,
      memberMetadata: asBuffer(memberMetadata),
      memberAssignment: asBuffer(memberAssignment),
    })),
    protocol: g.protocol,
    protocolType: g.protocolType,
    state: g.state as ConsumerGroupState,
  }
}
