import { logLevel, type LogCreator } from '../logger.js'
import { readFile } from 'node:fs/promises'
import { startCluster, type BrokerOptions, type BrokerSaslOptions, type BrokerTlsOptions, type SaslMechanismName } from './index.js'
import { optionsFromKafkaNames, supportedKafkaNames, type FromKafkaNames } from './kafka-names.js'
import { parsePropertyLines } from './properties-file.js'
import { readUsersFile } from './users-file.js'

const USAGE = `usage: wafka broker [--config server.properties] [--port PORT] [--brokers N] [--partitions N]
                    [--no-auto-create-topics] [--data-dir DIR] [--no-network-thread]
                    [--tls-cert FILE --tls-key FILE [--tls-ca FILE]]
                    [--sasl-users FILE [--sasl-mechanisms LIST] [--reauth-ms MS]]
                    [--feature transaction.version=N]

Serves an embedded Kafka-compatible cluster on 127.0.0.1 until SIGINT or SIGTERM:
N brokers (default 1) on PORT, PORT+1, ... (default 9092; 0 for ephemeral ports).
Data lives in memory and is gone when it stops, unless --data-dir names a
directory: then topics, records and committed offsets are kept there, in
Kafka's segment layout, and recovered at the next start.

--config reads a Kafka broker properties file (key=value, # comments), with
Kafka's names; the flags override it. A name the embedded broker does not
support is refused, with the nearest it does. Supported:
${wrap(supportedKafkaNames().join(', '), 80, '  ')}

TLS: --tls-cert and --tls-key (PEM) serve every broker over TLS; with --tls-ca,
clients must present a certificate signed by that CA (mutual TLS).
SASL: --sasl-users FILE holds one user:password per line (# comments); clients
authenticate with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (--sasl-mechanisms to
narrow, comma-separated); --reauth-ms sets connections.max.reauth.ms.
--feature transaction.version=N finalizes that feature at N in a new metadata
log (as Kafka's kafka-storage format --feature; kafka-features.sh changes it
after): 2 (default) lets Kafka 4 clients use the second transaction protocol
(KIP-890), 0 or 1 keeps them on the first.
The client sockets (accepting, TLS, reads and writes, a connection's first
ApiVersions) are served from a thread of their own, as Kafka's network
threads: new connections are answered while the brokers are busy.
--no-network-thread serves them in the brokers' thread instead.`

/** Resolves with the name of the first SIGINT or SIGTERM, its handlers removed. */
function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', onInt)
      process.off('SIGTERM', onTerm)
      resolve(signal)
    }
    const onInt = () => stop('SIGINT')
    const onTerm = () => stop('SIGTERM')
    process.once('SIGINT', onInt)
    process.once('SIGTERM', onTerm)
  })
}

/**
 * `wafka broker`: parses its arguments, starts the cluster, stops it cleanly
 * on a signal (or when `stopSignal` resolves, for tests). Resolves with the exit code.
 */
