// A task's stores across restarts (Java's ProcessorStateManager with its
// LegacyCheckpointingStateStore): each persistent store's file
// (store-file.ts) in the task's directory, and the task's `.checkpoint`
// (offset-checkpoint.ts) naming the last changelog offset each persistent
// store reflects. On open a persistent store is read back from its file and
// restored from its changelog past the checkpointed offset only; without a
// checkpoint, or with one outside the changelog (truncated or recreated), it
// is wiped and restored whole. In-memory stores are restored whole, as
// Java's. at_least_once writes the checkpoint when enough has changed at a
// commit and on every close; exactly_once_v2 deletes it once read and
// writes it on a clean close only, so a crash means a full restore (a store
// may hold writes of an aborted transaction).
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Admin } from '../admin/admin.js'
import type { Kafka } from '../kafka.js'
import type { Logger } from '../logger.js'
import { readCheckpoint, writeCheckpoint, type CheckpointEntry } from './offset-checkpoint.js'
import { changelogBounds, restoreStores, type RestorableStore, type RestoreRange } from './restore.js'
import { CHECKPOINT_FILE_NAME, clampedSum, type StateDirectory } from './state-directory.js'
import { StoreFile, type HeldBytes } from './store-file.js'

/** Java's OFFSET_DELTA_THRESHOLD_FOR_CHECKPOINT: at_least_once checkpoints at a commit once this many changelog records were written. */
export const CHECKPOINT_DELTA = 10_000n

/** A store of the task as the state manager sees it. */
export interface ManagedStore {
  name: string
  store: RestorableStore & { holds?(key: Buffer): boolean; held?(): HeldBytes }
  /** The store's changelog partition. */
  topic: string
  partition: number
  persistent: boolean
}

/** What a restore did, per store (for logs and tests). */
export interface StoreRestore {
  store: string
  changelog: string
  /** The offset the restore began at. */
  from: bigint
  end: bigint
  restored: number
  /** Why the store's local state was dropped first, if it was. */
  wiped?: string
}

export class ProcessorStateManager {
  private readonly files = new Map<string, StoreFile>()
  /** The last changelog offset each persistent store reflects, when known. */
  private readonly offsets = new Map<string, bigint>()
  private checkpointed = new Map<string, bigint>()
  private dir: string | undefined
  /** Restored: from here on the stores hold what the offsets say (a failed restore writes no checkpoint). */
  private initialized = false
  private closed = false

  constructor(
    readonly taskId: string,
    private readonly stores: ManagedStore[],
    private readonly stateDirectory: StateDirectory | undefined,
    private readonly eos: boolean,
    private readonly log: Logger,
  ) {}

  private get persistent(): ManagedStore[] {
    return this.stateDirectory ? this.stores.filter((s) => s.persistent) : []
  }

  private get checkpointFile(): string {
    return join(this.dir!, CHECKPOINT_FILE_NAME)
  }

  /** Opens the persistent stores' files and restores every store; resolves with what each restore did. */
  async initialize(kafka: Kafka, admin: Admin, restoreTimeoutMs: number): Promise<StoreRestore[]> {
    return this.restore(kafka, await this.open(admin), restoreTimeoutMs)
  }

  /**
   * A standby (or warm-up) task's start: the stores opened as an active
   * task's are, and where each store's changelog is to be read from (past
   * what it holds); the standby reads on from there (update()) with no end.
   */
  async openStandby(admin: Admin): Promise<Array<{ store: string; topic: string; partition: number; from: bigint }>> {
    const ranges = await this.open(admin)
    this.checkpointed = new Map(this.offsets)
    this.initialized = true
    return ranges.map((r) => ({ store: r.name, topic: r.topic, partition: r.partition, from: r.from }))
  }

  /** A standby's record of store `name`'s changelog at `offset`: into the store (and its file). */
  update(
    name: string,
    offset: bigint,
    key: Buffer,
    value: Buffer | null,
    timestamp: number,
    headers?: Array<[string, Buffer | null]>,
  ): void {
    const s = this.stores.find((x) => x.name === name)
    if (!s || this.closed) return
    this.recording(s).restore(key, value, timestamp, headers)
    this.offsets.set(name, offset)
  }

