/** What a consumed message offers to a format string or a JSON line. */
export interface Shown {
  topic: string
  partition: number
  offset: string
  timestamp: string
  key: Buffer | null
  value: Buffer | null
  headers: Array<[string, Buffer | null]>
}

const text = (b: Buffer | null) => (b === null ? '' : b.toString('utf8'))

/**
 * A kcat-style format string compiled once: %t topic, %p partition, %o
 * offset, %k key, %s value, %h headers (k=v,k=v), %T timestamp (ms), %K / %S
 * key and value lengths (-1 for null), %%; \n \t \r \\ escapes.
 */
export function compileFormat(format: string): (m: Shown) => string {
  const parts: Array<string | ((m: Shown) => string)> = []
  let lit = ''
  for (let i = 0; i < format.length; i++) {
    const c = format[i]
    if (c === '\\' && i + 1 < format.length) {
      const n = format[++i]
      lit += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : n === '0' ? '\0' : n
      continue
    }
    if (c !== '%' || i + 1 >= format.length) {
      lit += c
      continue
    }
    const f = format[++i]
    const field: Record<string, (m: Shown) => string> = {
      t: (m) => m.topic,
      p: (m) => String(m.partition),
      o: (m) => m.offset,
      k: (m) => text(m.key),
      s: (m) => text(m.value),
      K: (m) => String(m.key === null ? -1 : m.key.length),
      S: (m) => String(m.value === null ? -1 : m.value.length),
      T: (m) => m.timestamp,
      h: (m) => m.headers.map(([k, v]) => `${k}=${text(v)}`).join(','),
    }
    if (f === '%') lit += '%'
    else if (field[f]) {
      if (lit) parts.push(lit)
      lit = ''
      parts.push(field[f])
    } else throw new Error(`unknown format field %${f} (known: %t %p %o %k %s %K %S %T %h %%)`)
  }
  if (lit) parts.push(lit)
  return (m) => {
    let out = ''
    for (const p of parts) out += typeof p === 'string' ? p : p(m)
    return out
  }
}

/** One JSON line: numbers for partition, offset and timestamp; key, value and header values as UTF-8 text (null kept). */
export function jsonLine(m: Shown): string {
  const headers: Record<string, string | null> = {}
  for (const [k, v] of m.headers) headers[k] = v === null ? null : v.toString('utf8')
  return (
    JSON.stringify({
      topic: m.topic,
      partition: m.partition,
      offset: Number(m.offset),
      timestamp: Number(m.timestamp),
      key: m.key === null ? null : m.key.toString('utf8'),
      value: m.value === null ? null : m.value.toString('utf8'),
      headers,
    }) + '\n'
  )
}
