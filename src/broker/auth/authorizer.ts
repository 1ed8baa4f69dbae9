import { ErrorCodes } from '../../protocol/error-codes.js'
import { BrokerError } from '../broker-error.js'
import type { Controller } from '../controller.js'
import type { RequestContext } from '../handler.js'
import {
  CLUSTER_NAME,
  decide,
  decideByResourceType,
  AclOperationTypes,
  AclResourceTypes,
  SUPPORTED_OPERATIONS,
  type Acl,
  type Requester,
} from './acl-matching.js'
import { hostOf, principalOf, principalString } from '../principal.js'

/**
 * Kafka's StandardAuthorizer over the controller's ACLs (authorizer.class.name):
 * super users may do anything; anyone else what the ACLs covering the
 * resource allow and none denies (acl-matching.ts), a resource no ACL covers
 * being open only with allow.everyone.if.no.acl.found. Not enabled, it
 * allows everything, as a broker without an authorizer. The brokers' own
 * in-process connections (replication) are the inter-broker principal, a
 * super user as Kafka's brokers are configured.
 */
export class Authorizer {
  readonly superUsers: ReadonlySet<string>
  private indexed = -1
  private readonly byType = new Map<number, Acl[]>()

  constructor(
    private readonly controller: Controller,
    readonly enabled: boolean,
    /** super.users: principals separated by ';'. */
    superUsers: string,
    private readonly allowIfNoAcl: boolean,
  ) {
    this.superUsers = new Set(
      superUsers
        .split(';')
        .map((s) => s.trim())
        .filter(Boolean),
    )
  }

  /** Whether `who` (null: a broker's own connection) may do `op` on the resource. */
  authorize(who: Requester | null, op: number, type: number, name: string): boolean {
    if (!this.enabled || who === null || this.superUsers.has(who.principal)) return true
    return decide(this.aclsOf(type), who, op, type, name, this.allowIfNoAcl)
  }

  /** Whether `who` may do `op` on some resource of `type` (Kafka's authorizeByResourceType). */
  authorizeByResourceType(who: Requester | null, op: number, type: number): boolean {
    // Kafka asks its authorize of a made-up name first: super users, and allow.everyone.if.no.acl.found where nothing covers it.
    if (this.authorize(who, op, type, 'hardcode')) return true
    return decideByResourceType(this.aclsOf(type), who!, op, type)
  }

  /** The operations `who` may do on the resource, as the authorized-operations bitfield (bit n: operation code n). */
  authorizedOperations(who: Requester | null, type: number, name: string): number {
    let bits = 0
    for (const op of SUPPORTED_OPERATIONS[type] ?? []) if (this.authorize(who, op, type, name)) bits |= 1 << op
    return bits
  }

  /** The ACLs of one resource type, indexed again after every change to them. */
  private aclsOf(type: number): Acl[] {
    if (this.indexed !== this.controller.aclsVersion) {
      this.byType.clear()
      for (const acl of this.controller.acls.values()) {
        const list = this.byType.get(acl.resourceType)
        if (list) list.push(acl)
        else this.byType.set(acl.resourceType, [acl])
      }
      this.indexed = this.controller.aclsVersion
    }
    return this.byType.get(type) ?? []
  }
}

/** Who sent the request (null: another virtual broker's in-process connection). */
export function requester(ctx: RequestContext): Requester | null {
  return ctx.connection.internal ? null : { principal: principalString(principalOf(ctx.connection)), host: hostOf(ctx.connection) }
}

/** Whether the request's principal may do `op` on the resource (the cluster unless named). */
export function allowed(ctx: RequestContext, op: number, type: number = AclResourceTypes.CLUSTER, name = CLUSTER_NAME): boolean {
  const authorizer = ctx.cluster.authorizer
  return !authorizer.enabled || authorizer.authorize(requester(ctx), op, type, name)
}

/** A set of names that can be asked whether it holds one. */
export interface NameSet {
  has(name: string): boolean
}

/** Every name: what a broker without an authorizer allows, made without looking at the names. */
const EVERY_NAME: NameSet = { has: () => true }

/** The names among `names` the request's principal may do `op` on: one check per name, as Kafka's filterByAuthorized. */
export function allowedNames(ctx: RequestContext, op: number, type: number, names: Iterable<string | null>): NameSet {
  const authorizer = ctx.cluster.authorizer
  if (!authorizer.enabled || ctx.connection.internal) return EVERY_NAME
  const who = requester(ctx)
  const out = new Set<string>()
  for (const name of names) if (name !== null && !out.has(name) && authorizer.authorize(who, op, type, name)) out.add(name)
  return out
}

/**
 * Whether the request's principal may DESCRIBE a topic, asked later (a group
 * resolving its regexes after the heartbeat that asked for it): it holds the
 * principal, not the request.
 */
export function topicDescriber(ctx: RequestContext): (topic: string) => boolean {
  const authorizer = ctx.cluster.authorizer
  if (!authorizer.enabled || ctx.connection.internal) return () => true
  const who = requester(ctx)
  return (topic) => authorizer.authorize(who, AclOperationTypes.DESCRIBE, AclResourceTypes.TOPIC, topic)
}

