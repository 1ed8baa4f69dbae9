import { Kafka } from '../kafka.js'
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  ResourcePatternTypes,
  type AclEntry,
  type AclFilter,
} from '../admin/acls.js'
import { CONNECTION_OPTIONS, CONNECTION_USAGE, UsageError, parse, resolveConnection, str, type Values } from './args.js'
import { show } from './table-output.js'
import type { Io } from './io.js'

export const USAGE = `usage: wafka acls list|create|delete -b BROKERS [options]

  wafka acls list [FILTER]             the ACLs that match (all of them without a filter)
  wafka acls create ACL                adds the ACL (one per --operation given)
  wafka acls delete FILTER             removes the ACLs that match, and prints them

An ACL: a resource, a principal, what it may (or may not) do, from where:
  --resource-type T     topic, group, cluster, transactional-id, delegation-token or user
  --resource-name N     the resource's name (cluster: kafka-cluster, the default)
  --topic N, --group N, --transactional-id N, --cluster
                        shorthands for the two above
  --pattern-type P      literal (default for create) or prefixed; a filter also takes any or match
  --principal P         e.g. User:alice
  --host H              the client's address (default * : any host)
  --operation O         read, write, create, delete, alter, describe, cluster-action,
                        describe-configs, alter-configs, idempotent-write, create-tokens,
                        describe-tokens or all (create: repeatable); a filter also takes any
  --permission P        allow (default for create) or deny; a filter also takes any
A filter is the same flags, every one optional: what is left out matches anything.
${CONNECTION_USAGE}`

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  'resource-type': { type: 'string' },
  'resource-name': { type: 'string' },
  topic: { type: 'string' },
  group: { type: 'string' },
  'transactional-id': { type: 'string' },
  cluster: { type: 'boolean' },
  'pattern-type': { type: 'string' },
  principal: { type: 'string' },
  host: { type: 'string' },
  operation: { type: 'string', multiple: true },
  permission: { type: 'string' },
} as const

/** Kafka's cluster resource has this one name. */
const CLUSTER_NAME = 'kafka-cluster'

/** The enum's value for a name as a user writes it: Read, READ, read; describe-configs, DescribeConfigs, DESCRIBE_CONFIGS. */
function enumValue(flag: string, table: Record<string, number>, given: string, filter: boolean): number {
  const key = given
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toUpperCase()
  const allowed = Object.keys(table).filter((k) => k !== 'UNKNOWN' && (filter || (k !== 'ANY' && k !== 'MATCH')))
  if (!allowed.includes(key))
    throw new UsageError(
      `unknown ${flag} ${JSON.stringify(given)}: one of ${allowed.map((k) => k.toLowerCase().replace(/_/g, '-')).join(', ')}`,
    )
  return table[key]
}

/** The enum's name for a value, as the list prints it: TRANSACTIONAL_ID → transactional-id. */
function enumName(table: Record<string, number>, value: number): string {
  const name = Object.keys(table).find((k) => table[k] === value) ?? `unknown-${value}`
  return name.toLowerCase().replace(/_/g, '-')
}

interface Resource {
  type?: number
  name?: string
}

/** The resource the flags name: --resource-type/--resource-name or one shorthand. */
function resourceOf(values: Values, filter: boolean): Resource {
  const shorthands: Array<[string, number, string | undefined]> = [
    ['topic', AclResourceTypes.TOPIC, str(values, 'topic')],
    ['group', AclResourceTypes.GROUP, str(values, 'group')],
    ['transactional-id', AclResourceTypes.TRANSACTIONAL_ID, str(values, 'transactional-id')],
    ['cluster', AclResourceTypes.CLUSTER, values.cluster === true ? CLUSTER_NAME : undefined],
  ]
  const given = shorthands.filter(([, , v]) => v !== undefined)
  const typeFlag = str(values, 'resource-type')
  const nameFlag = str(values, 'resource-name')
  if (given.length > 1 || (given.length === 1 && (typeFlag !== undefined || nameFlag !== undefined)))
    throw new UsageError('name one resource: --topic, --group, --transactional-id, --cluster, or --resource-type with --resource-name')
  if (given.length === 1) return { type: given[0][1], name: given[0][2] }
  const type = typeFlag === undefined ? undefined : enumValue('--resource-type', AclResourceTypes, typeFlag, filter)
  const name = nameFlag ?? (type === AclResourceTypes.CLUSTER ? CLUSTER_NAME : undefined)
  return { type, name }
}

function flat(a: AclEntry) {
  return {
    resourceType: enumName(AclResourceTypes, a.resourceType),
    resourceName: a.resourceName,
    patternType: enumName(ResourcePatternTypes, a.resourcePatternType),
    principal: a.principal,
    host: a.host,
    operation: enumName(AclOperationTypes, a.operation),
    permission: enumName(AclPermissionTypes, a.permissionType),
  }
}

