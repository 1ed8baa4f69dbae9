import { readFileSync } from 'node:fs'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import type { KafkaConfig } from '../kafka.js'
import { logLevel, type LogLevel } from '../logger.js'
import { KAFKA_OPTIONS } from '../cluster/options.js'
import { CONSUMER_OPTIONS } from '../consumer/config.js'
import { PRODUCER_OPTIONS } from '../producer/config.js'
import type { OptionSpec } from '../config/option.js'
import type { CompressionName } from '../codec/compression.js'
import type { Acks } from '../producer/config.js'

/** A mistake in how the command was called: exit code 2, with the command's usage. */
export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>
export type Values = Record<string, string | boolean | string[] | undefined>

/** The connection flags every command that talks to a cluster takes. */
export const CONNECTION_OPTIONS: Options = {
  brokers: { type: 'string', short: 'b' },
  'client-id': { type: 'string' },
  'sasl-mechanism': { type: 'string' },
  'sasl-username': { type: 'string' },
  'sasl-password': { type: 'string' },
  tls: { type: 'boolean' },
  ca: { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  config: { type: 'string' },
  X: { type: 'string', short: 'X', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
}

export const CONNECTION_USAGE = `connection options:
  -b, --brokers HOST:PORT,...   bootstrap servers (or bootstrap.servers in --config)
  --client-id ID                client.id (default wafka-cli)
  --sasl-mechanism M            PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
  --sasl-username U             (or WAFKA_SASL_MECHANISM / WAFKA_SASL_USERNAME /
  --sasl-password P              WAFKA_SASL_PASSWORD in the environment; never printed)
  --tls                         connect with TLS (implied by --ca, --cert, --key)
  --ca FILE, --cert FILE, --key FILE   PEM files: trusted CAs, client certificate and key
  --config FILE                 Java/librdkafka properties (bootstrap.servers, security.protocol,
                                sasl.mechanism(s), sasl.username, sasl.password, sasl.jaas.config,
                                ssl.ca.location, ssl.certificate.location, ssl.key.location, client.id)
  -X key=value                  any client option, by its wafka name (e.g. -X requestTimeoutMs=5000)
                                or its property name as in --config; repeatable
  --json                        machine-readable output
  -h, --help                    this help`

/** parseArgs, strict, with its complaints as UsageErrors. */
export function parse(args: string[], options: Options, allowPositionals = false): { values: Values; positionals: string[] } {
  // A negative number after an option that takes a value is that value (-o -10, --shift-by -3), as in kcat.
  const takesValue = new Set<string>()
  for (const [name, o] of Object.entries(options)) {
    if (o.type !== 'string') continue
    takesValue.add(`--${name}`)
    if (o.short) takesValue.add(`-${o.short}`)
  }
  const joined: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (takesValue.has(a) && /^-\d+$/.test(args[i + 1] ?? ''))
      joined.push(`--${a.startsWith('--') ? a.slice(2) : shortToLong(options, a)}=${args[++i]}`)
    else joined.push(a)
  }
  args = joined
  try {
    const { values, positionals } = parseArgs({ args, options, strict: true, allowPositionals, allowNegative: false })
    return { values: values as Values, positionals }
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0].replace(/\. To specify a positional.*$/, ''))
  }
}

function shortToLong(options: Options, flag: string): string {
  return Object.entries(options).find(([, o]) => `-${o.short}` === flag)![0]
}

export function str(values: Values, name: string): string | undefined {
  const v = values[name]
  return typeof v === 'string' ? v : undefined
}

export function int(values: Values, name: string, least = 0): number | undefined {
  const v = str(values, name)
  if (v === undefined) return undefined
  const n = Number(v.replace(/_/g, ''))
  if (!Number.isSafeInteger(n) || n < least) throw new UsageError(`--${name} needs an integer >= ${least}, not ${JSON.stringify(v)}`)
  return n
}

const CODECS: readonly CompressionName[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd']

/** --compression (default none), one of the codecs; `flag` is how the complaint names it. */
export function compressionFlag(values: Values, flag = '--compression'): CompressionName {
  const c = (str(values, 'compression') ?? 'none') as CompressionName
  if (!CODECS.includes(c)) throw new UsageError(`${flag} must be one of ${CODECS.join(', ')}, not ${c}`)
  return c
}

/** --acks 0|1|all (-1 is all; default all). */
export function acksFlag(values: Values): Acks {
  const flag = str(values, 'acks') ?? 'all'
  if (!['0', '1', 'all', '-1'].includes(flag)) throw new UsageError(`--acks must be 0, 1 or all, not ${flag}`)
  return flag === 'all' || flag === '-1' ? 'all' : (Number(flag) as 0 | 1)
}
/** Java/librdkafka-style properties: key=value or key: value lines, # and ! comments. */
export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue
    const m = /^([^=:\s]+)\s*[=:]\s*(.*)$/.exec(line)
    if (!m) throw new UsageError(`cannot read property line ${JSON.stringify(line.slice(0, 40))}`)
    out.set(m[1], m[2])
  }
  return out
}

