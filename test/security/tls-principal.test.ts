// The principal of a TLS connection (issue 23), shown the same on real Kafka
// 4.4 and the embedded broker through what both expose of it: user quotas.
// One SSL listener with ssl.client.auth=requested and
// ssl.principal.mapping.rules; producer_byte_rate quotas on the principal
// names the rules give (TEAM-CLIENT@BILLING) and on User:ANONYMOUS; a
// Produce over each quota is answered with throttle_time_ms, so which quota
// applies says which principal the broker saw: the mapped name for the team
// certificate, the whole subject (DEFAULT) for another, ANONYMOUS for a
// client without a certificate.
import { Buffer } from 'node:buffer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeRecordBatch } from '../../src/codec/index.js'
import { startCluster } from '../../src/broker/index.js'
import { Kafka } from '../../src/index.js'
import { AlterClientQuotas, DescribeClientQuotas, Produce } from '../../src/protocol/messages/index.js'
import { startKafka } from '../peers/kafka.js'
import { RawClient } from '../broker/raw-client.js'
import { until } from '../broker/support.js'
import { makeCerts, type TestCerts } from './certs.js'
import { requireSecuredEmbedded } from './secured-embedded.js'
import { requireSecuredKafka } from './secured-kafka.js'

const RULES = 'RULE:^CN=([^,]+),OU=([^,]+),O=.*$/$1@$2/U,DEFAULT'
const TEAM = 'TEAM-CLIENT@BILLING'
/** The other client certificate's principal: no rule but DEFAULT matches its subject. */
const CLIENT = 'CN=wafka-client'

/** The SSL listener's Kafka config: PEM keystore and truststore, client certificates requested. */
const listenerConfig = (certs: TestCerts) => ({
  'ssl.keystore.type': 'PEM',
  'ssl.keystore.location': certs.brokerKeystore,
  'ssl.truststore.type': 'PEM',
  'ssl.truststore.location': certs.truststore,
  'ssl.client.auth': 'requested',
})

interface Target {
  bootstrap: string
  stop(): Promise<void>
}

const targets: Array<[string, () => boolean, (certs: TestCerts) => Promise<Target>]> = [
  [
    'real Kafka',
    () => requireSecuredKafka(),
    async (certs) => {
      const cluster = await startKafka({
        listeners: [
          {
            name: 'MTLS',
            protocol: 'SSL',
            config: listenerConfig(certs),
          },
        ],
        config: { 'ssl.principal.mapping.rules': RULES },
      })
      return { bootstrap: cluster.bootstrapFor('MTLS'), stop: () => cluster.stop() }
    },
  ],
  [
    'the embedded broker',
    () => requireSecuredEmbedded(),
    async (certs) => {
      // The same Kafka names as the real broker's.
      const cluster = await startCluster({ brokers: 1, config: { ...listenerConfig(certs), 'ssl.principal.mapping.rules': RULES } })
      return { bootstrap: cluster.bootstrapServers, stop: () => cluster.stop() }
    },
  ],
]

for (const [name, available, start] of targets)
  describe.skipIf(!available())(`TLS client-certificate principals on ${name}`, () => {
    let certs: TestCerts
    let target: Target
    beforeAll(async () => {
      certs = makeCerts()
      target = await start(certs)
      const admin = new Kafka({ brokers: [target.bootstrap], ssl: { ca: [certs.ca] } }).admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: 't', numPartitions: 1, replicationFactor: 1 }] })
      await admin.disconnect()
    })
    afterAll(async () => {
      await target?.stop()
      certs?.remove()
    })

    const open = (who: 'team' | 'client' | 'none') =>
      RawClient.openTls(target.bootstrap, {
        ca: certs.ca,
        ...(who === 'team'
          ? { cert: certs.teamCert, key: certs.teamKey }
          : who === 'client'
            ? { cert: certs.clientCert, key: certs.clientKey }
            : {}),
      })
    /** The throttle a 30 KB Produce from `who` gets (a connection of its own: a throttled one stays muted). */
    const produced = async (who: 'team' | 'client' | 'none') => {
      const c = await open(who)
      try {
        const records = encodeRecordBatch([{ key: 'k', value: Buffer.alloc(30_000, 1) }], {})
        const res = await c.request(Produce, 9, {
          acks: 1,
          timeoutMs: 5000,
          topicData: [{ name: 't', partitionData: [{ index: 0, records }] }],
        })
        expect(res.responses[0].partitionResponses[0].errorCode).toBe(0)
        return res.throttleTimeMs
      } finally {
        c.close()
      }
    }
    const setQuota = async (user: string) => {
      const c = await open('none')
      try {
        const res = await c.request(AlterClientQuotas, 1, {
          entries: [
            { entity: [{ entityType: 'user', entityName: user }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] },
          ],
          validateOnly: false,
        })
        expect(res.entries.map((e) => e.errorCode)).toEqual([0])
      } finally {
        c.close()
      }
    }

    it('a quota on the mapped name throttles the certificate it was mapped from; ANONYMOUS is a client without one', async () => {
      await setQuota(TEAM)
      await setQuota('ANONYMOUS')
      const c = await open('team')
      const described = await c.request(DescribeClientQuotas, 1, {
        components: [{ entityType: 'user', matchType: 0, match: TEAM }],
        strict: false,
      })
      c.close()
      expect(described.entries?.map((e) => e.values.map((v) => [v.key, v.value]))).toEqual([[['producer_byte_rate', 1024]]])
      // Kafka applies quotas as its broker reads the metadata log: until both are in force.
      await until(
        async () => (await produced('team')) > 0 && (await produced('none')) > 0,
        20_000,
        () => 'TEAM-CLIENT@BILLING and ANONYMOUS throttled',
      )
      // The other certificate is neither TEAM-CLIENT@BILLING nor ANONYMOUS: no quota.
      expect(await produced('client')).toBe(0)
      await setQuota(CLIENT)
      await until(
        async () => (await produced('client')) > 0,
        20_000,
        () => 'CN=wafka-client throttled',
      )
    })
  })