export async function brokerCommand(
  args: string[],
  log: (line: string) => void = console.log,
  stopSignal: () => Promise<string> = untilSignal,
): Promise<number> {
  // Only the flags given: each overrides the file's value, and what neither gives takes startCluster's default.
  const options: BrokerOptions = {}
  const files: { cert?: string; key?: string; ca?: string; users?: string; config?: string } = {}
  let mechanisms: SaslMechanismName[] | undefined
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    const value = () => {
      const v = Number(args[++i])
      if (!Number.isInteger(v) || v < 0) throw new Error(`${a} needs a non-negative integer, not ${args[i] ?? 'nothing'}`)
      return v
    }
    const path = () => {
      const v = args[++i]
      if (!v || v.startsWith('--')) throw new Error(`${a} needs a file name`)
      return v
    }
    if (a === '--port') options.port = value()
    else if (a === '--brokers') options.brokers = value()
    else if (a === '--partitions') options.defaultPartitions = value()
    else if (a === '--no-auto-create-topics') options.autoCreateTopics = false
    else if (a === '--no-network-thread') options.networkThread = false
    else if (a === '--tls-cert') files.cert = path()
    else if (a === '--tls-key') files.key = path()
    else if (a === '--tls-ca') files.ca = path()
    else if (a === '--sasl-users') files.users = path()
    else if (a === '--config') files.config = path()
    else if (a === '--sasl-mechanisms') mechanisms = path().split(',') as SaslMechanismName[]
    else if (a === '--reauth-ms') options.connectionsMaxReauthMs = value()
    else if (a === '--feature') {
      const m = /^transaction\.version=([0-2])$/.exec(args[++i] ?? '')
      if (!m)
        throw new Error(
          `--feature takes transaction.version=0, 1 or 2 (the one feature the embedded broker sets), not ${args[i] ?? 'nothing'}`,
        )
      options.transactionVersion = Number(m[1])
    } else if (a === '--data-dir') {
      const dir = args[++i]
      if (!dir || dir.startsWith('--')) throw new Error(`--data-dir needs a directory, not ${dir ?? 'nothing'}`)
      options.dataDir = dir
    } else if (a === '--help' || a === '-h') {
      log(USAGE)
      return 0
    } else {
      log(`wafka broker: unknown argument ${a}\n${USAGE}`)
      return 2
    }
  }
  if (!files.cert !== !files.key) throw new Error('--tls-cert and --tls-key go together')
  if (files.ca && !files.cert) throw new Error('--tls-ca needs --tls-cert and --tls-key')
  const ssl: BrokerTlsOptions | undefined = files.cert
    ? {
        cert: await readFile(files.cert, 'utf8'),
        key: await readFile(files.key!, 'utf8'),
        ...(files.ca ? { ca: await readFile(files.ca, 'utf8'), requestCert: true } : {}),
      }
    : undefined
  const sasl: BrokerSaslOptions | undefined = files.users ? { users: await readUsersFile(files.users), mechanisms } : undefined
  let config: Record<string, string> | undefined
  let named: FromKafkaNames = { options: {} }
  if (files.config) {
    const entries = parsePropertyLines(await readFile(files.config, 'utf8'))
    config = Object.fromEntries(entries.map((e) => [e.key, e.value]))
    const lines = new Map(entries.map((e) => [e.key, e.line]))
    const file = files.config
    // Read here first so that what it refuses names the file's lines; startCluster reads the same names again.
    named = optionsFromKafkaNames(config, (key) => (lines.has(key) ? `${file} line ${lines.get(key)}: ${key}` : `${file}: ${key}`))
  }
  if (mechanisms && !files.users && !named.users) throw new Error('--sasl-mechanisms needs --sasl-users')
  // Kafka's port when neither a flag nor the file's listeners names one.
  if (options.port === undefined && config?.listeners === undefined) options.port = 9092
  // Listening for the signal before starting: one that comes while the cluster starts (a data dir's
  // recovery can take a while) stops it cleanly once started, instead of killing the process mid-start.
  const stopping = stopSignal()
  const dataDir = options.dataDir ?? config?.['log.dirs'] ?? config?.['log.dir']
  log(`wafka broker: starting ${options.brokers ?? 1} broker(s)${dataDir ? ` from ${dataDir}` : ''}`)
  // The broker's log, INFO and up, a line each: `wafka broker: WARN broker 0: ...`.
  const logCreator: LogCreator =
    () =>
    ({ label, log: entry }) =>
      log(`wafka broker: ${label} ${typeof entry.broker === 'number' ? `broker ${entry.broker}: ` : ''}${entry.message}`)
  // The network thread is on unless refused: a broker serving clients from a shell answers new connections while busy.
  const cluster = await startCluster({ logLevel: logLevel.INFO, logCreator, networkThread: true, ...options, ssl, sasl, config })
  if (dataDir) log(`wafka broker: data kept in ${dataDir}`)
  // What is served: the flags', else the file's.
  const tls = ssl ?? named.options.ssl
  const servedSasl = (sasl || named.users) && (mechanisms ?? named.mechanisms ?? ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'])
  const protocol = `${servedSasl ? 'SASL_' : ''}${tls ? 'SSL' : 'PLAINTEXT'}`
  const clientAuth = tls?.clientAuth ?? (tls?.requestCert ? 'required' : 'none')
  const extras = [clientAuth !== 'none' ? `client certificates ${clientAuth}` : '', servedSasl ? `SASL ${servedSasl.join(', ')}` : '']
  log(
    `wafka broker: ${cluster.brokers.length} broker(s) serving ${protocol}${extras
      .filter(Boolean)
      .map((e) => `; ${e}`)
      .join('')}; bootstrap servers ${cluster.bootstrapServers}`,
  )
  log(`wafka broker: ${await stopping}, stopping`)
  await cluster.stop()
  return 0
}

/** `text` in lines of at most `width`, each after `indent`, broken after commas. */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = []
  let line = indent
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > width && line.trim()) {
      lines.push(line.trimEnd())
      line = indent
    }
    line += `${word} `
  }
  lines.push(line.trimEnd())
  return lines.join('\n')
}
