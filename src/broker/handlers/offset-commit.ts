import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  OffsetCommit,
  type OffsetCommitRequest,
  type OffsetCommitRequestTopic,
  type OffsetCommitResponse,
} from '../../protocol/messages/OffsetCommit.js'
import { defineHandler } from '../handler.js'
import { groupForCommit } from '../groups/offset-commit-checks.js'
import { coordinatorError } from './group-common.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames } from '../auth/authorizer.js'

/** Kafka's offset.metadata.max.bytes. */
const MAX_METADATA_CHARS = 4096

/**
 * OffsetCommit: a member commits in its generation (member epoch); a client
 * outside group management (generation -1) commits to an empty or new group
 * (src/broker/groups/offset-commit-checks.ts). v10 names topics by id: an
 * id the metadata does not know is UNKNOWN_TOPIC_ID.
 */
export const offsetCommitHandler = defineHandler<OffsetCommitRequest, OffsetCommitResponse>({
  spec: OffsetCommit,
  minVersion: Math.max(2, OffsetCommit.minVersion),
  maxVersion: OffsetCommit.maxVersion,
  async handle(req, ctx) {
    const { groups, controller } = ctx.cluster
    const byId = ctx.version >= 10
    type Topic = OffsetCommitRequestTopic
    type Partition = Topic['partitions'][number]
    type Answer = [Topic, number, number]
    // Kafka's response builder: a topic's entry where it first comes, its partitions in the order answered.
    const answer = (answers: Answer[]) => {
      const out = new Map<string, OffsetCommitResponse['topics'][number]>()
      for (const [t, partitionIndex, errorCode] of answers) {
        const key = byId ? t.topicId : t.name
        let entry = out.get(key)
        if (!entry) out.set(key, (entry = { name: t.name, topicId: t.topicId, partitions: [] }))
        entry.partitions.push({ partitionIndex, errorCode })
      }
      return { topics: [...out.values()] }
    }
    const each = (ts: Topic[], code: (t: Topic, p: Partition) => number | null) =>
      ts.flatMap((t) =>
        t.partitions.flatMap((p): Answer[] => {
          const c = code(t, p)
          return c === null ? [] : [[t, p.partitionIndex, c]]
        }),
      )
    // As Kafka's handleOffsetCommitRequest: READ on the group, then each topic (known, READ, its partition),
    // and only the partitions left go to the coordinator's checks (the group id, the member, its generation).
    const groupRefused = coordinatorError(ctx, req.groupId)
    if (groupRefused === ErrorCodes.GROUP_AUTHORIZATION_FAILED) return answer(each(req.topics, () => groupRefused))
    // By id (v10): the name the metadata has for it, '' when it has none.
    const topics = byId ? req.topics.map((t) => ({ ...t, name: controller.topicsById.get(t.topicId)?.name ?? '' })) : req.topics
    const readable = allowedNames(
      ctx,
      AclOperationTypes.READ,
      AclResourceTypes.TOPIC,
      topics.map((t) => t.name),
    )
    const early = (t: Topic, partition: number): number | null => {
      if (byId && t.name === '') return ErrorCodes.UNKNOWN_TOPIC_ID
      if (!readable.has(t.name)) return ErrorCodes.TOPIC_AUTHORIZATION_FAILED
      if (!controller.topics.get(t.name)?.partitions[partition]) return ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION
      return null
    }
    const committing = topics
      .map((t) => ({ ...t, partitions: t.partitions.filter((p) => early(t, p.partitionIndex) === null) }))
      .filter((t) => t.partitions.length > 0)
    const refused = each(topics, (t, p) => early(t, p.partitionIndex))
    // Nothing left to commit: Kafka answers without asking the coordinator.
    if (committing.length === 0) return answer(refused)
    const rest = (code: (t: Topic, p: Partition) => number) => answer([...refused, ...each(committing, code)])
    if (groupRefused !== null) return rest(() => groupRefused)
    const { group, error } = groupForCommit(groups, { ...req, topics: committing }, false, ctx.version)
    if (error !== null) return rest(() => error)
    const now = Date.now()
    const codes = new Map<Partition, number>()
    const entries = committing.flatMap((t) =>
      t.partitions.flatMap((p) => {
        if ((p.committedMetadata?.length ?? 0) <= MAX_METADATA_CHARS) {
          const c = { offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata: p.committedMetadata, commitTimestamp: now }
          return [{ topic: t.name, partition: p.partitionIndex, c }]
        }
        codes.set(p, ErrorCodes.OFFSET_METADATA_TOO_LARGE)
        return []
      }),
    )
    group.commitAll(entries)
    // One batch, answered once the group's partition of __consumer_offsets has it in its ISR (acks=all), as Kafka's coordinator.
    const written = group.changes && entries.length > 0 ? await group.changes.written(group.groupId) : ErrorCodes.NONE
    return rest((_t, p) => codes.get(p) ?? written)
  },
  errorResponse: (req, code) => ({
    topics: req.topics.map((t) => ({
      name: t.name,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
    })),
  }),
})
