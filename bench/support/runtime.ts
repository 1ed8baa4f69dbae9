import process from 'node:process'

/**
 * Which JavaScript runtime a benchmark runs on (Node, Bun or Deno) and its
 * version, so each runtime's results go to files of their own
 * (bench/results/codec-<runtime>.*) that say what made them.
 */

export type RuntimeName = 'node' | 'bun' | 'deno'

export interface Runtime {
  name: RuntimeName
  /** The runtime's own version, e.g. 20.20.2, 1.4.5, 2.9.6. */
  version: string
  /** Its JavaScript engine and that engine's version. */
  engine: string
}

export const RUNTIME_LABELS: Record<RuntimeName, string> = { node: 'Node', bun: 'Bun', deno: 'Deno' }

interface RuntimeGlobals {
  Bun?: { version: string }
  Deno?: { version: { deno: string; v8: string } }
}

export function currentRuntime(): Runtime {
  const g = globalThis as RuntimeGlobals
  if (g.Bun) return { name: 'bun', version: g.Bun.version, engine: `JavaScriptCore ${(process.versions.webkit ?? '').slice(0, 12)}`.trim() }
  if (g.Deno) return { name: 'deno', version: g.Deno.version.deno, engine: `V8 ${g.Deno.version.v8}` }
  return { name: 'node', version: process.versions.node, engine: `V8 ${process.versions.v8}` }
}

/** "Node 20.20.2" */
export function runtimeLabel(r: Pick<Runtime, 'name' | 'version'>): string {
  return `${RUNTIME_LABELS[r.name]} ${r.version}`
}

/** A peer that does not load on this runtime: left out of the run, with the reason in the notes. */
export interface Absence {
  name: string
  reason: string
}

export const absences: Absence[] = []

/** `load()`, or undefined (and an absence noted) when it throws: a native module the runtime cannot load, say. */
export function optional<T>(name: string, load: () => T): T | undefined {
  try {
    return load()
  } catch (e) {
    // Two peers may sit on the same module: note it once.
    if (!absences.some((a) => a.name === name)) absences.push({ name, reason: String((e as Error)?.message ?? e).split('\n')[0] })
    return undefined
  }
}
