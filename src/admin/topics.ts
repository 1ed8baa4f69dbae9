import type { ClusterClient } from '../cluster/client.js'
import { kafkaError } from '../errors.js'
import { Routes } from '../cluster/route.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { check, requireVersion, unknownTopicIsAnswer } from './checks.js'
import { CreatePartitions, CreateTopics, DeleteTopics, type CreateTopicsRequest } from '../protocol/messages/index.js'

/**
 * Topics and their partitions: list, describe (metadata), create, delete,
 * add partitions. Creation and deletion go to the controller.
 */

export interface TopicConfig {
  topic: string
  /** -1: the broker's num.partitions. */
  numPartitions?: number
  /** -1: the broker's default.replication.factor. */
  replicationFactor?: number
  replicaAssignment?: Array<{ partition: number; replicas: number[] }>
  configEntries?: Array<{ name: string; value: string | null }>
}

const { TOPIC_ALREADY_EXISTS } = ErrorCodes

export async function listTopics(cluster: ClusterClient): Promise<string[]> {
  return cluster.retry(async () => {
    await cluster.refreshMetadata('all')
    return [...cluster.metadata.topics.keys()]
  })
}

export async function fetchTopicMetadata(cluster: ClusterClient, options: { topics?: string[] } = {}) {
  const { topics } = options
  return cluster.retry(async () => {
    if (topics) await cluster.refreshMetadata(topics)
    else await cluster.refreshMetadata('all')
    const infos = topics ? await cluster.topicMetadata(topics).catch(unknownTopicIsAnswer) : [...cluster.metadata.topics.values()]
    return {
      topics: infos.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionErrorCode: p.errorCode,
          partitionId: p.partition,
          leader: p.leader,
          leaderEpoch: p.leaderEpoch,
          replicas: p.replicas,
          isr: p.isr,
          offlineReplicas: p.offlineReplicas,
        })),
      })),
    }
  })
}

/** Creates topics; resolves false when every one already existed (as KafkaJS does). */
export async function createTopics(
  cluster: ClusterClient,
  options: {
    topics: TopicConfig[]
    validateOnly?: boolean
    waitForLeaders?: boolean
    timeout?: number
  },
): Promise<boolean> {
  const timeout = options.timeout ?? 5000
  let created = false
  await cluster.request(
    CreateTopics,
    (v) => ({
      topics: options.topics.map((t) => ({
        name: t.topic,
        numPartitions: t.replicaAssignment?.length ? -1 : (t.numPartitions ?? -1),
        replicationFactor: t.replicaAssignment?.length ? -1 : (t.replicationFactor ?? -1),
        assignments: (t.replicaAssignment ?? []).map((a) => ({ partitionIndex: a.partition, brokerIds: a.replicas })),
        configs: (t.configEntries ?? []).map((c) => ({ name: c.name, value: c.value })),
      })),
      timeoutMs: timeout,
      ...(options.validateOnly
        ? ({ validateOnly: requireVersion(v, 1, 'CreateTopics validateOnly') } satisfies Partial<CreateTopicsRequest>)
        : {}),
    }),
    Routes.controller(),
    {
      retryMs: timeout + 5000,
      check: (res, from) => {
        created = false
        for (const t of res.topics) {
          if (t.errorCode === TOPIC_ALREADY_EXISTS) continue
          check(t.errorCode, 'CreateTopics', `topic ${t.name}`, t.errorMessage, from)
          created = true
        }
      },
    },
  )
  if (created && !options.validateOnly && (options.waitForLeaders ?? true)) {
    const names = options.topics.map((t) => t.topic)
    await cluster.retry(async () => {
      await cluster.refreshMetadata(names)
      for (const info of await cluster.topicMetadata(names)) {
        for (const p of info.partitions)
          if (p.leader < 0) throw kafkaError(ErrorCodes.LEADER_NOT_AVAILABLE, { api: 'Metadata', detail: `${info.name}-${p.partition}` })
      }
    }, timeout)
  }
  return created
}

export async function deleteTopics(cluster: ClusterClient, options: { topics: string[]; timeout?: number }): Promise<void> {
  const { topics, timeout = 5000 } = options
  await cluster.request(
    DeleteTopics,
    // v6 replaced topicNames with topics, and the encoder refuses topics before v6: the version picks the form.
    (v) => (v >= 6 ? { topics: topics.map((name) => ({ name })), timeoutMs: timeout } : { topicNames: topics, timeoutMs: timeout }),
    Routes.controller(),
    {
      retryMs: timeout + 5000,
      check: (res, from) => {
        try {
          for (const r of res.responses) check(r.errorCode, 'DeleteTopics', `topic ${r.name}`, r.errorMessage, from)
        } catch (err) {
          unknownTopicIsAnswer(err)
        }
      },
    },
  )
  for (const t of topics) cluster.metadata.topics.delete(t)
}

export async function createPartitions(
  cluster: ClusterClient,
  options: {
    topicPartitions: Array<{ topic: string; count: number; assignments?: number[][] }>
    validateOnly?: boolean
    timeout?: number
  },
): Promise<void> {
  const timeout = options.timeout ?? 5000
  await cluster.request(
    CreatePartitions,
    {
      topics: options.topicPartitions.map((t) => ({
        name: t.topic,
        count: t.count,
        assignments: t.assignments ? t.assignments.map((brokerIds) => ({ brokerIds })) : null,
      })),
      timeoutMs: timeout,
      validateOnly: options.validateOnly ?? false,
    },
    Routes.controller(),
    {
      retryMs: timeout + 5000,
      check: (res, from) => {
        for (const r of res.results) check(r.errorCode, 'CreatePartitions', `topic ${r.name}`, r.errorMessage, from)
      },
    },
  )
  await cluster
    .refreshMetadata(options.topicPartitions.map((t) => t.topic))
    .catch(cluster.log('Admin').caught('metadata refresh after CreatePartitions failed; the next use refreshes'))
}
