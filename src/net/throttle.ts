/**
 * Broker quotas, client side (KIP-219). A broker over a client's quota
 * answers at once with throttle_time_ms and mutes the connection for that
 * long; from these versions on the client must not send to that broker until
 * the time has passed (what it sends meanwhile sits unread in the broker's
 * socket, its request timeout running). Before them the broker held the
 * response back itself, so waiting again would throttle twice.
 *
 * The versions are the Java client's (4.4: each XxxResponse's
 * shouldClientThrottle): an API listed here throttles from that version; any
 * other API whenever its response carries the field at all.
 */
const CLIENT_THROTTLES_FROM: Readonly<Record<string, number>> = {
  Produce: 6,
  Fetch: 8,
  ListOffsets: 3,
  Metadata: 6,
  OffsetCommit: 4,
  OffsetFetch: 4,
  FindCoordinator: 2,
  JoinGroup: 3,
  Heartbeat: 2,
  LeaveGroup: 2,
  SyncGroup: 2,
  DescribeGroups: 2,
  ListGroups: 2,
  ApiVersions: 2,
  CreateTopics: 3,
  DeleteTopics: 2,
  DeleteRecords: 1,
  InitProducerId: 1,
  AddPartitionsToTxn: 1,
  AddOffsetsToTxn: 1,
  EndTxn: 1,
  TxnOffsetCommit: 1,
  DescribeAcls: 1,
  CreateAcls: 1,
  DeleteAcls: 1,
  DescribeConfigs: 2,
  AlterConfigs: 1,
  AlterReplicaLogDirs: 1,
  DescribeLogDirs: 1,
  CreatePartitions: 1,
  CreateDelegationToken: 1,
  RenewDelegationToken: 1,
  ExpireDelegationToken: 1,
  DescribeDelegationToken: 1,
  DeleteGroups: 1,
}

/** True when a `version` response of `apiName` with a throttle time asks the client to hold back (KIP-219). */
export function clientThrottles(apiName: string, version: number): boolean {
  const from = CLIENT_THROTTLES_FROM[apiName]
  return from === undefined || version >= from
}

/** The throttle time a decoded response carries, 0 when none (or the API has no such field). */
export function throttleTimeOf(response: unknown): number {
  const ms = (response as { throttleTimeMs?: unknown } | null | undefined)?.throttleTimeMs
  return typeof ms === 'number' && ms > 0 ? ms : 0
}

/**
 * When a connection may send again. A throttle never moves the end earlier
 * (Java: "the throttle deadline should never regress") and is capped, so a
 * broker claiming days holds requests for at most `capMs` (the connection's
 * request timeout: a request sent earlier than the broker asked waits unread
 * in the muted broker, its own timeout running). One timer wakes
 * the connection when the gate opens; nothing polls.
 */
export class ThrottleGate {
  /** Epoch ms until which nothing is sent; 0 when open. */
  private until = 0
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly capMs: number,
    private readonly wake: () => void,
  ) {}

  /** Holds sends back for `ms` from `now` (capped); returns the ms applied. */
  throttle(ms: number, now = Date.now()): number {
    const applied = Math.min(ms, this.capMs)
    if (now + applied > this.until) this.until = now + applied
    return applied
  }

  /** True while sends must wait. Reads the clock only while a throttle is recent. */
  get closed(): boolean {
    if (this.until === 0) return false
    if (Date.now() < this.until) return true
    this.until = 0
    return false
  }

  /** Epoch ms the gate opens at, 0 when open. */
  get openAt(): number {
    return this.closed ? this.until : 0
  }

  /**
   * A request waits behind the gate: wake the connection when it opens (one
   * timer at a time). The clock is not read again here: the caller found the
   * gate closed a moment ago, and if it has opened since (the clock ticked
   * between the two reads) the wake must still come, or the request waits
   * for ever. Only a gate never throttled (or seen open) needs no timer.
   */
  arm(): void {
    if (this.timer !== undefined || this.until === 0) return
    this.timer = setTimeout(
      () => {
        this.timer = undefined
        this.wake()
      },
      Math.max(1, this.until - Date.now()),
    )
  }

  stop(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }
}
