import { readFile } from 'node:fs/promises'
import { startCluster, type BrokerSaslOptions, type BrokerTlsOptions, type SaslMechanismName } from './index.js'
import { readUsersFile } from './users-file.js'

const USAGE = `usage: wafka broker [--port PORT] [--brokers N] [--partitions N] [--no-auto-create-topics] [--data-dir DIR]
                    [--tls-cert FILE --tls-key FILE [--tls-ca FILE]]
                    [--sasl-users FILE [--sasl-mechanisms LIST] [--reauth-ms MS]]

Serves an embedded Kafka-compatible cluster on 127.0.0.1 until SIGINT or SIGTERM:
N brokers (default 1) on PORT, PORT+1, ... (default 9092; 0 for ephemeral ports).
Data lives in memory and is gone when it stops, unless --data-dir names a
directory: then topics, records and committed offsets are kept there, in
Kafka's segment layout, and recovered at the next start.

TLS: --tls-cert and --tls-key (PEM) serve every broker over TLS; with --tls-ca,
clients must present a certificate signed by that CA (mutual TLS).
SASL: --sasl-users FILE holds one user:password per line (# comments); clients
authenticate with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (--sasl-mechanisms to
narrow, comma-separated); --reauth-ms sets connections.max.reauth.ms.`

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
  const options: {
    port: number
    brokers: number
    defaultPartitions: number
    autoCreateTopics: boolean
    connectionsMaxReauthMs: number
    dataDir?: string
  } = { port: 9092, brokers: 1, defaultPartitions: 1, autoCreateTopics: true, connectionsMaxReauthMs: 0 }
  const files: { cert?: string; key?: string; ca?: string; users?: string } = {}
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
    else if (a === '--tls-cert') files.cert = path()
    else if (a === '--tls-key') files.key = path()
    else if (a === '--tls-ca') files.ca = path()
    else if (a === '--sasl-users') files.users = path()
    else if (a === '--sasl-mechanisms') mechanisms = path().split(',') as SaslMechanismName[]
    else if (a === '--reauth-ms') options.connectionsMaxReauthMs = value()
    else if (a === '--data-dir') {
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
  if (mechanisms && !files.users) throw new Error('--sasl-mechanisms needs --sasl-users')
  const ssl: BrokerTlsOptions | undefined = files.cert
    ? {
        cert: await readFile(files.cert, 'utf8'),
        key: await readFile(files.key!, 'utf8'),
        ...(files.ca ? { ca: await readFile(files.ca, 'utf8'), requestCert: true } : {}),
      }
    : undefined
  const sasl: BrokerSaslOptions | undefined = files.users ? { users: await readUsersFile(files.users), mechanisms } : undefined
  // Listening for the signal before starting: one that comes while the cluster starts (a data dir's
  // recovery can take a while) stops it cleanly once started, instead of killing the process mid-start.
  const stopping = stopSignal()
  log(`wafka broker: starting ${options.brokers} broker(s)${options.dataDir ? ` from ${options.dataDir}` : ''}`)
  const cluster = await startCluster({ ...options, ssl, sasl, onProblem: (m) => log(`wafka broker: ${m}`) })
  if (options.dataDir) log(`wafka broker: data kept in ${options.dataDir}`)
  const protocol = `${sasl ? 'SASL_' : ''}${ssl ? 'SSL' : 'PLAINTEXT'}`
  const extras = [
    ssl?.requestCert ? 'client certificates required' : '',
    sasl ? `SASL ${(mechanisms ?? ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512']).join(', ')}` : '',
  ]
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
