import { readFileSync } from 'node:fs'
import { nearest } from '../config/option.js'
import { ConfigError } from '../errors.js'
import { BROKER_OPTIONS, BY_KAFKA_NAME, type BrokerOptionName, type BrokerOptions, type BrokerOptionSpec } from './options.js'
import { MECHANISMS, type SaslMechanismName } from './sasl/credentials.js'
import { SslPrincipalMapper } from './ssl-principal-mapper.js'
import type { JwksValidatorOptions, OauthbearerOptions, UnsecuredValidatorOptions } from './sasl/oauthbearer.js'

/**
 * Kafka's broker config names (server.properties, `startCluster({ config })`)
 * read as the embedded broker's options. A name with an option of its own is
 * that option's row in BROKER_OPTIONS (its `java`); the names below set part
 * of an option, or one in another unit. Any other name is refused by name,
 * with the nearest supported one and why: a setting silently ignored would
 * be a broker configured otherwise than its file says.
 */

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL'
const PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL']

/** What Kafka names give: options, and the listener's security protocol (checked against ssl and sasl once flags are merged). */
export interface FromKafkaNames {
  options: BrokerOptions
  protocol?: SecurityProtocol
  /** sasl.enabled.mechanisms. */
  mechanisms?: SaslMechanismName[]
  /** The PLAIN login module's `user_NAME="password"` entries (listener.name.L.plain.sasl.jaas.config). */
  users?: Record<string, string>
  /** How OAUTHBEARER tokens are checked: the login module's unsecuredValidator* options, or sasl.oauthbearer.* with the JWKS validator. */
  oauthbearer?: OauthbearerOptions
}

interface Reading extends FromKafkaNames {
  options: BrokerOptions
  /** Every name given, as strings. */
  all: Readonly<Record<string, string>>
  ssl: { cert?: string; key?: string; ca?: string; clientAuth?: 'required' | 'requested' | 'none'; principalMappingRules?: string }
  /** sasl.oauthbearer.*: the JWKS validator's settings, and whether the listener names that validator. */
  jwks: Partial<JwksValidatorOptions> & { handler?: boolean }
}

interface CompositeName {
  /** The option(s) it sets, for the docs. */
  sets: string
  /** Reads the value into `r`; returns why it is refused, or null. */
  read(value: string, r: Reading): string | null
}

const RACK_AWARE = 'org.apache.kafka.common.replica.RackAwareReplicaSelector'

