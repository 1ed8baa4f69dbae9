import { existsSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { RecordFile } from '../storage/record-file.js'
import type { GroupRecord } from './group-records.js'

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
  return records.map((r): GroupRecord => {
    switch (r.type) {
      case 'offset':
        return {
          type: 'offset',
          group: r.group,
          topic: r.topic,
          partition: r.partition,
          offset: { offset: BigInt(r.offset), leaderEpoch: r.leaderEpoch, metadata: r.metadata, commitTimestamp: r.commitTimestamp },
        }
      case 'offset-delete':
        return { type: 'offset', group: r.group, topic: r.topic, partition: r.partition, offset: null }
      case 'group':
        return {
          type: 'group',
          group: r.group,
          value: { protocolType: r.protocolType ?? '', generation: r.generationId, protocol: r.protocolName },
        }
      case 'group-delete':
        return { type: 'group', group: r.group, value: null }
    }
  })
}

/** Moves the old group log aside (never deleted: kept for whoever wants it); returns where it went. */
export function retireOldGroupLog(dataDir: string): string {
  let to = join(dataDir, `${OLD_DIR}.migrated`)
  for (let n = 1; existsSync(to); n++) to = join(dataDir, `${OLD_DIR}.migrated.${n}`)
  renameSync(join(dataDir, OLD_DIR), to)
  return to
}
