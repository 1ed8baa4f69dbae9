import { Admin as EngineAdmin } from '../admin/admin.js'
import type { Logger as EngineLogger } from '../logger.js'
import { kafkajsLogger, type Logger } from './logger.js'
import { KafkaJSNonRetriableError, translated } from './errors.js'
import { AdminEvents, Instrumentation, type InstrumentationEvent, type RemoveInstrumentationEventListener } from './events.js'
import { retryBudgetMs, type RetryOptions } from './retry.js'
import type { Connector } from './kafka.js'
import { adminError, kafkaJSAdminCalls } from './admin-calls.js'

import type {
  AclEntry,
  AclFilter,
  DeleteAclResponse,
  DeleteGroupsResult,
  DescribeAclResponse,
  DescribeConfigResponse,
  FetchOffsetsPartition,
  GroupDescriptions,
  GroupOverview,
  IResourceConfig,
  ITopicConfig,
  ITopicMetadata,
  ITopicPartitionConfig,
  ListPartitionReassignmentsResponse,
  PartitionReassignment,
  ResourceConfigQuery,
  SeekEntry,
} from './admin-types.js'
import type { TopicPartitions } from './cluster-types.js'

export interface AdminConfig {
  retry?: RetryOptions
}

/**
 * KafkaJS's admin, as its types declare it. The object also answers the
 * engine's other calls (deleteRecords, electLeaders, ...: see wafka's Admin),
 * which KafkaJS's type does not name.
 * KafkaJS 2.2.4-compatible; the engine's own is `wafka`'s Admin.
 */
export interface Admin {
  connect(): Promise<void>
  disconnect(): Promise<void>
  listTopics(): Promise<string[]>
  createTopics(options: { validateOnly?: boolean; waitForLeaders?: boolean; timeout?: number; topics: ITopicConfig[] }): Promise<boolean>
  deleteTopics(options: { topics: string[]; timeout?: number }): Promise<void>
  createPartitions(options: { validateOnly?: boolean; timeout?: number; topicPartitions: ITopicPartitionConfig[] }): Promise<boolean>
  fetchTopicMetadata(options?: { topics: string[] }): Promise<{ topics: ITopicMetadata[] }>
  fetchOffsets(options: {
    groupId: string
    topics?: string[]
    resolveOffsets?: boolean
  }): Promise<Array<{ topic: string; partitions: FetchOffsetsPartition[] }>>
  fetchTopicOffsets(topic: string): Promise<Array<SeekEntry & { high: string; low: string }>>
  fetchTopicOffsetsByTimestamp(topic: string, timestamp?: number): Promise<SeekEntry[]>
  describeCluster(): Promise<{
    brokers: Array<{ nodeId: number; host: string; port: number }>
    controller: number | null
    clusterId: string
  }>
  setOffsets(options: { groupId: string; topic: string; partitions: SeekEntry[] }): Promise<void>
  resetOffsets(options: { groupId: string; topic: string; earliest: boolean }): Promise<void>
  describeConfigs(configs: { resources: ResourceConfigQuery[]; includeSynonyms: boolean }): Promise<DescribeConfigResponse>
  alterConfigs(configs: { validateOnly: boolean; resources: IResourceConfig[] }): Promise<any>
  listGroups(): Promise<{ groups: GroupOverview[] }>
  deleteGroups(groupIds: string[]): Promise<DeleteGroupsResult[]>
  describeGroups(groupIds: string[]): Promise<GroupDescriptions>
  describeAcls(options: AclFilter): Promise<DescribeAclResponse>
  deleteAcls(options: { filters: AclFilter[] }): Promise<DeleteAclResponse>
  createAcls(options: { acl: AclEntry[] }): Promise<boolean>
  deleteTopicRecords(options: { topic: string; partitions: SeekEntry[] }): Promise<void>
  alterPartitionReassignments(request: { topics: PartitionReassignment[]; timeout?: number }): Promise<void>
  listPartitionReassignments(request: { topics?: TopicPartitions[]; timeout?: number }): Promise<ListPartitionReassignmentsResponse>
  logger(): Logger
  on(
    eventName: AdminEvents[keyof AdminEvents],
    listener: (event: InstrumentationEvent<any>) => void,
  ): RemoveInstrumentationEventListener<typeof eventName>
  readonly events: AdminEvents
}

/** What KafkaJS's admin has beyond its calls (admin-calls.ts). */
type AdminExtras = Pick<Admin, 'events' | 'connect' | 'disconnect' | 'on' | 'logger'>

/**
 * KafkaJS's admin: KafkaJS's calls with its argument checks, result shapes
 * and errors (admin-calls.ts), connect under the retry policy, events,
 * logger(); the engine's other calls with their rejections as KafkaJS's classes.
 */
export function createAdmin(connector: Connector, log: EngineLogger): Admin {
  const instrumentation = new Instrumentation('admin', AdminEvents)
  let inner: EngineAdmin | undefined
  const connected = (): EngineAdmin => {
    if (!inner) throw new KafkaJSNonRetriableError('The admin is not connected: call admin.connect() first')
    return inner
  }
  const logger = () => log.namespace('Admin')
  const extras: AdminExtras = {
    events: AdminEvents,
    async connect() {
      await connector.connect(async () => {
        // The engine retries what it may for as long as this admin's retry policy waits in all, not a
        // request timeout more: with `retries: 0` a call is one attempt, and a refusal KafkaJS does
        // not retry (a missing topic's configs) comes back at once, as KafkaJS's does.
        const kafka = await connector.engine(instrumentation.requests(AdminEvents))
        const engine = kafka.admin({ defaultApiTimeoutMs: Math.max(1, retryBudgetMs(connector.retry)) })
        try {
          await engine.connect()
        } catch (err) {
          await engine.disconnect().catch(() => {})
          throw err
        }
        const previous = inner
        inner = engine
        await previous?.disconnect().catch(() => {})
      })
      instrumentation.emit(AdminEvents.CONNECT)
    },
    async disconnect() {
      const engine = inner
      inner = undefined
      await translated(async () => engine?.disconnect())
      instrumentation.emit(AdminEvents.DISCONNECT)
    },
    on: (eventName, listener) => instrumentation.on(eventName, listener),
    logger: () => kafkajsLogger(logger()),
  }
  const calls = { ...extras, ...kafkaJSAdminCalls(connected, connector.retry, logger) }
  return new Proxy(calls as unknown as Admin, {
    get(target, name, receiver) {
      if (Object.hasOwn(target, name)) return Reflect.get(target, name, receiver)
      // Only the engine's own calls: not `then` (an admin is not a promise), not Object's methods.
      const method = Object.hasOwn(EngineAdmin.prototype, name)
        ? (EngineAdmin.prototype as unknown as Record<PropertyKey, unknown>)[name]
        : undefined
      if (typeof method !== 'function' || name === 'constructor') return undefined
      return async (...args: unknown[]) => {
        try {
          return await (method as (...a: unknown[]) => unknown).apply(connected(), args)
        } catch (err) {
          throw adminError(err)
        }
      }
    },
  })
}
