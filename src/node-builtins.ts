import { WafkaError } from './errors.js'

/**
 * Node built-ins that only some uses need (tls, crypto, zlib; diagnostics_channel
 * for the tracing channels, src/observe/channels.ts), loaded on
 * first use rather than when wafka is imported: loading them (node:crypto
 * and node:tls above all) is a few milliseconds of every process's start-up,
 * spent even by a client that never uses TLS, SCRAM or gzip.
 *
 * process.getBuiltinModule (Node >= 20.16, Deno, Bun) loads one
 * synchronously; where it is missing, `preloadBuiltins` (awaited on connect
 * and by loadCodecs) imports them first.
 */
export interface Builtins {
  'node:tls': typeof import('node:tls')
  'node:crypto': typeof import('node:crypto')
  'node:zlib': typeof import('node:zlib')
  'node:diagnostics_channel': typeof import('node:diagnostics_channel')
}
type Name = keyof Builtins

const loaded: Partial<Builtins> = {}
const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule

export function builtin<N extends Name>(name: N): Builtins[N] {
  let m = loaded[name]
  if (m === undefined) {
    m = getBuiltinModule?.(name) as Builtins[N] | undefined
    if (m === undefined) throw new WafkaError(`${name} is not loaded yet on this runtime: await loadCodecs() (or connect a client) first`)
    loaded[name] = m
  }
  return m
}

/**
 * A built-in that a runtime may not have (node:diagnostics_channel): the
 * module, null when this runtime has none, undefined when it cannot be known
 * yet (no getBuiltinModule, and preloadBuiltins has not run).
 */
export function optionalBuiltin<N extends Name>(name: N): Builtins[N] | null | undefined {
  const m = loaded[name]
  if (m !== undefined) return m
  if (!getBuiltinModule) return missing.has(name) ? null : undefined
  const found = (getBuiltinModule(name) as Builtins[N] | undefined) ?? null
  if (found) loaded[name] = found
  return found
}
const missing = new Set<Name>()

/** Imports the built-ins where they cannot be loaded synchronously on first use; cheap to call again. */
export async function preloadBuiltins(): Promise<void> {
  if (getBuiltinModule || loaded['node:tls']) return
  const [tls, crypto, zlib, dc] = await Promise.all([
    import('node:tls'),
    import('node:crypto'),
    import('node:zlib'),
    import('node:diagnostics_channel').catch(() => null),
  ])
  loaded['node:tls'] = tls
  loaded['node:crypto'] = crypto
  loaded['node:zlib'] = zlib
  if (dc) loaded['node:diagnostics_channel'] = dc
  else missing.add('node:diagnostics_channel')
}
