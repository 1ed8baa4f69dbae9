// The tracing channels' names (src/observe/channels.ts), apart: wafka/otel
// subscribes by name and needs nothing else of the client.

/** The channel names, for subscribers: `diagnostics_channel.tracingChannel(channelNames.send)`. */
export const channelNames = {
  request: 'wafka:request',
  send: 'wafka:producer:send',
  produce: 'wafka:producer:produce',
  process: 'wafka:consumer:process',
  batch: 'wafka:consumer:batch',
  commit: 'wafka:consumer:commit',
  rebalance: 'wafka:consumer:rebalance',
} as const

/** A plain channel (not a tracing one): producers and consumers announce themselves on connect and disconnect (src/observe/statistics.ts). */
export const clientChannelName = 'wafka:client'

/** A plain channel: each statisticsIntervalMs snapshot a producer or consumer takes (src/observe/statistics.ts). */
export const statsChannelName = 'wafka:stats'
