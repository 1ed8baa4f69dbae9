// The embedded broker (src/broker) as a second target for the security
// suites: the listeners of secured-kafka.ts, each a one-broker embedded
// cluster (so "one broker" holds as on the real broker), with the same users
// and certificates. Authorization is off unless `config` turns it on with
// Kafka's names (authorizer.class.name, super.users), as authorization.test.ts does.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startCluster, type RunningCluster, type StartClusterOptions } from '../../src/broker/index.js'
import { makeCerts } from './certs.js'
import { USERS, type ListenerName, type SecuredTarget } from './secured-kafka.js'

/** For `describe.skipIf(!requireSecuredEmbedded())`: openssl makes the certificates; under CI its absence fails the file. */
export function requireSecuredEmbedded(): boolean {
  if (spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0) return true
  const message = 'openssl is not installed (apt-get install -y openssl): the TLS tests make their certificates with it'
  if (process.env.CI) throw new Error(message)
  console.warn(`${message}; skipping the embedded-broker security tests (they fail under CI)`)
  return false
}

export async function startSecuredEmbedded(
  options: { connectionsMaxReauthMs?: number; config?: Record<string, string> } = {},
): Promise<SecuredTarget> {
  const certs = makeCerts()
  const read = (f: string) => readFileSync(join(certs.dir, f), 'utf8')
  const tls = (name: string) => ({ cert: read(`${name}.pem`) + read('ca.pem'), key: read(`${name}.key`) })
  const users = { ...USERS }
  const listeners: Record<ListenerName, StartClusterOptions> = {
    // OAUTHBEARER with Kafka's default (unsecured) validator, as secured-kafka.ts configures Kafka.
    SASL: { sasl: { users, mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'] } },
    SSL: { ssl: tls('broker') },
    MTLS: { ssl: { ...tls('broker'), ca: certs.ca } },
    SASL_SSL: { ssl: tls('broker'), sasl: { users, mechanisms: ['PLAIN', 'SCRAM-SHA-512', 'OAUTHBEARER'] } },
    EXPIRED: { ssl: tls('expired') },
    RIG: {},
  }
  const clusters = new Map<ListenerName, RunningCluster>()
  const stop = async () => {
    await Promise.all([...clusters.values()].map((c) => c.stop()))
    certs.remove()
  }
  try {
    for (const [name, config] of Object.entries(listeners) as [ListenerName, StartClusterOptions][])
      clusters.set(
        name,
        await startCluster({ brokers: 1, connectionsMaxReauthMs: options.connectionsMaxReauthMs, config: options.config, ...config }),
      )
  } catch (err) {
    await stop()
    throw err
  }
  return { certs, listener: (name) => clusters.get(name)!.bootstrapServers.split(','), stop, embedded: true }
}
