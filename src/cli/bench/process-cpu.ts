import { readFileSync } from 'node:fs'

/** USER_HZ: 100 on Linux for every architecture Node runs on. */
const CLOCK_TICKS = 100

/** User + system CPU seconds a process has used so far (Linux /proc; NaN elsewhere or once it is gone). */
export function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which is in parentheses: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
  } catch {
    return NaN
  }
}

/** The CPU seconds of several processes together (a cluster's brokers); NaN when any is unreadable. */
export function processesCpuSeconds(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0)
}
