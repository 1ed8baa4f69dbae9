import { existsSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { RecordFile } from '../storage/record-file.js'
import type { GroupRecord } from './group-records.js'
import type { ShareGroupSnapshot } from './share-group.js'
import type { ShareGroupRecord } from './share-group-records.js'

/** The group log of versions before the groups' records went into __consumer_offsets' partitions (JSON records in a RecordFile). */
type OldGroupRecord =
  | {
      type: 'offset'
      group: string
      topic: string
      partition: number
      offset: string
      leaderEpoch: number
      metadata: string | null
      commitTimestamp: number
    }
  | { type: 'offset-delete'; group: string; topic: string; partition: number }
  | { type: 'group'; group: string; generationId: number; protocolType: string | null; protocolName: string | null }
  | { type: 'group-delete'; group: string }
  | ({ type: 'share-group'; group: string } & ShareGroupSnapshot)

/** The old log's directory in dataDir (beside the brokers' own, so no partition directory of the topic). */
const OLD_DIR = '__consumer_offsets'
const OLD_FILE = '00000000000000000000.log'
/** Older still: JSON lines, which the RecordFile migrates itself. */
const OLDER_FILE = 'groups.jsonl'

/**
 * The old group log of `dataDir`, read (its CRCs checked, a torn tail cut
 * and said, as any RecordFile), as the records it stands for; null when
 * the data directory has none. It is left in place: `retireOldGroupLog`
 * moves it aside once its records are in the partitions.
 */
export function readOldGroupLog(dataDir: string, report: (message: string) => void): GroupRecord[] | null {
  const dir = join(dataDir, OLD_DIR)
  if (!existsSync(join(dir, OLD_FILE)) && !existsSync(join(dir, OLDER_FILE))) return null
  const { file, records } = RecordFile.open<OldGroupRecord>(join(dir, OLD_FILE), { report, legacy: join(dir, OLDER_FILE) })
  file.close()
  return records.flatMap((r): GroupRecord[] => {
    switch (r.type) {
      case 'offset':
        return [
          {
            type: 'offset',
            group: r.group,
            topic: r.topic,
            partition: r.partition,
            offset: { offset: BigInt(r.offset), leaderEpoch: r.leaderEpoch, metadata: r.metadata, commitTimestamp: r.commitTimestamp },
          },
        ]
      case 'offset-delete':
        return [{ type: 'offset', group: r.group, topic: r.topic, partition: r.partition, offset: null }]
      case 'group':
        return [
          {
            type: 'group',
            group: r.group,
            value: { protocolType: r.protocolType ?? '', generation: r.generationId, protocol: r.protocolName },
          },
        ]
      case 'group-delete':
        // The id of a classic, consumer or share group.
        return [
          { type: 'group', group: r.group, value: null },
          { type: 'share-group', group: r.group, epoch: null },
        ]
      case 'share-group':
        return shareRecords(r.group, r)
    }
  })
}

/** A share group's snapshot as that version kept it, as the ShareGroup* records that say the same. */
function shareRecords(group: string, s: ShareGroupSnapshot): ShareGroupRecord[] {
  return [
    { type: 'share-group', group, epoch: s.groupEpoch },
    { type: 'share-target-epoch', group, assignmentEpoch: s.assignmentEpoch },
    ...s.members.flatMap(({ memberId, memberEpoch, rackId, clientId, clientHost, subscribedTopicNames, assigned, target }) => [
      { type: 'share-member' as const, group, memberId, value: { rackId, clientId, clientHost, subscribedTopicNames } },
      { type: 'share-target' as const, group, memberId, partitions: target },
      { type: 'share-current' as const, group, memberId, value: { memberEpoch, assigned } },
    ]),
  ]
}

/** Moves the old group log aside (never deleted: kept for whoever wants it); returns where it went. */
export function retireOldGroupLog(dataDir: string): string {
  let to = join(dataDir, `${OLD_DIR}.migrated`)
  for (let n = 1; existsSync(to); n++) to = join(dataDir, `${OLD_DIR}.migrated.${n}`)
  renameSync(join(dataDir, OLD_DIR), to)
  return to
}
