import { ConfigError } from '../errors.js'
import { INT32_MAX } from '../int32.js'

/**
 * One option: its default (or, when it derives from another option, what it
 * defaults to), what it means, and, for numbers, its range. The tables of
 * these sit beside what they describe (cluster/options.ts,
 * net/connection-options.ts, producer/config.ts, consumer/config.ts, the
 * per-call ones in admin/, producer/ and consumer/); they are the single
 * source the resolvers, validation, the README's configuration reference and
 * the options interfaces' JSDoc read. This module is the mechanism only: it
 * imports no layer it describes.
 */
export interface OptionSpec {
  /** The value used when the option is absent; undefined when it has none or derives from another. */
  default?: unknown
  /** How the default reads in the docs when it is not a plain value ("maxPollIntervalMs", "the broker's choice"). */
  defaultDoc?: string
  doc: string
  /** Numbers only: the smallest accepted value (0 unless said). */
  min?: number
  /** Numbers only: the largest; millisecond fields are capped at int32 (Kafka's field width). */
  max?: number
  /** The Java client's name, when it has one. */
  java?: string
  /**
   * What a value must be, for the options checked by checkOptions() (the
   * per-call ones); a spec with `max` is a number. 'integer' is a number
   * too; 'offset' a non-negative integer as a number, bigint or numeric
   * string; 'any' is checked by the code that takes it.
   */
  kind?: ValueKind
  /** null is accepted (and means what the option documents). */
  nullable?: boolean
}

export type ValueKind = 'number' | 'integer' | 'string' | 'boolean' | 'function' | 'array' | 'object' | 'offset' | 'any'

export type OptionTable = Readonly<Record<string, OptionSpec>>

/**
 * A name another client (KafkaJS) uses: either the same meaning under our
 * name (`use`, taken as if it were ours), or something else, with what to
 * do instead.
 */
export type Alias = { use: string } | { instead: string }

/** A millisecond option: an int32 at most (Kafka's field width, and setTimeout's), `min` at least. */
export const msOption = (dflt: number | undefined, doc: string, java?: string, min = 0): OptionSpec => ({
  default: dflt,
  doc,
  java,
  min,
  max: INT32_MAX,
})

/** A count (bytes, requests): from `min` to int32. */
export const countOption = (dflt: number | undefined, doc: string, java?: string, min = 1): OptionSpec => ({
  default: dflt,
  doc,
  java,
  min,
  max: INT32_MAX,
})

/** Any other option: its default kept as its literal type (the resolvers read it). */
export const valueOption = <const T>(dflt: T, doc: string, java?: string) => ({ default: dflt, doc, java }) satisfies OptionSpec

/** A per-call option, checked by checkOptions() against `kind`. */
export const callOption = (kind: ValueKind, doc: string, extra: Partial<OptionSpec> = {}): OptionSpec => ({ kind, doc, ...extra })

/**
 * `true` when `Table` names exactly the keys of `Options`, else what is
 * missing and extra. `Expect<SameKeys<typeof TABLE, Options>>`, written
 * where both can be imported (when the options type's file imports the
 * table, the table's file cannot import the type: a circle), fails to
 * compile when a key is added to one and not the other.
 */
export type SameKeys<Table, Options> = [Exclude<keyof Options, keyof Table>, Exclude<keyof Table, keyof Options>] extends [never, never]
  ? true
  : { missingFromTable: Exclude<keyof Options, keyof Table>; notInOptions: Exclude<keyof Table, keyof Options> }

/** Compiles only when `T` is `true`. */
export type Expect<T extends true> = T

/** A numeric option: `fallback` when absent, else a finite number >= min (a ConfigError naming it otherwise). */
export function positive(name: string, value: number | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new ConfigError(`${name} must be a number >= ${min}, not ${JSON.stringify(value)}`)
  }
  return value
}

/** An option taking one of `allowed`: `fallback` when absent. */
export function oneOf<T extends string>(name: string, value: T | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback
  if (!allowed.includes(value))
    throw new ConfigError(`${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, not ${JSON.stringify(value)}`)
  return value
}

/** A number within the option's range, or its default when absent. */
export function numberOption(table: OptionTable, name: string, value: unknown, fallback?: number): number {
  const spec = table[name]
  const dflt = fallback ?? (spec.default as number)
  if (value === undefined) return dflt
  const min = spec.min ?? 0
  const max = spec.max ?? Number.MAX_SAFE_INTEGER
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number from ${min} to ${max}, not ${JSON.stringify(value)}`)
  }
  return value
}

/**
 * Checks an options object's keys against `table`: a KafkaJS name with the
 * same meaning is taken under ours (unless ours is given too), one with a
 * different meaning, or a key nobody knows, is a ConfigError naming it and
 * what to use (the nearest valid name, for a typo). Returns the options
 * under our names.
 */
export function checkKeys<T extends object>(
  scope: string,
  given: T | undefined,
  table: OptionTable,
  aliases: Readonly<Record<string, Alias>> = {},
): T {
  if (given === undefined || given === null) return {} as T
  if (typeof given !== 'object' || Array.isArray(given))
    throw new ConfigError(`${scope} options must be an object, not ${Array.isArray(given) ? 'an array' : typeof given}`)
  let out: Record<string, unknown> | undefined
  for (const key of Object.keys(given)) {
    if (Object.hasOwn(table, key)) continue
    const alias = Object.hasOwn(aliases, key) ? aliases[key] : undefined
    if (alias && 'use' in alias) {
      const o: Record<string, unknown> = (out ??= { ...(given as Record<string, unknown>) })
      if (o[alias.use] !== undefined)
        throw new ConfigError(`${scope} option ${key} is KafkaJS's name for ${alias.use}: give one of them, not both`)
      o[alias.use] = o[key]
      delete o[key]
      continue
    }
    if (alias) throw new ConfigError(`${scope} option ${key} (KafkaJS) is not supported: ${alias.instead}`)
    const near = nearest(key, Object.keys(table))
    throw new ConfigError(
      `unknown ${scope} option ${key}${near ? `: did you mean ${near}?` : ''} (valid: ${Object.keys(table).join(', ')})`,
    )
  }
  return (out ?? given) as T
}

