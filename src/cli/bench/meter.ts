export interface ChildResult {
  wallMs: number
  /** process.cpuUsage() over the timed part, user + system, in seconds. */
  cpuSec: number
  userSec: number
  systemSec: number
  /** process.memoryUsage.rss() before connecting (data made, heap collected). */
  rssBaseline: number
  /** The highest RSS sampled (every 50 ms) from connecting to the end of the timed part. */
  rssPeak: number
}

const collectGarbage = (globalThis as { gc?: () => void }).gc

/**
 * A child's measurements. Made just before connecting: collects garbage,
 * takes the RSS baseline and samples RSS every 50 ms from then on; start()
 * and stop() bound the timed part (wall clock and process.cpuUsage).
 */
export class ChildMeter {
  readonly rssBaseline: number
  private rssPeak: number
  private readonly sampler: ReturnType<typeof setInterval>
  private cpu0: NodeJS.CpuUsage | undefined
  private t0 = 0

  constructor() {
    collectGarbage?.()
    this.rssBaseline = process.memoryUsage.rss()
    this.rssPeak = this.rssBaseline
    this.sampler = setInterval(() => this.sample(), 50)
  }

  private sample(): void {
    const rss = process.memoryUsage.rss()
    if (rss > this.rssPeak) this.rssPeak = rss
  }

  start(): void {
    this.cpu0 = process.cpuUsage()
    this.t0 = performance.now()
  }

  stop(): ChildResult {
    const wallMs = performance.now() - this.t0
    const cpu = process.cpuUsage(this.cpu0)
    this.sample()
    clearInterval(this.sampler)
    return {
      wallMs,
      cpuSec: (cpu.user + cpu.system) / 1e6,
      userSec: cpu.user / 1e6,
      systemSec: cpu.system / 1e6,
      rssBaseline: this.rssBaseline,
      rssPeak: this.rssPeak,
    }
  }
}
