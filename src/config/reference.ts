import {
  CONSUMER_ALIASES,
  CONSUMER_OPTIONS,
  KAFKA_ALIASES,
  KAFKA_OPTIONS,
  PRODUCER_ALIASES,
  PRODUCER_OPTIONS,
  defaultDoc,
} from './defaults.js'
import type { Alias, OptionTable } from './option.js'

export const REFERENCE_BEGIN = '<!-- configuration reference: generated from src/config/defaults.ts by `npm run generate:readme` -->'
export const REFERENCE_END = '<!-- end of configuration reference -->'

/** The README's configuration reference, from the defaults tables. */
export function configurationReference(): string {
  const parts = [
    section('`new Kafka({...})` (and `kafka.admin({...})` overrides)', 'kafka', KAFKA_OPTIONS, KAFKA_ALIASES),
    section('`kafka.producer({...})`', 'producer', PRODUCER_OPTIONS, PRODUCER_ALIASES),
    section('`kafka.consumer({...})`', 'consumer', CONSUMER_OPTIONS, CONSUMER_ALIASES),
  ]
  return [REFERENCE_BEGIN, '', ...parts, REFERENCE_END].join('\n')
}

function section(title: string, scope: string, table: OptionTable, aliases: Record<string, Alias>): string {
  const rows = Object.entries(table).map(([name, spec]) => {
    const dflt = defaultDoc(scope, name) ?? (spec.default === undefined ? '—' : `\`${JSON.stringify(spec.default)}\``)
    const range = spec.max !== undefined ? ` (${spec.min ?? 0}–${spec.max})` : ''
    return `| \`${name}\` | ${dflt} | ${spec.doc.replaceAll('|', '\\|')}${range} | ${spec.java ? `\`${spec.java}\`` : ''} |`
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