/**
 * An options object checked whole: its keys as checkKeys() checks them, and
 * each value given against its spec's kind and range, so a wrong type is a
 * ConfigError naming the option rather than a failure somewhere later.
 * For per-call options (send, run, subscribe, ...): no allocation when the
 * keys are all known.
 */
export function checkOptions<T extends object>(
  scope: string,
  given: T | undefined,
  table: OptionTable,
  aliases: Readonly<Record<string, Alias>> = {},
): T {
  if (given === undefined || given === null || typeof given !== 'object' || Array.isArray(given))
    return checkKeys(scope, given, table, aliases)
  let options = given as Record<string, unknown>
  for (const key in options) {
    if (!Object.hasOwn(options, key)) continue
    if (!Object.hasOwn(table, key)) {
      options = checkKeys(scope, options, table, aliases)
      break
    }
  }
  for (const key in options) if (Object.hasOwn(options, key)) checkValue(scope, key, options[key], table[key])
  return options as T
}

/** A list of options objects (commitOffsets, pause, createTopics' topics...): an array, each entry checked against `table`. */
export function checkEntries(scope: string, list: unknown, table: OptionTable): void {
  if (!Array.isArray(list)) throw new ConfigError(`${scope} takes an array of { ${Object.keys(table).join(', ')} }`)
  for (const entry of list) checkOptions(`${scope} entry`, entry, table)
}

/**
 * A positional argument (fetchTopicOffsets(topic), describeGroups(groupIds)):
 * present unless `optional`, and of its kind; an array's entries of `entries`.
 */
export function checkArgument(
  scope: string,
  name: string,
  value: unknown,
  spec: Pick<OptionSpec, 'kind' | 'min' | 'max'> & { optional?: boolean; entries?: ValueKind },
): void {
  if (value === undefined && !spec.optional) throw new ConfigError(`${scope} needs its ${name} argument`)
  checkValue(scope, name, value, { doc: name, ...spec }, 'argument')
  if (spec.entries && Array.isArray(value))
    value.forEach((entry, i) => checkValue(scope, `${name}[${i}]`, entry, { doc: name, kind: spec.entries }, 'argument'))
}

function checkValue(scope: string, key: string, value: unknown, spec: OptionSpec, what: 'option' | 'argument' = 'option'): void {
  if (value === undefined || (value === null && spec.nullable)) return
  const kind = spec.kind ?? (spec.max !== undefined ? 'number' : 'any')
  let ok: boolean
  let expected: string
  switch (kind) {
    case 'number':
    case 'integer': {
      const min = spec.min ?? 0
      const max = spec.max ?? Number.MAX_SAFE_INTEGER
      ok =
        typeof value === 'number' &&
        Number.isFinite(value) &&
        value >= min &&
        value <= max &&
        (kind === 'number' || Number.isInteger(value))
      expected = `${kind === 'integer' ? 'an integer' : 'a number'} from ${min} to ${max}`
      break
    }
    case 'offset':
      ok =
        (typeof value === 'bigint' && value >= 0n) ||
        (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ||
        (typeof value === 'string' && /^\d+$/.test(value))
      expected = 'an offset (an integer >= 0: a number, bigint or numeric string)'
      break
    case 'string':
      ok = typeof value === 'string'
      expected = 'a string'
      break
    case 'boolean':
      ok = typeof value === 'boolean'
      expected = 'true or false'
      break
    case 'function':
      ok = typeof value === 'function'
      expected = 'a function'
      break
    case 'array':
      ok = Array.isArray(value)
      expected = 'an array'
      break
    case 'object':
      ok = typeof value === 'object' && value !== null && !Array.isArray(value)
      expected = 'an object'
      break
    case 'any':
      return
  }
  if (!ok) throw new ConfigError(`${scope} ${what} ${key} must be ${expected}${spec.nullable ? ' or null' : ''}, not ${shown(value)}`)
}

/** A value as an error message shows it (never a secret: options checked here carry none). */
function shown(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'symbol') return 'a symbol'
  try {
    const text = JSON.stringify(value)
    return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text
  } catch {
    return typeof value
  }
}

/** The candidate closest to `key` (case-insensitive edit distance), if it is close enough to be a typo. */
export function nearest(key: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  const k = key.toLowerCase()
  for (const c of candidates) {
    const cl = c.toLowerCase()
    // A prefix ("requestTimeout" for "requestTimeoutMs") is the likeliest slip.
    const d = cl.startsWith(k) || k.startsWith(cl) ? Math.abs(cl.length - k.length) * 0.5 : editDistance(k, cl)
    if (d < bestDistance) {
      bestDistance = d
      best = c
    }
  }
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]
}
