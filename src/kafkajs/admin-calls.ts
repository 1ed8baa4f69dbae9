// KafkaJS 2.2.4's admin calls over wafka's engine admin: its argument checks,
// its result shapes, and its errors. KafkaJS runs most calls in its retrier:
// some broker errors are retried (NOT_CONTROLLER, …; after the last retry
// KafkaJSNumberOfRetriesExceeded), every other error ends the call as it is
// (`bail`). Where KafkaJS reports every failed item (an aggregate of topics,
// the groups, the partitions), the engine's call is made per item, so each
// item's error is known.
import type { Admin as EngineAdmin } from '../admin/admin.js'
import { KafkaError, kafkaError } from '../errors.js'
import type { Logger } from '../logger.js'
import { describedGroup } from './groups.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import {
  KafkaJSAggregateError,
  KafkaJSAlterPartitionReassignmentsError,
  KafkaJSBrokerNotFound,
  KafkaJSCreateTopicError,
  KafkaJSDeleteGroupsError,
  KafkaJSDeleteTopicRecordsError,
  KafkaJSNonRetriableError,
  protocolError,
  toKafkaJSError,
} from './errors.js'
import {
  checkAclFilter,
  checkAcls,
  checkConfigResources,
  checkCreatePartitions,
  checkCreateTopics,
  checkDeleteTopics,
  checkGroupId,
  checkGroupIds,
  checkListReassignments,
  checkPartitions,
  checkReassignments,
  checkTopic,
} from './admin-checks.js'
import { createRetrier, type RetryOptions } from './retry.js'
import type { AclEntry, AclFilter } from '../admin/acls.js'

type TopicConfig = Parameters<EngineAdmin['createTopics']>[0]['topics'][number]
type SeekEntry = { partition: number; offset: string }

/** The offsets KafkaJS's resolveOffsets replaces: Kafka's ListOffsets timestamps for the end and the start. */
const LATEST_OFFSET = '-1'
const EARLIEST_OFFSET = '-2'

/** AlterPartitionReassignments' errors about the whole request, not a partition (KafkaJS: not an aggregate). */
const REQUEST_LEVEL = new Set(['CLUSTER_AUTHORIZATION_FAILED', 'NOT_CONTROLLER', 'UNSUPPORTED_VERSION'])

/** A failure as KafkaJS's admin sees it: a broker's code is a KafkaJSProtocolError (createErrorFromCode). */
export function adminError(err: unknown): Error & { type?: string; retriable?: boolean } {
  return (err instanceof KafkaError ? protocolError(err) : toKafkaJSError(err)) as Error
}

/** Only the keys given: the engine refuses an option that is present but undefined less kindly than KafkaJS ignores it. */
const given = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T

