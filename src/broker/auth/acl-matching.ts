/**
 * Kafka's ACL vocabulary and its matching rules, as StandardAuthorizer and
 * AclBindingFilter apply them: pure functions over plain ACLs, so the rules
 * are tested alone (test/broker/acl-matching.test.ts).
 */

import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from '../../protocol/acl-codes.js'
export { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes }

/** The cluster resource's one name. */
export const CLUSTER_NAME = 'kafka-cluster'
/** A LITERAL ACL on this name covers every resource of its type; an ACL with this host, every host. */
export const WILDCARD = '*'
/** An ACL for this principal applies to every user. */
export const WILDCARD_PRINCIPAL = 'User:*'

/** One ACL binding: a resource pattern and an access control entry. */
export interface Acl {
  resourceType: number
  resourceName: string
  patternType: number
  principal: string
  host: string
  operation: number
  permissionType: number
}

/** A filter over bindings (DescribeAcls, DeleteAcls): null names match any, ANY codes match any. */
export interface AclFilter {
  resourceType: number
  resourceName: string | null
  patternType: number
  principal: string | null
  host: string | null
  operation: number
  permissionType: number
}

/** The operations each resource type supports (Kafka's AclEntry.supportedOperations): the authorized-operations bitfields' bits. */
export const SUPPORTED_OPERATIONS: Readonly<Record<number, readonly number[]>> = {
  [AclResourceTypes.TOPIC]: [
    AclOperationTypes.READ,
    AclOperationTypes.WRITE,
    AclOperationTypes.CREATE,
    AclOperationTypes.DESCRIBE,
    AclOperationTypes.DELETE,
    AclOperationTypes.ALTER,
    AclOperationTypes.DESCRIBE_CONFIGS,
    AclOperationTypes.ALTER_CONFIGS,
  ],
  [AclResourceTypes.GROUP]: [
    AclOperationTypes.READ,
    AclOperationTypes.DESCRIBE,
    AclOperationTypes.DELETE,
    AclOperationTypes.DESCRIBE_CONFIGS,
    AclOperationTypes.ALTER_CONFIGS,
  ],
  [AclResourceTypes.CLUSTER]: [
    AclOperationTypes.CREATE,
    AclOperationTypes.CLUSTER_ACTION,
    AclOperationTypes.DESCRIBE_CONFIGS,
    AclOperationTypes.ALTER_CONFIGS,
    AclOperationTypes.IDEMPOTENT_WRITE,
    AclOperationTypes.ALTER,
    AclOperationTypes.DESCRIBE,
  ],
  [AclResourceTypes.TRANSACTIONAL_ID]: [AclOperationTypes.DESCRIBE, AclOperationTypes.WRITE, AclOperationTypes.TWO_PHASE_COMMIT],
  [AclResourceTypes.DELEGATION_TOKEN]: [AclOperationTypes.DESCRIBE],
  [AclResourceTypes.USER]: [AclOperationTypes.CREATE_TOKENS, AclOperationTypes.DESCRIBE_TOKENS],
}

/** ALLOW ACLs for these operations allow DESCRIBE too; for these, DESCRIBE_CONFIGS. Not DENY ones: denying READ does not deny DESCRIBE. */
const IMPLIES_DESCRIBE: ReadonlySet<number> = new Set([
  AclOperationTypes.DESCRIBE,
  AclOperationTypes.READ,
  AclOperationTypes.WRITE,
  AclOperationTypes.DELETE,
  AclOperationTypes.ALTER,
])
const IMPLIES_DESCRIBE_CONFIGS: ReadonlySet<number> = new Set([AclOperationTypes.DESCRIBE_CONFIGS, AclOperationTypes.ALTER_CONFIGS])

/** Who asks: the principal ('User:name') and the client's address. */
export interface Requester {
  principal: string
  host: string
}

