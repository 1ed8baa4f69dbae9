import { KafkaError, UnsupportedApiError, kafkaError } from '../errors.js'
import type { Answered, ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { asAnswer } from '../cluster/retry.js'
import { shardedRequest, shardTopics } from '../cluster/sharded.js'
import { createAcls, deleteAcls, describeAcls, type AclEntry, type AclFilter } from './acls.js'
import { alterUserScramCredentials, describeUserScramCredentials, type ScramDeletion, type ScramUpsertion } from './scram-credentials.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { checkArgument, checkEntries, checkOptions } from '../config/option.js'
import {
  ALTER_CONFIGS_OPTIONS,
  ALTER_CONFIGS_RESOURCE_OPTIONS,
  ALTER_REASSIGNMENTS_OPTIONS,
  ALTER_SCRAM_OPTIONS,
  ACL_FILTER_OPTIONS,
  CREATE_ACLS_OPTIONS,
  DELETE_ACLS_OPTIONS,
  DESCRIBE_SCRAM_OPTIONS,
  CONFIG_ENTRY_OPTIONS,
  CREATE_PARTITIONS_OPTIONS,
  CREATE_TOPICS_OPTIONS,
  DELETE_RECORDS_OPTIONS,
  DELETE_TOPICS_OPTIONS,
  DESCRIBE_CONFIGS_OPTIONS,
  DESCRIBE_CONFIGS_RESOURCE_OPTIONS,
  ELECT_LEADERS_OPTIONS,
  FETCH_OFFSETS_ALIASES,
  FETCH_OFFSETS_OPTIONS,
  FETCH_TOPIC_METADATA_OPTIONS,
  LIST_REASSIGNMENTS_OPTIONS,
  RESET_OFFSETS_OPTIONS,
  SET_OFFSETS_OPTIONS,
  TOPIC_CONFIG_OPTIONS,
  TOPIC_PARTITIONS_COUNT_OPTIONS,
} from '../config/admin-options.js'
import {
  AlterPartitionReassignments,
  ConsumerGroupDescribe,
  CreatePartitions,
  CreateTopics,
  DeleteGroups,
  DeleteRecords,
  DeleteTopics,
  DescribeCluster,
  DescribeConfigs,
  DescribeGroups,
  ElectLeaders,
  IncrementalAlterConfigs,
  ListGroups,
  ListOffsets,
  ListPartitionReassignments,
  OffsetCommit,
  OffsetFetch,
  type CreateTopicsRequest,
  type DescribeConfigsRequest,
  type ElectLeadersRequest,
  type ListOffsetsRequest,
  type OffsetFetchRequest,
  type OffsetFetchResponse,
} from '../protocol/messages/index.js'

/**
 * Kafka's config resource types (DescribeConfigs / IncrementalAlterConfigs:
 * ConfigResource.Type). Not the ACL ones (AclResourceTypes): there a group is 3,
 * here it is 32.
 */
export const ConfigResourceTypes = { UNKNOWN: 0, TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 } as const
export const ConfigOperations = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const
export type ConfigOperation = keyof typeof ConfigOperations

export interface TopicConfig {
  topic: string
  /** -1: the broker's num.partitions. */
  numPartitions?: number
  /** -1: the broker's default.replication.factor. */
  replicationFactor?: number
  replicaAssignment?: Array<{ partition: number; replicas: number[] }>
  configEntries?: Array<{ name: string; value: string | null }>
}

/** ElectLeaders election types, as the Java client's ElectionType. */
export const ElectionTypes = { PREFERRED: 0, UNCLEAN: 1 } as const
export type ElectionType = keyof typeof ElectionTypes

export interface TopicPartitions {
  topic: string
  partitions: number[]
}

const EARLIEST = -2n
const LATEST = -1n
const { TOPIC_ALREADY_EXISTS, GROUP_ID_NOT_FOUND } = ErrorCodes

/** The version, when it is at least `min`; else a clear error naming what needs a newer broker. */
function requireVersion(version: number, min: number, what: string): true {
  if (version < min)
    throw new UnsupportedApiError(`${what} needs a broker that speaks a newer protocol version (v${min}+, this one: v${version})`)
  return true
}

/** Throws the first non-zero error code of a per-item answer, naming the item (and the broker, when known). */
function check(errorCode: number, api: string, detail: string, message?: string | null, from?: Answered): void {
  if (errorCode !== 0) throw kafkaError(errorCode, { api, broker: from?.broker, detail: message ? `${detail}: ${message}` : detail })
}

/** A topic that does not exist is the answer about it, not a reason to retry until the timeout (see asAnswer). */
function unknownTopicIsAnswer(err: unknown): never {
  if (err instanceof KafkaError && err.is(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION)) throw asAnswer(err)
  throw err
}

/**
 * Cluster administration, shaped like KafkaJS's admin client (same method
 * names and results; offsets as strings as KafkaJS gives them). Every call
 * retries retriable errors until `timeout` (default: defaultApiTimeoutMs).
 */
export class Admin {
  constructor(private readonly cluster: ClusterClient) {}

  connect(): Promise<void> {
    return this.cluster.connect()
  }

  disconnect(): Promise<void> {
    return this.cluster.disconnect()
  }

  async listTopics(): Promise<string[]> {
    return this.cluster.retry(async () => {
      await this.cluster.refreshMetadata('all')
      return [...this.cluster.metadata.topics.keys()]
    })
  }

  async fetchTopicMetadata(options: { topics?: string[] } = {}) {
    checkOptions('fetchTopicMetadata()', options, FETCH_TOPIC_METADATA_OPTIONS)
    const { topics } = options
    return this.cluster.retry(async () => {
      if (topics) await this.cluster.refreshMetadata(topics)
      else await this.cluster.refreshMetadata('all')
      const infos = topics
        ? await this.cluster.topicMetadata(topics).catch(unknownTopicIsAnswer)
        : [...this.cluster.metadata.topics.values()]
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

  async describeCluster() {
    return this.cluster.retry(async () => {
      if (await this.cluster.supports(DescribeCluster)) {
        const { res } = await this.cluster.request(DescribeCluster, {}, Routes.any(), {
          retryMs: 0,
          check: (r, from) => check(r.errorCode, 'DescribeCluster', 'cluster', r.errorMessage, from),
        })
        return {
          brokers: res.brokers.map((b) => ({ nodeId: b.brokerId, host: b.host, port: b.port, rack: b.rack })),
          controller: res.controllerId,
          clusterId: res.clusterId,
        }
      }
      await this.cluster.refreshMetadata()
      const m = this.cluster.metadata
      return { brokers: [...m.brokers.values()], controller: m.controllerId, clusterId: m.clusterId }
    })
  }

  /** Creates topics; resolves false when every one already existed (as KafkaJS does). */
  async createTopics(options: {
    topics: TopicConfig[]
    validateOnly?: boolean
    waitForLeaders?: boolean
    timeout?: number
  }): Promise<boolean> {
    checkOptions('createTopics()', options, CREATE_TOPICS_OPTIONS)
    checkEntries('createTopics() topics', options.topics, TOPIC_CONFIG_OPTIONS)
    const timeout = options.timeout ?? 5000
    let created = false
    await this.cluster.request(
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
      await this.cluster.retry(async () => {
        await this.cluster.refreshMetadata(names)
        for (const info of await this.cluster.topicMetadata(names)) {
          for (const p of info.partitions)
            if (p.leader < 0) throw kafkaError(ErrorCodes.LEADER_NOT_AVAILABLE, { api: 'Metadata', detail: `${info.name}-${p.partition}` })
        }
      }, timeout)
    }
    return created
  }

  async deleteTopics(options: { topics: string[]; timeout?: number }): Promise<void> {
    const { topics, timeout = 5000 } = checkOptions('deleteTopics()', options, DELETE_TOPICS_OPTIONS)
    await this.cluster.request(
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
    for (const t of topics) this.cluster.metadata.topics.delete(t)
  }

  async createPartitions(options: {
    topicPartitions: Array<{ topic: string; count: number; assignments?: number[][] }>
    validateOnly?: boolean
    timeout?: number
  }): Promise<void> {
    checkOptions('createPartitions()', options, CREATE_PARTITIONS_OPTIONS)
    checkEntries('createPartitions() topicPartitions', options.topicPartitions, TOPIC_PARTITIONS_COUNT_OPTIONS)
    const timeout = options.timeout ?? 5000
    await this.cluster.request(
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
    await this.cluster
      .refreshMetadata(options.topicPartitions.map((t) => t.topic))
      .catch(this.cluster.log('Admin').caught('metadata refresh after CreatePartitions failed; the next use refreshes'))
  }

  /** Deletes records before the given offsets (each partition's leader sets its low watermark). */
  async deleteRecords(options: {
    topic: string
    partitions: Array<{ partition: number; offset: string | number | bigint }>
    timeout?: number
  }): Promise<Array<{ partition: number; lowWatermark: string }>> {
    const { topic, partitions, timeout = 5000 } = checkOptions('deleteRecords()', options, DELETE_RECORDS_OPTIONS)
    const offsets = new Map(partitions.map((p) => [p.partition, p.offset]))
    const answers = await shardedRequest(
      this.cluster,
      DeleteRecords,
      partitions.map((p) => ({ topic, partition: p.partition })),
      (shard) => ({
        topics: shardTopics(shard).map((t) => ({
          name: t.topic,
          partitions: t.partitions.map((id) => ({ partitionIndex: id, offset: BigInt(offsets.get(id)!) })),
        })),
        timeoutMs: timeout,
      }),
      {
        check: (r, from) => {
          for (const t of r.topics)
            for (const p of t.partitions) check(p.errorCode, 'DeleteRecords', `${topic}-${p.partitionIndex}`, null, from)
        },
      },
    )
    const lowWatermarks = answers.flatMap(({ res }) =>
      res.topics.flatMap((t) => t.partitions.map((p) => ({ partition: p.partitionIndex, lowWatermark: String(p.lowWatermark) }))),
    )
    return lowWatermarks.sort((a, b) => a.partition - b.partition)
  }

  /** Per partition: the latest offset (`offset`, `high`) and the earliest (`low`), as KafkaJS returns them. */
  async fetchTopicOffsets(topic: string) {
    checkArgument('fetchTopicOffsets()', 'topic', topic, { kind: 'string' })
    const [info] = await this.cluster.topicMetadata([topic])
    const ids = info.partitions.map((p) => p.partition)
    const [high, low] = await Promise.all([this.listOffsets(topic, ids, LATEST), this.listOffsets(topic, ids, EARLIEST)])
    return ids.map((partition) => ({
      partition,
      offset: String(high.get(partition)),
      high: String(high.get(partition)),
      low: String(low.get(partition)),
    }))
  }

  /** Per partition: the earliest offset whose timestamp is at or after `timestamp` (latest when none). */
  async fetchTopicOffsetsByTimestamp(topic: string, timestamp?: number) {
    checkArgument('fetchTopicOffsetsByTimestamp()', 'topic', topic, { kind: 'string' })
    checkArgument('fetchTopicOffsetsByTimestamp()', 'timestamp', timestamp, { kind: 'integer', optional: true })
    const [info] = await this.cluster.topicMetadata([topic])
    const ids = info.partitions.map((p) => p.partition)
    const found = await this.listOffsets(topic, ids, timestamp === undefined ? LATEST : BigInt(timestamp))
    const missing = ids.filter((id) => found.get(id) === -1n)
    if (missing.length > 0) {
      const latest = await this.listOffsets(topic, missing, LATEST)
      for (const id of missing) found.set(id, latest.get(id)!)
    }
    return ids.map((partition) => ({ partition, offset: String(found.get(partition)) }))
  }

  /** ListOffsets at each partition's leader: offset by partition. */
  async listOffsets(topic: string, partitions: number[], timestamp: bigint, isolationLevel = 0): Promise<Map<number, bigint>> {
    const answers = await shardedRequest(
      this.cluster,
      ListOffsets,
      partitions.map((partition) => ({ topic, partition })),
      (shard, v) => ({
        replicaId: -1,
        // read_committed must not silently become read_uncommitted on a broker without it.
        ...(isolationLevel !== 0 && requireVersion(v, 2, 'read_committed offsets')
          ? ({ isolationLevel } satisfies Partial<ListOffsetsRequest>)
          : {}),
        topics: shardTopics(shard).map((t) => ({
          name: t.topic,
          partitions: t.partitions.map((id) => ({ partitionIndex: id, timestamp })),
        })),
      }),
      {
        check: (r, from) => {
          for (const t of r.topics)
            for (const p of t.partitions) check(p.errorCode, 'ListOffsets', `${topic}-${p.partitionIndex} at ${from.broker}`)
        },
      },
    )
    const out = new Map<number, bigint>()
    for (const { res } of answers) for (const t of res.topics) for (const p of t.partitions) out.set(p.partitionIndex, p.offset)
    return out
  }

  async describeConfigs(options: {
    resources: Array<{ type: number; name: string; configNames?: string[] | null }>
    includeSynonyms?: boolean
  }) {
    checkOptions('describeConfigs()', options, DESCRIBE_CONFIGS_OPTIONS)
    checkEntries('describeConfigs() resources', options.resources, DESCRIBE_CONFIGS_RESOURCE_OPTIONS)
    // The brokers' throttle_time_ms (quotas, KIP-219), the longest of the answers (the connection holds its next requests back for it).
    let throttleTime = 0
    const results = await Promise.all(
      options.resources.map((r) =>
        this.cluster
          .request(
            DescribeConfigs,
            (v) => ({
              resources: [{ resourceType: r.type, resourceName: r.name, configurationKeys: r.configNames ?? null }],
              ...(options.includeSynonyms
                ? ({ includeSynonyms: requireVersion(v, 1, 'config synonyms') } satisfies Partial<DescribeConfigsRequest>)
                : {}),
            }),
            configRoute(r),
            { check: (res, from) => check(res.results[0].errorCode, 'DescribeConfigs', `${r.name}`, res.results[0].errorMessage, from) },
          )
          .then(({ res }) => {
            throttleTime = Math.max(throttleTime, res.throttleTimeMs ?? 0)
            const x = res.results[0]
            return {
              errorCode: x.errorCode,
              errorMessage: x.errorMessage,
              resourceName: x.resourceName,
              resourceType: x.resourceType,
              configEntries: x.configs.map((c) => ({
                configName: c.name,
                configValue: c.value,
                readOnly: c.readOnly,
                isDefault: c.configSource === 5, // DEFAULT_CONFIG
                configSource: c.configSource,
                isSensitive: c.isSensitive,
                configSynonyms: (c.synonyms ?? []).map((s) => ({ configName: s.name, configValue: s.value, configSource: s.source })),
              })),
            }
          }),
      ),
    )
    return { resources: results, throttleTime }
  }

  /** Incremental config changes (IncrementalAlterConfigs): each entry says SET, DELETE, APPEND or SUBTRACT (default SET). */
  async alterConfigs(options: {
    resources: Array<{
      type: number
      name: string
      configEntries: Array<{ name: string; value?: string | null; operation?: ConfigOperation }>
    }>
    validateOnly?: boolean
  }) {
    checkOptions('alterConfigs()', options, ALTER_CONFIGS_OPTIONS)
    checkEntries('alterConfigs() resources', options.resources, ALTER_CONFIGS_RESOURCE_OPTIONS)
    for (const r of options.resources) checkEntries(`alterConfigs() ${r.name} configEntries`, r.configEntries, CONFIG_ENTRY_OPTIONS)
    return Promise.all(
      options.resources.map((r) =>
        this.cluster
          .request(
            IncrementalAlterConfigs,
            {
              resources: [
                {
                  resourceType: r.type,
                  resourceName: r.name,
                  configs: r.configEntries.map((c) => ({
                    name: c.name,
                    configOperation: ConfigOperations[c.operation ?? 'SET'],
                    value: c.value ?? null,
                  })),
                },
              ],
              validateOnly: options.validateOnly ?? false,
            },
            configRoute(r),
            {
              check: (res, from) =>
                check(res.responses[0].errorCode, 'IncrementalAlterConfigs', r.name, res.responses[0].errorMessage, from),
            },
          )
          .then(({ res }) => ({ resourceType: res.responses[0].resourceType, resourceName: res.responses[0].resourceName })),
      ),
    )
  }

  /**
   * Leader elections (ElectLeaders): the preferred replica (the first of the
   * replica list) or, UNCLEAN, any live replica. `topicPartitions` null: every
   * partition. Per partition its outcome: `error` null when a leader was
   * elected, else the broker's KafkaError (ELECTION_NOT_NEEDED when the
   * preferred replica already leads), as the Java client reports it.
   */
  async electLeaders(options: { electionType?: ElectionType; topicPartitions?: TopicPartitions[] | null; timeout?: number } = {}) {
    checkOptions('electLeaders()', options, ELECT_LEADERS_OPTIONS)
    const timeout = options.timeout ?? 30_000
    const type = options.electionType ?? 'PREFERRED'
    const { res } = await this.cluster.request(
      ElectLeaders,
      (v) => ({
        // v0 elects only the preferred replica: an unclean election must not silently become one.
        ...(type === 'PREFERRED' || requireVersion(v, 1, 'an unclean leader election')
          ? ({ electionType: ElectionTypes[type] } satisfies Partial<ElectLeadersRequest>)
          : {}),
        topicPartitions: options.topicPartitions?.map((t) => ({ topic: t.topic, partitions: t.partitions })) ?? null,
        timeoutMs: timeout,
      }),
      Routes.controller(),
      { retryMs: timeout + 5000, check: (r, from) => check(r.errorCode ?? 0, 'ElectLeaders', 'cluster', null, from) },
    )
    return res.replicaElectionResults
      .flatMap((t) =>
        t.partitionResult.map((p) => ({
          topic: t.topic,
          partition: p.partitionId,
          error:
            p.errorCode === 0
              ? null
              : kafkaError(p.errorCode, {
                  api: 'ElectLeaders',
                  detail: `${t.topic}-${p.partitionId}${p.errorMessage ? `: ${p.errorMessage}` : ''}`,
                }),
        })),
      )
      .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
  }

  /**
   * Moves partitions to new replica lists (AlterPartitionReassignments);
   * `replicas: null` cancels a reassignment in progress. Resolves once the
   * controller accepted them (the data moves afterwards: see
   * listPartitionReassignments); throws the first partition's error.
   */
  async alterPartitionReassignments(options: {
    topics: Array<{ topic: string; partitions: Array<{ partition: number; replicas: number[] | null }> }>
    timeout?: number
  }) {
    checkOptions('alterPartitionReassignments()', options, ALTER_REASSIGNMENTS_OPTIONS)
    const timeout = options.timeout ?? 30_000
    await this.cluster.request(
      AlterPartitionReassignments,
      {
        timeoutMs: timeout,
        topics: options.topics.map((t) => ({
          name: t.topic,
          partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, replicas: p.replicas })),
        })),
      },
      Routes.controller(),
      {
        retryMs: timeout + 5000,
        check: (res, from) => {
          check(res.errorCode, 'AlterPartitionReassignments', 'cluster', res.errorMessage, from)
          for (const t of res.responses) {
            for (const p of t.partitions)
              check(p.errorCode, 'AlterPartitionReassignments', `${t.name}-${p.partitionIndex}`, p.errorMessage, from)
          }
        },
      },
    )
  }

  /** Reassignments in progress (of `topics`, else all): target replicas and those being added and removed. */
  async listPartitionReassignments(options: { topics?: TopicPartitions[]; timeout?: number } = {}) {
    checkOptions('listPartitionReassignments()', options, LIST_REASSIGNMENTS_OPTIONS)
    const timeout = options.timeout ?? 30_000
    const { res } = await this.cluster.request(
      ListPartitionReassignments,
      {
        timeoutMs: timeout,
        topics: options.topics?.map((t) => ({ name: t.topic, partitionIndexes: t.partitions })) ?? null,
      },
      Routes.controller(),
      { retryMs: timeout + 5000, check: (r, from) => check(r.errorCode, 'ListPartitionReassignments', 'cluster', r.errorMessage, from) },
    )
    return res.topics.flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.name,
        partition: p.partitionIndex,
        replicas: p.replicas,
        addingReplicas: p.addingReplicas,
        removingReplicas: p.removingReplicas,
      })),
    )
  }

  /** Every group on every broker (each broker lists the groups it coordinates). */
  async listGroups() {
    await this.cluster.refreshMetadata()
    const lists = await Promise.all(
      [...this.cluster.metadata.brokers.keys()].map((id) =>
        this.cluster
          .request(ListGroups, {}, Routes.node(id), {
            check: (res, from) => check(res.errorCode, 'ListGroups', `broker ${id}`, null, from),
          })
          .then(({ res }) =>
            // groupType (v5+): 'classic' or 'consumer' (KIP-848); absent from older brokers.
            res.groups.map((g) => ({
              groupId: g.groupId,
              protocolType: g.protocolType,
              groupState: g.groupState,
              ...(g.groupType ? { groupType: g.groupType } : {}),
            })),
          ),
      ),
    )
    return { groups: lists.flat() }
  }

  /**
   * Groups of either type. DescribeGroups knows only classic groups (it
   * calls a KIP-848 group Dead); for those the broker's ConsumerGroupDescribe
   * answers, as the Java admin client asks it. KIP-848 members carry their
   * `assignment` as topic partitions and empty metadata/assignment bytes.
   */
  async describeGroups(groupIds: string[]) {
    checkArgument('describeGroups()', 'groupIds', groupIds, { kind: 'array', entries: 'string' })
    const groups = await Promise.all(
      groupIds.map((groupId) =>
        this.cluster.retry(async () => {
          const group = Routes.group(groupId)
          const { res } = await this.cluster.request(DescribeGroups, { groups: [groupId] }, group, {
            retryMs: 0,
            // Not found may be a KIP-848 group, asked below: every other code is the answer's error.
            check: (r, from) => {
              if (r.groups[0].errorCode !== GROUP_ID_NOT_FOUND)
                check(r.groups[0].errorCode, 'DescribeGroups', `group ${groupId}`, null, from)
            },
          })
          const g = res.groups[0]
          const notFound = g.errorCode === GROUP_ID_NOT_FOUND || (g.errorCode === 0 && g.groupState === 'Dead')
          if (notFound && (await this.cluster.supports(ConsumerGroupDescribe, group))) {
            const modern = await this.describeConsumerGroup(groupId)
            if (modern) return modern
          }
          check(g.errorCode, 'DescribeGroups', `group ${groupId}`)
          return {
            errorCode: g.errorCode,
            groupId: g.groupId,
            state: g.groupState,
            protocolType: g.protocolType,
            protocol: g.protocolData,
            ...(g.groupState === 'Dead' ? {} : { groupType: 'classic' as const }),
            members: g.members.map((m) => ({
              memberId: m.memberId,
              groupInstanceId: m.groupInstanceId,
              clientId: m.clientId,
              clientHost: m.clientHost,
              memberMetadata: m.memberMetadata,
              memberAssignment: m.memberAssignment,
              assignment: undefined as Array<{ topic: string; partitions: number[] }> | undefined,
            })),
          }
        }),
      ),
    )
    return { groups }
  }

  /** A KIP-848 group by ConsumerGroupDescribe; undefined when there is no such group of that type. */
  private async describeConsumerGroup(groupId: string) {
    const { res } = await this.cluster.request(ConsumerGroupDescribe, { groupIds: [groupId] }, Routes.group(groupId), {
      retryMs: 0,
      check: (r, from) => {
        const code = r.groups[0].errorCode
        if (code !== GROUP_ID_NOT_FOUND) check(code, 'ConsumerGroupDescribe', `group ${groupId}`, r.groups[0].errorMessage, from)
      },
    })
    const g = res.groups[0]
    if (g.errorCode === GROUP_ID_NOT_FOUND) return undefined
    const empty = new Uint8Array(0)
    return {
      errorCode: 0,
      groupId: g.groupId,
      state: g.groupState,
      protocolType: 'consumer',
      protocol: g.assignorName,
      groupType: 'consumer' as const,
      members: g.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.instanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        memberMetadata: empty,
        memberAssignment: empty,
        assignment: m.assignment.topicPartitions.map((t) => ({ topic: t.topicName, partitions: [...t.partitions].sort((a, b) => a - b) })),
      })),
    }
  }

  async deleteGroups(groupIds: string[]) {
    checkArgument('deleteGroups()', 'groupIds', groupIds, { kind: 'array', entries: 'string' })
    return Promise.all(
      groupIds.map((groupId) =>
        this.cluster
          .request(DeleteGroups, { groupsNames: [groupId] }, Routes.group(groupId), {
            check: (res, from) => check(res.results[0].errorCode, 'DeleteGroups', `group ${groupId}`, null, from),
          })
          .then(({ res }) => ({ groupId: res.results[0].groupId, errorCode: res.results[0].errorCode })),
      ),
    )
  }

  /** Committed offsets of a group (for `topics`, else every topic it committed); -1 where none. */
  async fetchOffsets(options: { groupId: string; topics?: string[] }) {
    checkOptions('fetchOffsets()', options, FETCH_OFFSETS_OPTIONS, FETCH_OFFSETS_ALIASES)
    const { groupId, topics } = options
    const wanted = topics
      ? await Promise.all(
          topics.map(async (t) => ({
            name: t,
            partitionIndexes: (await this.cluster.topicMetadata([t]))[0].partitions.map((p) => p.partition),
          })),
        )
      : null
    // v8+ batches groups and answers per group; older versions at the top level.
    const answerOf = (res: OffsetFetchResponse, version: number): CommittedOffsets => (version >= 8 ? res.groups[0].topics : res.topics)
    const { res, version } = await this.cluster.request(
      OffsetFetch,
      // requireStable (v7+) waits out pending transactional commits; older brokers cannot, and answer as they can.
      (v) =>
        v >= 8
          ? { groups: [{ groupId, topics: wanted }], requireStable: true }
          : { groupId, topics: wanted, ...(v >= 7 ? ({ requireStable: true } satisfies Partial<OffsetFetchRequest>) : {}) },
      Routes.group(groupId),
      {
        check: (r, from) => {
          check((from.version >= 8 ? r.groups[0].errorCode : r.errorCode) ?? 0, 'OffsetFetch', `group ${groupId}`, null, from)
          for (const t of answerOf(r, from.version))
            for (const p of t.partitions) check(p.errorCode, 'OffsetFetch', `group ${groupId} ${t.name}-${p.partitionIndex}`, null, from)
        },
      },
    )
    return answerOf(res, version).map((t) => ({
      topic: t.name,
      partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, offset: String(p.committedOffset), metadata: p.metadata })),
    }))
  }

  /** Commits offsets for a group that has no active members (as KafkaJS's setOffsets). */
  async setOffsets(options: {
    groupId: string
    topic: string
    partitions: Array<{ partition: number; offset: string | number | bigint }>
  }) {
    const { groupId, topic, partitions } = checkOptions('setOffsets()', options, SET_OFFSETS_OPTIONS)
    // generation -1 and no member id: a commit from outside the group (no members may be active).
    await this.cluster.request(
      OffsetCommit,
      {
        groupId,
        topics: [
          {
            name: topic,
            partitions: partitions.map((p) => ({
              partitionIndex: p.partition,
              committedOffset: BigInt(p.offset),
              committedMetadata: null,
            })),
          },
        ],
      },
      Routes.group(groupId),
      {
        check: (res, from) => {
          for (const t of res.topics)
            for (const p of t.partitions) check(p.errorCode, 'OffsetCommit', `group ${groupId} ${t.name}-${p.partitionIndex}`, null, from)
        },
      },
    )
  }

  /** Moves a group's committed offsets on `topic` to the earliest (or latest) ones. */
  async resetOffsets(options: { groupId: string; topic: string; earliest?: boolean }) {
    const { groupId, topic, earliest = false } = checkOptions('resetOffsets()', options, RESET_OFFSETS_OPTIONS)
    const [info] = await this.cluster.topicMetadata([topic])
    const offsets = await this.listOffsets(
      topic,
      info.partitions.map((p) => p.partition),
      earliest ? EARLIEST : LATEST,
    )
    await this.setOffsets({ groupId, topic, partitions: [...offsets].map(([partition, offset]) => ({ partition, offset })) })
  }

  /** Creates ACLs (KafkaJS: `createAcls({ acl: [...] })`); StandardAuthorizer applies them cluster-wide. */
  async createAcls(options: { acl: AclEntry[] }): Promise<boolean> {
    return createAcls(this.cluster, checkOptions('createAcls()', options, CREATE_ACLS_OPTIONS).acl)
  }

  /** The ACLs matching a filter, grouped by resource (KafkaJS's result shape). */
  async describeAcls(filter: AclFilter = {}) {
    return describeAcls(this.cluster, checkOptions('describeAcls()', filter, ACL_FILTER_OPTIONS))
  }

  /** Deletes the ACLs matching each filter; says which were deleted (KafkaJS's result shape). */
  async deleteAcls(options: { filters: AclFilter[] }) {
    checkOptions('deleteAcls()', options, DELETE_ACLS_OPTIONS)
    return deleteAcls(this.cluster, options.filters)
  }

  /** Users' SCRAM credentials: mechanisms and iterations, never secrets (KIP-554). */
  async describeUserScramCredentials(options: { users?: string[] } = {}) {
    checkOptions('describeUserScramCredentials()', options, DESCRIBE_SCRAM_OPTIONS)
    return describeUserScramCredentials(this.cluster, options.users)
  }

  /** Creates, replaces or deletes users' SCRAM credentials (KIP-554); Kafka takes one change per user per call. */
  async alterUserScramCredentials(changes: { upsertions?: ScramUpsertion[]; deletions?: ScramDeletion[] }): Promise<void> {
    return alterUserScramCredentials(this.cluster, checkOptions('alterUserScramCredentials()', changes, ALTER_SCRAM_OPTIONS))
  }
}

type CommittedOffsets = Array<{
  name: string
  partitions: Array<{ partitionIndex: number; committedOffset: bigint; metadata: string | null; errorCode: number }>
}>

/** Broker configs live on that broker; topic (and other) configs can be asked of any. */
function configRoute(r: { type: number; name: string }) {
  return r.type === ConfigResourceTypes.BROKER ? Routes.node(Number(r.name)) : Routes.any()
}
