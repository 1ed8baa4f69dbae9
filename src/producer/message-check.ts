import { ConfigError } from '../errors.js'

/**
 * What a record's bytes may be given as: a string (UTF-8), a Buffer or
 * other Uint8Array, or null. Anything else (a number, an object, an array
 * of numbers) would be written as something else, so it fails the send,
 * naming the message and field, before anything of it is written.
 */
export function checkMessage(topic: string, index: number, m: unknown): void {
  // The common message (bytes, no headers) passes without building the description of where it sits.
  if (m !== null && typeof m === 'object') {
    const { key, value, headers } = m as { key?: unknown; value?: unknown; headers?: unknown }
    if (isBytes(value) && (key === undefined || isBytes(key)) && (headers === undefined || headers === null)) return
  }
  checkThoroughly(topic, index, m)
}

function checkThoroughly(topic: string, index: number, m: unknown): void {
  const where = `send() to ${topic}: messages[${index}]`
  if (m === null || typeof m !== 'object')
    throw new ConfigError(`${where} is ${describe(m)}; a message is an object { key?, value, headers? }`)
  const { key, value, headers } = m as { key?: unknown; value?: unknown; headers?: unknown }
  if (!isBytes(value)) throw new ConfigError(`${where}.value is ${describe(value)}; a value is a string, a Buffer/Uint8Array or null`)
  if (key !== undefined && !isBytes(key))
    throw new ConfigError(`${where}.key is ${describe(key)}; a key is a string, a Buffer/Uint8Array, null or absent`)
  if (headers === undefined || headers === null) return
  if (typeof headers !== 'object')
    throw new ConfigError(`${where}.headers is ${describe(headers)}; headers are an object or [key, value] pairs`)
  const header = (name: unknown, v: unknown, at: string) => {
    if (typeof name !== 'string')
      throw new ConfigError(`${where}.headers${at} has a key that is ${describe(name)}; a header key is a string`)
    if (!isBytes(v))
      throw new ConfigError(
        `${where}.headers['${name}']${at.startsWith('[') && Array.isArray(headers) ? '' : at} is ${describe(v)}; a header value is a string, a Buffer/Uint8Array or null`,
      )
  }
  if (Array.isArray(headers)) {
    headers.forEach((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2)
        throw new ConfigError(`${where}.headers[${i}] is ${describe(pair)}; a header pair is [key, value]`)
      header(pair[0], pair[1], `[${i}]`)
    })
    return
  }
  for (const name in headers as Record<string, unknown>) {
    const v = (headers as Record<string, unknown>)[name]
    if (v === undefined) continue
    if (Array.isArray(v)) v.forEach((item, i) => header(name, item, `[${i}]`))
    else header(name, v, '')
  }
}

function isBytes(v: unknown): boolean {
  return v === null || typeof v === 'string' || v instanceof Uint8Array
}

function describe(v: unknown): string {
  if (v === undefined) return 'undefined'
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return `an object (${(v as object).constructor?.name ?? 'Object'})`
  return `a ${typeof v}`
}
