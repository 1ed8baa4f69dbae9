import type { Admin } from '../admin/admin.js'
import { UnsupportedApiError } from '../errors.js'
import { decodeAssignment } from '../consumer/assignors/subscription.js'
import { CONNECTION_OPTIONS, CONNECTION_USAGE, UsageError, parse, resolveConnection, str, type Values } from './args.js'
import { show } from './table-output.js'
import { showGroupText } from './group-output.js'
import { topicPartitions } from './topic-check.js'
import type { Io } from './io.js'
import { withAdmin, type AdminAction } from './admin-action.js'
import { groupLag, watchLag } from './group-lag.js'
import { shareGroupView, showShareGroup } from './share-group-view.js'
import { showStreamsGroup, streamsGroupView } from './streams-group-view.js'

export const USAGE = `usage: wafka groups list|describe|lag|reset-offsets|delete -b BROKERS [options]

  wafka groups list                          groups with their state and type
  wafka groups describe GROUP                state, members, and per partition the committed
                                             offset, the log end and the lag; for a share group
                                             the start offset, the log end and the lag (records
                                             in flight or not yet delivered); for a streams group
                                             each member's process, endpoint and tasks too
  wafka groups lag GROUP [--watch] [--interval MS] [--count N]
                                             the lag per partition with the records produced
                                             and committed a second; --watch looks again every
                                             --interval (1000 ms) until Ctrl-C (or --count looks):
                                             redrawn on a terminal, a block per look to a pipe,
                                             a JSON line per look with --json
  wafka groups reset-offsets GROUP -t TOPIC (--to-earliest | --to-latest | --to-offset N |
                             --shift-by N | --to-timestamp MS) [--dry-run]
                                             moves the committed offsets, or a share group's
                                             start offsets (the group must have no members)
  wafka groups delete GROUP ...              deletes empty groups
${CONNECTION_USAGE}`

/** Kafka's answer for a group that does not exist (newer brokers; older ones call it Dead). */
const GROUP_ID_NOT_FOUND = 69

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  topic: { type: 'string', short: 't' },
  'to-earliest': { type: 'boolean' },
  'to-latest': { type: 'boolean' },
  'to-offset': { type: 'string' },
  'shift-by': { type: 'string' },
  'to-timestamp': { type: 'string' },
  'dry-run': { type: 'boolean' },
  watch: { type: 'boolean' },
  interval: { type: 'string' },
  count: { type: 'string' },
} as const

