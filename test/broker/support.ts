import { brokerCommand } from '../../src/broker/command.js'
import { logLevel, type KafkaMessage, type LogCreator, type LogLevel } from '../../src/index.js'
import { DescribeConfigs, DescribeGroups, FindCoordinator } from '../../src/protocol/messages/index.js'
import { describeMessage, type TestMessage } from './messages.js'
import { RawClient } from './raw-client.js'
import { untilTrue as until } from '../support/until.js'

/** The shared bounded wait, in its boolean form: `until(done, timeoutMs, what)`. */
export { until }

export interface Received {
  partition: number
  offset: bigint
  key: Buffer | null
  value: Buffer | null
  headers: [string, Buffer | null][]
  timestamp: number
}

export function received(partition: number, m: KafkaMessage): Received {
  return {
    partition,
    offset: m.offsetBigInt,
    key: m.key,
    value: m.value,
    headers: m.headerList as [string, Buffer | null][],
    timestamp: Number(m.timestamp),
  }
}

/**
 * Checks `got` is exactly `sent`: every message once, byte for byte
 * (keys, values, header names, values and order, timestamps), and within a
 * partition in the order sent. Returns the problems (empty when none).
 */
export function compareExactly(
  sent: TestMessage[],
  got: {
    key: Buffer | null
    value: Buffer | null
    headers: [string, Buffer | null][]
    timestamp?: number
    partition: number
    offset: number | bigint
  }[],
): string[] {
  const problems: string[] = []
  const index = new Map<string, number[]>()
  sent.forEach((m, i) => {
    const k = describeMessage(m)
    index.set(k, [...(index.get(k) ?? []), i])
  })
  const lastSent = new Map<number, number>()
  const seen = new Set<number>()
  for (const g of got) {
    const k = describeMessage(g)
    const candidates = index.get(k)
    const i = candidates?.find((c) => !seen.has(c))
    if (i === undefined) {
      problems.push(`partition ${g.partition} offset ${g.offset}: ${candidates ? 'read twice' : 'never sent'}: ${k.slice(0, 200)}`)
      continue
    }
    seen.add(i)
    if (g.timestamp !== undefined && g.timestamp !== sent[i].timestamp)
      problems.push(`message ${i}: timestamp ${g.timestamp}, sent ${sent[i].timestamp}`)
    if ((lastSent.get(g.partition) ?? -1) > i)
      problems.push(`partition ${g.partition}: message ${i} after message ${lastSent.get(g.partition)}`)
    lastSent.set(g.partition, i)
  }
  const missing = sent.length - seen.size
  if (missing) problems.push(`${missing} of ${sent.length} messages never read`)
  return problems.slice(0, 10)
}

/** A broker's configs as DescribeConfigs gives them: name → [value, configSource]. */
export async function brokerConfigs(client: RawClient, broker = '0'): Promise<Record<string, [string | null, number]>> {
  const res = await client.request(DescribeConfigs, 4, {
    resources: [{ resourceType: 4, resourceName: broker, configurationKeys: null }],
    includeSynonyms: false,
    includeDocumentation: false,
  })
  if (res.results[0].errorCode !== 0) throw new Error(`DescribeConfigs: error ${res.results[0].errorCode}`)
  return Object.fromEntries(res.results[0].configs.map((c) => [c.name, [c.value, c.configSource]]))
}

/**
 * startCluster options that keep what the broker logs (INFO and up) in
 * `into`, each as `broker N: message` (the message alone for the cluster's
 * own entries), for tests that check what it said.
 */
export function keepLog(into: string[], level: LogLevel = logLevel.INFO): { logLevel: LogLevel; logCreator: LogCreator } {
  return {
    logLevel: level,
    logCreator:
      () =>
      ({ log }) =>
        void into.push(typeof log.broker === 'number' ? `broker ${log.broker}: ${log.message}` : log.message),
  }
}

/**
 * A group's coordinator (its node id), asked as a client asks before its
 * group requests: the first ask creates __consumer_offsets, as Kafka's
 * broker does, and no broker coordinates a group before it.
 */
export async function groupCoordinator(client: RawClient, groupId: string): Promise<number> {
  const found = (await client.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] })).coordinators[0]
  if (found.errorCode !== 0) throw new Error(`FindCoordinator for ${groupId}: error ${found.errorCode}`)
  return found.nodeId
}

/**
 * A connection to `groupId`'s coordinator, found from `bootstrap` and kept in
 * `open` (with the bootstrap connection) for the caller to close. Waits, as a
 * client does, while Kafka answers COORDINATOR_NOT_AVAILABLE (no
 * __consumer_offsets yet), NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS.
 */
export async function openCoordinator(bootstrap: string, groupId: string, open: RawClient[]): Promise<RawClient> {
  const boot = await RawClient.open(bootstrap.split(',')[0])
  open.push(boot)
  let found: { host: string; port: number; errorCode: number } | undefined
  await until(
    async () => {
      found = (await boot.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] })).coordinators[0]
      return found.errorCode === 0
    },
    30_000,
    () => `coordinator of ${groupId}: ${JSON.stringify(found)}`,
  )
  const c = await RawClient.open(`${found!.host}:${found!.port}`)
  open.push(c)
  let state = -1
  await until(
    async () => ((state = (await c.request(DescribeGroups, 5, { groups: [groupId] })).groups[0].errorCode), ![14, 15, 16].includes(state)),
    30_000,
    () => `coordinator of ${groupId} loaded: ${state}`,
  )
  return c
}

/** A `wafka broker ARGS` running in this process (brokerCommand): what it printed, its bootstrap servers, and its stop. */
export interface ServedBroker {
  lines: string[]
  bootstrap: string[]
  /** Sends it SIGTERM; resolves with its exit code once it has stopped. */
  stop(): Promise<number>
}

/** Starts `wafka broker ARGS` in this process and resolves once it serves (its bootstrap line printed, within 10 s). */
export async function serveBroker(args: string[]): Promise<ServedBroker> {
  const lines: string[] = []
  let signal!: (name: string) => void
  const stopped = new Promise<string>((resolve) => (signal = resolve))
  const serving = brokerCommand(
    args,
    (l) => lines.push(l),
    () => stopped,
  )
  const stop = () => {
    signal('SIGTERM')
    return serving
  }
  const served = () => lines.find((l) => /bootstrap servers/.test(l))
  try {
    await Promise.race([
      until(
        () => served() !== undefined,
        10_000,
        () => lines.join('\n'),
      ),
      serving.then((code) => {
        throw new Error(`wafka broker ${args.join(' ')} ended (${code}) before serving: ${lines.join('\n')}`)
      }),
    ])
  } catch (err) {
    await stop().catch(() => {})
    throw err
  }
  return { lines, bootstrap: /bootstrap servers (\S+)/.exec(served()!)![1].split(','), stop }
}
