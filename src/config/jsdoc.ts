import { defaultText, rangeText } from './reference.js'
import type { OptionSpec, OptionTable } from './option.js'

/** Where a generated comment is wrapped (the project's prettier printWidth). */
const WIDTH = 140

/** An option's JSDoc text: its meaning, default, range and Java name, as the README's row says them. */
export function optionJsDoc(spec: OptionSpec): string {
  const dflt = defaultText(spec)
  const range = rangeText(spec)
  const parts = [spec.doc]
  if (dflt !== '—') parts.push(`Default: ${dflt}${range}.`)
  else if (range) parts.push(`Range${range.replace(/^ \((.*)\)$/, ' $1')}.`)
  if (spec.java) parts.push(`Java: \`${spec.java}\`.`)
  return parts.join(' ')
}

/**
 * `source` with the JSDoc of each property of `interface name` that `table`
 * has replaced by the table's (optionJsDoc): the table is the one place an
 * option is described, the interface's hover docs are written from it.
 * Properties the table does not have keep their own comments.
 */
export function withOptionJsDoc(source: string, name: string, table: OptionTable): string {
  const lines = source.split('\n')
  const start = lines.findIndex((l) => new RegExp(`^export interface ${name}\\b.*\\{$`).test(l))
  if (start < 0) throw new Error(`no 'export interface ${name} ... {' line`)
  const out = lines.slice(0, start + 1)
  let i = start + 1
  for (; i < lines.length && lines[i] !== '}'; i++) {
    const property = /^ {2}(?:readonly )?(\w+)\??:/.exec(lines[i])?.[1]
    if (property === undefined || !Object.hasOwn(table, property)) {
      out.push(lines[i])
      continue
    }
    // Drop the comment above (one JSDoc block, or // lines), then write the table's.
    while (out.length > start + 1 && /^ {2}(\/\/|\/\*\*| \*)/.test(out[out.length - 1])) {
      const last = out.pop()!
      if (/^ {2}\/\*\*/.test(last)) break
    }
    out.push(...comment(optionJsDoc(table[property])), lines[i])
  }
  if (i === lines.length) throw new Error(`interface ${name} does not end with a '}' line`)
  return [...out, ...lines.slice(i)].join('\n')
}

function comment(text: string): string[] {
  const one = `  /** ${text} */`
  if (one.length <= WIDTH) return [one]
  const rows: string[] = []
  let row = ''
  for (const word of text.split(' ')) {
    if (row && `   * ${row} ${word}`.length > WIDTH) {
      rows.push(`   * ${row}`)
      row = word
    } else row = row ? `${row} ${word}` : word
  }
  rows.push(`   * ${row}`)
  return ['  /**', ...rows, '   */']
}