/**
 * Options a flag of the command line sets (-b, --client-id, -g, the security
 * flags), or that are not text (functions, objects): -X and --config do not
 * take them.
 */
const NOT_FROM_TEXT = new Set([
  'brokers',
  'clientId',
  'tls',
  'ssl',
  'sasl',
  'logLevel',
  'logCreator',
  'transactionalId',
  'groupId',
  'partitionAssigners',
  'partitioner',
])
const TABLES = [KAFKA_OPTIONS, PRODUCER_OPTIONS, CONSUMER_OPTIONS] as const
const keysOf = (table: object) => Object.keys(table).filter((k) => !NOT_FROM_TEXT.has(k))

/** The client options -X may set (a typo is refused rather than ignored): the tables the clients validate with. */
const CLIENT_OPTIONS = new Set<string>(TABLES.flatMap(keysOf))

/** Property names (Java/librdkafka) of those options, from the same tables (`java`). */
const PROPERTY_NAMES: Record<string, string> = Object.fromEntries(
  TABLES.flatMap((table) =>
    Object.entries(table as Record<string, OptionSpec>).flatMap(([k, spec]) =>
      spec.java && CLIENT_OPTIONS.has(k) && /^[a-z.]+$/.test(spec.java) ? [[spec.java, k]] : [],
    ),
  ),
)

/** Client-wide options: -X gives them to the connection (the Kafka object), the rest to the producer or consumer. */
const CLIENT_WIDE = [
  'requestTimeoutMs',
  'connectTimeoutMs',
  'retryBackoffMs',
  'retryBackoffMaxMs',
  'reconnectBackoffMs',
  'reconnectBackoffMaxMs',
  'metadataMaxAgeMs',
  'defaultApiTimeoutMs',
  'maxResponseBytes',
  'idleTimeoutMs',
  'authenticationTimeoutMs',
  'reauthenticationThresholdMs',
] as const

/** Security and bootstrap properties, handled by resolveConnection itself. */
const CONNECTION_PROPERTIES = new Set([
  'bootstrap.servers',
  'metadata.broker.list',
  'client.id',
  'security.protocol',
  'sasl.mechanism',
  'sasl.mechanisms',
  'sasl.username',
  'sasl.password',
  'sasl.jaas.config',
  'ssl.ca.location',
  'ssl.certificate.location',
  'ssl.key.location',
  'ssl.key.password',
  'ssl.endpoint.identification.algorithm',
  'enable.ssl.certificate.verification',
])

function typed(v: string): string | number | boolean {
  if (v === 'true') return true
  if (v === 'false') return false
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v)
  return v
}

export type ClientKind = 'producer' | 'consumer'

export interface Connection {
  kafka: KafkaConfig
  /** Options for producer()/consumer() from -X and --config (client-specific ones). */
  extra: Record<string, string | number | boolean>
  /**
   * The options of `extra` a producer or a consumer takes. One properties
   * file often serves both kinds, so a --config option of the other kind is
   * left out with a note through `warn`, as the Java client ignores a config
   * it does not know; the same from -X, which names one command's client, is
   * a usage mistake.
   */
  clientOptions(kind: ClientKind, warn: (line: string) => void): Record<string, string | number | boolean>
}

/**
 * The cluster connection from the flags, --config and the environment
 * (flags win over the environment, the environment over the file).
 */
