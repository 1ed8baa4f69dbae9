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
  Op,
  PatternType,
  Permission,
  ResourceType,
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
  resourceType: ResourceType.TOPIC,
  resourceName: 'orders',
  patternType: PatternType.LITERAL,
  principal: 'User:bob',
  host: '*',
  operation: Op.READ,
  permissionType: Permission.ALLOW,
  ...over,
})
const topic = (acls: Acl[], op: number, name: string, allowIfNoAcl = false, who = bob) =>
  decide(acls, who, op, ResourceType.TOPIC, name, allowIfNoAcl)

describe('StandardAuthorizer rules', () => {
  it('LITERAL covers its name only; PREFIXED every name it starts; the LITERAL wildcard every name', () => {
    expect(topic([acl()], Op.READ, 'orders')).toBe(true)
    expect(topic([acl()], Op.READ, 'orders-eu')).toBe(false)
    const prefixed = acl({ resourceName: 'ord', patternType: PatternType.PREFIXED })
    expect(topic([prefixed], Op.READ, 'orders-eu')).toBe(true)
    expect(topic([prefixed], Op.READ, 'ord')).toBe(true)
    expect(topic([prefixed], Op.READ, 'or')).toBe(false)
    // A PREFIXED '*' is the name '*', not a wildcard.
    expect(topic([acl({ resourceName: '*', patternType: PatternType.PREFIXED })], Op.READ, 'orders')).toBe(false)
    expect(topic([acl({ resourceName: '*' })], Op.READ, 'anything')).toBe(true)
    // Another resource type's ACL does not apply.
    expect(decide([acl()], bob, Op.READ, ResourceType.GROUP, 'orders', false)).toBe(false)
  })

  it('DENY wins over ALLOW, whichever pattern each comes from', () => {
    const allow = acl()
    expect(topic([allow, acl({ permissionType: Permission.DENY })], Op.READ, 'orders')).toBe(false)
    expect(
      topic([allow, acl({ resourceName: 'o', patternType: PatternType.PREFIXED, permissionType: Permission.DENY })], Op.READ, 'orders'),
    ).toBe(false)
    expect(topic([allow, acl({ resourceName: '*', permissionType: Permission.DENY, principal: 'User:*' })], Op.READ, 'orders')).toBe(false)
    // A DENY for another operation, host or principal does not.
    expect(topic([allow, acl({ permissionType: Permission.DENY, operation: Op.WRITE })], Op.READ, 'orders')).toBe(true)
    expect(topic([allow, acl({ permissionType: Permission.DENY, host: '10.0.0.2' })], Op.READ, 'orders')).toBe(true)
    expect(topic([allow, acl({ permissionType: Permission.DENY, principal: 'User:carol' })], Op.READ, 'orders')).toBe(true)
  })

  it('READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS; ALL everything; not for DENY', () => {
    for (const op of [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER, Op.DESCRIBE])
      expect(topic([acl({ operation: op })], Op.DESCRIBE, 'orders')).toBe(true)
    for (const op of [Op.CREATE, Op.ALTER_CONFIGS, Op.DESCRIBE_CONFIGS])
      expect(topic([acl({ operation: op })], Op.DESCRIBE, 'orders')).toBe(false)
    expect(topic([acl({ operation: Op.ALTER_CONFIGS })], Op.DESCRIBE_CONFIGS, 'orders')).toBe(true)
    expect(topic([acl({ operation: Op.READ })], Op.DESCRIBE_CONFIGS, 'orders')).toBe(false)
    // Implication goes one way: DESCRIBE does not allow READ.
    expect(topic([acl({ operation: Op.DESCRIBE })], Op.READ, 'orders')).toBe(false)
    for (const op of [Op.READ, Op.WRITE, Op.ALTER_CONFIGS, Op.DESCRIBE])
      expect(topic([acl({ operation: Op.ALL })], op, 'orders')).toBe(true)
    // Denying READ does not deny DESCRIBE; denying ALL denies it.
    const describe = acl({ operation: Op.DESCRIBE })
    expect(topic([describe, acl({ permissionType: Permission.DENY })], Op.DESCRIBE, 'orders')).toBe(true)
    expect(topic([describe, acl({ permissionType: Permission.DENY, operation: Op.ALL })], Op.DESCRIBE, 'orders')).toBe(false)
  })

  it('principals: the exact one or User:*; hosts: the exact address or *', () => {
    expect(topic([acl({ principal: 'User:*' })], Op.READ, 'orders')).toBe(true)
    expect(topic([acl({ principal: 'User:carol' })], Op.READ, 'orders')).toBe(false)
    expect(topic([acl({ host: '10.0.0.1' })], Op.READ, 'orders')).toBe(true)
    expect(topic([acl({ host: '10.0.0.2' })], Op.READ, 'orders')).toBe(false)
  })

  it('allow.everyone.if.no.acl.found: only where no ACL at all covers the resource', () => {
    expect(topic([], Op.READ, 'orders', false)).toBe(false)
    expect(topic([], Op.READ, 'orders', true)).toBe(true)
    // An ACL covering the resource for someone else: covered, so denied all the same.
    expect(topic([acl({ principal: 'User:carol' })], Op.READ, 'orders', true)).toBe(false)
    expect(topic([acl({ principal: 'User:carol' })], Op.READ, 'payments', true)).toBe(true)
  })

  it('authorizeByResourceType: an ALLOW somewhere not cancelled by a DENY of its name or a prefix of it', () => {
    const any = (acls: Acl[]) => decideByResourceType(acls, bob, Op.WRITE, ResourceType.TOPIC)
    expect(any([])).toBe(false)
    expect(any([acl({ operation: Op.WRITE })])).toBe(true)
    expect(any([acl({ operation: Op.READ })])).toBe(false)
    expect(any([acl({ operation: Op.WRITE }), acl({ operation: Op.WRITE, permissionType: Permission.DENY })])).toBe(false)
    expect(
      any([
        acl({ operation: Op.WRITE, resourceName: 'orders-eu', patternType: PatternType.PREFIXED }),
        acl({ operation: Op.WRITE, resourceName: 'orders', patternType: PatternType.PREFIXED, permissionType: Permission.DENY }),
      ]),
    ).toBe(false)
    expect(any([acl({ operation: Op.ALL, resourceName: '*' })])).toBe(true)
    expect(any([acl({ operation: Op.WRITE }), acl({ operation: Op.WRITE, resourceName: '*', permissionType: Permission.DENY })])).toBe(
      false,
    )
  })

  it('filters: ANY matches any pattern type by exact name, MATCH the bindings that would apply to that name', () => {
    const f = (over: Partial<AclFilter>): AclFilter => ({
      resourceType: ResourceType.ANY,
      resourceName: null,
      patternType: PatternType.ANY,
      principal: null,
      host: null,
      operation: Op.ANY,
      permissionType: Permission.ANY,
      ...over,
    })
    const literal = acl()
    const wildcard = acl({ resourceName: '*' })
    const prefixed = acl({ resourceName: 'ord', patternType: PatternType.PREFIXED })
    const all = [literal, wildcard, prefixed]
    const hits = (filter: AclFilter) => all.filter((a) => filterMatches(filter, a))
    expect(hits(f({}))).toEqual(all)
    expect(hits(f({ resourceName: 'orders' }))).toEqual([literal])
    expect(hits(f({ resourceName: 'orders', patternType: PatternType.MATCH }))).toEqual(all)
    expect(hits(f({ resourceName: 'ord', patternType: PatternType.PREFIXED }))).toEqual([prefixed])
    expect(hits(f({ patternType: PatternType.LITERAL }))).toEqual([literal, wildcard])
    expect(hits(f({ resourceType: ResourceType.GROUP }))).toEqual([])
    expect(hits(f({ operation: Op.WRITE }))).toEqual([])
    expect(hits(f({ principal: 'User:bob', host: '*', permissionType: Permission.ALLOW }))).toEqual(all)
    expect(filterProblem(f({ patternType: PatternType.UNKNOWN }))).toBe('Unknown patternFilter.')
    expect(filterProblem(f({ operation: Op.UNKNOWN }))).toBe('Unknown entryFilter.')
  })
})