  /**
   * A standby's stores taken over by the active task: restored from past
   * the offset each holds to its changelog's end now (the tail the standby
   * had not read yet). Under exactly_once_v2 the checkpoint goes while the
   * task runs, as initialize() has it.
   */
  async catchUp(kafka: Kafka, admin: Admin, restoreTimeoutMs: number): Promise<StoreRestore[]> {
    if (this.eos && this.dir !== undefined) rmSync(this.checkpointFile, { force: true })
    const ranges: Array<RestoreRange & { name: string }> = []
    for (const s of this.stores) {
      const { start, end } = await changelogBounds(admin, s, this.eos)
      const held = this.offsets.get(s.name)
      const from = held === undefined || held + 1n < start ? start : held + 1n
      ranges.push({ topic: s.topic, partition: s.partition, store: this.recording(s), from, end, name: s.name })
    }
    return this.restore(kafka, ranges, restoreTimeoutMs)
  }

  /**
   * Java's changelogOffsets summed (the task offset a group member
   * reports): the next offset of each store's changelog (0 when it holds
   * none), persistent stores only or every store.
   */
  offsetSum(persistentOnly: boolean): bigint | undefined {
    const stores = persistentOnly ? this.persistent : this.stores
    if (stores.length === 0) return undefined
    return clampedSum(stores.map((s) => (this.offsets.has(s.name) ? this.offsets.get(s.name)! + 1n : 0n)))
  }

  /** The stores' changelog partitions. */
  changelogs(): Array<{ store: string; topic: string; partition: number }> {
    return this.stores.map((s) => ({ store: s.name, topic: s.topic, partition: s.partition }))
  }

  /** Opens the persistent stores' files (wiping what cannot be trusted) and finds where each store's restore starts and its changelog ends. */
  private async open(admin: Admin): Promise<Array<RestoreRange & { name: string; wiped?: string }>> {
    const persistent = this.persistent
    let checkpoint: CheckpointEntry[] = []
    if (persistent.length > 0) {
      this.dir = this.stateDirectory!.taskDir(this.taskId)
      checkpoint = readCheckpoint(this.checkpointFile)
      // Java's LegacyCheckpointingStateStore.init: under EOS the checkpoint is gone while the task runs.
      if (this.eos) rmSync(this.checkpointFile, { force: true })
    }
    const ranges: Array<RestoreRange & { name: string; wiped?: string }> = []
    for (const s of this.stores) {
      const { start, end } = await changelogBounds(admin, s, this.eos)
      let from = start
      let wiped: string | undefined
      if (this.stateDirectory && s.persistent) {
        const file = join(this.dir!, `${s.name}.store`)
        const at = checkpoint.find((c) => c.topic === s.topic && c.partition === s.partition)?.offset
        if (at === undefined) wiped = existsSync(file) ? 'it has no checkpointed offset' : undefined
        else if (!existsSync(file)) wiped = `its file is missing (its checkpointed offset is ${at})`
        else if (at + 1n < start || at + 1n > end)
          wiped = `its checkpointed offset ${at} is outside its changelog ${s.topic}-${s.partition} [${start}, ${end})`
        if (wiped !== undefined) {
          this.log.warn(`store ${s.name} of task ${this.taskId}: ${wiped}; wiping it and restoring it from the changelog's start`, {
            task: this.taskId,
            store: s.name,
          })
          rmSync(file, { force: true })
        }
        const held = s.store.held?.bind(s.store)
        const { file: opened } = StoreFile.open(file, (r, id) => s.store.restore(r.key, r.value, r.timestamp, undefined, id), this.log, {
          held,
        })
        this.files.set(s.name, opened)
        if (at !== undefined && wiped === undefined) {
          from = at + 1n
          this.offsets.set(s.name, at)
        }
      }
      ranges.push({ topic: s.topic, partition: s.partition, store: this.recording(s), from, end, name: s.name, wiped })
    }
    return ranges
  }

