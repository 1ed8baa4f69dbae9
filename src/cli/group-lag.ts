import type { Admin } from '../admin/admin.js'
import { show } from './table-output.js'
import type { Io } from './io.js'

/** One partition a group has committed to: its offset, the log end, the lag, and who owns it. */
export interface PartitionLag {
  topic: string
  partition: number
  committed: number | null
  logEnd: number | null
  lag: number | null
  member: string | null
}

/** A partition's lag with the rates since the last look: records produced and committed a second (null on the first). */
export interface PartitionRates extends PartitionLag {
  producedPerSecond: number | null
  committedPerSecond: number | null
}

/** Per committed partition: the offset, the log end, the lag and the member that owns it (`owner`, by topic/partition). */
export async function groupLag(admin: Admin, groupId: string, owner: ReadonlyMap<string, string>): Promise<PartitionLag[]> {
  const committed = await admin.fetchOffsets({ groupId })
  const offsets: PartitionLag[] = []
  for (const t of committed.sort((a, b) => a.topic.localeCompare(b.topic))) {
    const ends = new Map((await admin.fetchTopicOffsets(t.topic)).map((o) => [o.partition, BigInt(o.high)]))
    for (const p of [...t.partitions].sort((a, b) => a.partition - b.partition)) {
      const at = BigInt(p.offset)
      const end = ends.get(p.partition)
      offsets.push({
        topic: t.topic,
        partition: p.partition,
        committed: at >= 0n ? Number(at) : null,
        logEnd: end === undefined ? null : Number(end),
        lag: end === undefined || at < 0n ? null : Number(end - at),
        member: owner.get(`${t.topic}/${p.partition}`) ?? null,
      })
    }
  }
  return offsets
}

export interface WatchOptions {
  /** Between looks, ms. */
  intervalMs: number
  /** Looks before returning (Infinity: until `stopped`). */
  count: number
  json: boolean
  /** Resolves when the watch should end (SIGINT, SIGTERM). */
  stopped: Promise<void>
}

/**
 * `wafka groups lag GROUP --watch`: the group's lag and rates, looked at
 * every interval. On a terminal the table is redrawn in place; to a pipe
 * each look is a block of plain lines under its time (or one JSON object a
 * line with --json), so it can be logged or parsed.
 */
export async function watchLag(
  io: Io,
  options: WatchOptions,
  look: () => Promise<{ state: string; offsets: PartitionLag[] }>,
): Promise<void> {
  let last: { at: number; byPartition: Map<string, PartitionLag> } | null = null
  let stop = false
  void options.stopped.then(() => (stop = true))
  for (let n = 0; n < options.count && !stop; n++) {
    if (n > 0) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([options.stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, options.intervalMs)))])
      clearTimeout(timer)
      if (stop) break
    }
    const { state, offsets } = await look()
    const at = Date.now()
    const rated = offsets.map((o) => rates(o, last, at))
    last = { at, byPartition: new Map(offsets.map((o) => [`${o.topic}/${o.partition}`, o])) }
    const totalLag = rated.reduce((sum, o) => sum + (o.lag ?? 0), 0)
    const time = new Date(at).toISOString()
    if (options.json) {
      io.out(JSON.stringify({ time, state, totalLag, offsets: rated }) + '\n')
      continue
    }
    // A terminal gets the view redrawn in place (cursor home, clear); a pipe gets each look in turn.
    if (io.outIsTTY) io.out('\x1b[H\x1b[2J')
    io.out(`${time}  ${state}, total lag ${totalLag}\n`)
    show(
      io,
      false,
      rated,
      ['topic', 'partition', 'committed', 'log end', 'lag', 'produced/s', 'committed/s', 'member'],
      rated.map((o) => [
        o.topic,
        o.partition,
        o.committed,
        o.logEnd,
        o.lag,
        rate(o.producedPerSecond),
        rate(o.committedPerSecond),
        o.member,
      ]),
    )
    if (!io.outIsTTY) io.out('\n')
  }
}

function rates(o: PartitionLag, last: { at: number; byPartition: Map<string, PartitionLag> } | null, at: number): PartitionRates {
  const before = last?.byPartition.get(`${o.topic}/${o.partition}`)
  const seconds = last ? (at - last.at) / 1000 : 0
  const per = (now: number | null, then: number | null | undefined) =>
    seconds > 0 && now !== null && then !== null && then !== undefined ? (now - then) / seconds : null
  return { ...o, producedPerSecond: per(o.logEnd, before?.logEnd), committedPerSecond: per(o.committed, before?.committed) }
}

const rate = (r: number | null) => (r === null ? null : r.toFixed(1))
