// The newest versions Kafka 4.4 serves, and the APIs it added last, as raw
// requests with the same assertions on real Kafka and on the embedded
// broker: ListOffsets v11 (the earliest offset pending upload: none without
// tiered storage), OffsetCommit and OffsetFetch v10 (topics by id: an id the
// metadata does not know is UNKNOWN_TOPIC_ID), ApiVersions v5 (the cluster
// and node the client means, both or neither: another is
// REBOOTSTRAP_REQUIRED), ListConfigResources (what configs can be described
// for) and UpdateFeatures (transaction.version changed as Kafka's controller
// does, refusals with its messages), and Kafka's kafka-features.sh and
// kafka-configs.sh against each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka } from '../../src/index.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import {
  ApiVersions,
  DescribeConfigs,
  DescribeGroups,
  FindCoordinator,
  IncrementalAlterConfigs,
  ListConfigResources,
  ListOffsets,
  Metadata,
  OffsetCommit,
  OffsetFetch,
  UpdateFeatures,
} from '../../src/protocol/messages/index.js'
import { RawClient } from '../broker/raw-client.js'
import { until } from '../broker/support.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'

const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAQ'
const TV = 'transaction.version'
const [UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE] = [1, 2, 3]
const ALL_FAILED = 'The update failed for all features since the following feature had an error: '

