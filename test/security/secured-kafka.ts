// One real Kafka broker with every kind of secured listener the security
// tests need, StandardAuthorizer on, SCRAM users made at format time:
//   SASL      SASL_PLAINTEXT  PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER (unsecured JWTs)
//   SSL       SSL             server certificate only
//   MTLS      SSL             ssl.client.auth=required
//   SASL_SSL  SASL_SSL        PLAIN, SCRAM-SHA-512, OAUTHBEARER
//   EXPIRED   SSL             an expired server certificate
// plus the rig's PLAINTEXT listener (principal ANONYMOUS, a super user).
import { Buffer } from 'node:buffer'
import { spawnSync } from 'node:child_process'
import { requireKafka, startKafka, type KafkaCluster, type KafkaVersion } from '../peers/kafka.js'
import { makeCerts, type TestCerts } from './certs.js'

/** Super users: may do anything. bob is not: the authorization tests give him ACLs. */
export const USERS = { alice: 'alice-Pa55word!', bob: 'bob-Pa55word!' } as const
export const CLIENT_PRINCIPAL = 'User:CN=wafka-client'

/** StandardAuthorizer, its super users (the rig's ANONYMOUS, alice, the TLS client) and no access without an ACL. */
export const AUTHORIZER: Readonly<Record<string, string>> = {
  'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  'super.users': ['User:ANONYMOUS', 'User:alice', CLIENT_PRINCIPAL].join(';'),
  'allow.everyone.if.no.acl.found': 'false',
}

export type ListenerName = 'SASL' | 'SSL' | 'MTLS' | 'SASL_SSL' | 'EXPIRED' | 'RIG'

/** What the suites need of a secured target: real Kafka here, or the embedded broker (secured-embedded.ts). */
export interface SecuredTarget {
  certs: TestCerts
  /** 'host:port' of the named listener. */
  listener(name: ListenerName): string[]
  stop(): Promise<void>
  /** The embedded broker (see secured-embedded.ts). */
  embedded?: boolean
}

export interface SecuredKafka extends SecuredTarget {
  cluster: KafkaCluster
}

/**
 * For `describe.skipIf(!requireSecuredKafka())`: real Kafka, and openssl for
 * the certificates. Under CI a missing piece throws (the file fails).
 */
export function requireSecuredKafka(version: KafkaVersion = '4'): boolean {
  if (!requireKafka(version)) return false
  if (spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0) return true
  const message = 'openssl is not installed (apt-get install -y openssl): the TLS tests make their certificates with it'
  if (process.env.CI) throw new Error(message)
  console.warn(`${message}; skipping the security tests (they fail under CI)`)
  return false
}

/** An unsecured JWT (alg none) as Kafka's OAuthBearerUnsecuredValidatorCallbackHandler accepts. */
export function unsecuredJwt(sub: string, lifetimeMs = 3_600_000): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const now = Date.now()
  return `${b64({ alg: 'none' })}.${b64({ sub, iat: Math.floor(now / 1000), exp: Math.floor((now + lifetimeMs) / 1000) })}.`
}

export async function startSecuredKafka(options: { config?: Record<string, string>; version?: KafkaVersion } = {}): Promise<SecuredKafka> {
  const certs = makeCerts()
  const tls = (keystore: string) => ({
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': keystore,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': certs.truststore,
  })
  const plainJaas = `org.apache.kafka.common.security.plain.PlainLoginModule required ${Object.entries(USERS)
    .map(([u, p]) => `user_${u}="${p}"`)
    .join(' ')};`
  const sasl = (mechanisms: string[]) => {
    const config: Record<string, string> = { 'sasl.enabled.mechanisms': mechanisms.join(',') }
    for (const m of mechanisms) {
      const key = `${m.toLowerCase()}.sasl.jaas.config`
      if (m === 'PLAIN') config[key] = plainJaas
      else if (m.startsWith('SCRAM')) config[key] = 'org.apache.kafka.common.security.scram.ScramLoginModule required;'
      else if (m === 'OAUTHBEARER')
        config[key] = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker";'
    }
    return config
  }
  const scramUsers = Object.entries(USERS).flatMap(([u, p]) =>
    ['SCRAM-SHA-256', 'SCRAM-SHA-512'].flatMap((m) => ['--add-scram', `${m}=[name=${u},password=${p}]`]),
  )
  try {
    const cluster = await startKafka({
      version: options.version,
      listeners: [
        { name: 'SASL', protocol: 'SASL_PLAINTEXT', config: sasl(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER']) },
        { name: 'SSL', protocol: 'SSL', config: tls(certs.brokerKeystore) },
        { name: 'MTLS', protocol: 'SSL', config: { ...tls(certs.brokerKeystore), 'ssl.client.auth': 'required' } },
        {
          name: 'SASL_SSL',
          protocol: 'SASL_SSL',
          config: { ...tls(certs.brokerKeystore), ...sasl(['PLAIN', 'SCRAM-SHA-512', 'OAUTHBEARER']) },
        },
        { name: 'EXPIRED', protocol: 'SSL', config: tls(certs.expiredKeystore) },
      ],
      config: { ...AUTHORIZER, ...options.config },
      formatArgs: scramUsers,
    })
    return {
      cluster,
      certs,
      listener: (name) => cluster.bootstrapFor(name).split(','),
      async stop() {
        await cluster.stop()
        certs.remove()
      },
    }
  } catch (err) {
    certs.remove()
    throw err
  }
}
