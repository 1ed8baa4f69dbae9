/**
 * Samples a running count (messages acknowledged, received) every
 * `everyMs` from its start: the throughput-over-time of a benchmark run,
 * for its chart. stop() takes a last sample and ends the timer.
 */
export class Timeline {
  /** [seconds since start, count then] */
  readonly points: Array<[number, number]> = [[0, 0]]
  private readonly t0 = performance.now()
  private readonly timer: ReturnType<typeof setInterval>

  constructor(
    private readonly count: () => number,
    everyMs = 100,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs)
  }

  private sample(): void {
    this.points.push([(performance.now() - this.t0) / 1000, this.count()])
  }

  stop(): void {
    clearInterval(this.timer)
    this.sample()
  }
}
