// A word count under exactly_once_v2 in a process of its own, for
// exactly-once.test.ts to kill -9 mid-run: EOS_BROKERS, EOS_APP, EOS_INPUT,
// EOS_OUTPUT say where; it prints `state RUNNING` (each state) on stdout.
// state-dir.test.ts sets EOS_GUARANTEE, EOS_STATE_DIR and EOS_SESSION_TIMEOUT_MS too.
import { KafkaStreams, Serdes, StreamsBuilder } from '../../src/public/streams.js'

const env = (name: string) => {
  const v = process.env[name]
  if (!v) throw new Error(`${name} is not set`)
  return v
}
const builder = new StreamsBuilder()
builder
  .stream<string, string>(env('EOS_INPUT'), { keySerde: Serdes.String(), valueSerde: Serdes.String() })
  .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
  .groupBy((_key, word) => word)
  .count({ storeName: 'counts' })
  .toStream()
  .to(env('EOS_OUTPUT'), { keySerde: Serdes.String(), valueSerde: Serdes.Long() })
const app = new KafkaStreams(builder.build(), {
  applicationId: env('EOS_APP'),
  brokers: env('EOS_BROKERS'),
  processingGuarantee: (process.env.EOS_GUARANTEE as 'at_least_once' | undefined) ?? 'exactly_once_v2',
  ...(process.env.EOS_STATE_DIR && { stateDir: process.env.EOS_STATE_DIR }),
  ...(process.env.EOS_SESSION_TIMEOUT_MS && { sessionTimeoutMs: Number(process.env.EOS_SESSION_TIMEOUT_MS), heartbeatIntervalMs: 1000 }),
  ...(process.env.EOS_GUARANTEE === 'at_least_once' && { commitIntervalMs: 100 }),
  defaultApiTimeoutMs: 60_000,
  // Every update forwarded and logged: the tests count one output record per word.
  statestoreCacheMaxBytes: 0,
  defaultKeySerde: Serdes.String(),
  defaultValueSerde: Serdes.String(),
  logLevel: 1,
})
app.on('stateChange', (next) => process.stdout.write(`state ${next}\n`))
await app.start()
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