export function kafkaJSAdminCalls(connected: () => EngineAdmin, retry: RetryOptions, logger: () => Logger) {
  /** KafkaJS's retrier around a call: errors of `retryOn` types are retried, every other one ends it as it is. */
  const retrying =
    (...retryOn: string[]) =>
    <T>(call: (admin: EngineAdmin) => Promise<T>): Promise<T> =>
      createRetrier(retry)<T>(async (bail) => {
        try {
          return await call(connected())
        } catch (raw) {
          const e = adminError(raw)
          if (e.type !== undefined && retryOn.includes(e.type)) throw e
          bail(e)
          throw e
        }
      })
  /** KafkaJS's retrier with no bail: a retriable failure is retried, any other ends as KafkaJSNonRetriableError. */
  const retried = <T>(call: (admin: EngineAdmin) => Promise<T>): Promise<T> =>
    createRetrier(retry)<T>(async () => {
      try {
        return await call(connected())
      } catch (raw) {
        throw adminError(raw)
      }
    })
  /** One call's rejection as KafkaJS's admin gives it (calls KafkaJS runs without its retrier). */
  const once = async <T>(call: (admin: EngineAdmin) => Promise<T>): Promise<T> => {
    try {
      return await call(connected())
    } catch (raw) {
      throw adminError(raw)
    }
  }
  /** Per item: its value, or its broker error (a KafkaError); any other failure ends the call. */
  const perItem = async <I, T>(items: I[], call: (item: I) => Promise<T>) => {
    const settled = await Promise.allSettled(items.map(call))
    for (const s of settled) if (s.status === 'rejected' && !(s.reason instanceof KafkaError)) throw s.reason
    return settled.map((s, i) =>
      s.status === 'fulfilled' ? { item: items[i], value: s.value } : { item: items[i], error: s.reason as KafkaError },
    )
  }

  const fetchTopicOffsets = (topic: string) => {
    checkTopic(topic)
    return retrying('UNKNOWN_TOPIC_OR_PARTITION')((admin) => admin.fetchTopicOffsets(topic))
  }

  /** A group the broker does not know is, as KafkaJS's DescribeGroups version answers, a Dead group with no members. */
  const describeGroups = (groupIds: string[]) =>
    retried(async (admin) => {
      const outcomes = await perItem(groupIds, async (groupId) => (await admin.describeGroups([groupId])).groups[0])
      const failed = outcomes.find((o) => o.error && o.error.type !== 'GROUP_ID_NOT_FOUND')
      if (failed) throw failed.error
      return {
        groups: outcomes.map(({ item, value }) =>
          value
            ? describedGroup(value)
            : { errorCode: 0, groupId: item, state: 'Dead' as const, protocolType: '', protocol: '', members: [] },
        ),
      }
    })

  const setOffsets = async ({ groupId, topic, partitions }: { groupId: string; topic: string; partitions: SeekEntry[] }) => {
    checkGroupId(groupId)
    checkTopic(topic)
    checkPartitions(partitions)
    // KafkaJS commits as a member of the group, which it cannot be while others are.
    const { groups } = await describeGroups([groupId])
    const state = groups[0]?.state
    if (state !== 'Empty' && state !== 'Dead')
      throw new KafkaJSNonRetriableError(`The consumer group must have no running instances, current state: ${state}`)
    await once((admin) => admin.setOffsets({ groupId, topic, partitions }))
  }

  return {
    listTopics: () => once((admin) => admin.listTopics()),

    /** True when it created a topic; false when every failure was TOPIC_ALREADY_EXISTS; else KafkaJSAggregateError of KafkaJSCreateTopicError. */
    createTopics: ({
      topics,
      validateOnly,
      timeout,
      waitForLeaders = true,
    }: {
      topics: TopicConfig[]
      validateOnly?: boolean
      timeout?: number
      waitForLeaders?: boolean
    }) => {
      checkCreateTopics(topics)
      return retrying('NOT_CONTROLLER')(async (admin) => {
        const outcomes = await perItem(topics, (t) => admin.createTopics(given({ topics: [t], validateOnly, timeout, waitForLeaders })))
        const errors = outcomes
          .map(({ item, value, error }) =>
            error
              ? new KafkaJSCreateTopicError(protocolError(error), item.topic)
              : value === false
                ? new KafkaJSCreateTopicError(protocolError(kafkaError(ErrorCodes.TOPIC_ALREADY_EXISTS)), item.topic)
                : undefined,
          )
          .filter((e) => e !== undefined)
          .sort((a, b) => (a.topic! < b.topic! ? -1 : a.topic! > b.topic! ? 1 : 0))
        if (errors.length === 0) return true
        // KafkaJS's own test for "already exists": an aggregate whose every error says so.
        if (errors.every((e) => e.type === 'TOPIC_ALREADY_EXISTS')) return false
        throw new KafkaJSAggregateError('Topic creation errors', errors)
      })
    },

    createPartitions: ({
      topicPartitions,
      validateOnly,
      timeout,
    }: {
      topicPartitions: Array<{ topic: string; count: number; assignments?: number[][] }>
      validateOnly?: boolean
      timeout?: number
    }) => {
      checkCreatePartitions(topicPartitions)
      return retrying('NOT_CONTROLLER')((admin) => admin.createPartitions(given({ topicPartitions, validateOnly, timeout })))
    },

    deleteTopics: ({ topics, timeout }: { topics: string[]; timeout?: number }) => {
      checkDeleteTopics(topics)
      return retrying('NOT_CONTROLLER', 'UNKNOWN_TOPIC_OR_PARTITION')((admin) => admin.deleteTopics(given({ topics, timeout })))
    },

    fetchTopicMetadata: ({ topics = [] }: { topics?: string[] } = {}) => {
      for (const topic of topics ?? []) checkTopic(topic)
      return once((admin) => admin.fetchTopicMetadata(topics.length > 0 ? { topics } : {}))
    },

    describeCluster: () => once((admin) => admin.describeCluster()),

    fetchTopicOffsets,

    fetchTopicOffsetsByTimestamp: (topic: string, timestamp?: number) => {
      checkTopic(topic)
      return retrying('UNKNOWN_TOPIC_OR_PARTITION')((admin) => admin.fetchTopicOffsetsByTimestamp(topic, timestamp))
    },

    /** Committed offsets; with resolveOffsets, -1 and -2 become the partition's end and start, and are committed so (as KafkaJS does). */
    fetchOffsets: async ({ groupId, topics, resolveOffsets = false }: { groupId: string; topics?: string[]; resolveOffsets?: boolean }) => {
      checkGroupId(groupId)
      if (topics != null && !Array.isArray(topics)) throw new KafkaJSNonRetriableError('Expected topics array to be set')
      const committed = await once((admin) => admin.fetchOffsets(topics?.length ? { groupId, topics } : { groupId }))
      const resolved = !resolveOffsets
        ? committed
        : await Promise.all(
            committed.map(async ({ topic, partitions }) => {
              const ends = new Map((await fetchTopicOffsets(topic)).map((o) => [o.partition, o]))
              const resolve = (partition: number, offset: string) =>
                offset === LATEST_OFFSET
                  ? (ends.get(partition)?.high ?? offset)
                  : offset === EARLIEST_OFFSET
                    ? (ends.get(partition)?.low ?? offset)
                    : offset
              const recalculated = partitions.map((p) => ({ ...p, offset: resolve(p.partition, p.offset) }))
              await setOffsets({ groupId, topic, partitions: recalculated })
              return { topic, partitions: recalculated }
            }),
          )
      return resolved.map(({ topic, partitions }) => ({
        topic,
        partitions: partitions.map(({ partition, offset, metadata }) => ({ partition, offset, metadata: metadata || null })),
      }))
    },

    setOffsets,

    resetOffsets: ({ groupId, topic, earliest = false }: { groupId: string; topic: string; earliest?: boolean }) => {
      checkGroupId(groupId)
      checkTopic(topic)
      return once((admin) => admin.resetOffsets({ groupId, topic, earliest }))
    },

    describeConfigs: ({
      resources,
      includeSynonyms,
    }: {
      resources: Array<{ type: number; name: string; configNames?: string[] | null }>
      includeSynonyms?: boolean
    }) => {
      checkConfigResources(resources, 'configNames')
      return retrying('NOT_CONTROLLER')(async (admin) => {
        const described = await admin.describeConfigs(given({ resources, includeSynonyms }))
        // throttleTime: the engine's (its DescribeConfigs answers' throttle time once it reports one; 0 until then).
        return { resources: described.resources, throttleTime: described.throttleTime }
      })
    },

    /**
     * KafkaJS's shape: `{ resources: [{ errorCode, errorMessage, resourceType,
     * resourceName }] }`. Sent as IncrementalAlterConfigs SETs, not KafkaJS's
     * AlterConfigs: a config the call does not name keeps its value (AlterConfigs
     * resets it), see the README's KafkaJS section.
     */
    alterConfigs: ({
      resources,
      validateOnly,
    }: {
      resources: Array<{ type: number; name: string; configEntries: Array<{ name: string; value: string }> }>
      validateOnly?: boolean
    }) => {
      checkConfigResources(resources, 'configEntries')
      return retrying('NOT_CONTROLLER')(async (admin) => {
        const altered = await admin.alterConfigs({
          resources: resources.map(({ type, name, configEntries }) => ({
            type,
            name,
            configEntries: configEntries.map((c) => ({ name: c.name, value: c.value })),
          })),
          validateOnly: !!validateOnly,
        })
        return {
          resources: altered.map(({ resourceType, resourceName }) => ({ errorCode: 0, errorMessage: null, resourceType, resourceName })),
        }
      })
    },

    listGroups: () => once((admin) => admin.listGroups()),

    describeGroups,

    /** Each group's `{ groupId, errorCode }`; any failed: KafkaJSDeleteGroupsError naming them (`groups`: groupId, errorCode, error). */
    deleteGroups: (groupIds: string[]) => {
      checkGroupIds(groupIds)
      return retrying(
        'NOT_CONTROLLER',
        'COORDINATOR_NOT_AVAILABLE',
      )(async (admin) => {
        if (groupIds.length === 0) return []
        const outcomes = await perItem(groupIds, async (groupId) => (await admin.deleteGroups([groupId]))[0])
        const failed = outcomes
          .filter((o) => o.error)
          .map(({ item, error }) => ({ groupId: item, errorCode: error!.code, error: protocolError(error!) }))
        if (failed.length > 0) throw new KafkaJSDeleteGroupsError('Error in DeleteGroups', failed)
        return outcomes.map((o) => o.value!)
      })
    },

    /**
     * Deletes records before the offsets. A partition without a leader:
     * KafkaJSDeleteTopicRecordsError (KafkaJSBrokerNotFound) at once; the
     * brokers' refusals: KafkaJSDeleteTopicRecordsError of each partition's
     * error, retried when every one is retriable, else KafkaJSNonRetriableError
     * (its cause the KafkaJSDeleteTopicRecordsError), as KafkaJS's retrier ends it.
     */
    deleteTopicRecords: async ({ topic, partitions }: { topic: string; partitions: SeekEntry[] }) => {
      checkTopic(topic, true)
      checkPartitions(partitions)
      const offsets = await fetchTopicOffsets(topic)
      const leaderless = partitions.filter((p) => !offsets.some((o) => o.partition === p.partition))
      if (leaderless.length > 0)
        throw new KafkaJSDeleteTopicRecordsError({
          partitions: leaderless.map(({ partition, offset }) => ({
            partition,
            offset,
            error: new KafkaJSBrokerNotFound('Could not find the leader for the partition', { retriable: false }),
          })),
        })
      for (const { partition, offset } of partitions) {
        const low = offsets.find((o) => o.partition === partition)!.low
        if (parseInt(offset) < parseInt(low) && parseInt(offset) !== -1)
          logger().warn(
            'The requested offset is before the earliest offset maintained on the partition - no records will be deleted from this partition',
            { topic, partition, offset },
          )
      }
      let pending = partitions
      await retried(async (admin) => {
        const outcomes = await perItem(pending, (p) => admin.deleteRecords({ topic, partitions: [p] }))
        const failed = outcomes.filter((o) => o.error)
        pending = failed.map((o) => o.item)
        if (failed.length > 0)
          throw new KafkaJSDeleteTopicRecordsError({
            partitions: failed.map(({ item, error }) => ({ partition: item.partition, offset: item.offset, error: protocolError(error!) })),
          })
      })
    },

    createAcls: ({ acl }: { acl: AclEntry[] }) => {
      checkAcls(acl, false)
      return retrying('NOT_CONTROLLER')(async (admin) => {
        await admin.createAcls({ acl })
        return true
      })
    },

    describeAcls: (filter: AclFilter) => {
      checkAclFilter(filter as Record<string, unknown>)
      return retrying('NOT_CONTROLLER')((admin) => admin.describeAcls(given(filter)))
    },

    deleteAcls: ({ filters }: { filters: AclFilter[] }) => {
      checkAcls(filters, true)
      return retrying('NOT_CONTROLLER')((admin) => admin.deleteAcls({ filters: filters.map(given) }))
    },

    /**
     * KafkaJS's arguments (`partitionAssignment`). A refusal of the request:
     * KafkaJSAlterPartitionReassignmentsError; of partitions: KafkaJSAggregateError
     * of one per partition (topic, partition).
     */
    alterPartitionReassignments: ({
      topics,
      timeout,
    }: {
      topics: Array<{ topic: string; partitionAssignment: Array<{ partition: number; replicas: number[] }> }>
      timeout?: number
    }) => {
      checkReassignments(topics)
      const items = topics.flatMap(({ topic, partitionAssignment }) => partitionAssignment.map((p) => ({ topic, ...p })))
      return retrying('NOT_CONTROLLER')(async (admin) => {
        const outcomes = await perItem(items, ({ topic, partition, replicas }) =>
          // KafkaJS's default timeout (5 s), not the engine's 30 s: it also bounds how long the engine retries.
          admin.alterPartitionReassignments({ topics: [{ topic, partitions: [{ partition, replicas }] }], timeout: timeout ?? 5000 }),
        )
        const failed = outcomes.filter((o) => o.error)
        const whole = failed.find((o) => REQUEST_LEVEL.has(o.error!.type))
        if (whole) throw new KafkaJSAlterPartitionReassignmentsError(protocolError(whole.error!))
        if (failed.length > 0)
          throw new KafkaJSAggregateError(
            'Errors altering partition reassignments',
            failed.map(({ item, error }) => new KafkaJSAlterPartitionReassignmentsError(protocolError(error!), item.topic, item.partition)),
          )
      })
    },

    /** KafkaJS's shape: `{ topics: [{ name, partitions: [{ partition, replicas, addingReplicas, removingReplicas }] }] }`. */
    listPartitionReassignments: ({
      topics = null,
      timeout,
    }: {
      topics?: Array<{ topic: string; partitions: number[] }> | null
      timeout?: number
    }) => {
      checkListReassignments(topics)
      return retrying('NOT_CONTROLLER')(async (admin) => {
        const flat = await admin.listPartitionReassignments(given({ topics: topics ?? undefined, timeout: timeout ?? 5000 }))
        const byTopic = new Map<
          string,
          Array<{ partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }>
        >()
        for (const { topic, ...partition } of flat) byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition])
        return { topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })) }
      })
    },
  }
}