  /** Reads each range's records into its store, logging at INFO how many each store took from where. */
  private async restore(
    kafka: Kafka,
    ranges: Array<RestoreRange & { name: string; wiped?: string }>,
    restoreTimeoutMs: number,
  ): Promise<StoreRestore[]> {
    await restoreStores(kafka, ranges, this.log, restoreTimeoutMs, this.eos)
    const done: StoreRestore[] = []
    for (const r of ranges) {
      if (r.end > r.from) this.offsets.set(r.name, r.end - 1n)
      const outcome = { store: r.name, changelog: `${r.topic}-${r.partition}`, from: r.from, end: r.end, restored: r.restored ?? 0 }
      done.push(r.wiped ? { ...outcome, wiped: r.wiped } : outcome)
      this.log.info(
        `restored ${outcome.restored} records of store ${r.name} from changelog ${outcome.changelog} starting at offset ${r.from}`,
        {
          task: this.taskId,
          end: String(r.end),
        },
      )
    }
    this.compact()
    this.checkpointed = new Map(this.offsets)
    this.initialized = true
    return done
  }

  /** Rewrites the files whose garbage outweighs their live entries, keeping only what the stores still hold. */
  compact(): void {
    if (this.closed) return
    for (const s of this.persistent) {
      const holds = s.store.holds?.bind(s.store)
      this.files.get(s.name)?.maybeCompact(holds)
    }
  }

  /** A store that also writes what is restored into its file. */
  private recording(s: ManagedStore): RestorableStore {
    if (!this.stateDirectory || !s.persistent) return s.store
    return {
      restore: (key, value, timestamp, headers) => {
        // One latin1 string for the store's map and the file's index of live keys.
        const id = key.toString('latin1')
        s.store.restore(key, value, timestamp, headers, id)
        this.files.get(s.name)!.append(key, value, timestamp, id)
      },
    }
  }

  /** A change a store made (and logged to its changelog): into its file, if it has one. */
  changed(store: string, key: Buffer, value: Buffer | null, timestamp: number): void {
    this.files.get(store)?.append(key, value, timestamp)
  }

  /**
   * at_least_once, at a commit: the checkpoint, once the changelogs moved
   * past it by CHECKPOINT_DELTA records (Java's checkpointNeeded), or always
   * when `force` (a close). `acked` gives the last offset written to a changelog.
   */
  checkpoint(acked: (topic: string, partition: number) => bigint | undefined, force = false): void {
    if (this.closed || !this.initialized || this.dir === undefined) return
    let delta = 0n
    for (const s of this.persistent) {
      const a = acked(s.topic, s.partition)
      const known = this.offsets.get(s.name)
      if (a !== undefined && (known === undefined || a > known)) this.offsets.set(s.name, a)
      delta += (this.offsets.get(s.name) ?? 0n) - (this.checkpointed.get(s.name) ?? 0n)
    }
    if (!force && delta <= CHECKPOINT_DELTA) return
    // The files first: a checkpoint never names what the disk does not hold.
    this.compact()
    for (const f of this.files.values()) f.sync()
    const entries: CheckpointEntry[] = []
    for (const s of this.persistent) {
      const offset = this.offsets.get(s.name)
      if (offset !== undefined) entries.push({ topic: s.topic, partition: s.partition, offset })
    }
    writeCheckpoint(this.checkpointFile, entries)
    this.checkpointed = new Map(this.offsets)
  }

  /**
   * Closes the files. `clean`: the stores hold what was committed, so the
   * checkpoint is written (at_least_once writes it on every close, as Java's
   * stores do; exactly_once_v2 only on a clean one).
   */
  close(clean: boolean, acked: (topic: string, partition: number) => bigint | undefined): void {
    if (this.closed) return
    try {
      if (clean || !this.eos) this.checkpoint(acked, true)
    } catch (err) {
      this.log.warn('writing the checkpoint failed: the next start restores the stores whole', {
        task: this.taskId,
        error: (err as Error).message,
      })
    } finally {
      this.closed = true
      for (const f of this.files.values()) f.close()
      this.files.clear()
    }
  }
}
