// The word count the streams-group tests run (RigStreams' wordcount: the
// words of each line, lower case, split on \W+, counted in store `counts` in
// sub-topology 1 behind a repartition topic), its input lines and the counts
// they give, and the broker settings those tests share: a streams group
// assigns at once and heartbeats twice a second (Kafka's 3 s delay and 5 s
// interval lowered on both brokers).
import { Serdes, StreamsBuilder, type Topology } from '../../src/public/streams.js'

const str = Serdes.String()
export const WORDS = ['kafka', 'streams', 'wafka', 'java', 'table', 'window', 'join', 'count', 'x', 'a1']

export function wordCountTopology(input: string, output: string): Topology {
  const b = new StreamsBuilder()
  b.stream<string, string>(input, { keySerde: str, valueSerde: str })
    .flatMapValues((line) => line.toLowerCase().split(/\W+/).filter(Boolean))
    .groupBy((_key, word) => word)
    .count({ storeName: 'counts' })
    .toStream()
    .to(output, { keySerde: str, valueSerde: Serdes.Long() })
  return b.build()
}

/** `n` lines of 1 to 4 words, spread over `partitions` partitions (deterministic for a seed). */
export function wordLines(
  n: number,
  partitions: number,
  seed = 7,
): Array<{ key: string; value: string; timestamp: number; partition: number }> {
  let x = seed
  const next = (m: number) => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x % m
  }
  return Array.from({ length: n }, (_, i) => ({
    key: `k${i}`,
    value: Array.from({ length: 1 + next(4) }, () => WORDS[next(WORDS.length)]).join(' '),
    timestamp: Date.now(),
    partition: i % partitions,
  }))
}

/** What the word count ends with for `records`. */
export function countWords(records: Array<{ value: string }>): Map<string, bigint> {
  const counts = new Map<string, bigint>()
  for (const r of records) for (const w of r.value.toLowerCase().split(/\W+/).filter(Boolean)) counts.set(w, (counts.get(w) ?? 0n) + 1n)
  return counts
}

/** brokerTargets() options: streams groups assign at once and heartbeat every 500 ms (Kafka 4.4 serves them as it is). */
export const FAST_STREAMS_GROUPS = {
  kafka: {
    config: {
      'group.streams.initial.rebalance.delay.ms': '0',
      'group.streams.min.heartbeat.interval.ms': '500',
      'group.streams.heartbeat.interval.ms': '500',
    },
  },
  embedded: {
    streamsGroupInitialRebalanceDelayMs: 0,
    streamsGroupMinHeartbeatIntervalMs: 500,
    streamsGroupHeartbeatIntervalMs: 500,
  },
}
