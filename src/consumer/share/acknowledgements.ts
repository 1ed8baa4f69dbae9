/**
 * What a share consumer tells the broker about records it acquired
 * (KIP-932): the acknowledge types of ShareFetch/ShareAcknowledge, and the
 * per-partition set of offsets waiting to be sent, as the batches the
 * protocol carries.
 */

/** The protocol's acknowledge types. GAP: an acquired offset with no record (a control record, a compacted one). */
export const AcknowledgeTypes = { GAP: 0, ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 } as const

/**
 * What user code may say of a record: processed (accept), give it to
 * someone again (release), never again (reject), or still working on it
 * (renew, KIP-1222: its acquisition lock starts again and it stays this
 * member's, handed out again to be acknowledged once more).
 */
export type AcknowledgeType = 'accept' | 'release' | 'reject' | 'renew'

export const ACKNOWLEDGE_TYPE_CODES: Readonly<Record<AcknowledgeType, number>> = {
  accept: AcknowledgeTypes.ACCEPT,
  release: AcknowledgeTypes.RELEASE,
  reject: AcknowledgeTypes.REJECT,
  renew: AcknowledgeTypes.RENEW,
}

export interface AcknowledgementBatch {
  firstOffset: bigint
  lastOffset: bigint
  /** One type for the whole range, or one per offset. */
  acknowledgeTypes: number[]
}

/** Acknowledgements of one partition, offset → type, later ones replacing earlier ones for the same offset. */
export class PartitionAcknowledgements {
  private readonly types = new Map<bigint, number>()

  constructor(
    readonly topic: string,
    readonly partition: number,
    /** The broker whose share session acquired these records: the acknowledgements go to it. */
    readonly nodeId: number,
  ) {}

  get size(): number {
    return this.types.size
  }

  add(offset: bigint, type: number): void {
    this.types.set(offset, type)
  }

  has(offset: bigint): boolean {
    return this.types.has(offset)
  }

  /** The offsets acknowledged RENEW: a request carrying them says so (IsRenewAck). */
  renewed(): bigint[] {
    const out: bigint[] = []
    for (const [o, t] of this.types) if (t === AcknowledgeTypes.RENEW) out.push(o)
    return out
  }

  /** The offsets as the fewest batches: consecutive offsets together, one type where the whole range has one. */
  batches(): AcknowledgementBatch[] {
    const offsets = [...this.types.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    const out: AcknowledgementBatch[] = []
    let start = 0
    for (let i = 1; i <= offsets.length; i++) {
      if (i < offsets.length && offsets[i] === offsets[i - 1] + 1n) continue
      const run = offsets.slice(start, i)
      const types = run.map((o) => this.types.get(o)!)
      out.push({
        firstOffset: run[0],
        lastOffset: run[run.length - 1],
        acknowledgeTypes: types.every((t) => t === types[0]) ? [types[0]] : types,
      })
      start = i
    }
    return out
  }
}

/** Acknowledgements waiting to be sent, per partition, taken all at once by whatever request carries them next. */
export class PendingAcknowledgements {
  private readonly byPartition = new Map<string, PartitionAcknowledgements>()

  get size(): number {
    let n = 0
    for (const p of this.byPartition.values()) n += p.size
    return n
  }

  add(topic: string, partition: number, nodeId: number, offset: bigint, type: number): void {
    const key = `${topic}\u0000${partition}`
    let p = this.byPartition.get(key)
    if (p === undefined || p.nodeId !== nodeId) {
      // A partition's records acquired from another broker (its leader moved): the old session's acknowledgements are void there.
      p = new PartitionAcknowledgements(topic, partition, nodeId)
      this.byPartition.set(key, p)
    }
    p.add(offset, type)
  }

  /** Everything pending, removed from here. */
  take(): PartitionAcknowledgements[] {
    const all = [...this.byPartition.values()].filter((p) => p.size > 0)
    this.byPartition.clear()
    return all
  }
}
