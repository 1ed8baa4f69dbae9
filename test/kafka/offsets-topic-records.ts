// Reading the group coordinator's records back from __consumer_offsets with
// raw requests, for the tests that check them byte for byte
// (group-coordinator-records.test.ts, share-group-records.test.ts).
import { Buffer } from 'node:buffer'
import { expect } from 'vitest'
import { decodeRecordSet } from '../../src/codec/index.js'
import { decodeData, encodeData, Fetch, FindCoordinator, type DataSpec } from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { until } from '../broker/support.js'

/** Java's String.hashCode, then Kafka's Utils.abs: the group's partition of a __consumer_offsets of `partitions`. */
export function partitionOf(groupId: string, partitions: number): number {
  let h = 0
  for (let i = 0; i < groupId.length; i++) h = (Math.imul(31, h) + groupId.charCodeAt(i)) | 0
  return (h === -2147483648 ? 0 : Math.abs(h)) % partitions
}

/** Decodes `bytes` with `spec` and checks that encoding the result gives the same bytes back. */
export function roundTrip<T>(spec: DataSpec<T>, bytes: Buffer): { version: number; value: T } {
  const decoded = decodeData(spec, bytes)
  expect(encodeData(spec, decoded.version, decoded.value as never).equals(bytes), spec.name).toBe(true)
  return decoded
}

/**
 * A client on the group's coordinator, the leader of its partition of
 * __consumer_offsets, whose log the records are read from: asked of
 * `bootstrap` until it answers (the partition may still be loading).
 */
export async function coordinatorClient(bootstrap: RawClient, groupId: string): Promise<RawClient> {
  let found = { errorCode: -1, host: '', port: 0 }
  await until(
    async () =>
      (found = (await bootstrap.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] })).coordinators[0]).errorCode === 0,
    30_000,
    () => `FindCoordinator: ${found.errorCode}`,
  )
  return RawClient.open(`${found.host}:${found.port}`)
}

/** One partition of __consumer_offsets from its start, in one Fetch (v12) to its leader `c`: the partition's answer. */
export async function fetchOffsetsPartition(c: RawClient, partition: number) {
  const fetched = await c.request(Fetch, 12, {
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    topics: [
      {
        topic: '__consumer_offsets',
        partitions: [{ partition, fetchOffset: 0n, currentLeaderEpoch: -1, lastFetchedEpoch: -1, partitionMaxBytes: 1 << 20 }],
      },
    ],
  })
  return fetched.responses[0].partitions[0]
}

/** A coordinator record: its type (the key's first int16), key and value (null for a tombstone). */
export interface CoordinatorRecord {
  type: number
  key: Buffer
  value: Buffer | null
}

/** Every record of that partition, in order; the Fetch must succeed. */
export async function readOffsetsPartition(c: RawClient, partition: number): Promise<CoordinatorRecord[]> {
  const part = await fetchOffsetsPartition(c, partition)
  expect(part.errorCode).toBe(0)
  return decodeRecordSet(part.records!)
    .batches.flatMap((b) => b.records.map((r) => ({ key: Buffer.from(r.key!), value: r.value && Buffer.from(r.value) })))
    .map((r) => ({ ...r, type: r.key.readInt16BE(0) }))
}