/** Kafka names that set part of an option, or one in another unit. */
export const COMPOSITE_NAMES: Readonly<Record<string, CompositeName>> = {
  listeners: {
    sets: 'host, port',
    read(value, r) {
      const l = listener('listeners', value)
      if (typeof l === 'string') return l
      r.protocol = l.protocol
      r.options.host = l.host === '' ? '0.0.0.0' : l.host
      r.options.port = l.port
      return null
    },
  },
  'advertised.listeners': {
    sets: 'advertisedHost',
    read(value, r) {
      const l = listener('advertised.listeners', value)
      if (typeof l === 'string') return l
      const own = r.all.listeners === undefined ? undefined : listener('listeners', r.all.listeners)
      // Without listeners the port is the option's (--port): not known here.
      const port = own === undefined || typeof own === 'string' ? l.port : own.port
      if (l.port !== port)
        return `advertised port ${l.port} is not the listener's (${port}): the embedded broker advertises the port it listens on`
      if (own && typeof own !== 'string' && own.protocol !== l.protocol)
        return `${l.protocol} is not the listener's protocol (${own.protocol})`
      if (l.host !== '') r.options.advertisedHost = l.host
      return null
    },
  },
  'log.dir': {
    sets: 'dataDir',
    read: (value, r) => (r.all['log.dirs'] === undefined ? dataDir('log.dir', value, r) : null),
  },
  'log.dirs': { sets: 'dataDir', read: (value, r) => dataDir('log.dirs', value, r) },
  // Kafka takes log.retention.ms over .minutes over .hours.
  'log.retention.minutes': {
    sets: 'logRetentionMs',
    read: (value, r) => (r.all['log.retention.ms'] === undefined ? retention('log.retention.minutes', value, 60_000, r) : null),
  },
  'log.retention.hours': {
    sets: 'logRetentionMs',
    read: (value, r) =>
      r.all['log.retention.ms'] === undefined && r.all['log.retention.minutes'] === undefined
        ? retention('log.retention.hours', value, 3_600_000, r)
        : null,
  },
  'replica.selector.class': {
    sets: 'replicaSelector',
    read(value, r) {
      const v = value.trim()
      if (v === RACK_AWARE || v === 'rack-aware') r.options.replicaSelector = 'rack-aware'
      else if (v === '' || v === 'leader') r.options.replicaSelector = 'leader'
      else return `${v} is not a selector the embedded broker has (${RACK_AWARE}, or none for the leader)`
      return null
    },
  },
  'ssl.keystore.location': {
    sets: 'ssl.cert, ssl.key',
    read(value, r) {
      const pem = pemFile(value)
      if (typeof pem === 'string') return pem
      const key = pem.find((b) => /PRIVATE KEY/.test(b.label))
      const certs = pem.filter((b) => b.label === 'CERTIFICATE')
      if (!key || certs.length === 0) return `${value} needs a private key and its certificate chain (PEM)`
      if (key.label === 'ENCRYPTED PRIVATE KEY')
        return `${value}: an encrypted key is not supported by the embedded broker (ssl.key.password)`
      r.ssl.key = key.text
      r.ssl.cert = certs.map((c) => c.text).join('\n')
      return null
    },
  },
  'ssl.keystore.type': { sets: '(PEM only)', read: (value) => pemType(value) },
  'ssl.truststore.location': {
    sets: 'ssl.ca',
    read(value, r) {
      const pem = pemFile(value)
      if (typeof pem === 'string') return pem
      const certs = pem.filter((b) => b.label === 'CERTIFICATE')
      if (certs.length === 0) return `${value} holds no certificate (PEM)`
      r.ssl.ca = certs.map((c) => c.text).join('\n')
      return null
    },
  },
  'ssl.truststore.type': { sets: '(PEM only)', read: (value) => pemType(value) },
  'ssl.client.auth': {
    sets: 'ssl.clientAuth',
    read(value, r) {
      const v = value.trim().toLowerCase()
      if (v !== 'required' && v !== 'requested' && v !== 'none') return 'must be one of required, requested, none'
      r.ssl.clientAuth = v
      return null
    },
  },
  'ssl.principal.mapping.rules': {
    sets: 'ssl.principalMappingRules',
    read(value, r) {
      try {
        SslPrincipalMapper.fromRules(value)
      } catch (err) {
        return `Invalid value ${value} for configuration ssl.principal.mapping.rules: ${(err as Error).message}`
      }
      r.ssl.principalMappingRules = value
      return null
    },
  },
  'sasl.oauthbearer.jwks.endpoint.url': {
    sets: 'sasl.oauthbearer.jwks.jwksUrl',
    read(value, r) {
      try {
        r.jwks.jwksUrl = new URL(value.trim()).href
      } catch {
        return `Invalid value ${value} for configuration sasl.oauthbearer.jwks.endpoint.url: not a URL`
      }
      return null
    },
  },
  'sasl.oauthbearer.expected.audience': {
    sets: 'sasl.oauthbearer.jwks.expectedAudience',
    read: (value, r) => (
      (r.jwks.expectedAudience = value
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean)),
      null
    ),
  },
  'sasl.oauthbearer.expected.issuer': {
    sets: 'sasl.oauthbearer.jwks.expectedIssuer',
    read: (value, r) => ((r.jwks.expectedIssuer = value.trim()), null),
  },
  'sasl.oauthbearer.sub.claim.name': {
    sets: 'sasl.oauthbearer.jwks.subClaimName',
    read: (value, r) => ((r.jwks.subClaimName = value.trim()), null),
  },
  'sasl.oauthbearer.scope.claim.name': {
    sets: 'sasl.oauthbearer.jwks.scopeClaimName',
    read: (value, r) => ((r.jwks.scopeClaimName = value.trim()), null),
  },
  'sasl.oauthbearer.clock.skew.seconds': {
    sets: 'sasl.oauthbearer.jwks.clockSkewSeconds',
    read: (value, r) => wholeNumber('sasl.oauthbearer.clock.skew.seconds', value, (n) => (r.jwks.clockSkewSeconds = n)),
  },
  'sasl.oauthbearer.jwks.endpoint.refresh.ms': {
    sets: 'sasl.oauthbearer.jwks.refreshMs',
    read: (value, r) => wholeNumber('sasl.oauthbearer.jwks.endpoint.refresh.ms', value, (n) => (r.jwks.refreshMs = n)),
  },
  'sasl.enabled.mechanisms': {
    sets: 'sasl.mechanisms',
    read(value, r) {
      const names = value
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean)
      const other = names.find((m) => !MECHANISMS.includes(m as SaslMechanismName))
      if (other !== undefined) return `${other} is not supported by the embedded broker (${MECHANISMS.join(', ')})`
      if (names.length === 0) return 'names no mechanism'
      r.mechanisms = names as SaslMechanismName[]
      return null
    },
  },
}

