// The admin calls that came with Kafka 4.4's last APIs, as Java's Admin has
// them, with the same assertions on real Kafka and on the embedded broker:
// listConfigResources (ListConfigResources), describeFeatures (ApiVersions'
// features) and updateFeatures (UpdateFeatures: a refusal thrown with the
// controller's message, validateOnly changing nothing).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigResourceTypes, Kafka } from '../../src/index.js'
import type { Admin } from '../../src/admin/admin.js'
import { ConfigError, KafkaError } from '../../src/errors.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { until } from '../broker/support.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'

for (const target of brokerTargets())
  describe.skipIf(!target.available)(`admin listConfigResources, describeFeatures, updateFeatures on ${target.name}`, () => {
    let cluster: RunningTarget
    let admin: Admin

    beforeAll(async () => {
      cluster = await target.start()
      admin = new Kafka({ brokers: cluster.bootstrap.split(',') }).admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: 'af', numPartitions: 1, replicationFactor: 1 }] })
      await admin.alterConfigs({
        resources: [
          { type: ConfigResourceTypes.GROUP, name: 'af-group', configEntries: [{ name: 'consumer.session.timeout.ms', value: '50000' }] },
        ],
      })
    }, 120_000)
    afterAll(async () => {
      await admin?.disconnect()
      await cluster?.stop()
    })

    it('listConfigResources: every broker, topic and group with configs; or the types asked for', async () => {
      const { brokers } = await admin.describeCluster()
      const topics = (await admin.fetchTopicMetadata()).topics.map((t) => t.name)
      const key = (r: { type: number; name: string }) => `${r.type}:${r.name}`
      let all: Array<{ type: number; name: string }> = []
      await until(
        async () => ((all = await admin.listConfigResources()), all.some((r) => r.type === ConfigResourceTypes.GROUP)),
        10_000,
        () => JSON.stringify(all),
      )
      // Every topic the metadata knows, and Kafka's internal ones beside (__consumer_offsets has configs too).
      const listedTopics = all.filter((r) => r.type === ConfigResourceTypes.TOPIC).map((r) => r.name)
      expect(listedTopics).toEqual(expect.arrayContaining([...topics, 'af']))
      expect(
        all
          .filter((r) => r.type !== ConfigResourceTypes.TOPIC)
          .map(key)
          .sort(),
      ).toEqual(
        [
          `${ConfigResourceTypes.GROUP}:af-group`,
          ...brokers.flatMap((b) => [`${ConfigResourceTypes.BROKER}:${b.nodeId}`, `${ConfigResourceTypes.BROKER_LOGGER}:${b.nodeId}`]),
        ].sort(),
      )
      expect((await admin.listConfigResources({ types: [ConfigResourceTypes.GROUP] })).map(key)).toEqual([
        `${ConfigResourceTypes.GROUP}:af-group`,
      ])
      const refused = await admin.listConfigResources({ types: [ConfigResourceTypes.UNKNOWN] }).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(KafkaError)
      expect((refused as KafkaError).code).toBe(ErrorCodes.UNSUPPORTED_VERSION)
    })

    it('describeFeatures: transaction.version supported 0-2 and finalized at 2, with an epoch', async () => {
      const f = await admin.describeFeatures()
      expect(f.supported['transaction.version']).toEqual({ minVersion: 0, maxVersion: 2 })
      expect(f.finalized['transaction.version']).toEqual({ minVersionLevel: 2, maxVersionLevel: 2 })
      expect(typeof f.epoch).toBe('bigint')
    })

    it("updateFeatures: a downgrade without its upgrade type is thrown with the controller's message; validateOnly changes nothing; a safe downgrade and an upgrade take", async () => {
      const level = async () => (await admin.describeFeatures()).finalized['transaction.version']?.maxVersionLevel ?? 0
      const refused = await admin.updateFeatures({ features: { 'transaction.version': { maxVersionLevel: 1 } } }).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(KafkaError)
      expect((refused as KafkaError).code).toBe(ErrorCodes.INVALID_UPDATE_VERSION)
      expect((refused as KafkaError).retriable).toBe(false)
      expect((refused as Error).message).toContain(
        "Invalid update version 1 for feature transaction.version. Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.",
      )
      await admin.updateFeatures({
        features: { 'transaction.version': { maxVersionLevel: 1, upgradeType: 'SAFE_DOWNGRADE' } },
        validateOnly: true,
      })
      expect(await level()).toBe(2)
      await admin.updateFeatures({ features: { 'transaction.version': { maxVersionLevel: 1, upgradeType: 'SAFE_DOWNGRADE' } } })
      expect(await level()).toBe(1)
      await admin.updateFeatures({ features: { 'transaction.version': { maxVersionLevel: 2 } } })
      expect(await level()).toBe(2)
    })

    it('updateFeatures and listConfigResources refuse bad options before sending', async () => {
      await expect(admin.updateFeatures({ features: {} })).rejects.toBeInstanceOf(ConfigError)
      await expect(
        admin.updateFeatures({ features: { 'transaction.version': { maxVersionLevel: 1, upgradeType: 'DOWN' as never } } }),
      ).rejects.toBeInstanceOf(ConfigError)
      await expect(admin.listConfigResources({ types: ['topic' as never] })).rejects.toBeInstanceOf(ConfigError)
    })
  })