function integer(flag: string, v: string): bigint {
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${flag} needs an integer, not ${JSON.stringify(v)}`)
  return BigInt(v)
}

export async function groupsCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, true)
  if (values.help) {
    io.out(USAGE + '\n')
    return 0
  }
  const [action, ...names] = positionals
  if (!['list', 'describe', 'lag', 'reset-offsets', 'delete'].includes(action))
    throw new UsageError(action === undefined ? 'say list, describe, lag, reset-offsets or delete' : `unknown action ${action}`)
  if (action !== 'list' && names.length === 0) throw new UsageError(`groups ${action} needs a group id`)
  if (['describe', 'lag', 'reset-offsets'].includes(action) && names.length > 1) throw new UsageError(`groups ${action} takes one group`)
  // reset-offsets' and lag's flags are checked before connecting.
  const reset = action === 'reset-offsets' ? resetTarget(values) : undefined
  const watch = action === 'lag' ? watchFlags(values) : undefined
  const { kafka: config } = resolveConnection(values)
  return withAdmin(config, io, values, names, (run) => {
    if (action === 'list') return listGroups(run)
    if (action === 'describe') return describeGroup(run)
    if (action === 'lag') return lagGroup(run, watch!)
    if (action === 'reset-offsets') return resetOffsets(run, reset!)
    return deleteGroups(run)
  })
}

async function listGroups({ admin, io, json }: AdminAction): Promise<void> {
  const { groups } = await admin.listGroups()
  groups.sort((a, b) => a.groupId.localeCompare(b.groupId))
  if (json) io.out(JSON.stringify(groups) + '\n')
  else
    show(
      io,
      false,
      groups,
      ['group', 'state', 'type', 'protocol type'],
      groups.map((g) => [g.groupId, g.groupState, g.groupType ?? 'classic', g.protocolType]),
    )
}

/** A group's state, type, protocol and members with their assignments; throws when it does not exist. */
async function groupView(admin: Admin, groupId: string) {
  const { groups } = await admin.describeGroups([groupId]).catch((err: { code?: number }) => {
    throw err.code === GROUP_ID_NOT_FOUND ? new Error(`group ${JSON.stringify(groupId)} does not exist`) : err
  })
  const g = groups[0]
  if (g.state === 'Dead') throw new Error(`group ${JSON.stringify(groupId)} does not exist`)
  const members = g.members.map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId ?? null,
    clientId: m.clientId,
    host: m.clientHost,
    assignment:
      m.assignment ?? (m.memberAssignment && m.memberAssignment.length > 0 ? decodeAssignment(m.memberAssignment).partitions : []),
  }))
  const owner = new Map<string, string>()
  for (const m of members) for (const t of m.assignment) for (const p of t.partitions) owner.set(`${t.topic}/${p}`, m.memberId)
  return { g, members, owner }
}

/** Whether `groupId` is a group of `type` (DescribeGroups calls a share or streams group Dead: it is not a classic or consumer group). */
async function isGroupOfType(admin: Admin, groupId: string, type: 'share' | 'streams'): Promise<boolean> {
  // Brokers before ListGroups v5 (Kafka 3.x) have no types and no share or streams groups.
  const groups = await admin.listGroups({ types: [type] }).catch((err: unknown) => {
    if (err instanceof UnsupportedApiError) return { groups: [] }
    throw err
  })
  return groups.groups.some((g) => g.groupId === groupId)
}

const isShareGroup = (admin: Admin, groupId: string) => isGroupOfType(admin, groupId, 'share')

async function describeGroup({ admin, io, json, names }: AdminAction): Promise<void> {
  const groupId = names[0]
  if (await isShareGroup(admin, groupId)) {
    const view = await shareGroupView(admin, groupId)
    if (view) return showShareGroup(io, json, view)
  }
  if (await isGroupOfType(admin, groupId, 'streams')) {
    const view = await streamsGroupView(admin, groupId)
    if (view) return showStreamsGroup(io, json, view)
  }
  const { g, members, owner } = await groupView(admin, groupId)
  const offsets = await groupLag(admin, groupId, owner)
  const data = { groupId, state: g.state, type: g.groupType ?? 'classic', protocol: g.protocol, members, offsets }
  if (json) {
    io.out(JSON.stringify(data) + '\n')
    return
  }
  showGroupText(io, `group ${groupId}: ${g.state}, ${data.type}${g.protocol ? `, ${g.protocol}` : ''}`, members, {
    header: ['topic', 'partition', 'committed', 'log end', 'lag', 'member'],
    rows: offsets.map((o) => [o.topic, o.partition, o.committed, o.logEnd, o.lag, o.member]),
  })
}

/** lag's flags: --watch with its --interval and --count; without --watch, one look. */
function watchFlags(values: Values): { intervalMs: number; count: number } {
  const whole = (flag: string, min: number) => {
    const v = values[flag]
    if (v === undefined) return undefined
    if (typeof v !== 'string' || !/^\d+$/.test(v) || Number(v) < min)
      throw new UsageError(`--${flag} needs a whole number of at least ${min}`)
    return Number(v)
  }
  const intervalMs = whole('interval', 100) ?? 1000
  const count = whole('count', 1)
  if (!values.watch && (count !== undefined || values.interval !== undefined))
    throw new UsageError('--interval and --count go with --watch')
  return { intervalMs, count: values.watch ? (count ?? Infinity) : 1 }
}

async function lagGroup({ admin, io, json, names }: AdminAction, flags: { intervalMs: number; count: number }): Promise<void> {
  const groupId = names[0]
  let stop: () => void = () => {}
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    await watchLag(io, { ...flags, json, stopped }, async () => {
      const { g, owner } = await groupView(admin, groupId)
      return { state: g.state, offsets: await groupLag(admin, groupId, owner) }
    })
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
}

/** Where reset-offsets moves each partition, from its log start and end, its committed offset and the offset at --to-timestamp. */
type OffsetTarget = (low: bigint, high: bigint, current: bigint | undefined, byTime: bigint | undefined) => bigint

/** reset-offsets' flags: the topic, the one --to-... or --shift-by given, and the timestamp to look up for --to-timestamp. */
function resetTarget(values: Values): { topic: string; target: OffsetTarget; timestamp: number | undefined } {
  const topic = str(values, 'topic')
  if (topic === undefined) throw new UsageError('reset-offsets needs -t TOPIC')
  const given = ['to-earliest', 'to-latest', 'to-offset', 'shift-by', 'to-timestamp'].filter((f) => values[f] !== undefined)
  if (given.length !== 1)
    throw new UsageError('reset-offsets needs exactly one of --to-earliest, --to-latest, --to-offset, --shift-by, --to-timestamp')
  const clamp = (x: bigint, low: bigint, high: bigint) => (x < low ? low : x > high ? high : x)
  const f = given[0]
  if (f === 'to-earliest') return { topic, target: (low) => low, timestamp: undefined }
  if (f === 'to-latest') return { topic, target: (_low, high) => high, timestamp: undefined }
  if (f === 'to-offset') {
    const at = integer(f, str(values, f)!)
    return { topic, target: (low, high) => clamp(at, low, high), timestamp: undefined }
  }
  if (f === 'shift-by') {
    const by = integer(f, str(values, f)!)
    return { topic, target: (low, high, current) => clamp((current ?? low) + by, low, high), timestamp: undefined }
  }
  return { topic, target: (_low, _high, _current, byTime) => byTime!, timestamp: Number(integer(f, str(values, f)!)) }
}

async function resetOffsets(
  { admin, io, json, values, names }: AdminAction,
  { topic, target, timestamp }: ReturnType<typeof resetTarget>,
): Promise<void> {
  const groupId = names[0]
  const partitions = await topicPartitions(admin, topic)
  // A share group moves its start offsets (SPSO: kafka-share-groups.sh --reset-offsets), any other group its commits.
  const share = await isShareGroup(admin, groupId)
  const members = share
    ? (await admin.describeShareGroups([groupId])).groups[0].members.length
    : (await admin.describeGroups([groupId])).groups[0].members.length
  if (members > 0) throw new Error(`group ${groupId} has ${members} active member(s): stop them first`)
  const ends = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, o]))
  const current = new Map<number, bigint>()
  if (share) {
    for (const t of await admin.listShareGroupOffsets({ groupId, topics: [topic] }))
      for (const p of t.partitions) if (BigInt(p.startOffset) >= 0n) current.set(p.partition, BigInt(p.startOffset))
  } else {
    for (const t of await admin.fetchOffsets({ groupId, topics: [topic] }))
      for (const p of t.partitions) if (BigInt(p.offset) >= 0n) current.set(p.partition, BigInt(p.offset))
  }
  const byTime =
    timestamp === undefined
      ? undefined
      : new Map((await admin.fetchTopicOffsetsByTimestamp(topic, timestamp)).map((o) => [o.partition, BigInt(o.offset)]))
  const plan = partitions.map((p) => {
    const e = ends.get(p)!
    const next = target(BigInt(e.low), BigInt(e.high), current.get(p), byTime?.get(p))
    return { topic, partition: p, from: current.has(p) ? Number(current.get(p)) : null, to: Number(next) }
  })
  if (!values['dry-run']) {
    const moved = plan.map((p) => ({ partition: p.partition, offset: p.to }))
    if (share) await admin.alterShareGroupOffsets({ groupId, topic, partitions: moved })
    else await admin.setOffsets({ groupId, topic, partitions: moved })
  }
  const data = { groupId, applied: !values['dry-run'], offsets: plan }
  if (json) {
    io.out(JSON.stringify(data) + '\n')
    return
  }
  show(
    io,
    false,
    data,
    ['topic', 'partition', 'from', 'to'],
    plan.map((p) => [p.topic, p.partition, p.from, p.to]),
  )
  io.out(values['dry-run'] ? '(dry run: nothing changed)\n' : `group ${groupId}: offsets reset\n`)
}

async function deleteGroups({ admin, io, json, names }: AdminAction): Promise<void> {
  const existing = new Set((await admin.listGroups()).groups.map((g) => g.groupId))
  for (const g of names) if (!existing.has(g)) throw new Error(`group ${JSON.stringify(g)} does not exist`)
  await admin.deleteGroups(names)
  if (json) io.out(JSON.stringify({ deleted: names }) + '\n')
  else for (const g of names) io.out(`deleted group ${g}\n`)
}