function showAcls(io: Io, json: boolean, acls: AclEntry[]): void {
  const rows = acls.map(flat)
  show(
    io,
    json,
    rows,
    ['resource type', 'resource name', 'pattern', 'principal', 'host', 'operation', 'permission'],
    rows.map((r) => [r.resourceType, r.resourceName, r.patternType, r.principal, r.host, r.operation, r.permission]),
  )
}

export async function aclsCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, true)
  if (values.help) {
    io.out(USAGE + '\n')
    return 0
  }
  const [action, ...rest] = positionals
  if (!['list', 'create', 'delete'].includes(action))
    throw new UsageError(action === undefined ? 'say list, create or delete' : `unknown action ${action}`)
  if (rest.length > 0) throw new UsageError(`acls ${action} takes flags, not ${JSON.stringify(rest[0])}`)
  const creating = action === 'create'
  const resource = resourceOf(values, !creating)
  const patternFlag = str(values, 'pattern-type')
  const patternType = patternFlag === undefined ? undefined : enumValue('--pattern-type', ResourcePatternTypes, patternFlag, !creating)
  const permissionFlag = str(values, 'permission')
  const permission = permissionFlag === undefined ? undefined : enumValue('--permission', AclPermissionTypes, permissionFlag, !creating)
  const operationFlags = (values.operation as string[] | undefined) ?? []
  const operations = operationFlags.map((o) => enumValue('--operation', AclOperationTypes, o, !creating))
  if (!creating && operations.length > 1) throw new UsageError(`acls ${action} takes one --operation`)
  const principal = str(values, 'principal')
  const host = str(values, 'host')
  if (principal !== undefined && !/^[^:]+:.+$/.test(principal))
    throw new UsageError(`--principal needs TYPE:NAME (e.g. User:alice), not ${JSON.stringify(principal)}`)

  let acls: AclEntry[] = []
  let filter: AclFilter = {}
  if (creating) {
    if (resource.type === undefined || resource.name === undefined)
      throw new UsageError('acls create needs a resource: --topic N, --group N, --cluster, ... or --resource-type T --resource-name N')
    if (principal === undefined) throw new UsageError('acls create needs --principal (e.g. User:alice)')
    if (operations.length === 0) throw new UsageError('acls create needs --operation')
    acls = operations.map((operation) => ({
      resourceType: resource.type!,
      resourceName: resource.name!,
      resourcePatternType: patternType ?? ResourcePatternTypes.LITERAL,
      principal,
      host: host ?? '*',
      operation,
      permissionType: permission ?? AclPermissionTypes.ALLOW,
    }))
  } else {
    filter = {
      resourceType: resource.type,
      resourceName: resource.name,
      resourcePatternType: patternType,
      principal,
      host,
      operation: operations[0],
      permissionType: permission,
    }
    if (action === 'delete' && Object.values(filter).every((v) => v === undefined))
      throw new UsageError('acls delete needs a filter (a resource, --principal, --operation, ...): it would delete every ACL')
  }

  const json = values.json === true
  const { kafka: config } = resolveConnection(values)
  const admin = new Kafka(config).admin()
  try {
    await admin.connect()
    if (creating) {
      await admin.createAcls({ acl: acls })
      if (json) io.out(JSON.stringify({ created: acls.map(flat) }) + '\n')
      else
        for (const a of acls.map(flat))
          io.out(
            `created: ${a.permission} ${a.principal} ${a.operation} on ${a.resourceType} ${a.resourceName} (${a.patternType}) from ${a.host}\n`,
          )
    } else if (action === 'list') {
      const { resources } = await admin.describeAcls(filter)
      const found = resources.flatMap((r) =>
        r.acls.map((a) => ({
          resourceType: r.resourceType,
          resourceName: r.resourceName,
          resourcePatternType: r.resourcePatternType,
          principal: a.principal,
          host: a.host,
          operation: a.operation,
          permissionType: a.permissionType,
        })),
      )
      showAcls(io, json, found)
    } else {
      const { filterResponses } = await admin.deleteAcls({ filters: [filter] })
      const deleted = filterResponses.flatMap((f) => f.matchingAcls)
      const refused = deleted.find((m) => m.errorCode !== 0)
      if (refused)
        throw new Error(
          `the broker did not delete an ACL of ${refused.resourceName}: ${refused.errorMessage ?? `error ${refused.errorCode}`}`,
        )
      if (json) io.out(JSON.stringify({ deleted: deleted.map(flat) }) + '\n')
      else if (deleted.length === 0) io.out('no ACL matched: none deleted\n')
      else {
        io.out(`deleted ${deleted.length} ACL(s):\n`)
        showAcls(io, false, deleted)
      }
    }
    return 0
  } finally {
    await admin.disconnect().catch(() => {})
  }
}
