import { isIP } from 'node:net'
import { ErrorCodes } from '../../protocol/error-codes.js'
import { BrokerError } from '../broker-error.js'
import { quotaEntityKey, type Controller } from '../controller.js'
import type { ClientQuotaRecord, QuotaEntity } from '../metadata-records.js'

/**
 * DescribeClientQuotas and AlterClientQuotas over the controller's quota
 * records, checked as Kafka's controller checks them (ClientQuotaControlManager,
 * ClientQuotasImage): the entity types user, client-id (alone or together)
 * and ip, each with a name or null for its default; the keys each kind of
 * entity takes, refused otherwise.
 */

export const USER = 'user'
export const CLIENT_ID = 'client-id'
export const IP = 'ip'

/** A key's kind in Kafka's QuotaConfig: a whole number up to its type's largest (LONG, INT), or any (DOUBLE). */
type KeyKind = { whole: false } | { whole: true; max: number; type: 'a LONG' | 'an INT' }
const LONG: KeyKind = { whole: true, max: 2 ** 63 - 1, type: 'a LONG' }
const DOUBLE: KeyKind = { whole: false }
/** The keys a user, client-id or user+client-id entity takes. */
const CLIENT_KEYS: Record<string, KeyKind> = {
  producer_byte_rate: LONG,
  consumer_byte_rate: LONG,
  request_percentage: DOUBLE,
  controller_mutation_rate: DOUBLE,
}
/** An ip entity's only key. */
const IP_KEYS: Record<string, KeyKind> = { connection_creation_rate: { whole: true, max: 2_147_483_647, type: 'an INT' } }

const MATCH_EXACT = 0
const MATCH_DEFAULT = 1
const MATCH_SPECIFIED = 2

const invalid = (message: string) => new BrokerError(ErrorCodes.INVALID_REQUEST, message)

export interface QuotaFilter {
  components: Array<{ entityType: string; matchType: number; match: string | null }>
  strict: boolean
}

export interface DescribedQuota {
  entity: Array<{ entityType: string; entityName: string | null }>
  values: Array<{ key: string; value: number }>
}

/**
 * DescribeClientQuotas: the entities the filter matches, with their values.
 * A component names a type at most once: EXACT a name, DEFAULT the default
 * (no match string), SPECIFIED any entity with that type, its default too
 * (no match string; as Kafka's ClientQuotasImage matches it);
 * strict leaves out entities with other types too; no component and not
 * strict: every entity. A bad filter is refused (BrokerError: the whole
 * answer carries its code and message).
 */
export function describeClientQuotas(controller: Controller, filter: QuotaFilter): DescribedQuota[] {
  const exact = new Map<string, string | null>()
  const specified = new Set<string>()
  for (const c of filter.components) {
    if (c.entityType === '') throw invalid('Invalid empty entity type.')
    if (exact.has(c.entityType) || specified.has(c.entityType))
      throw invalid(`Entity type ${c.entityType} cannot appear more than once in the filter.`)
    if (c.entityType !== USER && c.entityType !== CLIENT_ID && c.entityType !== IP)
      throw new BrokerError(ErrorCodes.UNSUPPORTED_VERSION, `Unsupported entity type ${c.entityType}`)
    if (c.matchType === MATCH_EXACT) {
      if (c.match === null) throw invalid('Request specified MATCH_TYPE_EXACT, but set match string to null.')
      exact.set(c.entityType, c.match)
    } else if (c.matchType === MATCH_DEFAULT) {
      if (c.match !== null) throw invalid('Request specified MATCH_TYPE_DEFAULT, but also specified a match string.')
      exact.set(c.entityType, null)
    } else if (c.matchType === MATCH_SPECIFIED) {
      if (c.match !== null) throw invalid('Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.')
      specified.add(c.entityType)
    } else throw invalid(`Unknown match type ${c.matchType}`)
  }
  const named = (t: string) => exact.has(t) || specified.has(t)
  if (named(IP) && (named(USER) || named(CLIENT_ID)))
    throw invalid(
      'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
    )
  const out: DescribedQuota[] = []
  if (!exact.size && !specified.size && filter.strict) return out
  for (const { entity, values } of controller.clientQuotas.values()) {
    const part = (t: string) => entity.find((e) => e.type === t)
    const matches =
      [...exact].every(([t, name]) => part(t) !== undefined && part(t)!.name === name) && [...specified].every((t) => part(t) !== undefined)
    if (!matches || (filter.strict && entity.length !== exact.size + specified.size)) continue
    out.push({
      entity: entity.map((e) => ({ entityType: e.type, entityName: e.name })),
      values: [...values].map(([key, value]) => ({ key, value })),
    })
  }
  return out
}

