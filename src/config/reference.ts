import type { Alias, OptionSpec, OptionTable } from './option.js'

/** One options object as the docs show it: its README section and the interfaces whose JSDoc its table writes. */
export interface OptionsDoc {
  /** The README section's title. */
  title: string
  table: OptionTable
  aliases: Readonly<Record<string, Alias>>
}

export const REFERENCE_BEGIN =
  '<!-- configuration reference: generated from the option tables (src/build/option-docs.ts) by `npm run generate:readme` -->'
export const REFERENCE_END = '<!-- end of configuration reference -->'

/** The README's configuration reference: a section a table. */
export function configurationReference(docs: readonly OptionsDoc[]): string {
  return [REFERENCE_BEGIN, '', ...docs.map(section), REFERENCE_END].join('\n')
}

/** How an option's default reads: its defaultDoc, else the value as JSON, else a dash. */
export function defaultText(spec: OptionSpec): string {
  return spec.defaultDoc ?? (spec.default === undefined ? '—' : `\`${JSON.stringify(spec.default)}\``)
}

/** " (min–max)" for a number, else nothing. */
export function rangeText(spec: OptionSpec): string {
  return spec.max !== undefined ? ` (${spec.min ?? 0}–${spec.max})` : ''
}

function section({ title, table, aliases }: OptionsDoc): string {
  const rows = Object.entries(table).map(([name, spec]) => {
    return `| \`${name}\` | ${defaultText(spec)} | ${spec.doc.replaceAll('|', '\\|')}${rangeText(spec)} | ${spec.java ? `\`${spec.java}\`` : ''} |`
  })
  const same = Object.entries(aliases)
    .filter(([, a]) => 'use' in a)
    .map(([k, a]) => `\`${k}\` → \`${(a as { use: string }).use}\``)
  const other = Object.entries(aliases)
    .filter(([, a]) => 'instead' in a)
    .map(([k]) => `\`${k}\``)
  const notes = [
    same.length ? `KafkaJS names taken as ours: ${same.join(', ')}.` : '',
    other.length ? `KafkaJS names refused with what to use instead: ${other.join(', ')}.` : '',
  ].filter(Boolean)
  return [
    `### ${title}`,
    '',
    '| Option | Default | Meaning | Java |',
    '|---|---|---|---|',
    ...rows,
    '',
    ...(notes.length ? [notes.join(' '), ''] : []),
  ].join('\n')
}
