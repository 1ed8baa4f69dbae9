import { ErrorCodes } from '../../protocol/error-codes.js'
import { TxnOffsetCommit, type TxnOffsetCommitRequest, type TxnOffsetCommitResponse } from '../../protocol/messages/TxnOffsetCommit.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes, AclResourceTypes } from '../auth/acl-matching.js'
import { allowedNames, requireTransactionalId } from '../auth/authorizer.js'
import { groupForCommit } from '../groups/offset-commit-checks.js'
import { coordinatorError } from './group-common.js'

/**
 * TxnOffsetCommit, at the group's coordinator: offsets held pending until
 * the transaction ends (committed with it, dropped on abort). v3+ carry the
 * member's generation, checked like OffsetCommit's; v5+ are the second
 * transaction protocol (KIP-890), whose commit adds the group to the
 * transaction itself (no AddOffsetsToTxn); v6 names topics by id.
 *
 * As Kafka's KafkaApis: WRITE on the transactional id refuses the whole
 * request, then READ on the group; then each partition whose topic id is
 * unknown, whose topic may not be READ or does not exist gets its own code,
 * and only the rest go on to the coordinator's checks (whose error they
 * alone then get) and are committed.
 */
export const txnOffsetCommitHandler = defineHandler<TxnOffsetCommitRequest, TxnOffsetCommitResponse>({
  spec: TxnOffsetCommit,
  minVersion: TxnOffsetCommit.minVersion,
  maxVersion: TxnOffsetCommit.maxVersion,
  async handle(req, ctx) {
    requireTransactionalId(ctx, req.transactionalId)
    const { groups, transactions, controller } = ctx.cluster
    const byId = ctx.version >= 6
    // v6: each topic by its id; one this broker does not know is UNKNOWN_TOPIC_ID, and named '' until then.
    const topics = req.topics.map((t) => ({ ...t, name: byId ? (controller.topicsById.get(t.topicId)?.name ?? '') : t.name }))
    type Topic = (typeof topics)[number]
    /** Kafka's response builder: a topic's partitions as they are decided, the early ones first. */
    const answer = (decided: Array<[Topic, number, number]>) => {
      const out = new Map<string, TxnOffsetCommitResponse['topics'][number]>()
      for (const [t, partitionIndex, errorCode] of decided) {
        const key = byId ? t.topicId : t.name
        let entry = out.get(key)
        if (!entry) out.set(key, (entry = { name: byId ? '' : t.name, topicId: t.topicId, partitions: [] }))
        entry.partitions.push({ partitionIndex, errorCode })
      }
      return { topics: [...out.values()] }
    }
    const each = (ts: Topic[], code: (t: Topic, partition: number) => number | null) =>
      ts.flatMap((t) =>
        t.partitions.flatMap((p): Array<[Topic, number, number]> => {
          const c = code(t, p.partitionIndex)
          return c === null ? [] : [[t, p.partitionIndex, c]]
        }),
      )
    // Group READ first: coordinatorError checks it before the coordinator.
    const groupRefused = coordinatorError(ctx, req.groupId)
    if (groupRefused === ErrorCodes.GROUP_AUTHORIZATION_FAILED) return answer(each(topics, () => groupRefused))
    const readable = allowedNames(
      ctx,
      AclOperationTypes.READ,
      AclResourceTypes.TOPIC,
      topics.map((t) => t.name),
    )
    /** The code a partition gets before the coordinator looks at the commit; null: it goes on. */
    const early = (topic: string, partition: number): number | null => {
      if (byId && !topic) return ErrorCodes.UNKNOWN_TOPIC_ID
      if (!readable.has(topic)) return ErrorCodes.TOPIC_AUTHORIZATION_FAILED
      if (!controller.topics.get(topic)?.partitions[partition]) return ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION
      return null
    }
    const committing = topics
      .map((t) => ({ ...t, partitions: t.partitions.filter((p) => early(t.name, p.partitionIndex) === null) }))
      .filter((t) => t.partitions.length > 0)
    const refused = each(topics, (t, partition) => early(t.name, partition))
    // Nothing left to commit: Kafka answers without asking the coordinator.
    if (committing.length === 0) return answer(refused)
    const rest = (code: number) => answer([...refused, ...each(committing, () => code)])
    if (groupRefused !== null) return rest(groupRefused)
    const txnProblem = transactions.offsetCommitCheck(req.transactionalId, req.producerId, req.producerEpoch, req.groupId, ctx.version >= 5)
    if (txnProblem !== null) return rest(txnProblem)
    const { group, error } = groupForCommit(groups, { ...req, topics: committing }, true, ctx.version)
    if (error !== null) return rest(error)
    const now = Date.now()
    const entries = committing.flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.name,
        partition: p.partitionIndex,
        c: { offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata: p.committedMetadata, commitTimestamp: now },
      })),
    )
    group.commitInTransaction({ producerId: req.producerId, producerEpoch: req.producerEpoch }, entries)
    // Answered once the transactional records are in the ISR of the group's partition, as Kafka's coordinator.
    return rest(group.changes ? await group.changes.written(group.groupId) : ErrorCodes.NONE)
  },
  errorResponse: (req, code) => ({
    topics: req.topics.map((t) => ({
      name: t.name,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
    })),
  }),
})
