import { KAFKA_ALIASES, KAFKA_OPTIONS } from '../cluster/options.js'
import { withOptionJsDoc } from '../config/jsdoc.js'
import { configurationReference as reference, type OptionsDoc } from '../config/reference.js'
import { CONSUMER_ALIASES, CONSUMER_OPTIONS } from '../consumer/config.js'
import { SHARE_CONSUMER_ALIASES, SHARE_CONSUMER_OPTIONS } from '../consumer/share/config.js'
import { PRODUCER_ALIASES, PRODUCER_OPTIONS } from '../producer/config.js'

/** An options interface whose properties' JSDoc its table writes: the file (from the repository root) and the name. */
export interface DocumentedInterface {
  file: string
  name: string
}

/**
 * The public options objects, in the README's order: each table is the one
 * place its options are described; the README's configuration reference and
 * the JSDoc of the interfaces named here are generated from it
 * (`npm run generate:readme`; test/config/options.test.ts fails when either
 * is stale). The mechanism is src/config's; this list is above the layers it
 * names, so src/config imports none of them.
 */
export const OPTION_DOCS: ReadonlyArray<OptionsDoc & { interfaces: readonly DocumentedInterface[] }> = [
  {
    title: '`new Kafka({...})` (and `kafka.admin({...})` overrides)',
    table: KAFKA_OPTIONS,
    aliases: KAFKA_ALIASES,
    interfaces: [
      { file: 'src/net/connection-options.ts', name: 'ConnectionOptions' },
      { file: 'src/cluster/options.ts', name: 'ClusterOptions' },
    ],
  },
  {
    title: '`kafka.producer({...})`',
    table: PRODUCER_OPTIONS,
    aliases: PRODUCER_ALIASES,
    interfaces: [{ file: 'src/producer/config.ts', name: 'ProducerConfig' }],
  },
  {
    title: '`kafka.consumer({...})`',
    table: CONSUMER_OPTIONS,
    aliases: CONSUMER_ALIASES,
    interfaces: [{ file: 'src/consumer/config.ts', name: 'ConsumerConfig' }],
  },
  {
    title: '`kafka.shareConsumer({...})`',
    table: SHARE_CONSUMER_OPTIONS,
    aliases: SHARE_CONSUMER_ALIASES,
    interfaces: [{ file: 'src/consumer/share/config.ts', name: 'ShareConsumerConfig' }],
  },
]

/** The README's configuration reference. */
export function configurationReference(): string {
  return reference(OPTION_DOCS)
}

/** `source` (the text of `file`) with its documented interfaces' JSDoc written from their tables. */
export function withGeneratedJsDoc(file: string, source: string): string {
  let text = source
  for (const doc of OPTION_DOCS)
    for (const target of doc.interfaces) if (target.file === file) text = withOptionJsDoc(text, target.name, doc.table)
  return text
}

/** Every file withGeneratedJsDoc() writes. */
export function documentedFiles(): string[] {
  return [...new Set(OPTION_DOCS.flatMap((d) => d.interfaces.map((i) => i.file)))]
}
