import { dirname, join } from 'node:path'
import type { ClassicGroup, CommittedOffset } from '../groups/classic-group.js'
import type { Group } from '../groups/group-coordinator.js'
import type { ShareGroup, ShareGroupSnapshot } from '../groups/share-group.js'
import { RecordFile, type FlushPolicy } from './record-file.js'

/** One change to the groups, as the group log holds it (Kafka's __consumer_offsets records, as JSON). */
export type GroupRecord =
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

/** The share groups the log restores and keeps. */
export interface ShareGroupsKept {
  /** The share group of that id, made for the log to restore into (undefined: the id is another group's). */
  shareGroup(id: string): ShareGroup | undefined
  shareGroups(): Iterable<ShareGroup>
  dropShareGroup(id: string): void
}

/**
 * The groups' committed offsets and generations on disk: a log of
 * GroupRecords in dataDir (a RecordFile: batches with CRCs), replayed at
 * start and then rewritten as the state it gave (so it grows only with one
 * run's changes). Flushed as Kafka's __consumer_offsets is: a partition
 * under the broker's flush policy (log.flush.interval.messages and .ms:
 * by default never per commit; an fsync per commit at 1), and at a clean
 * stop.
 */
export class GroupStore {
  private constructor(private readonly file: RecordFile<GroupRecord>) {}

  /** Opens the log, applies it to fresh groups from `group(id)`, and compacts it to that state. */
  static open(
    path: string,
    report: (message: string) => void,
    group: (id: string) => ClassicGroup,
    groups: () => Iterable<Group>,
    drop: (id: string) => void,
    flushPolicy: () => FlushPolicy,
    shares?: ShareGroupsKept,
  ): GroupStore {
    // The JSON-lines file of earlier versions, next to it, is migrated once.
    const { file, records } = RecordFile.open<GroupRecord>(path, { report, flushPolicy, legacy: join(dirname(path), 'groups.jsonl') })
    for (const r of records) {
      if (r.type === 'group-delete') {
        drop(r.group)
        shares?.dropShareGroup(r.group)
      } else if (r.type === 'share-group') {
        const { type: _, group: id, ...kept } = r
        shares?.shareGroup(id)?.restore(kept)
      } else if (r.type === 'group') {
        const g = group(r.group)
        g.generationId = r.generationId
        g.protocolType = r.protocolType
        g.protocolName = r.protocolName
      } else if (r.type === 'offset')
        // No changes hook yet: replaying writes nothing back.
        group(r.group).commit(r.topic, r.partition, {
          offset: BigInt(r.offset),
          leaderEpoch: r.leaderEpoch,
          metadata: r.metadata,
          commitTimestamp: r.commitTimestamp,
        })
      else group(r.group).deleteOffset(r.topic, r.partition)
    }
    const store = new GroupStore(file)
    file.rewrite([
      ...[...groups()].flatMap((g) => snapshot(g)),
      ...[...(shares?.shareGroups() ?? [])].map((g) => shareGroupRecord(g.groupId, g.snapshot())),
    ])
    return store
  }

  offset(group: string, topic: string, partition: number, c: CommittedOffset | null): void {
    this.file.append([c === null ? { type: 'offset-delete', group, topic, partition } : offsetRecord(group, topic, partition, c)])
  }

  generation(g: Pick<ClassicGroup, 'groupId' | 'generationId' | 'protocolType' | 'protocolName'>): void {
    this.file.append([groupRecord(g)])
  }

  shareGroup(group: string, s: ShareGroupSnapshot): void {
    this.file.append([shareGroupRecord(group, s)])
  }

  deleted(group: string): void {
    this.file.append([{ type: 'group-delete', group }])
  }

  /** The flusher's check (flush.ms); StorageError when the fsync fails. */
  flushIfDue(now: number): void {
    this.file.flushIfDue(now)
  }

  /** Flushes (a clean stop) and closes. */
  close(): void {
    this.file.close()
  }
}

function snapshot(g: Group): GroupRecord[] {
  // A KIP-848 group's epochs are not kept (its members rejoin); its offsets are. Share groups are kept whole (shareGroupRecord).
  const out: GroupRecord[] = g.type === 'classic' ? [groupRecord(g)] : []
  for (const [topic, parts] of g.offsets) for (const [partition, c] of parts) out.push(offsetRecord(g.groupId, topic, partition, c))
  return out
}

function shareGroupRecord(group: string, s: ShareGroupSnapshot): GroupRecord {
  return { type: 'share-group', group, ...s }
}

function groupRecord(g: Pick<ClassicGroup, 'groupId' | 'generationId' | 'protocolType' | 'protocolName'>): GroupRecord {
  return { type: 'group', group: g.groupId, generationId: g.generationId, protocolType: g.protocolType, protocolName: g.protocolName }
}

function offsetRecord(group: string, topic: string, partition: number, c: CommittedOffset): GroupRecord {
  return {
    type: 'offset',
    group,
    topic,
    partition,
    offset: String(c.offset),
    leaderEpoch: c.leaderEpoch,
    metadata: c.metadata,
    commitTimestamp: c.commitTimestamp,
  }
}
