import { ErrorCodes } from '../../protocol/error-codes.js'
import { uuid, type Controller } from '../controller.js'
import { aclKey, filterMatches, filterProblem, newAclProblem, type Acl, type AclFilter } from './acl-matching.js'

/**
 * CreateAcls, DescribeAcls and DeleteAcls over the controller's ACLs, as
 * Kafka's AclControlManager: each ACL a metadata record with an id (so a
 * data dir keeps them, and snapshots), an identical one made once, the
 * records of one request written together.
 */

export interface AclResult {
  errorCode: number
  errorMessage: string | null
}

/** Creates each ACL not there already; one refused (bad codes, names) is answered INVALID_REQUEST and the others go ahead. */
export function createAcls(controller: Controller, creations: readonly Acl[]): AclResult[] {
  return controller.atomically(() => {
    const existing = new Set([...controller.acls.values()].map(aclKey))
    return creations.map((acl) => {
      const problem = newAclProblem(acl)
      if (problem) return { errorCode: ErrorCodes.INVALID_REQUEST, errorMessage: problem }
      const key = aclKey(acl)
      if (!existing.has(key)) {
        existing.add(key)
        controller.append({ type: 'acl', id: uuid(), acl: pick(acl) })
      }
      return { errorCode: ErrorCodes.NONE, errorMessage: null }
    })
  })
}

/** The ACLs the filter matches, grouped by resource pattern as DescribeAcls answers them. */
export function describeAcls(
  controller: Controller,
  filter: AclFilter,
): Array<{ resourceType: number; resourceName: string; patternType: number; acls: Acl[] }> {
  const groups = new Map<string, { resourceType: number; resourceName: string; patternType: number; acls: Acl[] }>()
  for (const acl of controller.acls.values()) {
    if (!filterMatches(filter, acl)) continue
    const key = JSON.stringify([acl.resourceType, acl.resourceName, acl.patternType])
    let group = groups.get(key)
    if (!group)
      groups.set(key, (group = { resourceType: acl.resourceType, resourceName: acl.resourceName, patternType: acl.patternType, acls: [] }))
    group.acls.push(acl)
  }
  return [...groups.values()]
}

/** Deletes, for each filter, the ACLs it matches (all filters' deletions one write); a filter that cannot be applied gets INVALID_REQUEST. */
export function deleteAcls(controller: Controller, filters: readonly AclFilter[]): Array<AclResult & { deleted: Acl[] }> {
  return controller.atomically(() => {
    const removed = new Set<string>()
    const results = filters.map((f) => {
      const problem = filterProblem(f)
      if (problem) return { errorCode: ErrorCodes.INVALID_REQUEST, errorMessage: problem, deleted: [] }
      const deleted: Acl[] = []
      for (const [id, acl] of controller.acls) if (filterMatches(f, acl)) (deleted.push(acl), removed.add(id))
      return { errorCode: ErrorCodes.NONE, errorMessage: null, deleted }
    })
    for (const id of removed) controller.append({ type: 'remove-acl', id })
    return results
  })
}

function pick(a: Acl): Acl {
  const { resourceType, resourceName, patternType, principal, host, operation, permissionType } = a
  return { resourceType, resourceName, patternType, principal, host, operation, permissionType }
}
