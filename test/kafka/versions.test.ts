// The newest protocol versions real Kafka 4.4 offers are the ones wafka sends
// (Produce v13 names topics by id, Fetch v18), except where versions-in-use.ts
// caps one with a reason or a caller keeps to an older one as Java's does — and records still go through both ways.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Connection } from '../../src/net/connection.js'
import { Fetch, Metadata, OffsetCommit, Produce } from '../../src/protocol/messages/index.js'
import { type KafkaCluster, requireKafka, startKafka } from '../peers/kafka.js'
import { wafka, wafkaRead } from './support.js'

describe.skipIf(!requireKafka())('protocol versions against Kafka 4.4', () => {
  let cluster: KafkaCluster
  const sent: Array<[string, number]> = []
  const original = Connection.prototype.request

  beforeAll(async () => {
    cluster = await startKafka()
    // Records (api, version) of every request, then sends it as usual.
    Connection.prototype.request = function (this: Connection, api: any, body: any, options: any = {}) {
      sent.push([api.name, options.version ?? this.versionFor(api, options.maxVersion)])
      return original.call(this, api, body, options)
    } as typeof original
  })
  afterAll(async () => {
    Connection.prototype.request = original
    await cluster?.stop()
  })

  it('sends Produce v13 (topic ids), Fetch v18 and Metadata v13, and reads back what it wrote', async () => {
    const kafka = wafka(cluster)
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'versions', numPartitions: 2, replicationFactor: 1 }] })
    await admin.disconnect()
    const producer = kafka.producer({ idempotent: false, acks: 1 })
    await producer.connect()
    const messages = Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: `v${i}` }))
    await producer.send({ topic: 'versions', messages })
    await producer.disconnect()
    const read = await wafkaRead(kafka, 'versions', 20)
    expect(read.map((r) => r.value!.toString()).sort()).toEqual(messages.map((m) => m.value).sort())

    const used = (name: string) => new Set(sent.filter(([n]) => n === name).map(([, v]) => v))
    expect(used(Produce.name)).toEqual(new Set([13]))
    expect(used(Fetch.name)).toEqual(new Set([18]))
    expect([...used(Metadata.name)].every((v) => v === 13)).toBe(true)
  })

  it("a classic consumer's (and the admin's) commit is OffsetCommit v9, by name as Java's (a KIP-848 consumer's is v10, by id: offsets-by-topic-id.test.ts)", async () => {
    const kafka = wafka(cluster)
    const consumer = kafka.consumer({ groupId: 'versions-group' })
    await consumer.connect()
    await consumer.commitOffsets([{ topic: 'versions', partition: 0, offset: '3' }]).catch(async () => {
      // A consumer outside a generation commits through the admin path instead.
      const admin = kafka.admin()
      await admin.connect()
      await admin.setOffsets({ groupId: 'versions-group', topic: 'versions', partitions: [{ partition: 0, offset: '3' }] })
      await admin.disconnect()
    })
    await consumer.disconnect()
    const offsetCommits = sent.filter(([n]) => n === OffsetCommit.name).map(([, v]) => v)
    expect(offsetCommits.length).toBeGreaterThan(0)
    expect(new Set(offsetCommits)).toEqual(new Set([9]))
    const admin = kafka.admin()
    await admin.connect()
    const offsets = await admin.fetchOffsets({ groupId: 'versions-group', topics: ['versions'] })
    await admin.disconnect()
    expect(offsets[0].partitions.find((p: { partition: number }) => p.partition === 0)).toMatchObject({ offset: '3' })
  })
})
