import { kafkaError } from '../errors.js'
import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { ConfigError } from '../errors.js'
import {
  CreateAcls,
  DeleteAcls,
  DescribeAcls,
  type CreateAclsRequestAclCreation,
  type DeleteAclsRequestDeleteAclsFilter,
  type DescribeAclsRequest,
} from '../protocol/messages/index.js'
import { ACL_ENTRY_OPTIONS, ACL_FILTER_OPTIONS } from './options.js'
import { checkEntries } from '../config/option.js'

// Kafka's ACL enums, with KafkaJS's names (the table the broker's authorizer uses too).
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from '../protocol/acl-codes.js'
export { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes }

/** One ACL (KafkaJS's shape). */
export interface AclEntry {
  resourceType: number
  resourceName: string
  resourcePatternType: number
  /** e.g. 'User:alice' */
  principal: string
  /** '*' for any host */
  host: string
  operation: number
  permissionType: number
}

/** Which ACLs a describe or delete matches: absent fields match anything. */
export interface AclFilter {
  resourceType?: number
  resourceName?: string | null
  resourcePatternType?: number
  principal?: string | null
  host?: string | null
  operation?: number
  permissionType?: number
}

const LITERAL = ResourcePatternTypes.LITERAL

function checkAcl(acl: AclEntry): void {
  for (const field of ['resourceName', 'principal', 'host'] as const) {
    if (typeof acl?.[field] !== 'string' || acl[field] === '') throw new ConfigError(`ACL ${field} must be a non-empty string`)
  }
  for (const field of ['resourceType', 'operation', 'permissionType'] as const) {
    if (!Number.isInteger(acl[field]) || acl[field] < 2)
      throw new ConfigError(`ACL ${field} must be a specific value (Acl*Types, not UNKNOWN or ANY)`)
  }
}

function filterBody(f: AclFilter, version: number) {
  const patternType = f.resourcePatternType ?? (version >= 1 ? ResourcePatternTypes.ANY : LITERAL)
  return {
    resourceTypeFilter: f.resourceType ?? AclResourceTypes.ANY,
    resourceNameFilter: f.resourceName ?? null,
    ...(version >= 1
      ? ({ patternTypeFilter: patternType } satisfies Partial<DescribeAclsRequest & DeleteAclsRequestDeleteAclsFilter>)
      : {}),
    principalFilter: f.principal ?? null,
    hostFilter: f.host ?? null,
    operation: f.operation ?? AclOperationTypes.ANY,
    permissionType: f.permissionType ?? AclPermissionTypes.ANY,
  }
}

/** CreateAcls on any broker (the controller applies them); throws the first ACL the broker refused. */
export async function createAcls(cluster: ClusterClient, acl: AclEntry[]): Promise<boolean> {
  if (!Array.isArray(acl) || acl.length === 0) throw new ConfigError('createAcls needs acl: [ ... ] with at least one entry')
  checkEntries('createAcls() acl', acl, ACL_ENTRY_OPTIONS)
  acl.forEach(checkAcl)
  await cluster.request(
    CreateAcls,
    (version) => ({
      creations: acl.map((a) => ({
        resourceType: a.resourceType,
        resourceName: a.resourceName,
        ...(version >= 1
          ? ({ resourcePatternType: a.resourcePatternType ?? LITERAL } satisfies Partial<CreateAclsRequestAclCreation>)
          : {}),
        principal: a.principal,
        host: a.host,
        operation: a.operation,
        permissionType: a.permissionType,
      })),
    }),
    Routes.any(),
    {
      check: (res, from) =>
        res.results.forEach((r, i) => {
          if (r.errorCode !== 0) {
            const a = acl[i]
            throw kafkaError(r.errorCode, {
              api: 'CreateAcls',
              broker: from.broker,
              detail: `${a.principal} on ${a.resourceName}${r.errorMessage ? `: ${r.errorMessage}` : ''}`,
            })
          }
        }),
    },
  )
  return true
}

export async function describeAcls(cluster: ClusterClient, filter: AclFilter = {}) {
  const { res, version } = await cluster.request(DescribeAcls, (v) => filterBody(filter, v), Routes.any(), {
    check: (r, from) => {
      if (r.errorCode !== 0)
        throw kafkaError(r.errorCode, { api: 'DescribeAcls', broker: from.broker, detail: r.errorMessage ?? undefined })
    },
  })
  return {
    throttleTime: res.throttleTimeMs,
    errorCode: res.errorCode,
    resources: res.resources.map((r) => ({
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      resourcePatternType: version >= 1 ? r.patternType : LITERAL,
      acls: r.acls.map((a) => ({ principal: a.principal, host: a.host, operation: a.operation, permissionType: a.permissionType })),
    })),
  }
}

export async function deleteAcls(cluster: ClusterClient, filters: AclFilter[]) {
  if (!Array.isArray(filters) || filters.length === 0) throw new ConfigError('deleteAcls needs filters: [ ... ] with at least one filter')
  checkEntries('deleteAcls() filters', filters, ACL_FILTER_OPTIONS)
  const { res, version } = await cluster.request(DeleteAcls, (v) => ({ filters: filters.map((f) => filterBody(f, v)) }), Routes.any(), {
    check: (r, from) =>
      r.filterResults.forEach((x, i) => {
        if (x.errorCode !== 0)
          throw kafkaError(x.errorCode, {
            api: 'DeleteAcls',
            broker: from.broker,
            detail: `filter ${i}${x.errorMessage ? `: ${x.errorMessage}` : ''}`,
          })
      }),
  })
  return {
    filterResponses: res.filterResults.map((r) => ({
      errorCode: r.errorCode,
      errorMessage: r.errorMessage,
      matchingAcls: r.matchingAcls.map((m) => ({
        errorCode: m.errorCode,
        errorMessage: m.errorMessage,
        resourceType: m.resourceType,
        resourceName: m.resourceName,
        resourcePatternType: version >= 1 ? m.patternType : LITERAL,
        principal: m.principal,
        host: m.host,
        operation: m.operation,
        permissionType: m.permissionType,
      })),
    })),
  }
}