for (const target of brokerTargets())
  describe.skipIf(!target.available)(`the newest versions and APIs on ${target.name}`, () => {
    let cluster: RunningTarget
    let client: RawClient
    let topicId: string
    let controllerId: number
    const open: RawClient[] = []

    beforeAll(async () => {
      cluster = await target.start()
      const admin = new Kafka({ brokers: cluster.bootstrap.split(',') }).admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: 'nv', numPartitions: 2, replicationFactor: 1 }] })
      await admin.disconnect()
      client = await RawClient.open(cluster.bootstrap.split(',')[0])
      open.push(client)
      const md = await client.request(Metadata, 12, { topics: [{ name: 'nv' }] })
      topicId = md.topics[0].topicId
      controllerId = md.controllerId
    }, 120_000)
    afterAll(async () => {
      for (const c of open.splice(0)) c.close()
      await cluster?.stop()
    })

    /** The leader of nv's partition 0, for ListOffsets. */
    async function leader(): Promise<RawClient> {
      const md = await client.request(Metadata, 12, { topics: [{ name: 'nv' }] })
      const id = md.topics[0].partitions.find((p) => p.partitionIndex === 0)!.leaderId
      const b = md.brokers.find((x) => x.nodeId === id)!
      const c = await RawClient.open(`${b.host}:${b.port}`)
      open.push(c)
      return c
    }

    /** The group's coordinator, once it answers for the group. */
    async function coordinator(groupId: string): Promise<RawClient> {
      let found: { host: string; port: number; errorCode: number } | undefined
      await until(
        async () => (
          (found = (await client.request(FindCoordinator, 4, { keyType: 0, coordinatorKeys: [groupId] })).coordinators[0]),
          found.errorCode === 0
        ),
        30_000,
        () => `coordinator of ${groupId}: ${JSON.stringify(found)}`,
      )
      const c = await RawClient.open(`${found!.host}:${found!.port}`)
      open.push(c)
      let state = -1
      await until(
        async () => (
          (state = (await c.request(DescribeGroups, 5, { groups: [groupId] })).groups[0].errorCode),
          ![14, 15, 16].includes(state)
        ),
        30_000,
        () => `coordinator of ${groupId} loaded: ${state}`,
      )
      return c
    }

    it("ListOffsets: the earliest offset pending upload (-6) is v11's: none (-1) without tiered storage; older versions, and a timestamp older than its version, are UNSUPPORTED_VERSION", async () => {
      const c = await leader()
      const ask = async (version: number, timestamp: bigint) =>
        (
          await c.request(ListOffsets, version, {
            replicaId: -1,
            topics: [{ name: 'nv', partitions: [{ partitionIndex: 0, timestamp, currentLeaderEpoch: -1 }] }],
          })
        ).topics[0].partitions[0]
      // Kafka's new partition has its leader a moment after CreateTopics answers.
      let first = await ask(11, -2n)
      await until(
        async () => ((first = await ask(11, -2n)), first.errorCode === ErrorCodes.NONE),
        10_000,
        () => JSON.stringify(first, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
      )
      expect(await ask(11, -6n)).toMatchObject({ errorCode: ErrorCodes.NONE, offset: -1n, timestamp: -1n, leaderEpoch: -1 })
      expect(await ask(10, -6n)).toMatchObject({ errorCode: ErrorCodes.UNSUPPORTED_VERSION, offset: -1n })
      expect((await ask(6, -3n)).errorCode).toBe(ErrorCodes.UNSUPPORTED_VERSION)
      expect((await ask(7, -4n)).errorCode).toBe(ErrorCodes.UNSUPPORTED_VERSION)
      expect((await ask(11, -7n)).errorCode).toBe(ErrorCodes.UNSUPPORTED_VERSION)
      expect(await ask(11, -2n)).toMatchObject({ errorCode: ErrorCodes.NONE, offset: 0n })
    })

    it('OffsetCommit and OffsetFetch v10 name topics by id: an unknown id is UNKNOWN_TOPIC_ID, an unknown partition UNKNOWN_TOPIC_OR_PARTITION; what v10 commits, v9 reads by name', async () => {
      const g = await coordinator('nv-group')
      const commit = await g.request(OffsetCommit, 10, {
        groupId: 'nv-group',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics: [
          {
            topicId,
            partitions: [
              { partitionIndex: 0, committedOffset: 5n, committedMetadata: 'm' },
              { partitionIndex: 7, committedOffset: 5n },
            ],
          },
          { topicId: UNKNOWN_ID, partitions: [{ partitionIndex: 0, committedOffset: 5n }] },
        ],
      })
      expect(commit.topics.map((t) => [t.topicId, t.partitions.map((p) => [p.partitionIndex, p.errorCode])])).toEqual([
        [
          topicId,
          // Kafka's order: the partitions refused before the coordinator first.
          [
            [7, ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION],
            [0, ErrorCodes.NONE],
          ],
        ],
        [UNKNOWN_ID, [[0, ErrorCodes.UNKNOWN_TOPIC_ID]]],
      ])

      const fetch = await g.request(OffsetFetch, 10, {
        groups: [
          {
            groupId: 'nv-group',
            memberId: null,
            memberEpoch: -1,
            topics: [
              { topicId, partitionIndexes: [0, 1] },
              { topicId: UNKNOWN_ID, partitionIndexes: [0] },
            ],
          },
        ],
      })
      expect(fetch.groups[0].errorCode).toBe(ErrorCodes.NONE)
      expect(
        fetch.groups[0].topics.map((t) => [
          t.topicId,
          t.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.metadata, p.errorCode]),
        ]),
      ).toEqual([
        [
          topicId,
          [
            [0, 5n, 'm', ErrorCodes.NONE],
            [1, -1n, '', ErrorCodes.NONE],
          ],
        ],
        [UNKNOWN_ID, [[0, -1n, '', ErrorCodes.UNKNOWN_TOPIC_ID]]],
      ])

      const all = await g.request(OffsetFetch, 10, { groups: [{ groupId: 'nv-group', memberId: null, memberEpoch: -1, topics: null }] })
      expect(all.groups[0].topics.map((t) => [t.topicId, t.partitions.map((p) => [p.partitionIndex, p.committedOffset])])).toEqual([
        [topicId, [[0, 5n]]],
      ])
      const byName = await g.request(OffsetFetch, 9, {
        groups: [{ groupId: 'nv-group', memberId: null, memberEpoch: -1, topics: [{ name: 'nv', partitionIndexes: [0] }] }],
      })
      expect(byName.groups[0].topics[0].partitions[0]).toMatchObject({ committedOffset: 5n, metadata: 'm', errorCode: ErrorCodes.NONE })
    })

    it('ApiVersions v5: the cluster and node the client means, both or neither; another is REBOOTSTRAP_REQUIRED, one alone INVALID_REQUEST; the connection goes on', async () => {
      const md = await client.request(Metadata, 12, { topics: [] })
      const [host, port] = cluster.bootstrap.split(',')[0].split(':')
      const nodeId = md.brokers.find((b) => b.host === host && b.port === Number(port))?.nodeId ?? md.brokers[0].nodeId
      const cases: Array<[string | null, number, number]> = [
        [null, -1, ErrorCodes.NONE],
        [md.clusterId, nodeId, ErrorCodes.NONE],
        ['another-cluster', nodeId, ErrorCodes.REBOOTSTRAP_REQUIRED],
        [md.clusterId, 99, ErrorCodes.REBOOTSTRAP_REQUIRED],
        [null, nodeId, ErrorCodes.INVALID_REQUEST],
        [md.clusterId, -1, ErrorCodes.INVALID_REQUEST],
      ]
      for (const [clusterId, node, code] of cases) {
        const c = await RawClient.open(cluster.bootstrap.split(',')[0])
        open.push(c)
        const r = await c.request(ApiVersions, 5, { clientSoftwareName: 'nv', clientSoftwareVersion: '1', clusterId, nodeId: node })
        expect(r.errorCode, `${clusterId} ${node}`).toBe(code)
        if (code === ErrorCodes.NONE) expect(r.apiKeys.find((k) => k.apiKey === ApiVersions.apiKey)?.maxVersion).toBe(5)
        else expect(r.apiKeys).toEqual([])
        expect((await c.request(Metadata, 12, { topics: [] })).clusterId).toBe(md.clusterId)
        c.close()
      }
    })

    it("ListConfigResources: v1 lists groups with configs, each broker's loggers and configs, every topic; a type asked for alone, alone; v0 lists client metrics (none); a type it does not list is UNSUPPORTED_VERSION", async () => {
      const set = await client.request(IncrementalAlterConfigs, 1, {
        resources: [
          {
            resourceType: 32,
            resourceName: 'nv-configured',
            configs: [{ name: 'consumer.session.timeout.ms', configOperation: 0, value: '50000' }],
          },
        ],
        validateOnly: false,
      })
      expect(set.responses[0].errorCode, set.responses[0].errorMessage ?? '').toBe(ErrorCodes.NONE)
      const md = await client.request(Metadata, 12, { topics: null })
      const brokers = md.brokers.map((b) => String(b.nodeId)).sort()
      const sorted = (rs: { resourceName: string; resourceType: number }[]) => rs.map((r) => `${r.resourceType}:${r.resourceName}`).sort()
      let listed: { errorCode: number; configResources: { resourceName: string; resourceType: number }[] } | undefined
      // Kafka's broker lists group configs from its metadata image, a moment after the change.
      await until(
        async () => (
          (listed = await client.request(ListConfigResources, 1, { resourceTypes: [] })),
          sorted(listed.configResources).includes('32:nv-configured')
        ),
        10_000,
        () => JSON.stringify(listed),
      )
      expect(listed!.errorCode).toBe(ErrorCodes.NONE)
      expect(sorted(listed!.configResources)).toEqual(
        [
          '32:nv-configured',
          ...brokers.map((b) => `8:${b}`),
          ...brokers.map((b) => `4:${b}`),
          ...md.topics.map((t) => `2:${t.name}`),
        ].sort(),
      )
      const topics = await client.request(ListConfigResources, 1, { resourceTypes: [2] })
      expect(sorted(topics.configResources)).toEqual(md.topics.map((t) => `2:${t.name}`).sort())
      const groupsAndBrokers = await client.request(ListConfigResources, 1, { resourceTypes: [32, 4] })
      expect(sorted(groupsAndBrokers.configResources)).toEqual(['32:nv-configured', ...brokers.map((b) => `4:${b}`)].sort())
      expect(await client.request(ListConfigResources, 0, {})).toMatchObject({ errorCode: ErrorCodes.NONE, configResources: [] })
      for (const types of [[1], [99], [2, 64]])
        expect(await client.request(ListConfigResources, 1, { resourceTypes: types }), String(types)).toMatchObject({
          errorCode: ErrorCodes.UNSUPPORTED_VERSION,
          configResources: [],
        })
    })

    it('kafka-configs.sh --describe --entity-type groups, no name: the groups with configs (ListConfigResources) and those that exist (ListGroups), with their configs', async () => {
      const r = await cluster.runJava(
        'org.apache.kafka.tools.ConfigCommand',
        ['--bootstrap-server', cluster.bootstrap.split(',')[0], '--describe', '--entity-type', 'groups'],
        { timeoutMs: 90_000 },
      )
      expect(r.code, r.stderr.slice(-3000)).toBe(0)
      // Every group ListConfigResources lists and every group ListGroups lists, with its dynamic configs and their synonyms.
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => l.trim())
      expect(lines).toEqual([
        'Dynamic configs for group nv-group are:',
        'Dynamic configs for group nv-configured are:',
        'consumer.session.timeout.ms=50000 sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:consumer.session.timeout.ms=50000, DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}',
      ])
    }, 120_000)

    it('DescribeConfigs of a group with synonyms: its own value (if set), then the broker config it defaults to (group.*), or its own default where no broker config is one', async () => {
      const set = await client.request(IncrementalAlterConfigs, 1, {
        resources: [
          {
            resourceType: 32,
            resourceName: 'nv-synonyms',
            configs: [
              { name: 'consumer.session.timeout.ms', configOperation: 0, value: '50000' },
              { name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' },
            ],
          },
        ],
        validateOnly: false,
      })
      expect(set.responses[0].errorCode, set.responses[0].errorMessage ?? '').toBe(ErrorCodes.NONE)
      const keys = [
        'consumer.session.timeout.ms',
        'consumer.heartbeat.interval.ms',
        'share.auto.offset.reset',
        'errors.deadletterqueue.topic.name',
      ]
      const describe = async () => {
        const r = await client.request(DescribeConfigs, 4, {
          resources: [{ resourceType: 32, resourceName: 'nv-synonyms', configurationKeys: keys }],
          includeSynonyms: true,
          includeDocumentation: false,
        })
        expect(r.results[0].errorCode, r.results[0].errorMessage ?? '').toBe(ErrorCodes.NONE)
        return Object.fromEntries(
          r.results[0].configs.map((c) => [
            c.name,
            [c.value, c.configSource, ...c.synonyms.map((x) => `${x.source}:${x.name}=${x.value}`)],
          ]),
        )
      }
      // Kafka's broker describes group configs from its metadata image, a moment after the change.
      let shown: Record<string, unknown> = {}
      await until(
        async () => ((shown = await describe()), (shown['consumer.session.timeout.ms'] as string[])?.[0] === '50000'),
        10_000,
        () => JSON.stringify(shown),
      )
      const [GROUP, DEFAULT] = [8, 5]
      expect(shown).toEqual({
        'consumer.session.timeout.ms': [
          '50000',
          GROUP,
          `${GROUP}:consumer.session.timeout.ms=50000`,
          `${DEFAULT}:group.consumer.session.timeout.ms=45000`,
        ],
        'consumer.heartbeat.interval.ms': ['5000', DEFAULT, `${DEFAULT}:group.consumer.heartbeat.interval.ms=5000`],
        'share.auto.offset.reset': [
          'earliest',
          GROUP,
          `${GROUP}:share.auto.offset.reset=earliest`,
          `${DEFAULT}:share.auto.offset.reset=latest`,
        ],
        'errors.deadletterqueue.topic.name': ['', DEFAULT, `${DEFAULT}:errors.deadletterqueue.topic.name=`],
      })
    })

    it("UpdateFeatures: transaction.version down and up as Kafka's controller allows, validateOnly changing nothing, every refusal INVALID_UPDATE_VERSION with Kafka's message", async () => {
      const finalized = async () => {
        const r = await client.request(ApiVersions, 4, { clientSoftwareName: 'nv', clientSoftwareVersion: '1' })
        expect(r.supportedFeatures.find((f) => f.name === TV)).toMatchObject({ minVersion: 0, maxVersion: 2 })
        // (Kafka's epoch is its metadata log's offset, which moves with every record, its no-op records included.)
        return { level: r.finalizedFeatures.find((f) => f.name === TV)?.maxVersionLevel ?? 0, epoch: r.finalizedFeaturesEpoch }
      }
      const update = (version: number, maxVersionLevel: number, upgradeType: number, validateOnly = false, feature = TV) =>
        client.request(UpdateFeatures, version, {
          timeoutMs: 10_000,
          featureUpdates: [{ feature, maxVersionLevel, upgradeType }],
          validateOnly,
        })
      const refusedWith = (level: number, why: string, feature = TV) => ({
        errorCode: ErrorCodes.INVALID_UPDATE_VERSION,
        errorMessage: `${ALL_FAILED}Invalid update version ${level} for feature ${feature}. ${why}`,
        results: [],
      })
      const DOWNGRADE_REFUSED =
        "Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade."

      const start = await finalized()
      expect(start.level).toBe(2)
      expect(await client.request(UpdateFeatures, 2, { timeoutMs: 10_000, featureUpdates: [] })).toMatchObject({
        errorCode: 0,
        results: [],
      })
      expect(await update(1, 1, SAFE_DOWNGRADE, true)).toMatchObject({
        errorCode: 0,
        errorMessage: null,
        results: [{ feature: TV, errorCode: 0, errorMessage: 'NONE' }],
      })
      expect((await finalized()).level).toBe(start.level)

      expect(await update(1, 1, UPGRADE)).toMatchObject(refusedWith(1, DOWNGRADE_REFUSED))
      expect(await update(2, 3, UPGRADE)).toMatchObject(refusedWith(3, `Local controller ${controllerId} only supports versions 0-2`))
      expect(await update(2, 2, UPGRADE, false, 'no.such.version')).toMatchObject(
        refusedWith(2, `Local controller ${controllerId} does not support this feature.`, 'no.such.version'),
      )
      expect(await update(2, 1, 0)).toMatchObject(refusedWith(1, 'The controller does not support the given upgrade type.'))
      expect(await update(2, 1, 4)).toMatchObject(refusedWith(1, 'The controller does not support the given upgrade type.'))
      expect(await update(2, -1, UNSAFE_DOWNGRADE)).toMatchObject(refusedWith(-1, 'A feature version cannot be less than 0.'))
      // v0 has no upgrade type: a lower level is refused whatever allowDowngrade says.
      expect(
        await client.request(UpdateFeatures, 0, {
          timeoutMs: 10_000,
          featureUpdates: [{ feature: TV, maxVersionLevel: 1, allowDowngrade: true }],
        }),
      ).toMatchObject(refusedWith(1, DOWNGRADE_REFUSED))
      // One refused refuses the whole request.
      expect(
        await client.request(UpdateFeatures, 1, {
          timeoutMs: 10_000,
          featureUpdates: [
            { feature: TV, maxVersionLevel: 1, upgradeType: SAFE_DOWNGRADE },
            { feature: 'no.such.version', maxVersionLevel: 1, upgradeType: UPGRADE },
          ],
        }),
      ).toMatchObject(refusedWith(1, `Local controller ${controllerId} does not support this feature.`, 'no.such.version'))
      expect((await finalized()).level).toBe(start.level)

      expect(await update(2, 1, SAFE_DOWNGRADE)).toMatchObject({ errorCode: 0, errorMessage: null, results: [] })
      const one = await finalized()
      expect(one.level).toBe(1)
      expect(one.epoch).toBeGreaterThan(start.epoch)
      expect(await update(2, 2, SAFE_DOWNGRADE)).toMatchObject(refusedWith(2, "Can't downgrade to a newer version."))
      expect(await update(2, 0, UNSAFE_DOWNGRADE)).toMatchObject({ errorCode: 0 })
      expect((await finalized()).level).toBe(0)
      expect(await update(1, 2, UPGRADE)).toMatchObject({ errorCode: 0, results: [{ feature: TV, errorCode: 0, errorMessage: 'NONE' }] })
      const back = await finalized()
      expect(back.level).toBe(2)
      expect(back.epoch).toBeGreaterThan(one.epoch)
    })

    it('kafka-features.sh describes transaction.version and upgrades, downgrades and disables it (dry runs changing nothing)', async () => {
      const tool = async (...args: string[]) => {
        const r = await cluster.runJava('org.apache.kafka.tools.FeatureCommand', [
          '--bootstrap-server',
          cluster.bootstrap.split(',')[0],
          ...args,
        ])
        return { code: r.code, out: r.stdout.trim(), err: r.stderr }
      }
      const describeTv = async () => {
        const r = await tool('describe')
        expect(r.code, r.err).toBe(0)
        const line = r.out.split('\n').find((l) => l.startsWith(`Feature: ${TV} `))
        expect(line, r.out).toBeDefined()
        return line!.split(/\s+/).join(' ')
      }
      expect(await describeTv()).toMatch(
        /^Feature: transaction\.version SupportedMinVersion: 0 SupportedMaxVersion: 2 FinalizedVersionLevel: 2 Epoch: \d+$/,
      )

      expect(await tool('downgrade', '--feature', `${TV}=1`, '--dry-run')).toMatchObject({ code: 0, out: `${TV} can be downgraded to 1.` })
      expect(await describeTv()).toMatch(/FinalizedVersionLevel: 2 /)
      expect(await tool('downgrade', '--feature', `${TV}=1`)).toMatchObject({ code: 0, out: `${TV} was downgraded to 1.` })
      expect(await describeTv()).toMatch(/FinalizedVersionLevel: 1 /)
      const refused = await tool('upgrade', '--feature', `${TV}=3`)
      expect(refused.code).toBe(1)
      expect(refused.out).toContain(`Could not upgrade ${TV} to 3. ${ALL_FAILED}Invalid update version 3 for feature ${TV}.`)
      expect(await tool('disable', '--feature', TV)).toMatchObject({ code: 0, out: `${TV} was disabled.` })
      expect(await describeTv()).toMatch(/FinalizedVersionLevel: 0 /)
      expect(await tool('upgrade', '--feature', `${TV}=2`)).toMatchObject({ code: 0, out: `${TV} was upgraded to 2.` })
      expect(await describeTv()).toMatch(/FinalizedVersionLevel: 2 /)
    }, 120_000)
  })
