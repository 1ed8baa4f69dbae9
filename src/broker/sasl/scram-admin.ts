import { Buffer } from 'node:buffer'
import { createHash, createHmac } from 'node:crypto'
import { ErrorCodes } from '../../protocol/error-codes.js'
import type { Controller } from '../controller.js'
import type { ScramCredentialRecord } from '../metadata-records.js'
import type { SaslUsers, ScramCredential } from './credentials.js'

/**
 * The SCRAM credential APIs (KIP-554) over the broker's user store: the
 * users it started with (SaslUsers) and, over them, what
 * AlterUserScramCredentials set or deleted since, kept by the controller as
 * metadata records (so a data dir keeps them). Checked as Kafka's
 * controller checks them.
 */

/** KIP-554's mechanism codes and the hash each uses. */
const HASHES: Record<number, 'sha256' | 'sha512'> = { 1: 'sha256', 2: 'sha512' }
const MECHANISM_OF = { sha256: 1, sha512: 2 } as const
/** Kafka's bounds on a stored credential's iterations. */
const MIN_ITERATIONS = 4096
const MAX_ITERATIONS = 16384

type Credential = NonNullable<ScramCredentialRecord['credential']>

/** The credential a SCRAM exchange checks, from a record's base64. */
export function scramFromRecord(c: ScramCredentialRecord['credential']): ScramCredential | null {
  if (!c) return null
  const b = (s: string) => Buffer.from(s, 'base64')
  return { salt: b(c.salt), iterations: c.iterations, storedKey: b(c.storedKey), serverKey: b(c.serverKey) }
}

/** Makes `users` see the credentials the controller holds over those it started with. */
export function linkScramChanges(users: SaslUsers, controller: Controller): void {
  users.changed = (hash, user) => {
    const key = `${MECHANISM_OF[hash]}/${user}`
    return controller.scramCredentials.has(key) ? scramFromRecord(controller.scramCredentials.get(key)!) : undefined
  }
}

/** Every user's credentials now: mechanism code to iterations, by user. */
function currentCredentials(controller: Controller, users: SaslUsers | null): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>()
  const put = (user: string, mechanism: number, iterations: number | null) => {
    const m = out.get(user) ?? new Map<number, number>()
    if (iterations === null) m.delete(mechanism)
    else m.set(mechanism, iterations)
    if (m.size) out.set(user, m)
    else out.delete(user)
  }
  for (const c of users?.startingScram() ?? []) put(c.user, MECHANISM_OF[c.hash], c.iterations)
  for (const [key, c] of controller.scramCredentials) {
    const slash = key.indexOf('/')
    put(key.slice(slash + 1), Number(key.slice(0, slash)), c?.iterations ?? null)
  }
  return out
}

export interface DescribedUser {
  user: string
  errorCode: number
  errorMessage: string | null
  credentialInfos: Array<{ mechanism: number; iterations: number }>
}

/** DescribeUserScramCredentials: the users named (null or none: every user with a credential). */
export function describeScram(controller: Controller, users: SaslUsers | null, names: string[] | null): DescribedUser[] {
  const all = currentCredentials(controller, users)
  const wanted = names?.length ? names : [...all.keys()]
  const seen = new Map<string, number>()
  for (const n of wanted) seen.set(n, (seen.get(n) ?? 0) + 1)
  return [...seen].map(([user, times]) => {
    if (times > 1)
      return {
        user,
        errorCode: ErrorCodes.DUPLICATE_RESOURCE,
        errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`,
        credentialInfos: [],
      }
    const found = all.get(user)
    if (!found)
      return {
        user,
        errorCode: ErrorCodes.RESOURCE_NOT_FOUND,
        errorMessage: `Attempt to describe a user credential that does not exist: ${user}`,
        credentialInfos: [],
      }
    const credentialInfos = [...found].sort(([a], [b]) => a - b).map(([mechanism, iterations]) => ({ mechanism, iterations }))
    return { user, errorCode: ErrorCodes.NONE, errorMessage: null, credentialInfos }
  })
}

export interface ScramChanges {
  deletions: Array<{ name: string; mechanism: number }>
  upsertions: Array<{ name: string; mechanism: number; iterations: number; salt: Uint8Array; saltedPassword: Uint8Array }>
}

/**
 * AlterUserScramCredentials: each user changed once a request (else
 * DUPLICATE_RESOURCE), a known mechanism, a name, Kafka's iteration bounds,
 * a deletion only of a credential there is; the changes that pass are
 * written together, one result per user.
 */
export function alterScram(
  controller: Controller,
  users: SaslUsers | null,
  changes: ScramChanges,
): Array<{ user: string; errorCode: number; errorMessage: string | null }> {
  const all = currentCredentials(controller, users)
  const errors = new Map<string, { code: number; message: string }>()
  const records = new Map<string, ScramCredentialRecord>()
  const twice = { code: ErrorCodes.DUPLICATE_RESOURCE, message: 'A user credential cannot be altered twice in the same request' }
  const basic = (name: string, mechanism: number) =>
    name === ''
      ? { code: ErrorCodes.UNACCEPTABLE_CREDENTIAL, message: 'Username must not be empty' }
      : !HASHES[mechanism]
        ? { code: ErrorCodes.UNSUPPORTED_SASL_MECHANISM, message: 'Unknown SCRAM mechanism' }
        : null
  for (const d of changes.deletions) {
    if (errors.has(d.name)) continue
    if (records.delete(d.name)) {
      errors.set(d.name, twice)
      continue
    }
    const problem =
      basic(d.name, d.mechanism) ??
      (all.get(d.name)?.has(d.mechanism)
        ? null
        : { code: ErrorCodes.RESOURCE_NOT_FOUND, message: 'Attempt to delete a user credential that does not exist' })
    if (problem) errors.set(d.name, problem)
    else records.set(d.name, { type: 'scram', user: d.name, mechanism: d.mechanism, credential: null })
  }
  for (const u of changes.upsertions) {
    if (errors.has(u.name)) continue
    if (records.delete(u.name)) {
      errors.set(u.name, twice)
      continue
    }
    const problem =
      basic(u.name, u.mechanism) ??
      (u.iterations < MIN_ITERATIONS
        ? { code: ErrorCodes.UNACCEPTABLE_CREDENTIAL, message: 'Too few iterations' }
        : u.iterations > MAX_ITERATIONS
          ? { code: ErrorCodes.UNACCEPTABLE_CREDENTIAL, message: 'Too many iterations' }
          : null)
    if (problem) errors.set(u.name, problem)
    else records.set(u.name, { type: 'scram', user: u.name, mechanism: u.mechanism, credential: stored(HASHES[u.mechanism], u) })
  }
  controller.atomically(() => records.forEach((r) => controller.append(r)))
  return [
    ...[...records.keys()].map((user) => ({ user, errorCode: ErrorCodes.NONE, errorMessage: null })),
    ...[...errors].map(([user, e]) => ({ user, errorCode: e.code, errorMessage: e.message })),
  ]
}

/** What the server keeps of a client's salted password (RFC 5802): the stored and server keys. */
function stored(hash: 'sha256' | 'sha512', u: ScramChanges['upsertions'][number]): Credential {
  const salted = Buffer.from(u.saltedPassword)
  const clientKey = createHmac(hash, salted).update('Client Key').digest()
  return {
    salt: Buffer.from(u.salt).toString('base64'),
    iterations: u.iterations,
    storedKey: createHash(hash).update(clientKey).digest('base64'),
    serverKey: createHmac(hash, salted).update('Server Key').digest('base64'),
  }
}
