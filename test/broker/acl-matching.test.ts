// The embedded broker's authorizer rules, as Kafka's StandardAuthorizer
// applies them (src/broker/auth/): LITERAL, PREFIXED and wildcard patterns,
// DENY over ALLOW, the operations that imply DESCRIBE and DESCRIBE_CONFIGS
// (ALLOW ones only), ALL, principal and host matching, super.users,
// allow.everyone.if.no.acl.found (only where no ACL covers the resource),
// authorizeByResourceType, the MATCH/ANY filters of DescribeAcls and
// DeleteAcls, and the store: duplicates made once, bad ACLs refused with
// Kafka's messages, ACLs replayed from a snapshot.
import { describe, expect, it } from 'vitest'
import {
  decide,
  decideByResourceType,
  filterMatches,
  filterProblem,
  AclOperationTypes,
  ResourcePatternTypes,
  AclPermissionTypes,
  AclResourceTypes,
  type Acl,
  type AclFilter,
} from '../../src/broker/auth/acl-matching.js'
import { createAcls, deleteAcls, describeAcls } from '../../src/broker/auth/acl-store.js'
import { Authorizer } from '../../src/broker/auth/authorizer.js'
import { Controller } from '../../src/broker/controller.js'
import { snapshotRecords } from '../../src/broker/metadata-snapshot.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'

const bob = { principal: 'User:bob', host: '10.0.0.1' }
const acl = (over: Partial<Acl> = {}): Acl => ({
  resourceType: AclResourceTypes.TOPIC,
  resourceName: 'orders',
  patternType: ResourcePatternTypes.LITERAL,
  principal: 'User:bob',
  host: '*',
  operation: AclOperationTypes.READ,
  permissionType: AclPermissionTypes.ALLOW,
  ...over,
})
const topic = (acls: Acl[], op: number, name: string, allowIfNoAcl = false, who = bob) =>
  decide(acls, who, op, AclResourceTypes.TOPIC, name, allowIfNoAcl)

