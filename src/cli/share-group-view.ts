import type { Admin } from '../admin/admin.js'
import { showGroupText } from './group-output.js'
import type { Io } from './io.js'

/** Kafka's answer for a group that does not exist, or is not a share group. */
const GROUP_ID_NOT_FOUND = 69

/**
 * A share group (KIP-932) as `wafka groups describe` shows it: its state,
 * its members and what each is assigned (share partitions are shared, so a
 * partition may have several), and per share partition the start offset
 * (SPSO) and the lag — the records below the log end not yet delivered for
 * good: in flight (acquired or waiting for redelivery) or never delivered.
 * Undefined when there is no share group of that id.
 */
export async function shareGroupView(admin: Admin, groupId: string) {
  const described = await admin.describeShareGroups([groupId]).catch((err: { code?: number }) => {
    if (err.code === GROUP_ID_NOT_FOUND) return undefined
    throw err
  })
  if (!described) return undefined
  const g = described.groups[0]
  const members = g.members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, host: m.clientHost, assignment: m.assignment }))
  const holders = new Map<string, string[]>()
  for (const m of members)
    for (const t of m.assignment)
      for (const p of t.partitions) holders.set(`${t.topic}/${p}`, [...(holders.get(`${t.topic}/${p}`) ?? []), m.memberId])
  const offsets = []
  for (const t of await admin.listShareGroupOffsets({ groupId })) {
    const ends = new Map((await admin.fetchTopicOffsets(t.topic)).map((o) => [o.partition, Number(o.high)]))
    for (const p of t.partitions)
      offsets.push({
        topic: t.topic,
        partition: p.partition,
        startOffset: p.startOffset === '-1' ? null : Number(p.startOffset),
        logEnd: ends.get(p.partition) ?? null,
        lag: p.lag === null ? null : Number(p.lag),
        members: holders.get(`${t.topic}/${p.partition}`) ?? [],
      })
  }
  return { groupId, state: g.state, type: 'share' as const, assignor: g.assignor, members, offsets }
}

export function showShareGroup(io: Io, json: boolean, data: NonNullable<Awaited<ReturnType<typeof shareGroupView>>>): void {
  if (json) {
    io.out(JSON.stringify(data) + '\n')
    return
  }
  const { groupId, state, assignor, members, offsets } = data
  showGroupText(io, `group ${groupId}: ${state}, share, ${assignor}`, members, {
    header: ['topic', 'partition', 'start offset', 'log end', 'lag', 'members'],
    rows: offsets.map((o) => [o.topic, o.partition, o.startOffset, o.logEnd, o.lag, o.members.length]),
  })
}
