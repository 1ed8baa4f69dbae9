import { builtin } from '../node-builtins.js'
import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { ConfigError, kafkaError } from '../errors.js'
import { saltedPassword } from '../net/sasl/scram.js'
import { AlterUserScramCredentials, DescribeUserScramCredentials } from '../protocol/messages/index.js'
import { ErrorCodes } from '../protocol/error-codes.js'
import { SCRAM_DELETION_OPTIONS, SCRAM_UPSERTION_OPTIONS } from './options.js'
import { checkEntries } from '../config/option.js'

export type ScramMechanismName = 'SCRAM-SHA-256' | 'SCRAM-SHA-512'

/** Kafka's ScramMechanism type codes (KIP-554). */
const MECHANISMS: Record<ScramMechanismName, { code: number; hash: 'sha256' | 'sha512' }> = {
  'SCRAM-SHA-256': { code: 1, hash: 'sha256' },
  'SCRAM-SHA-512': { code: 2, hash: 'sha512' },
}
const NAMES: Record<number, ScramMechanismName> = { 1: 'SCRAM-SHA-256', 2: 'SCRAM-SHA-512' }

export interface ScramUpsertion {
  user: string
  mechanism: ScramMechanismName
  /** Sent as a salted hash (PBKDF2 here, with a fresh random salt): the password itself never leaves the client. */
  password: string
  /** Default 4096, Kafka's minimum (it accepts up to 16384). */
  iterations?: number
}

export interface ScramDeletion {
  user: string
  mechanism: ScramMechanismName
}

function mechanismOf(name: unknown): { code: number; hash: 'sha256' | 'sha512' } {
  const m = MECHANISMS[name as ScramMechanismName]
  if (!m) throw new ConfigError(`mechanism must be 'SCRAM-SHA-256' or 'SCRAM-SHA-512', not ${JSON.stringify(name)}`)
  return m
}

/** The SCRAM mechanisms (and iterations) each user has credentials for (all users when `users` is absent). */
export async function describeUserScramCredentials(cluster: ClusterClient, users?: string[]) {
  const { res } = await cluster.request(
    DescribeUserScramCredentials,
    { users: users ? users.map((name) => ({ name })) : null },
    Routes.any(),
    {
      check: (r, from) => {
        if (r.errorCode !== 0)
          throw kafkaError(r.errorCode, { api: 'DescribeUserScramCredentials', broker: from.broker, detail: r.errorMessage ?? undefined })
        for (const x of r.results) {
          // A user without credentials is RESOURCE_NOT_FOUND (91): report it as having none.
          if (x.errorCode !== 0 && x.errorCode !== ErrorCodes.RESOURCE_NOT_FOUND)
            throw kafkaError(x.errorCode, {
              api: 'DescribeUserScramCredentials',
              broker: from.broker,
              detail: `user ${x.user}${x.errorMessage ? `: ${x.errorMessage}` : ''}`,
            })
        }
      },
    },
  )
  return res.results.map((r) => ({
    user: r.user,
    credentials: r.credentialInfos.map((c) => ({
      mechanism: NAMES[c.mechanism] ?? `UNKNOWN(${c.mechanism})`,
      iterations: c.iterations,
    })),
  }))
}

/** Creates, replaces or deletes users' SCRAM credentials (KIP-554); throws the first user the broker refused. */
export async function alterUserScramCredentials(
  cluster: ClusterClient,
  changes: { upsertions?: ScramUpsertion[]; deletions?: ScramDeletion[] },
): Promise<void> {
  const upsertions = changes.upsertions ?? []
  const deletions = changes.deletions ?? []
  if (upsertions.length + deletions.length === 0) throw new ConfigError('alterUserScramCredentials needs upsertions or deletions')
  checkEntries('alterUserScramCredentials() upsertions', upsertions, SCRAM_UPSERTION_OPTIONS)
  checkEntries('alterUserScramCredentials() deletions', deletions, SCRAM_DELETION_OPTIONS)
  const upserts = await Promise.all(
    upsertions.map(async (u) => {
      if (typeof u.user !== 'string' || u.user === '') throw new ConfigError('a SCRAM upsertion needs a user name')
      if (typeof u.password !== 'string' || u.password === '') throw new ConfigError(`the SCRAM upsertion for ${u.user} needs a password`)
      const m = mechanismOf(u.mechanism)
      const iterations = u.iterations ?? 4096
      if (!Number.isInteger(iterations) || iterations < 4096 || iterations > 16384)
        throw new ConfigError('SCRAM iterations must be an integer in 4096-16384 (what Kafka accepts)')
      const salt = builtin('node:crypto').randomBytes(32)
      return {
        name: u.user,
        mechanism: m.code,
        iterations,
        salt,
        saltedPassword: await saltedPassword(m.hash, u.password, salt, iterations),
      }
    }),
  )
  const dels = deletions.map((d) => ({ name: d.user, mechanism: mechanismOf(d.mechanism).code }))
  await cluster.request(AlterUserScramCredentials, { upsertions: upserts, deletions: dels }, Routes.any(), {
    check: (res, from) => {
      for (const r of res.results) {
        if (r.errorCode !== 0)
          throw kafkaError(r.errorCode, {
            api: 'AlterUserScramCredentials',
            broker: from.broker,
            detail: `user ${r.user}${r.errorMessage ? `: ${r.errorMessage}` : ''}`,
          })
      }
    },
  })
}
