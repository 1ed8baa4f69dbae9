// A V8 CPU profile (node --cpu-prof) read as self time per function: what
// bench/profile.ts and bench/streams.ts print as their top functions.
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

/** Self time per function (name, file, line), in ms, heaviest first. */
export function selfTimes(file: string): { total: number; rows: Array<{ fn: string; ms: number }> } {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }
  const byId = new Map(prof.nodes.map((n) => [n.id, n]))
  const ms = new Map<string, number>()
  let total = 0
  for (let i = 0; i < prof.samples.length; i++) {
    const n = byId.get(prof.samples[i])!
    const f = n.callFrame
    const where = f.url ? ` ${f.url.replace(/^.*\//, '')}:${f.lineNumber + 1}` : ''
    // `dispatch`: the inspector session's own work (starting and stopping the profiler).
    if (f.functionName === 'dispatch') continue
    const key = `${f.functionName || '(anonymous)'}${where}`
    const dt = (prof.timeDeltas[i] ?? 0) / 1000
    ms.set(key, (ms.get(key) ?? 0) + dt)
    if (f.functionName !== '(idle)') total += dt
  }
  const rows = [...ms].map(([fn, t]) => ({ fn, ms: t })).sort((a, b) => b.ms - a.ms)
  return { total, rows }
}
