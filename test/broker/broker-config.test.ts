// The embedded broker configured as Kafka is: Kafka's broker names given to
// startCluster({ config }) or in a server.properties file to
// `wafka broker --config`, read as the options they name, refused by name
// (with the nearest supported one and why) when the embedded broker cannot
// honour them; DescribeConfigs then reports them as STATIC_BROKER_CONFIG.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { brokerCommand } from '../../src/broker/command.js'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { ConfigError } from '../../src/errors.js'
import { Kafka } from '../../src/index.js'
import { makeCerts, type TestCerts } from '../security/certs.js'
import { ApiVersions } from '../../src/protocol/messages/ApiVersions.js'
import { RawClient } from './raw-client.js'
import { brokerConfigs, serveBroker } from './support.js'

const DEFAULT = 5
const STATIC = 4

let dir: string
let certs: TestCerts
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wafka-config-'))
  certs = makeCerts()
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  certs.remove()
})
const running: RunningCluster[] = []
const clients: RawClient[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.close()
  for (const c of running.splice(0)) await c.stop()
})

const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

describe('startCluster({ config }): Kafka broker names', () => {
  it('reads each name as its option; DescribeConfigs reports them as STATIC_BROKER_CONFIG; an option given by its own name wins', async () => {
    const cluster = await startCluster({
      brokers: 3,
      defaultPartitions: 5,
      config: {
        'num.partitions': '4',
        'default.replication.factor': 2,
        'auto.create.topics.enable': 'FALSE',
        'log.retention.hours': '2',
        'log.cleanup.policy': 'compact, delete',
        'offsets.topic.replication.factor': '1',
        'transaction.state.log.replication.factor': '1',
        'transaction.state.log.min.isr': '1',
        'group.initial.rebalance.delay.ms': '100',
        'group.min.session.timeout.ms': '1000',
        listeners: 'PLAINTEXT://127.0.0.1:0',
        'advertised.listeners': 'PLAINTEXT://localhost:0',
      },
    })
    running.push(cluster)
    const client = await RawClient.open(cluster.bootstrapServers.split(',')[0])
    clients.push(client)
    const c = await brokerConfigs(client, '2')
    expect(c['num.partitions']).toEqual(['5', STATIC])
    expect(c['default.replication.factor']).toEqual(['2', STATIC])
    expect(c['auto.create.topics.enable']).toEqual(['false', STATIC])
    expect(c['log.retention.ms']).toEqual(['7200000', STATIC])
    expect(c['log.cleanup.policy']).toEqual(['compact,delete', STATIC])
    expect(c['offsets.topic.replication.factor']).toEqual(['1', STATIC])
    expect(c['transaction.state.log.min.isr']).toEqual(['1', STATIC])
    expect(c['group.initial.rebalance.delay.ms']).toEqual(['100', STATIC])
    expect(c['group.min.session.timeout.ms']).toEqual(['1000', STATIC])
    expect(c['group.max.session.timeout.ms']).toEqual(['1800000', DEFAULT])
    expect(c['log.segment.bytes']).toEqual(['1073741824', DEFAULT])
    expect(c['listeners'][0]).toMatch(/^PLAINTEXT:\/\/127\.0\.0\.1:\d+$/)
    expect(c['advertised.listeners']).toEqual([`PLAINTEXT://localhost:${cluster.brokers[2].port}`, STATIC])
    expect(cluster.brokers.map((b) => b.host)).toEqual(['localhost', 'localhost', 'localhost'])
  })

  it('refuses every name it cannot honour at once, each with the nearest supported name and why', async () => {
    const error = await startCluster({
      config: {
        'num.partitons': '3',
        'num.io.threads': '8',
        'node.id': '1',
        'log.flush.start.offset.checkpoint.interval.ms': '1',
        'log.segment.bytes': '100',
        'unclean.leader.election.enable': 'yes',
        'delegation.token.max.lifetime.ms': '0',
      },
    }).catch((e) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message.split('\n')).toEqual([
      'broker config refused:',
      '  num.partitons: not supported by the embedded broker (did you mean num.partitions?)',
      '  num.io.threads: not supported by the embedded broker: one event loop serves every virtual broker: no thread pool to size',
      '  node.id: not supported by the embedded broker: the embedded broker is its own controller, with N virtual brokers (ids 0..N-1, --brokers) on one listener',
      '  log.flush.start.offset.checkpoint.interval.ms: not supported by the embedded broker',
      '  log.segment.bytes: Invalid value 100 for configuration log.segment.bytes: Value must be at least 1048576',
      '  unclean.leader.election.enable: Invalid value yes for configuration unclean.leader.election.enable: Expected value to be either true or false',
      '  delegation.token.max.lifetime.ms: Invalid value 0 for configuration delegation.token.max.lifetime.ms: Value must be at least 1',
    ])
  })

  it('refuses what the listener cannot be: two listeners, a named one, a protocol the rest of the config does not serve', async () => {
    const msg = (config: Record<string, string>) => startCluster({ config }).catch((e: Error) => e.message)
    expect(await msg({ listeners: 'PLAINTEXT://:9092,SSL://:9093' })).toMatch(/listeners: 2 listeners: the embedded broker has one/)
    expect(await msg({ listeners: 'INTERNAL://:9092' })).toMatch(/INTERNAL is not a security protocol/)
    expect(await msg({ listeners: 'SSL://:0' })).toMatch(/listeners names SSL, but the broker is configured for PLAINTEXT/)
    expect(await msg({ listeners: 'PLAINTEXT://:0', 'advertised.listeners': 'PLAINTEXT://h:9000' })).toMatch(
      /advertised port 9000 is not the listener's \(0\)/,
    )
    expect(await msg({ 'sasl.enabled.mechanisms': 'SCRAM-SHA-512' })).toMatch(/sasl\.enabled\.mechanisms needs users/)
    expect(await msg({ 'sasl.enabled.mechanisms': 'GSSAPI' })).toMatch(/GSSAPI is not supported by the embedded broker/)
    expect(await msg({ 'ssl.keystore.type': 'JKS' })).toMatch(/JKS is not supported by the embedded broker: PEM files only/)
    expect(await msg({ 'log.dirs': '/a,/b' })).toMatch(/2 directories: the embedded broker keeps its data in one/)
    expect(await msg({ 'ssl.client.auth': 'maybe' })).toMatch(/ssl\.client\.auth: must be one of required, requested, none/)
    expect(await msg({ 'ssl.keystore.location': certs.brokerKeystore, 'ssl.client.auth': 'requested' })).toMatch(
      /ssl\.client\.auth: requested needs ssl\.truststore\.location/,
    )
    expect(await msg({ 'ssl.principal.mapping.rules': 'RULE:^CN=(.*)$/$1/LU' })).toMatch(
      /Invalid value RULE:\^CN=\(\.\*\)\$\/\$1\/LU for configuration ssl\.principal\.mapping\.rules: Invalid rule: `RULE:\^CN=\(\.\*\)\$\/\$1\/LU`, unmatched substring: `U`/,
    )
  })
})

