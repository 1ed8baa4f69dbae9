import type { BatchStatistics, ClientStatistics, ConsumerStatistics, ProducerStatistics } from '../../observe/statistics.js'

/** One broker's requests over the benchmarked client's run, from its statisticsIntervalMs snapshots. */
export interface BrokerRun {
  broker: string
  /** Answered requests and timeouts since the client connected, as the last snapshot counts them. */
  requests: number
  timeouts: number
  responseBytes: number
  /** Each snapshot's window averages, weighted by the requests answered in it. */
  latencyAvgMs: number
  latencyMaxMs: number
  throttleTimeAvgMs: number
  throttleTimeMaxMs: number
}

/** What `wafka bench --stats` reports: the client's statistics over its run (warm-up and data included). */
export interface BenchStatistics {
  intervalMs: number
  /** statisticsIntervalMs snapshots taken (the per-broker figures come from them). */
  snapshots: number
  brokers: BrokerRun[]
  /** The producer's batches since it connected, read once every message was acknowledged. */
  batches?: BatchStatistics
  /** The consumer's partitions, read once every message was handed over: their high watermarks and lag. */
  partitions?: Array<{ topic: string; partition: number; highWatermark: string | null; position: string | null; lag: number | null }>
}

/**
 * Gathers the benchmarked client's statistics: each snapshot is handed to
 * `print` as it comes (a JSON line, as `wafka consume --stats` prints them),
 * and `result` sums them up with the client's own figures at the end.
 */
export class StatsGatherer {
  private readonly snapshots: ClientStatistics[] = []
  /** Set by result(): the run is summed up, and a snapshot the client takes as it closes is neither counted nor printed. */
  private ended = false

  constructor(
    readonly intervalMs: number,
    private readonly print: (line: string) => void,
  ) {}

  readonly take = (s: ClientStatistics): void => {
    if (this.ended) return
    this.snapshots.push(s)
    this.print(JSON.stringify(s))
  }

  result(final: ProducerStatistics | ConsumerStatistics): BenchStatistics {
    this.ended = true
    const out: BenchStatistics = { intervalMs: this.intervalMs, snapshots: this.snapshots.length, brokers: brokerRuns(this.snapshots) }
    if (final.type === 'producer') out.batches = final.batches
    else
      out.partitions = final.partitions.map(({ topic, partition, highWatermark, position, lag }) => ({
        topic,
        partition,
        highWatermark,
        position,
        lag,
      }))
    return out
  }
}

function brokerRuns(snapshots: ClientStatistics[]): BrokerRun[] {
  const runs = new Map<string, BrokerRun & { weighed: number; latencySum: number; throttleSum: number }>()
  for (const s of snapshots)
    for (const b of s.brokers ?? []) {
      let r = runs.get(b.broker)
      if (!r) {
        r = {
          broker: b.broker,
          requests: 0,
          timeouts: 0,
          responseBytes: 0,
          latencyAvgMs: 0,
          latencyMaxMs: 0,
          throttleTimeAvgMs: 0,
          throttleTimeMaxMs: 0,
          weighed: 0,
          latencySum: 0,
          throttleSum: 0,
        }
        runs.set(b.broker, r)
      }
      // requests counts since the client connected: the window's are the difference.
      const answered = b.requests - r.requests
      r.requests = b.requests
      r.timeouts = b.timeouts
      r.responseBytes += b.responseBytes
      r.weighed += answered
      r.latencySum += b.latencyAvgMs * answered
      r.throttleSum += b.throttleTimeAvgMs * answered
      r.latencyMaxMs = Math.max(r.latencyMaxMs, b.latencyMaxMs)
      r.throttleTimeMaxMs = Math.max(r.throttleTimeMaxMs, b.throttleTimeMaxMs)
    }
  return [...runs.values()]
    .map(({ weighed, latencySum, throttleSum, ...r }) => ({
      ...r,
      latencyAvgMs: weighed > 0 ? latencySum / weighed : 0,
      throttleTimeAvgMs: weighed > 0 ? throttleSum / weighed : 0,
    }))
    .sort((a, b) => a.broker.localeCompare(b.broker))
}