export interface QuotaAlteration {
  entity: Array<{ entityType: string; entityName: string | null }>
  ops: Array<{ key: string; value: number; remove: boolean }>
}

export interface AlteredQuota {
  entity: Array<{ entityType: string; entityName: string | null }>
  errorCode: number
  errorMessage: string | null
}

/**
 * AlterClientQuotas: each entity's changes checked (its types, their
 * combination, each key one it takes, a whole number where Kafka's is a
 * LONG, a key once), the records of those that pass written together
 * unless validateOnly; a value that does not change writes nothing, nor a
 * removal of a key not set. One result per entity, in request order.
 */
export function alterClientQuotas(controller: Controller, entries: QuotaAlteration[], validateOnly: boolean): AlteredQuota[] {
  const records: ClientQuotaRecord[] = []
  const seen = new Set<string>()
  const results = entries.map((e): AlteredQuota => {
    const answer = (error: BrokerError | null): AlteredQuota => ({
      entity: e.entity,
      errorCode: error?.code ?? ErrorCodes.NONE,
      errorMessage: error?.message ?? null,
    })
    try {
      const entity = checkEntity(e.entity)
      const id = quotaEntityKey(entity)
      if (seen.has(id)) throw invalid(`Ignoring duplicate entity ${describeEntity(entity)}`)
      seen.add(id)
      const keys = keysFor(entity)
      const current = controller.clientQuotas.get(id)?.values
      const changes = new Map<string, number | null>()
      for (const op of e.ops) {
        if (changes.has(op.key)) throw invalid(`Duplicate quota key ${op.key} not updating quota for this entity ${describeEntity(entity)}`)
        changes.set(op.key, op.remove ? null : op.value)
      }
      const mine: ClientQuotaRecord[] = []
      for (const [key, value] of changes) {
        if (value === null) {
          if (current?.has(key)) mine.push({ type: 'client-quota', entity, key, value: null })
          continue
        }
        const kind = keys[key]
        if (!kind) throw invalid(`Invalid configuration key ${key}`)
        if (!(value > 0)) throw invalid(`Quota ${key} must be greater than 0`)
        if (kind.whole && value > kind.max) throw invalid(`Proposed value for ${key} is too large for ${kind.type}.`)
        if (kind.whole && Math.abs(value % 1) > 1e-6) throw invalid(`${key} cannot be a fractional value.`)
        if (current?.get(key) !== value) mine.push({ type: 'client-quota', entity, key, value })
      }
      records.push(...mine)
      return answer(null)
    } catch (err) {
      if (!(err instanceof BrokerError)) throw err
      return answer(err)
    }
  })
  if (!validateOnly && records.length) controller.atomically(() => records.forEach((r) => controller.append(r)))
  return results
}

/** The entity's parts, known types each once, no empty name; sorted by type (the order the image keeps). */
function checkEntity(parts: QuotaAlteration['entity']): QuotaEntity {
  if (!parts.length) throw invalid('Invalid empty client quota entity')
  const out: QuotaEntity = []
  for (const p of parts) {
    if (out.some((e) => e.type === p.entityType)) throw invalid(`Invalid client quota entity, duplicate entity entry ${p.entityType}`)
    if (p.entityType !== USER && p.entityType !== CLIENT_ID && p.entityType !== IP)
      throw invalid(`Unhandled client quota entity type: ${p.entityType}`)
    if (p.entityName === '') throw invalid(`Empty ${p.entityType} not supported`)
    out.push({ type: p.entityType, name: p.entityName })
  }
  return out.sort((a, b) => (a.type < b.type ? -1 : 1))
}

/** The keys an entity takes: user and client-id ones alone or together, ip alone (a valid address, or its default). */
function keysFor(entity: QuotaEntity): Record<string, KeyKind> {
  const has = (t: string) => entity.some((e) => e.type === t)
  if (has(IP)) {
    // Kafka's message, its missing space too.
    if (entity.length > 1) throw invalid('Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId')
    const ip = entity[0].name
    // Kafka also takes a resolvable host name; an embedded broker does not resolve names to check a quota.
    if (ip !== null && !isIP(ip)) throw invalid(`${ip} is not a valid IP or resolvable host.`)
    return IP_KEYS
  }
  return CLIENT_KEYS
}

function describeEntity(entity: QuotaEntity): string {
  return entity.map((e) => `${e.type}=${e.name ?? '<default>'}`).join(', ')
}
