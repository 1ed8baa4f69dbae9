import { Buffer } from 'node:buffer'
import {
  decodeData,
  encodeData,
  GroupMetadataKey,
  GroupMetadataValue,
  OffsetCommitKey,
  OffsetCommitValue,
  ZERO_UUID,
} from '../../protocol/messages/index.js'
import type { ClassicGroupImage, CommittedOffset } from './group-offsets.js'
import { readShareGroupRecord, type ShareGroupRecord } from './share-group-records.js'
import { readConsumerGroupRecord, type ConsumerGroupRecord } from './consumer-group-records.js'
import { readStreamsGroupRecord, type StreamsGroupRecord } from './streams-group-records.js'

/** A record of __consumer_offsets as the group coordinator writes it: a key, and a value (null: a tombstone). */
export interface GroupRecordBytes {
  key: Buffer
  value: Buffer | null
}

/** What a record of __consumer_offsets says, decoded (the record types the embedded broker reads back). */
export type GroupRecord =
  | { type: 'offset'; group: string; topic: string; partition: number; offset: CommittedOffset | null }
  | { type: 'group'; group: string; value: { protocolType: string; generation: number; protocol: string | null } | null }
  | ShareGroupRecord
  | ConsumerGroupRecord
  | StreamsGroupRecord
  | { type: 'other'; recordType: number }

/** Kafka 4.4's OffsetCommitValue: v4 (flexible, with the topic's id), its expire timestamp unset. */
export function offsetRecord(
  group: string,
  topic: string,
  partition: number,
  topicId: string | undefined,
  c: CommittedOffset | null,
): GroupRecordBytes {
  const key = encodeData(OffsetCommitKey, 1, { group, topic, partition })
  if (c === null) return { key, value: null }
  const value = encodeData(OffsetCommitValue, 4, {
    offset: c.offset,
    leaderEpoch: c.leaderEpoch,
    metadata: c.metadata ?? '',
    commitTimestamp: BigInt(c.commitTimestamp),
    expireTimestamp: -1n,
    topicId: topicId ?? ZERO_UUID,
  })
  return { key, value }
}

/**
 * A classic group's GroupMetadataValue v3 (as Kafka 4.4 writes it): its
 * generation, protocol, leader and members with their subscription (the
 * chosen protocol's metadata) and assignment; null for a tombstone.
 */
export function groupRecord(group: string, g: ClassicGroupImage | null, now: number): GroupRecordBytes {
  const key = encodeData(GroupMetadataKey, 2, { group })
  if (g === null) return { key, value: null }
  const value = encodeData(GroupMetadataValue, 3, {
    protocolType: g.protocolType ?? '',
    generation: g.generationId,
    protocol: g.protocolName,
    leader: g.leaderId,
    currentStateTimestamp: BigInt(now),
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeout: m.rebalanceTimeoutMs,
      sessionTimeout: m.sessionTimeoutMs,
      subscription: m.protocols.find((p) => p.name === g.protocolName)?.metadata ?? Buffer.alloc(0),
      assignment: m.assignment,
    })),
  })
  return { key, value }
}

/** Decodes one record of __consumer_offsets (a BrokerError-free read: a record of another type is 'other'). */
export function readGroupRecord(key: Uint8Array, value: Uint8Array | null): GroupRecord {
  const k = Buffer.from(key.buffer, key.byteOffset, key.byteLength)
  const v = value && Buffer.from(value.buffer, value.byteOffset, value.byteLength)
  const recordType = k.readInt16BE(0)
  if (recordType === 0 || recordType === 1) {
    const { group, topic, partition } = decodeData(OffsetCommitKey, k).value
    if (!v) return { type: 'offset', group, topic, partition, offset: null }
    const o = decodeData(OffsetCommitValue, v).value
    const offset = { offset: o.offset, leaderEpoch: o.leaderEpoch, metadata: o.metadata, commitTimestamp: Number(o.commitTimestamp) }
    return { type: 'offset', group, topic, partition, offset }
  }
  if (recordType === 2) {
    const { group } = decodeData(GroupMetadataKey, k).value
    if (!v) return { type: 'group', group, value: null }
    const g = decodeData(GroupMetadataValue, v).value
    return { type: 'group', group, value: { protocolType: g.protocolType, generation: g.generation, protocol: g.protocol } }
  }
  return (
    readConsumerGroupRecord(recordType, k, v) ??
    readShareGroupRecord(recordType, k, v) ??
    readStreamsGroupRecord(recordType, k, v) ?? { type: 'other', recordType }
  )
}
