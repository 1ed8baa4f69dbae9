// What a streams group's coordinator says of the group in each heartbeat
// answer (StreamsGroupHeartbeatResponse.Status, KIP-1071): a topic is
// missing, a join's topics are not co-partitioned, an internal topic is
// still being created, another member asked the application to shut down.
// The member keeps heartbeating through them (the broker assigns no tasks
// meanwhile); each is logged when it appears, with the broker's detail.
import type { Logger } from '../logger.js'
import type { StreamsGroupHeartbeatResponseStatus } from '../protocol/messages/index.js'

/** Java's StreamsGroupHeartbeatResponse.Status codes. */
export const StreamsGroupStatus = {
  STALE_TOPOLOGY: 0,
  MISSING_SOURCE_TOPICS: 1,
  INCORRECTLY_PARTITIONED_TOPICS: 2,
  MISSING_INTERNAL_TOPICS: 3,
  SHUTDOWN_APPLICATION: 4,
  ASSIGNMENT_DELAYED: 5,
  MISSING_CLIENT_TAGS: 6,
} as const

const NAMES = new Map<number, string>(Object.entries(StreamsGroupStatus).map(([name, code]) => [code, name]))

export const statusName = (code: number): string => NAMES.get(code) ?? `status ${code}`

/** Not a problem: the coordinator waits (group.streams.initial.rebalance.delay.ms) before it assigns. */
const NORMAL = new Set<number>([StreamsGroupStatus.ASSIGNMENT_DELAYED])

/**
 * The statuses of the last answer that carried them: a new one is logged
 * (WARN; ASSIGNMENT_DELAYED at INFO), and again after it had cleared.
 */
export class StatusWatch {
  private current = new Map<number, string>()

  constructor(
    private readonly log: Logger,
    private readonly groupId: string,
  ) {}

  /** The answer's statuses (null: unchanged since the last answer). */
  update(statuses: StreamsGroupHeartbeatResponseStatus[] | null): void {
    if (statuses === null) return
    const next = new Map(statuses.map((s) => [s.statusCode, s.statusDetail]))
    for (const [code, detail] of next) {
      if (this.current.get(code) === detail) continue
      const extra = { groupId: this.groupId, status: statusName(code), detail }
      if (NORMAL.has(code)) this.log.info('the streams group coordinator delays the assignment', extra)
      else if (code === StreamsGroupStatus.SHUTDOWN_APPLICATION)
        this.log.warn('an instance asked the whole application to shut down', extra)
      else this.log.warn(`the streams group is in status ${statusName(code)}: no tasks move until it clears`, extra)
    }
    for (const code of this.current.keys())
      if (!next.has(code) && !NORMAL.has(code))
        this.log.info(`the streams group left status ${statusName(code)}`, { groupId: this.groupId })
    this.current = next
  }

  has(code: number): boolean {
    return this.current.has(code)
  }
}