/** Whether the ACL's pattern covers the resource: its exact name (LITERAL), the wildcard, or a prefix of it (PREFIXED). */
export function patternCovers(acl: Pick<Acl, 'resourceType' | 'resourceName' | 'patternType'>, type: number, name: string): boolean {
  if (acl.resourceType !== type) return false
  if (acl.patternType === ResourcePatternTypes.LITERAL) return acl.resourceName === name || acl.resourceName === WILDCARD
  return acl.patternType === ResourcePatternTypes.PREFIXED && name.startsWith(acl.resourceName)
}

/**
 * What one ACL whose pattern covers the resource says of `op` by `who`:
 * 'allow', 'deny', or null when its principal, host or operation does not
 * apply (StandardAuthorizerData.findResult).
 */
export function aclVerdict(acl: Acl, who: Requester, op: number): 'allow' | 'deny' | null {
  if (acl.principal !== who.principal && acl.principal !== WILDCARD_PRINCIPAL) return null
  if (acl.host !== WILDCARD && acl.host !== who.host) return null
  const allow = acl.permissionType === AclPermissionTypes.ALLOW
  if (acl.operation !== AclOperationTypes.ALL) {
    if (allow) {
      if (op === AclOperationTypes.DESCRIBE) {
        if (!IMPLIES_DESCRIBE.has(acl.operation)) return null
      } else if (op === AclOperationTypes.DESCRIBE_CONFIGS) {
        if (!IMPLIES_DESCRIBE_CONFIGS.has(acl.operation)) return null
      } else if (acl.operation !== op) return null
    } else if (acl.operation !== op) return null
  }
  return allow ? 'allow' : 'deny'
}

/**
 * StandardAuthorizer's decision from the ACLs of one resource type: a
 * matching DENY wins over any ALLOW; no matching ACL denies, unless no ACL
 * at all covers the resource, when `allowIfNoAcl`
 * (allow.everyone.if.no.acl.found) decides. Super users are the caller's.
 */
export function decide(acls: Iterable<Acl>, who: Requester, op: number, type: number, name: string, allowIfNoAcl: boolean): boolean {
  let covered = false
  let allowed = false
  for (const acl of acls) {
    if (!patternCovers(acl, type, name)) continue
    covered = true
    const verdict = aclVerdict(acl, who, op)
    if (verdict === 'deny') return false
    if (verdict === 'allow') allowed = true
  }
  return allowed || (!covered && allowIfNoAcl)
}

/**
 * Whether `who` may do `op` on some resource of `type` (Kafka's
 * Authorizer.authorizeByResourceType, what an idempotent producer without
 * IDEMPOTENT_WRITE needs: WRITE on any topic): an ALLOW (a LITERAL one or a
 * PREFIXED one) not cancelled by a DENY of the same name or of a prefix of
 * it; a wildcard ALLOW allows unless a wildcard DENY. Super users, and
 * whatever allows a made-up name, are the caller's (as Kafka's default
 * implementation asks its own authorize first).
 */
export function decideByResourceType(acls: Iterable<Acl>, who: Requester, op: number, type: number): boolean {
  const deny = { literal: new Set<string>(), prefixed: new Set<string>() }
  const allow = { literal: new Set<string>(), prefixed: new Set<string>() }
  let wildcardAllow = false
  for (const acl of acls) {
    if (acl.resourceType !== type) continue
    if (acl.host !== who.host && acl.host !== WILDCARD) continue
    if (acl.principal !== who.principal && acl.principal !== WILDCARD_PRINCIPAL) continue
    if (acl.operation !== op && acl.operation !== AclOperationTypes.ALL) continue
    const literal = acl.patternType === ResourcePatternTypes.LITERAL
    if (acl.permissionType === AclPermissionTypes.DENY) {
      if (literal && acl.resourceName === WILDCARD) return false
      ;(literal ? deny.literal : deny.prefixed).add(acl.resourceName)
    } else if (acl.permissionType === AclPermissionTypes.ALLOW) {
      if (literal && acl.resourceName === WILDCARD) wildcardAllow = true
      else (literal ? allow.literal : allow.prefixed).add(acl.resourceName)
    }
  }
  if (wildcardAllow) return true
  const deniedByPrefix = (name: string) => {
    for (let i = 1; i <= name.length; i++) if (deny.prefixed.has(name.slice(0, i))) return true
    return false
  }
  for (const name of allow.literal) if (!deny.literal.has(name) && !deniedByPrefix(name)) return true
  for (const name of allow.prefixed) if (!deniedByPrefix(name)) return true
  return false
}

