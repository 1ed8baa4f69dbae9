/**
 * `--channels`: the wafka child subscribes to every tracing channel
 * (src/observe/channels.ts) before it connects, with handlers that only
 * count, so the figures show what the channels cost an instrumented process
 * with no tracer's own work on top. Without the flag nobody subscribes: the
 * figures of the ordinary run.
 */
import * as dc from 'node:diagnostics_channel'

export const channelsFlag = (): boolean => process.argv.includes('--channels')

/** Subscribes a counting handler to each event of every wafka channel; returns the count so far. */
export async function subscribeChannels(): Promise<() => number> {
  // Imported here so a peer's child never loads wafka.
  const { channelNames } = await import('../../src/observe/channels.js')
  let events = 0
  const count = () => void events++
  for (const name of Object.values(channelNames))
    dc.tracingChannel(name).subscribe({ start: count, end: count, asyncStart: count, asyncEnd: count, error: count })
  return () => events
}