describe('wafka broker --config server.properties', () => {
  it('serves what the file says (TLS from PEM files, client auth, Kafka names); flags override it; DescribeConfigs reports the file', async () => {
    const data = join(dir, 'data')
    const props = file(
      'server.properties',
      [
        '# a Kafka broker config',
        'listeners=SSL://127.0.0.1:0',
        `log.dirs=${data}`,
        'num.partitions = 3',
        'default.replication.factor: 2',
        'min.insync.replicas=2',
        'log.segment.bytes=2097152',
        '! retention',
        'log.retention.minutes=90',
        'group.initial.rebalance.delay.ms=0',
        `ssl.keystore.type=PEM`,
        `ssl.keystore.location=${certs.brokerKeystore}`,
        `ssl.truststore.type=PEM`,
        `ssl.truststore.location=${certs.truststore}`,
        'ssl.client.auth=required',
        'unclean.leader.election.enable=\\',
        '    true',
      ].join('\n'),
    )
    const broker = await serveBroker(['--config', props, '--brokers', '2', '--partitions', '6'])
    const { lines } = broker
    try {
      expect(lines[0]).toBe(`wafka broker: starting 2 broker(s) from ${data}`)
      const served = lines.find((l) => /bootstrap servers/.test(l))!
      expect(served).toMatch(
        /2 broker\(s\) serving SSL; client certificates required; bootstrap servers 127\.0\.0\.1:\d+,127\.0\.0\.1:\d+$/,
      )
      const bootstrap = /bootstrap servers (\S+)/.exec(served)![1].split(',')
      const kafka = new Kafka({
        clientId: 'config',
        brokers: bootstrap,
        ssl: { ca: [certs.ca], cert: certs.clientCert, key: certs.clientKey },
        logLevel: 0,
      })
      const admin = kafka.admin()
      await admin.connect()
      try {
        const res = await admin.describeConfigs({ resources: [{ type: 4, name: '1' }], includeSynonyms: false })
        const c = Object.fromEntries(
          res.resources[0].configEntries.map((e: { configName: string; configValue: string; configSource: number }) => [
            e.configName,
            [e.configValue, e.configSource],
          ]),
        )
        expect(c['num.partitions']).toEqual(['6', STATIC])
        expect(c['default.replication.factor']).toEqual(['2', STATIC])
        expect(c['min.insync.replicas']).toEqual(['2', STATIC])
        expect(c['log.segment.bytes']).toEqual(['2097152', STATIC])
        expect(c['log.retention.ms']).toEqual(['5400000', STATIC])
        expect(c['unclean.leader.election.enable']).toEqual(['true', STATIC])
        expect(c['log.dirs']).toEqual([data, STATIC])
        expect(c['listeners'][0]).toMatch(/^SSL:\/\/127\.0\.0\.1:\d+$/)
        // A topic made with the broker's defaults: 6 partitions, 2 replicas, its configs the file's.
        await admin.createTopics({ topics: [{ topic: 'from-file' }] })
        const md = await admin.fetchTopicMetadata({ topics: ['from-file'] })
        expect(md.topics[0].partitions.map((p: { replicas: number[] }) => p.replicas.length)).toEqual([2, 2, 2, 2, 2, 2])
        const t = await admin.describeConfigs({ resources: [{ type: 2, name: 'from-file', configNames: ['segment.bytes'] }] })
        expect(
          t.resources[0].configEntries.map((e: { configValue: string; configSource: number }) => [e.configValue, e.configSource]),
        ).toEqual([['2097152', STATIC]])
      } finally {
        await admin.disconnect()
      }
    } finally {
      expect(await broker.stop()).toBe(0)
    }
  })

  it("SASL from the file: sasl.enabled.mechanisms and the PLAIN login module's user_NAME entries (users of every enabled mechanism)", async () => {
    const props = file(
      'sasl.properties',
      [
        'listeners=SASL_PLAINTEXT://127.0.0.1:0',
        'sasl.enabled.mechanisms=SCRAM-SHA-256,PLAIN',
        'listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\',
        '    username="admin" password="admin-secret" \\',
        '    user_admin="admin-secret" user_alice="alice-secret";',
      ].join('\n'),
    )
    const broker = await serveBroker(['--config', props])
    const { lines } = broker
    try {
      const served = lines.find((l) => /bootstrap servers/.test(l))!
      expect(served).toMatch(/serving SASL_PLAINTEXT; SASL SCRAM-SHA-256, PLAIN; bootstrap servers/)
      const brokers = /bootstrap servers (\S+)/.exec(served)![1].split(',')
      const admin = new Kafka({
        clientId: 'jaas',
        brokers,
        sasl: { mechanism: 'scram-sha-256', username: 'alice', password: 'alice-secret' },
        logLevel: 0,
      }).admin()
      await admin.connect()
      await admin.listTopics()
      await admin.disconnect()
      const wrong = await new Kafka({
        clientId: 'jaas',
        brokers,
        sasl: { mechanism: 'plain', username: 'alice', password: 'nope' },
        logLevel: 0,
      })
        .admin()
        .connect()
        .catch((e) => e)
      expect(wrong).toBeInstanceOf(Error)
    } finally {
      expect(await broker.stop()).toBe(0)
    }
    // A SCRAM login module, which Kafka's broker uses for its own inter-broker user, is refused without echoing its password.
    const scram = file(
      'scram.properties',
      'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="a" password="hidden";',
    )
    const error = await brokerCommand(['--config', scram, '--port', '0'], () => {}).catch((e) => e)
    expect(error.message).toMatch(/SCRAM-SHA-256 users are not read from a login module by the embedded broker/)
    expect(error.message).not.toContain('hidden')
  })

  it('a file with names it cannot honour is refused before anything starts, each named with its line', async () => {
    const props = file(
      'bad.properties',
      ['process.roles=broker,controller', 'num.partitions=1', 'log.retention.hour=1', 'auto.create.topic.enable=false'].join('\n'),
    )
    const error = await brokerCommand(['--config', props, '--port', '0'], () => {}).catch((e) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect(error.message.split('\n')).toEqual([
      'broker config refused:',
      `  ${props} line 1: process.roles: not supported by the embedded broker: the embedded broker is its own controller, with N virtual brokers (ids 0..N-1, --brokers) on one listener`,
      `  ${props} line 3: log.retention.hour: not supported by the embedded broker (did you mean log.retention.hours?)`,
      `  ${props} line 4: auto.create.topic.enable: not supported by the embedded broker (did you mean auto.create.topics.enable?)`,
    ])
  })

  it('--feature transaction.version=N finalizes the feature ApiVersions advertises (as kafka-storage format --feature); another is refused', async () => {
    const broker = await serveBroker(['--port', '0', '--feature', 'transaction.version=1'])
    try {
      const c = await RawClient.open(broker.bootstrap[0])
      clients.push(c)
      const r = await c.request(ApiVersions, 4, { clientSoftwareName: 'features', clientSoftwareVersion: '1' })
      expect(r.finalizedFeatures).toEqual([
        expect.objectContaining({ name: 'transaction.version', minVersionLevel: 1, maxVersionLevel: 1 }),
      ])
    } finally {
      await broker.stop()
    }
    const error = await brokerCommand(['--feature', 'metadata.version=20'], () => {}).catch((e) => e)
    expect(error.message).toMatch(/--feature takes transaction\.version=0, 1 or 2/)
  })

  it('--help lists --config and the Kafka names it reads', async () => {
    const lines: string[] = []
    expect(await brokerCommand(['--help'], (l) => lines.push(l))).toBe(0)
    expect(lines[0]).toMatch(/--config server\.properties/)
    expect(lines[0]).toMatch(/default\.replication\.factor/)
    expect(lines[0]).toMatch(/ssl\.keystore\.location/)
  })
})