/** Why a real Kafka name is refused, for those a Kafka user is likeliest to bring (by prefix). */
const UNSUPPORTED: ReadonlyArray<[RegExp, string]> = [
  [
    /^(process\.roles|node\.id|broker\.id|controller\.|inter\.broker\.|listener\.security\.protocol\.map|control\.plane\.)/,
    'the embedded broker is its own controller, with N virtual brokers (ids 0..N-1, --brokers) on one listener',
  ],
  [
    /^(num\.(network|io|recovery)\.threads|num\.recovery\.threads\.per\.data\.dir|background\.threads|num\.replica\.fetchers|log\.cleaner\.threads)/,
    'one event loop serves every virtual broker: no thread pool to size',
  ],
  [/^socket\.(send|receive)\.buffer\.bytes$/, "the OS's socket buffers are kept"],
  [/^ssl\.(keystore|truststore|key)\.password$/, 'PEM files without a password only'],
  [/^(share\.|group\.share\.)/, 'share groups are not served yet'],
  [/^authorizer\.class\.name$/, 'no authorizer yet'],
]

/** Every Kafka name the embedded broker reads. */
export function supportedKafkaNames(): string[] {
  return [...new Set([...BY_KAFKA_NAME.keys(), ...Object.keys(COMPOSITE_NAMES)])].sort()
}

/**
 * Options from Kafka broker names: each value checked as Kafka checks it
 * (`Invalid value ... for configuration ...`); every refused name reported
 * at once in one ConfigError, each on its line with the nearest supported
 * name. `where` names an entry in the message (a file's line).
 */
export function optionsFromKafkaNames(
  config: Readonly<Record<string, string | number | boolean>>,
  where: (key: string) => string = (key) => key,
): FromKafkaNames {
  const all = Object.fromEntries(Object.entries(config).map(([k, v]) => [k, String(v)]))
  const r: Reading = { options: {}, all, ssl: {}, jwks: {} }
  const problems: string[] = []
  const supported = supportedKafkaNames()
  for (const [key, value] of Object.entries(all)) {
    const name = BY_KAFKA_NAME.get(key)
    const composite = Object.hasOwn(COMPOSITE_NAMES, key) ? COMPOSITE_NAMES[key] : undefined
    let problem: string | null
    if (composite) problem = composite.read(value, r)
    else if (JAAS_KEY.test(key)) problem = readJaas(key, value, r)
    else if (CALLBACK_KEY.test(key)) problem = readCallbackHandler(key, value, r)
    else if (name) problem = readOption(name, key, value, r)
    else {
      const reason = UNSUPPORTED.find(([re]) => re.test(key))?.[1]
      const near = nearest(key, supported)
      problem = `not supported by the embedded broker${reason ? `: ${reason}` : ''}${near ? ` (did you mean ${near}?)` : ''}`
    }
    if (problem) problems.push(`${where(key)}: ${problem}`)
  }
  if (problems.length) throw new ConfigError(`broker config refused:\n  ${problems.join('\n  ')}`)
  if (r.ssl.cert || r.ssl.ca || r.ssl.clientAuth !== undefined || r.ssl.principalMappingRules !== undefined) {
    if (!r.ssl.cert) throw new ConfigError(`broker config refused: ${where('ssl.keystore.location')}: TLS needs a keystore (PEM)`)
    // Kafka's default ssl.client.auth is none: a truststore alone asks nothing of clients.
    const clientAuth = r.ssl.clientAuth ?? 'none'
    r.options.ssl = { cert: r.ssl.cert, key: r.ssl.key!, ca: r.ssl.ca, requestCert: clientAuth === 'required' }
    if (r.ssl.clientAuth !== undefined) r.options.ssl.clientAuth = r.ssl.clientAuth
    if (r.ssl.principalMappingRules !== undefined) r.options.ssl.principalMappingRules = r.ssl.principalMappingRules
    if (clientAuth !== 'none' && !r.ssl.ca)
      throw new ConfigError(`broker config refused: ${where('ssl.client.auth')}: ${clientAuth} needs ssl.truststore.location`)
  }
  const { handler, ...jwks } = r.jwks
  if (handler) {
    if (!jwks.jwksUrl)
      throw new ConfigError(
        `broker config refused: ${where('sasl.oauthbearer.jwks.endpoint.url')}: OAuthBearerValidatorCallbackHandler needs the JWKS URL`,
      )
    r.oauthbearer = { jwks: jwks as JwksValidatorOptions }
  } else if (Object.keys(jwks).length)
    throw new ConfigError(
      `broker config refused: ${where(Object.keys(all).find((k) => k.startsWith('sasl.oauthbearer.'))!)}: sasl.oauthbearer.* settings need listener.name.<listener>.oauthbearer.sasl.server.callback.handler.class=${JWKS_HANDLER}`,
    )
  return { options: r.options, protocol: r.protocol, mechanisms: r.mechanisms, users: r.users, oauthbearer: r.oauthbearer }
}

