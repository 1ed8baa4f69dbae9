// What a tracing channel (src/observe/channels.ts) costs one traced call, the
// way a call site uses it: eachMessage's (src/consumer/delivery-runner.ts),
// one per message consumed. Three loops of the same awaited async handler:
// with no check at all (the code before the channels), with the `active`
// check and nobody subscribed (every process that does not trace), and with
// the channel subscribed by counting handlers (context built, five events
// published). The figures are ns per call, best of 5 runs each, in turn:
//   npm run build:js
//   node dist/bench/channels.js [calls]
// bench/results/channels.md holds the measured figures beside the end-to-end
// producer and consumer runs with and without --channels.
import * as dc from 'node:diagnostics_channel'
import { channels } from '../src/observe/channels.js'

const calls = Number(process.argv[2] ?? 1_000_000)
const message = { offset: '0', key: null, value: null, timestamp: '0', headers: {} }
let handled = 0
const handler = async (_payload: { topic: string; partition: number; message: typeof message }) => void handled++

async function bare(): Promise<void> {
  for (let i = 0; i < calls; i++) await handler({ topic: 't', partition: 0, message })
}

async function checked(): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const payload = { topic: 't', partition: 0, message }
    if (!channels.process.active) await handler(payload)
    else await channels.process.trace(async () => handler(payload), { groupId: 'g', topic: 't', partition: 0, message })
  }
}

async function best(run: () => Promise<void>): Promise<number> {
  let ns = Infinity
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint()
    await run()
    ns = Math.min(ns, Number(process.hrtime.bigint() - t0) / calls)
  }
  return ns
}

let events = 0
const count = () => void events++
const subscribers = { start: count, end: count, asyncStart: count, asyncEnd: count, error: count }
const channel = dc.tracingChannel(channels.process.name)

await best(bare) // warm-up
const none = await best(bare)
const quiet = await best(checked)
channel.subscribe(subscribers)
const traced = await best(checked)
channel.unsubscribe(subscribers)
if (events === 0) throw new Error('no event was published')

const f = (ns: number) => `${ns.toFixed(1)} ns`
console.log(`${calls.toLocaleString('en')} awaited handler calls, ${process.release.name} ${process.version}, best of 5:`)
console.log(`  no channel code:            ${f(none)} a call`)
console.log(`  active check, no subscriber: ${f(quiet)} a call (+${f(quiet - none)})`)
console.log(`  subscribed (5 events):       ${f(traced)} a call (+${f(traced - none)})`)