describe('StandardAuthorizer rules', () => {
  it('LITERAL covers its name only; PREFIXED every name it starts; the LITERAL wildcard every name', () => {
    expect(topic([acl()], AclOperationTypes.READ, 'orders')).toBe(true)
    expect(topic([acl()], AclOperationTypes.READ, 'orders-eu')).toBe(false)
    const prefixed = acl({ resourceName: 'ord', patternType: ResourcePatternTypes.PREFIXED })
    expect(topic([prefixed], AclOperationTypes.READ, 'orders-eu')).toBe(true)
    expect(topic([prefixed], AclOperationTypes.READ, 'ord')).toBe(true)
    expect(topic([prefixed], AclOperationTypes.READ, 'or')).toBe(false)
    // A PREFIXED '*' is the name '*', not a wildcard.
    expect(topic([acl({ resourceName: '*', patternType: ResourcePatternTypes.PREFIXED })], AclOperationTypes.READ, 'orders')).toBe(false)
    expect(topic([acl({ resourceName: '*' })], AclOperationTypes.READ, 'anything')).toBe(true)
    // Another resource type's ACL does not apply.
    expect(decide([acl()], bob, AclOperationTypes.READ, AclResourceTypes.GROUP, 'orders', false)).toBe(false)
  })

  it('DENY wins over ALLOW, whichever pattern each comes from', () => {
    const allow = acl()
    expect(topic([allow, acl({ permissionType: AclPermissionTypes.DENY })], AclOperationTypes.READ, 'orders')).toBe(false)
    expect(
      topic(
        [allow, acl({ resourceName: 'o', patternType: ResourcePatternTypes.PREFIXED, permissionType: AclPermissionTypes.DENY })],
        AclOperationTypes.READ,
        'orders',
      ),
    ).toBe(false)
    expect(
      topic(
        [allow, acl({ resourceName: '*', permissionType: AclPermissionTypes.DENY, principal: 'User:*' })],
        AclOperationTypes.READ,
        'orders',
      ),
    ).toBe(false)
    // A DENY for another operation, host or principal does not.
    expect(
      topic(
        [allow, acl({ permissionType: AclPermissionTypes.DENY, operation: AclOperationTypes.WRITE })],
        AclOperationTypes.READ,
        'orders',
      ),
    ).toBe(true)
    expect(topic([allow, acl({ permissionType: AclPermissionTypes.DENY, host: '10.0.0.2' })], AclOperationTypes.READ, 'orders')).toBe(true)
    expect(
      topic([allow, acl({ permissionType: AclPermissionTypes.DENY, principal: 'User:carol' })], AclOperationTypes.READ, 'orders'),
    ).toBe(true)
  })

  it('READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS; ALL everything; not for DENY', () => {
    for (const op of [
      AclOperationTypes.READ,
      AclOperationTypes.WRITE,
      AclOperationTypes.DELETE,
      AclOperationTypes.ALTER,
      AclOperationTypes.DESCRIBE,
    ])
      expect(topic([acl({ operation: op })], AclOperationTypes.DESCRIBE, 'orders')).toBe(true)
    for (const op of [AclOperationTypes.CREATE, AclOperationTypes.ALTER_CONFIGS, AclOperationTypes.DESCRIBE_CONFIGS])
      expect(topic([acl({ operation: op })], AclOperationTypes.DESCRIBE, 'orders')).toBe(false)
    expect(topic([acl({ operation: AclOperationTypes.ALTER_CONFIGS })], AclOperationTypes.DESCRIBE_CONFIGS, 'orders')).toBe(true)
    expect(topic([acl({ operation: AclOperationTypes.READ })], AclOperationTypes.DESCRIBE_CONFIGS, 'orders')).toBe(false)
    // Implication goes one way: DESCRIBE does not allow READ.
    expect(topic([acl({ operation: AclOperationTypes.DESCRIBE })], AclOperationTypes.READ, 'orders')).toBe(false)
    for (const op of [AclOperationTypes.READ, AclOperationTypes.WRITE, AclOperationTypes.ALTER_CONFIGS, AclOperationTypes.DESCRIBE])
      expect(topic([acl({ operation: AclOperationTypes.ALL })], op, 'orders')).toBe(true)
    // Denying READ does not deny DESCRIBE; denying ALL denies it.
    const describe = acl({ operation: AclOperationTypes.DESCRIBE })
    expect(topic([describe, acl({ permissionType: AclPermissionTypes.DENY })], AclOperationTypes.DESCRIBE, 'orders')).toBe(true)
    expect(
      topic(
        [describe, acl({ permissionType: AclPermissionTypes.DENY, operation: AclOperationTypes.ALL })],
        AclOperationTypes.DESCRIBE,
        'orders',
      ),
    ).toBe(false)
  })

  it('principals: the exact one or User:*; hosts: the exact address or *', () => {
    expect(topic([acl({ principal: 'User:*' })], AclOperationTypes.READ, 'orders')).toBe(true)
    expect(topic([acl({ principal: 'User:carol' })], AclOperationTypes.READ, 'orders')).toBe(false)
    expect(topic([acl({ host: '10.0.0.1' })], AclOperationTypes.READ, 'orders')).toBe(true)
    expect(topic([acl({ host: '10.0.0.2' })], AclOperationTypes.READ, 'orders')).toBe(false)
  })

  it('allow.everyone.if.no.acl.found: only where no ACL at all covers the resource', () => {
    expect(topic([], AclOperationTypes.READ, 'orders', false)).toBe(false)
    expect(topic([], AclOperationTypes.READ, 'orders', true)).toBe(true)
    // An ACL covering the resource for someone else: covered, so denied all the same.
    expect(topic([acl({ principal: 'User:carol' })], AclOperationTypes.READ, 'orders', true)).toBe(false)
    expect(topic([acl({ principal: 'User:carol' })], AclOperationTypes.READ, 'payments', true)).toBe(true)
  })

  it('authorizeByResourceType: an ALLOW somewhere not cancelled by a DENY of its name or a prefix of it', () => {
    const any = (acls: Acl[]) => decideByResourceType(acls, bob, AclOperationTypes.WRITE, AclResourceTypes.TOPIC)
    expect(any([])).toBe(false)
    expect(any([acl({ operation: AclOperationTypes.WRITE })])).toBe(true)
    expect(any([acl({ operation: AclOperationTypes.READ })])).toBe(false)
    expect(
      any([
        acl({ operation: AclOperationTypes.WRITE }),
        acl({ operation: AclOperationTypes.WRITE, permissionType: AclPermissionTypes.DENY }),
      ]),
    ).toBe(false)
    expect(
      any([
        acl({ operation: AclOperationTypes.WRITE, resourceName: 'orders-eu', patternType: ResourcePatternTypes.PREFIXED }),
        acl({
          operation: AclOperationTypes.WRITE,
          resourceName: 'orders',
          patternType: ResourcePatternTypes.PREFIXED,
          permissionType: AclPermissionTypes.DENY,
        }),
      ]),
    ).toBe(false)
    expect(any([acl({ operation: AclOperationTypes.ALL, resourceName: '*' })])).toBe(true)
    expect(
      any([
        acl({ operation: AclOperationTypes.WRITE }),
        acl({ operation: AclOperationTypes.WRITE, resourceName: '*', permissionType: AclPermissionTypes.DENY }),
      ]),
    ).toBe(false)
  })

  it('filters: ANY matches any pattern type by exact name, MATCH the bindings that would apply to that name', () => {
    const f = (over: Partial<AclFilter>): AclFilter => ({
      resourceType: AclResourceTypes.ANY,
      resourceName: null,
      patternType: ResourcePatternTypes.ANY,
      principal: null,
      host: null,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
      ...over,
    })
    const literal = acl()
    const wildcard = acl({ resourceName: '*' })
    const prefixed = acl({ resourceName: 'ord', patternType: ResourcePatternTypes.PREFIXED })
    const all = [literal, wildcard, prefixed]
    const hits = (filter: AclFilter) => all.filter((a) => filterMatches(filter, a))
    expect(hits(f({}))).toEqual(all)
    expect(hits(f({ resourceName: 'orders' }))).toEqual([literal])
    expect(hits(f({ resourceName: 'orders', patternType: ResourcePatternTypes.MATCH }))).toEqual(all)
    expect(hits(f({ resourceName: 'ord', patternType: ResourcePatternTypes.PREFIXED }))).toEqual([prefixed])
    expect(hits(f({ patternType: ResourcePatternTypes.LITERAL }))).toEqual([literal, wildcard])
    expect(hits(f({ resourceType: AclResourceTypes.GROUP }))).toEqual([])
    expect(hits(f({ operation: AclOperationTypes.WRITE }))).toEqual([])
    expect(hits(f({ principal: 'User:bob', host: '*', permissionType: AclPermissionTypes.ALLOW }))).toEqual(all)
    expect(filterProblem(f({ patternType: ResourcePatternTypes.UNKNOWN }))).toBe('Unknown patternFilter.')
    expect(filterProblem(f({ operation: AclOperationTypes.UNKNOWN }))).toBe('Unknown entryFilter.')
  })
})

