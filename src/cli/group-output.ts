import { show } from './table-output.js'
import type { Io } from './io.js'

/** A member as `groups describe` shows it: who it is and the partitions assigned to it. */
export interface GroupMemberRow {
  memberId: string
  clientId: string
  host: string
  assignment: Array<{ topic: string; partitions: number[] }>
}

/**
 * `groups describe` as text, for every kind of group: the heading line, the
 * members with their partitions, then a row per partition (its columns are
 * the kind's: committed offsets for a consumer group, start offsets for a
 * share group). A table with no rows is left out with its blank line.
 */
export function showGroupText(
  io: Io,
  heading: string,
  members: GroupMemberRow[],
  offsets: { header: string[]; rows: Array<Array<string | number | bigint | null | undefined>> },
): void {
  io.out(`${heading}, ${members.length} member(s)\n`)
  if (members.length > 0) {
    io.out('\n')
    show(
      io,
      false,
      members,
      ['member', 'client', 'host', 'partitions'],
      members.map((m) => [m.memberId, m.clientId, m.host, m.assignment.map((t) => `${t.topic}:${t.partitions.join(',')}`).join(' ')]),
    )
  }
  if (offsets.rows.length > 0) {
    io.out('\n')
    show(io, false, offsets.rows, offsets.header, offsets.rows)
  }
}