/** A one-to-one name: its value as the option's kind, within its bounds (Kafka's messages). */
function readOption(name: BrokerOptionName, key: string, raw: string, r: Reading): string | null {
  const spec: BrokerOptionSpec = BROKER_OPTIONS[name]
  const value = raw.trim()
  const bad = (why: string) => `Invalid value ${raw} for configuration ${key}: ${why}`
  // Kafka's own default: no authorizer.
  if (name === 'authorizer' && value === '') return null
  let out: unknown
  switch (spec.kind) {
    case 'integer': {
      if (!/^-?\d+$/.test(value)) return bad(`Not a number of type ${(spec.max ?? 0) > 2147483647 ? 'LONG' : 'INT'}`)
      const n = Number(value)
      if (spec.min !== undefined && n < spec.min) return bad(`Value must be at least ${spec.min}`)
      if (spec.max !== undefined && n > spec.max) return bad(`Value must be no more than ${spec.max}`)
      out = n
      break
    }
    case 'boolean':
      if (!/^(true|false)$/i.test(value)) return bad('Expected value to be either true or false')
      out = value.toLowerCase() === 'true'
      break
    default: {
      const parts = spec.list ? value.split(',').map((p) => p.trim()) : [value]
      const wrong = spec.allowed ? parts.find((p) => !spec.allowed!.includes(p)) : undefined
      if (wrong !== undefined) return bad(`String must be one of: ${spec.allowed!.join(', ')}`)
      out = parts.join(',')
    }
  }
  ;(r.options as Record<string, unknown>)[name] = out
  return null
}

/** `PROTOCOL://HOST:PORT` (HOST may be empty, or `[v6]`): the embedded broker has one listener. */
function listener(key: string, value: string): { protocol: SecurityProtocol; host: string; port: number } | string {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
  if (entries.length !== 1)
    return `${entries.length} listeners: the embedded broker has one (its N virtual brokers take consecutive ports from its port)`
  const m = /^([A-Za-z_]+):\/\/(\[[^\]]*\]|[^:/]*):(\d+)$/.exec(entries[0])
  if (!m) return `${entries[0]} is not PROTOCOL://HOST:PORT`
  const protocol = m[1].toUpperCase() as SecurityProtocol
  if (!PROTOCOLS.includes(protocol))
    return `${m[1]} is not a security protocol (${PROTOCOLS.join(', ')}; named listeners and listener.security.protocol.map are not supported by the embedded broker)`
  const port = Number(m[3])
  if (port > 65535) return `port ${port} is out of range`
  return { protocol, host: m[2].replace(/^\[(.*)\]$/, '$1'), port }
}

function dataDir(key: string, value: string, r: Reading): string | null {
  const dirs = value
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean)
  if (dirs.length !== 1) return `${dirs.length} directories: the embedded broker keeps its data in one (${key}=DIR)`
  r.options.dataDir = dirs[0]
  return null
}

function retention(key: string, value: string, unit: number, r: Reading): string | null {
  const v = value.trim()
  if (!/^-?\d+$/.test(v)) return `Invalid value ${value} for configuration ${key}: Not a number of type INT`
  const n = Number(v)
  // Kafka: a negative value of any unit means no limit.
  r.options.logRetentionMs = n < 0 ? -1 : n * unit
  return null
}

function pemType(value: string): string | null {
  return value.trim().toUpperCase() === 'PEM'
    ? null
    : `${value.trim()} is not supported by the embedded broker: PEM files only (${'ssl.keystore.type'}=PEM)`
}

/** The PEM blocks of a file, or why it cannot be read as one. */
function pemFile(path: string): Array<{ label: string; text: string }> | string {
  let text: string
  try {
    text = readFileSync(path.trim(), 'utf8')
  } catch (err) {
    return `cannot read ${path.trim()}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`
  }
  const blocks = [...text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g)].map((m) => ({ label: m[1], text: m[0] }))
  return blocks.length ? blocks : `${path.trim()} is not a PEM file (JKS and PKCS12 keystores are not supported by the embedded broker)`
}