describe('the authorizer over the controller', () => {
  it('super.users may do anything; without the authorizer everyone may; the authorized-operations bitfield', () => {
    const c = new Controller()
    createAcls(c, [acl({ operation: Op.WRITE }), acl({ operation: Op.DESCRIBE_CONFIGS })])
    const on = new Authorizer(c, true, ' User:alice ;User:admin', false)
    expect(on.authorize({ principal: 'User:alice', host: '1.2.3.4' }, Op.DELETE, ResourceType.TOPIC, 'orders')).toBe(true)
    expect(on.authorize(bob, Op.DELETE, ResourceType.TOPIC, 'orders')).toBe(false)
    expect(new Authorizer(c, false, '', false).authorize(bob, Op.DELETE, ResourceType.TOPIC, 'orders')).toBe(true)
    // WRITE (and the DESCRIBE it implies) and DESCRIBE_CONFIGS.
    expect(on.authorizedOperations(bob, ResourceType.TOPIC, 'orders')).toBe(
      (1 << Op.WRITE) | (1 << Op.DESCRIBE) | (1 << Op.DESCRIBE_CONFIGS),
    )
    // A super user: every operation the cluster resource supports.
    const clusterOps = [Op.CREATE, Op.CLUSTER_ACTION, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS, Op.IDEMPOTENT_WRITE, Op.ALTER, Op.DESCRIBE]
    expect(on.authorizedOperations({ principal: 'User:admin', host: '' }, ResourceType.CLUSTER, 'kafka-cluster')).toBe(
      clusterOps.reduce((bits, op) => bits | (1 << op), 0),
    )
    // A new ACL applies at once.
    createAcls(c, [acl({ operation: Op.DELETE })])
    expect(on.authorize(bob, Op.DELETE, ResourceType.TOPIC, 'orders')).toBe(true)
  })

  it('the store: a duplicate made once, bad bindings refused with Kafka messages, deletion by filter, replay from a snapshot', () => {
    const c = new Controller()
    const results = createAcls(c, [
      acl(),
      acl(),
      acl({ resourceType: ResourceType.ANY }),
      acl({ patternType: PatternType.MATCH }),
      acl({ operation: Op.ANY }),
      acl({ permissionType: Permission.ANY }),
      acl({ resourceName: '' }),
      acl({ principal: 'bob' }),
      acl({ resourceType: ResourceType.CLUSTER, resourceName: 'mine' }),
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
    createAcls(c, [acl({ resourceName: 'ord', patternType: PatternType.PREFIXED, operation: Op.WRITE })])
    const replayed = Controller.replay(snapshotRecords(c))
    expect([...replayed.acls.values()]).toEqual([...c.acls.values()])
    const any = {
      resourceType: ResourceType.ANY,
      resourceName: null,
      principal: null,
      host: null,
      operation: Op.ANY,
      permissionType: Permission.ANY,
    }
    expect(describeAcls(replayed, { ...any, patternType: PatternType.ANY }).map((r) => r.resourceName)).toEqual(['orders', 'ord'])
    const [deleted] = deleteAcls(replayed, [{ ...any, resourceName: 'orders-eu', patternType: PatternType.MATCH, operation: Op.WRITE }])
    expect(deleted.deleted.map((a) => a.resourceName)).toEqual(['ord'])
    expect([...replayed.acls.values()].map((a) => a.resourceName)).toEqual(['orders'])
    expect(replayed.log.filter((r) => r.type === 'remove-acl')).toHaveLength(1)
  })
})
