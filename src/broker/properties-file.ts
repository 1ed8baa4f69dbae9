/**
 * Java's .properties syntax (java.util.Properties.load), as Kafka reads
 * server.properties: `key=value`, `key: value` or `key value`; `#` and `!`
 * comment lines; a line ending in an odd number of backslashes continues on
 * the next (whose leading blanks are dropped); `\t \n \r \f \uXXXX` escapes,
 * and a backslash before any other character is that character (`\=`, `\:`,
 * `\ `, `\\`). A key given twice keeps its last value, as Java's does.
 */

export interface Property {
  key: string
  value: string
  /** The line the entry starts on, from 1. */
  line: number
}

const BLANK = /[ \t\f]/

/** The entries of a .properties text, in order (a repeated key appears each time). */
export function parsePropertyLines(text: string): Property[] {
  const lines = text.split(/\r\n|\r|\n/)
  const out: Property[] = []
  for (let i = 0; i < lines.length; i++) {
    const start = i
    let logical = stripLeading(lines[i])
    if (logical === '' || logical[0] === '#' || logical[0] === '!') continue
    // An odd run of trailing backslashes escapes the line end: the next line continues this one.
    while (endsContinued(logical) && i + 1 < lines.length) logical = logical.slice(0, -1) + stripLeading(lines[++i])
    if (endsContinued(logical)) logical = logical.slice(0, -1)
    out.push({ ...splitEntry(logical), line: start + 1 })
  }
  return out
}

/** The properties of a .properties text, by key (the last of a repeated key). */
export function parseProperties(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const p of parsePropertyLines(text)) out[p.key] = p.value
  return out
}

function stripLeading(line: string): string {
  let i = 0
  while (i < line.length && BLANK.test(line[i])) i++
  return line.slice(i)
}

function endsContinued(line: string): boolean {
  let n = 0
  for (let i = line.length - 1; i >= 0 && line[i] === '\\'; i--) n++
  return n % 2 === 1
}

/** A logical line's key (up to the first unescaped `=`, `:` or blank) and value (after it, the separator and blanks). */
function splitEntry(line: string): { key: string; value: string } {
  let i = 0
  while (i < line.length) {
    const c = line[i]
    if (c === '\\') i += 2
    else if (c === '=' || c === ':' || BLANK.test(c)) break
    else i++
  }
  const key = unescape(line.slice(0, Math.min(i, line.length)))
  let j = i
  while (j < line.length && BLANK.test(line[j])) j++
  if (j < line.length && (line[j] === '=' || line[j] === ':')) j++
  while (j < line.length && BLANK.test(line[j])) j++
  return { key, value: unescape(line.slice(j)) }
}

const ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f' }

function unescape(s: string): string {
  if (!s.includes('\\')) return s
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s[i]
    if (c !== '\\') {
      out += c
      continue
    }
    const next = s[++i]
    if (next === undefined) break
    if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 1, i + 5))) {
      out += String.fromCharCode(parseInt(s.slice(i + 1, i + 5), 16))
      i += 4
    } else out += ESCAPES[next] ?? next
  }
  return out
}