/** A listener's login module config for one mechanism: `listener.name.<listener>.<mechanism>.sasl.jaas.config`. */
const JAAS_KEY = /^listener\.name\.([^.]+)\.([^.]+)\.sasl\.jaas\.config$/
const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule'

/**
 * The PLAIN login module's users, as Kafka's broker takes them: each
 * `user_NAME="password"` is a user (here, of every enabled mechanism: SCRAM
 * users too). Never echoes the value: it holds passwords.
 */
function readJaas(key: string, value: string, r: Reading): string | null {
  const [, listenerName, mechanism] = JAAS_KEY.exec(key)!
  const own = r.all.listeners === undefined ? undefined : listener('listeners', r.all.listeners)
  const protocol = own === undefined || typeof own === 'string' ? undefined : own.protocol
  if (protocol && listenerName.toUpperCase() !== protocol)
    return `listener ${listenerName} is not this broker's (${protocol.toLowerCase()})`
  if (mechanism !== 'plain' && mechanism !== 'oauthbearer')
    return `${mechanism.toUpperCase()} users are not read from a login module by the embedded broker: give them with --sasl-users (or PlainLoginModule user_NAME entries, which serve every mechanism)`
  const m = /^\s*([\w.$]+)\s+(required|requisite|sufficient|optional)\b([\s\S]*?);?\s*$/.exec(value)
  if (!m) return 'is not a login module config (MODULE required key="value" ...;)'
  const entries = [...m[3].matchAll(/([\w.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s";]+))/g)].map(
    (o) => [o[1], o[2] !== undefined ? o[2].replace(/\\(.)/g, '$1') : o[3]] as const,
  )
  if (mechanism === 'oauthbearer') return readOauthbearerJaas(m[1], entries, r)
  if (m[1] !== PLAIN_MODULE) return `the login module is not ${PLAIN_MODULE}`
  const users: Record<string, string> = {}
  for (const [name, password] of entries) {
    if (!name.startsWith('user_')) continue
    if (name.length === 5 || !password) return `an entry ${name} with no user name or password`
    users[name.slice(5)] = password
  }
  if (Object.keys(users).length === 0) return 'names no user (user_NAME="password")'
  r.users = { ...r.users, ...users }
  return null
}

const OAUTHBEARER_MODULE = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule'
const JWKS_HANDLER = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler'
/** A listener's server callback handler for a mechanism: `listener.name.<listener>.<mechanism>.sasl.server.callback.handler.class`. */
const CALLBACK_KEY = /^listener\.name\.([^.]+)\.([^.]+)\.sasl\.server\.callback\.handler\.class$/

/**
 * The OAUTHBEARER login module: its unsecuredValidator* options set Kafka's
 * default validator. Its unsecuredLogin* options are the broker's own token,
 * for inter-broker SASL, which the embedded broker has no use for.
 */
function readOauthbearerJaas(module: string, entries: ReadonlyArray<readonly [string, string]>, r: Reading): string | null {
  if (module !== OAUTHBEARER_MODULE) return `the login module is not ${OAUTHBEARER_MODULE}`
  const unsecured: UnsecuredValidatorOptions = {}
  for (const [name, value] of entries) {
    if (name === 'unsecuredValidatorPrincipalClaimName') unsecured.principalClaimName = value
    else if (name === 'unsecuredValidatorScopeClaimName') unsecured.scopeClaimName = value
    else if (name === 'unsecuredValidatorRequiredScope') unsecured.requiredScope = value.split(' ').filter(Boolean)
    else if (name === 'unsecuredValidatorAllowableClockSkewMs') {
      if (!/^\d+$/.test(value)) return `unsecuredValidatorAllowableClockSkewMs must be a whole number of ms, not ${value}`
      unsecured.allowableClockSkewMs = Number(value)
    } else if (!name.startsWith('unsecuredLogin'))
      return `option ${name} is not one the embedded broker reads (unsecuredValidator*, unsecuredLogin*)`
  }
  r.oauthbearer ??= { unsecured }
  return null
}

function readCallbackHandler(key: string, value: string, r: Reading): string | null {
  const [, , mechanism] = CALLBACK_KEY.exec(key)!
  if (mechanism !== 'oauthbearer' || value.trim() !== JWKS_HANDLER)
    return `the embedded broker's only server callback handler is ${JWKS_HANDLER} (listener.name.<listener>.oauthbearer.sasl.server.callback.handler.class)`
  r.jwks.handler = true
  return null
}

function wholeNumber(key: string, value: string, set: (n: number) => void): string | null {
  if (!/^\d+$/.test(value.trim())) return `Invalid value ${value} for configuration ${key}: Not a number of type LONG`
  set(Number(value.trim()))
  return null
}