/** The cluster's authorized-operations bitfield: 0 without DESCRIBE on it (as Kafka's AuthHelper answers). */
export function clusterAuthorizedOperations(ctx: RequestContext): number {
  return allowed(ctx, AclOperationTypes.DESCRIBE) ? authorizedOperations(ctx, AclResourceTypes.CLUSTER) : 0
}

/** The authorized-operations bitfield of the resource for the request's principal. */
export function authorizedOperations(ctx: RequestContext, type: number, name = CLUSTER_NAME): number {
  return ctx.cluster.authorizer.authorizedOperations(requester(ctx), type, name)
}

/** A request refused whole for want of a right: answered with its code by the handler's errorResponse, and logged as a refusal, not a failure. */
export class AuthorizationRefused extends BrokerError {}

/** Refuses the whole request with `code` (AuthorizationRefused) unless the principal may do `op`. */
export function requireAllowed(ctx: RequestContext, op: number, type: number, name: string, code: number): void {
  if (allowed(ctx, op, type, name)) return
  const who = requester(ctx)
  throw new AuthorizationRefused(code, `${who?.principal} from ${who?.host} may not ${opName(op)} ${typeName(type)} ${name}`)
}

const opName = (op: number) => Object.entries(AclOperationTypes).find(([, code]) => code === op)?.[0] ?? String(op)
const typeName = (type: number) => Object.entries(AclResourceTypes).find(([, code]) => code === type)?.[0] ?? String(type)

/** Config resource types (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs) and the ACL resource each is authorized on. */
const CONFIG_RESOURCES: Readonly<Record<number, { type: number; code: number } | undefined>> = {
  2: { type: AclResourceTypes.TOPIC, code: ErrorCodes.TOPIC_AUTHORIZATION_FAILED },
  4: { type: AclResourceTypes.CLUSTER, code: ErrorCodes.CLUSTER_AUTHORIZATION_FAILED },
  8: { type: AclResourceTypes.CLUSTER, code: ErrorCodes.CLUSTER_AUTHORIZATION_FAILED },
  16: { type: AclResourceTypes.CLUSTER, code: ErrorCodes.CLUSTER_AUTHORIZATION_FAILED },
  32: { type: AclResourceTypes.GROUP, code: ErrorCodes.GROUP_AUTHORIZATION_FAILED },
}

/**
 * The error a config resource gets when the principal may not do `op`
 * (DESCRIBE_CONFIGS, ALTER_CONFIGS) on it: topics and groups on their own
 * ACLs, brokers, loggers and client metrics on the cluster's (as Kafka's
 * ConfigHelper and AuthHelper); null when it may.
 */
export function configRefusal(ctx: RequestContext, op: number, configResourceType: number, name: string): number | null {
  const r = CONFIG_RESOURCES[configResourceType]
  if (!r) return null
  return allowed(ctx, op, r.type, r.type === AclResourceTypes.CLUSTER ? CLUSTER_NAME : name) ? null : r.code
}

/** Refuses the whole request CLUSTER_AUTHORIZATION_FAILED unless the principal may do `op` on the cluster. */
export function requireCluster(ctx: RequestContext, op: number): void {
  requireAllowed(ctx, op, AclResourceTypes.CLUSTER, CLUSTER_NAME, ErrorCodes.CLUSTER_AUTHORIZATION_FAILED)
}

/** Refuses the whole request TRANSACTIONAL_ID_AUTHORIZATION_FAILED unless the principal may WRITE the transactional id. */
export function requireTransactionalId(ctx: RequestContext, transactionalId: string): void {
  requireAllowed(
    ctx,
    AclOperationTypes.WRITE,
    AclResourceTypes.TRANSACTIONAL_ID,
    transactionalId,
    ErrorCodes.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
  )
}

/** An idempotent producer's right to a producer id: IDEMPOTENT_WRITE on the cluster, or WRITE on some topic (Kafka's InitProducerId). */
export function mayWriteIdempotently(ctx: RequestContext): boolean {
  return (
    allowed(ctx, AclOperationTypes.IDEMPOTENT_WRITE) ||
    ctx.cluster.authorizer.authorizeByResourceType(requester(ctx), AclOperationTypes.WRITE, AclResourceTypes.TOPIC)
  )
}

/**
 * A transaction's partitions when some topic may not be written (Kafka's
 * AddPartitionsToTxn: the unwritable ones TOPIC_AUTHORIZATION_FAILED, the
 * rest OPERATION_NOT_ATTEMPTED, so none is added); null when all may be.
 */
export function unwritableTxnPartitions(
  ctx: RequestContext,
  topics: ReadonlyArray<{ name: string; partitions: number[] }>,
): Array<{ name: string; results: Array<{ partition: number; errorCode: number }> }> | null {
  const writable = allowedNames(
    ctx,
    AclOperationTypes.WRITE,
    AclResourceTypes.TOPIC,
    topics.map((t) => t.name),
  )
  if (topics.every((t) => writable.has(t.name))) return null
  return topics.map((t) => ({
    name: t.name,
    results: t.partitions.map((partition) => ({
      partition,
      errorCode: writable.has(t.name) ? ErrorCodes.OPERATION_NOT_ATTEMPTED : ErrorCodes.TOPIC_AUTHORIZATION_FAILED,
    })),
  }))
}