export function resolveConnection(values: Values, env: NodeJS.ProcessEnv = process.env): Connection {
  const props = new Map<string, string>()
  const file = str(values, 'config')
  if (file !== undefined) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (err) {
      throw new UsageError(`cannot read --config ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
    }
    for (const [k, v] of parseProperties(text)) props.set(k, v)
  }
  const extra: Record<string, string | number | boolean> = {}
  /** Options given with -X (by either name), not only in the file. */
  const flagged = new Set<string>()
  for (const kv of (values.X as string[] | undefined) ?? []) {
    const eq = kv.indexOf('=')
    if (eq <= 0) throw new UsageError(`-X needs key=value, not ${JSON.stringify(kv)}`)
    const k = kv.slice(0, eq)
    if (k.includes('.')) {
      props.set(k, kv.slice(eq + 1))
      if (PROPERTY_NAMES[k] !== undefined) flagged.add(PROPERTY_NAMES[k])
    } else if (CLIENT_OPTIONS.has(k)) {
      extra[k] = typed(kv.slice(eq + 1))
      flagged.add(k)
    } else throw new UsageError(`-X: unknown client option ${k}`)
  }
  const propertyOf = new Map<string, string>()
  for (const [k, v] of props) {
    if (CONNECTION_PROPERTIES.has(k)) continue
    const name = PROPERTY_NAMES[k]
    if (name === undefined) throw new UsageError(`unknown property ${k} (wafka option names are accepted with -X too)`)
    extra[name] = typed(v)
    propertyOf.set(name, k)
  }
  const clientOptions = (kind: ClientKind, warn: (line: string) => void) => {
    const own: object = kind === 'producer' ? PRODUCER_OPTIONS : CONSUMER_OPTIONS
    const other = kind === 'producer' ? 'consumer' : 'producer'
    const what = (k: string) =>
      k in (kind === 'producer' ? CONSUMER_OPTIONS : PRODUCER_OPTIONS) ? `a ${other} option` : `not a ${kind} option`
    const out: Record<string, string | number | boolean> = {}
    for (const [k, v] of Object.entries(extra)) {
      if (k in own) out[k] = v
      else if (flagged.has(k)) throw new UsageError(`-X ${k} is ${what(k)}; this command's client is a ${kind}`)
      else warn(`${propertyOf.get(k) ?? k} in --config is ${what(k)}: ignored`)
    }
    return out
  }

  const bootstrap = str(values, 'brokers') ?? props.get('bootstrap.servers') ?? props.get('metadata.broker.list')
  if (bootstrap === undefined) throw new UsageError('no brokers: give -b HOST:PORT (or bootstrap.servers in --config)')
  const brokers = bootstrap
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '')

  const protocol = (props.get('security.protocol') ?? '').toUpperCase()
  const jaas = props.get('sasl.jaas.config') ?? ''
  const jaasValue = (name: string) => new RegExp(`${name}\\s*=\\s*"([^"]*)"`).exec(jaas)?.[1]
  const mechanism = str(values, 'sasl-mechanism') ?? env.WAFKA_SASL_MECHANISM ?? props.get('sasl.mechanism') ?? props.get('sasl.mechanisms')
  const username = str(values, 'sasl-username') ?? env.WAFKA_SASL_USERNAME ?? props.get('sasl.username') ?? jaasValue('username')
  const password = str(values, 'sasl-password') ?? env.WAFKA_SASL_PASSWORD ?? props.get('sasl.password') ?? jaasValue('password')

  const kafka: KafkaConfig = {
    brokers,
    clientId: str(values, 'client-id') ?? props.get('client.id') ?? 'wafka-cli',
    logLevel: cliLogLevel(env),
  }
  if (mechanism !== undefined || username !== undefined || protocol.startsWith('SASL')) {
    const m = (mechanism ?? 'PLAIN').toLowerCase()
    if (m !== 'plain' && m !== 'scram-sha-256' && m !== 'scram-sha-512') {
      throw new UsageError(`--sasl-mechanism must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, not ${mechanism}`)
    }
    if (username === undefined || password === undefined)
      throw new UsageError(
        `SASL ${m.toUpperCase()} needs --sasl-username and --sasl-password (or WAFKA_SASL_USERNAME / WAFKA_SASL_PASSWORD)`,
      )
    kafka.sasl = { mechanism: m, username, password }
  }
  const ca = str(values, 'ca') ?? props.get('ssl.ca.location')
  const cert = str(values, 'cert') ?? props.get('ssl.certificate.location')
  const key = str(values, 'key') ?? props.get('ssl.key.location')
  if (values.tls === true || ca !== undefined || cert !== undefined || key !== undefined || protocol === 'SSL' || protocol === 'SASL_SSL') {
    const read = (flag: string, path: string | undefined) => {
      if (path === undefined) return undefined
      try {
        return readFileSync(path)
      } catch (err) {
        throw new UsageError(`cannot read ${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
      }
    }
    kafka.ssl = { ca: read('--ca', ca), cert: read('--cert', cert), key: read('--key', key), passphrase: props.get('ssl.key.password') }
    for (const k of Object.keys(kafka.ssl) as Array<keyof typeof kafka.ssl>) if (kafka.ssl[k] === undefined) delete kafka.ssl[k]
    if (props.get('enable.ssl.certificate.verification') === 'false') kafka.ssl.rejectUnauthorized = false
  }
  // Client-wide options from -X (connection ones) go to the Kafka object; the rest to the producer/consumer.
  for (const k of CLIENT_WIDE) {
    if (k in extra) {
      ;(kafka as unknown as Record<string, unknown>)[k] = extra[k]
      delete extra[k]
    }
  }
  return { kafka, extra, clientOptions }
}

/**
 * A command says what failed in its own one line; the log of its client (and
 * of the demo's embedded broker), JSON lines on stderr, is there on request:
 * WAFKA_LOG_LEVEL=error|warn|info|debug.
 */
export function cliLogLevel(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const level = env.WAFKA_LOG_LEVEL?.toUpperCase()
  if (level !== undefined && !Object.hasOwn(logLevel, level))
    throw new UsageError(`WAFKA_LOG_LEVEL must be one of ${Object.keys(logLevel).join(', ').toLowerCase()}, not ${env.WAFKA_LOG_LEVEL}`)
  return level === undefined ? logLevel.NOTHING : logLevel[level as keyof typeof logLevel]
}
