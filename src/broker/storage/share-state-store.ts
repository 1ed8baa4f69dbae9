import { RecordFile, type FlushPolicy } from './record-file.js'

/** A share partition's state as kept: its SPSO and end offset, and each in-flight record's state code and delivery count. */
export interface SharePartitionSnapshot {
  group: string
  topicId: string
  partition: number
  startOffset: number
  endOffset: number
  /** [offset, state (0 AVAILABLE, 1 ACQUIRED, 2 ACKNOWLEDGED, 3 ARCHIVED), delivery count], the window's records in order. */
  records: Array<[number, number, number]>
}

/** One change to the share state, as the log holds it (Kafka's __share_group_state records, as JSON). */
export type ShareStateRecord =
  | ({ type: 'share-partition' } & SharePartitionSnapshot)
  | { type: 'share-group-delete'; group: string }
  | { type: 'share-topic-delete'; group: string; topicId: string }

export const shareKey = (group: string, topicId: string, partition: number) => `${group}\u0000${topicId}\u0000${partition}`

/**
 * The share partitions' state on disk (what Kafka's share coordinator keeps
 * in __share_group_state): a log of snapshots, one written whenever
 * acknowledgements, releases or expired locks change a partition, replayed
 * at start (the last of each partition wins) and then rewritten as the
 * state it gave. Flushed under the broker's flush policy, and at a clean
 * stop.
 */
export class ShareStateStore {
  private constructor(private readonly file: RecordFile<ShareStateRecord>) {}

  /** Opens the log; returns it and the last snapshot of each share partition. */
  static open(
    path: string,
    report: (message: string) => void,
    flushPolicy: () => FlushPolicy,
  ): { store: ShareStateStore; restored: Map<string, SharePartitionSnapshot> } {
    const { file, records } = RecordFile.open<ShareStateRecord>(path, { report, flushPolicy })
    const restored = new Map<string, SharePartitionSnapshot>()
    for (const r of records) {
      if (r.type === 'share-group-delete') {
        for (const [k, s] of restored) if (s.group === r.group) restored.delete(k)
      } else if (r.type === 'share-topic-delete') {
        for (const [k, s] of restored) if (s.group === r.group && s.topicId === r.topicId) restored.delete(k)
      } else {
        const { type: _type, ...snapshot } = r
        restored.set(shareKey(r.group, r.topicId, r.partition), snapshot)
      }
    }
    file.rewrite([...restored.values()].map((s) => ({ type: 'share-partition' as const, ...s })))
    return { store: new ShareStateStore(file), restored }
  }

  written(s: SharePartitionSnapshot): void {
    this.file.append([{ type: 'share-partition', ...s }])
  }

  deleted(group: string): void {
    this.file.append([{ type: 'share-group-delete', group }])
  }

  /** The group's share state of one topic deleted (DeleteShareGroupOffsets). */
  topicDeleted(group: string, topicId: string): void {
    this.file.append([{ type: 'share-topic-delete', group, topicId }])
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