/** Whether a filter's resource pattern part matches a binding (Kafka's ResourcePatternFilter.matches, MATCH included). */
function patternMatches(f: AclFilter, acl: Acl): boolean {
  if (f.resourceType !== AclResourceTypes.ANY && f.resourceType !== acl.resourceType) return false
  if (f.patternType !== ResourcePatternTypes.ANY && f.patternType !== ResourcePatternTypes.MATCH && f.patternType !== acl.patternType)
    return false
  if (f.resourceName === null) return true
  if (f.patternType !== ResourcePatternTypes.MATCH) return f.resourceName === acl.resourceName
  // MATCH: the bindings that would apply to a resource of that name.
  if (acl.patternType === ResourcePatternTypes.LITERAL) return acl.resourceName === f.resourceName || acl.resourceName === WILDCARD
  return acl.patternType === ResourcePatternTypes.PREFIXED && f.resourceName.startsWith(acl.resourceName)
}

/** Whether a filter matches a binding (Kafka's AclBindingFilter.matches). */
export function filterMatches(f: AclFilter, acl: Acl): boolean {
  if (!patternMatches(f, acl)) return false
  if (f.principal !== null && f.principal !== acl.principal) return false
  if (f.host !== null && f.host !== acl.host) return false
  if (f.operation !== AclOperationTypes.ANY && f.operation !== acl.operation) return false
  return f.permissionType === AclPermissionTypes.ANY || f.permissionType === acl.permissionType
}

/** Why a filter cannot be applied (Kafka's "Unknown patternFilter/entryFilter"), or null. */
export function filterProblem(f: AclFilter): string | null {
  if (f.resourceType === AclResourceTypes.UNKNOWN || f.patternType === ResourcePatternTypes.UNKNOWN) return 'Unknown patternFilter.'
  if (f.operation === AclOperationTypes.UNKNOWN || f.permissionType === AclPermissionTypes.UNKNOWN) return 'Unknown entryFilter.'
  return null
}

/** Why an ACL cannot be created (Kafka's broker and controller checks, their messages), or null. */
export function newAclProblem(acl: Acl): string | null {
  const known = (code: number, max: number) => Number.isInteger(code) && code >= 2 && code <= max
  if (!known(acl.resourceType, AclResourceTypes.USER)) return `Invalid resourceType ${acl.resourceType}`
  if (acl.patternType !== ResourcePatternTypes.LITERAL && acl.patternType !== ResourcePatternTypes.PREFIXED)
    return `Invalid patternType ${acl.patternType}`
  if (!known(acl.operation, AclOperationTypes.TWO_PHASE_COMMIT)) return `Invalid operation ${acl.operation}`
  if (acl.permissionType !== AclPermissionTypes.ALLOW && acl.permissionType !== AclPermissionTypes.DENY)
    return `Invalid permissionType ${acl.permissionType}`
  if (acl.resourceType === AclResourceTypes.CLUSTER && acl.resourceName !== CLUSTER_NAME)
    return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`
  if (acl.resourceName === '') return 'Invalid empty resource name'
  if (!acl.principal.includes(':'))
    return `Could not parse principal from \`${acl.principal}\` (no colon is present separating the principal type from the principal name)`
  return null
}

/** One string per binding: identical ACLs are one (Kafka keeps a set). */
export function aclKey(a: Acl): string {
  return JSON.stringify([a.resourceType, a.resourceName, a.patternType, a.principal, a.host, a.operation, a.permissionType])
}