describe('the authorizer over the controller', () => {
  it('super.users may do anything; without the authorizer everyone may; the authorized-operations bitfield', () => {
    const c = new Controller()
    createAcls(c, [acl({ operation: AclOperationTypes.WRITE }), acl({ operation: AclOperationTypes.DESCRIBE_CONFIGS })])
    const on = new Authorizer(c, true, ' User:alice ;User:admin', false)
    expect(on.authorize({ principal: 'User:alice', host: '1.2.3.4' }, AclOperationTypes.DELETE, AclResourceTypes.TOPIC, 'orders')).toBe(
      true,
    )
    expect(on.authorize(bob, AclOperationTypes.DELETE, AclResourceTypes.TOPIC, 'orders')).toBe(false)
    expect(new Authorizer(c, false, '', false).authorize(bob, AclOperationTypes.DELETE, AclResourceTypes.TOPIC, 'orders')).toBe(true)
    // WRITE (and the DESCRIBE it implies) and DESCRIBE_CONFIGS.
    expect(on.authorizedOperations(bob, AclResourceTypes.TOPIC, 'orders')).toBe(
      (1 << AclOperationTypes.WRITE) | (1 << AclOperationTypes.DESCRIBE) | (1 << AclOperationTypes.DESCRIBE_CONFIGS),
    )
    // A super user: every operation the cluster resource supports.
    const clusterOps = [
      AclOperationTypes.CREATE,
      AclOperationTypes.CLUSTER_ACTION,
      AclOperationTypes.DESCRIBE_CONFIGS,
      AclOperationTypes.ALTER_CONFIGS,
      AclOperationTypes.IDEMPOTENT_WRITE,
      AclOperationTypes.ALTER,
      AclOperationTypes.DESCRIBE,
    ]
    expect(on.authorizedOperations({ principal: 'User:admin', host: '' }, AclResourceTypes.CLUSTER, 'kafka-cluster')).toBe(
      clusterOps.reduce((bits, op) => bits | (1 << op), 0),
    )
    // A new ACL applies at once.
    createAcls(c, [acl({ operation: AclOperationTypes.DELETE })])
    expect(on.authorize(bob, AclOperationTypes.DELETE, AclResourceTypes.TOPIC, 'orders')).toBe(true)
  })

  it('the store: a duplicate made once, bad bindings refused with Kafka messages, deletion by filter, replay from a snapshot', () => {
    const c = new Controller()
    const results = createAcls(c, [
      acl(),
      acl(),
      acl({ resourceType: AclResourceTypes.ANY }),
      acl({ patternType: ResourcePatternTypes.MATCH }),
      acl({ operation: AclOperationTypes.ANY }),
      acl({ permissionType: AclPermissionTypes.ANY }),
      acl({ resourceName: '' }),
      acl({ principal: 'bob' }),
      acl({ resourceType: AclResourceTypes.CLUSTER, resourceName: 'mine' }),
    ])
    expect(results.map((r) => r.errorCode)).toEqual([0, 0, ...Array(7).fill(ErrorCodes.INVALID_REQUEST)])
    expect(results.slice(2).map((r) => r.errorMessage)).toEqual([
      'Invalid resourceType 1',
      'Invalid patternType 2',
      'Invalid operation 1',
      'Invalid permissionType 1',
      'Invalid empty resource name',
      'Could not parse principal from `bob` (no colon is present separating the principal type from the principal name)',
      'The only valid name for the CLUSTER resource is kafka-cluster',
    ])
    expect(c.acls.size).toBe(1)
    createAcls(c, [acl({ resourceName: 'ord', patternType: ResourcePatternTypes.PREFIXED, operation: AclOperationTypes.WRITE })])
    const replayed = Controller.replay(snapshotRecords(c))
    expect([...replayed.acls.values()]).toEqual([...c.acls.values()])
    const any = {
      resourceType: AclResourceTypes.ANY,
      resourceName: null,
      principal: null,
      host: null,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    }
    expect(describeAcls(replayed, { ...any, patternType: ResourcePatternTypes.ANY }).map((r) => r.resourceName)).toEqual(['orders', 'ord'])
    const [deleted] = deleteAcls(replayed, [
      { ...any, resourceName: 'orders-eu', patternType: ResourcePatternTypes.MATCH, operation: AclOperationTypes.WRITE },
    ])
    expect(deleted.deleted.map((a) => a.resourceName)).toEqual(['ord'])
    expect([...replayed.acls.values()].map((a) => a.resourceName)).toEqual(['orders'])
    expect(replayed.log.filter((r) => r.type === 'remove-acl')).toHaveLength(1)
  })
})
