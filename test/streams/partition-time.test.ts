// A task's partition time rides in its committed offsets' metadata, as Java
// Kafka Streams writes it (TopicPartitionMetadata), so a task that moves or
// restarts goes on from the stream time the last owner reached: on real
// Kafka 4.4 and on the embedded broker, a processor forwards each record
// with ProcessorContext.currentStreamTimeMs(). wafka/streams processes
// records up to T0+9 s and closes; Java Kafka Streams, on the same
// application id, then sees stream time T0+9 s for a record stamped T0+1 s
// (it read wafka's metadata); then wafka/streams, under exactly_once_v2,
// sees T0+9 s for a record stamped T0+2 s (it read Java's), and commits the
// time again in its transaction. (Classic groups: Java's member is waited
// out between the two, as a mixed classic group is not served.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  KafkaStreams,
  Serdes,
  StreamsBuilder,
  type Processor,
  type ProcessorContext,
  type StreamsConfig,
} from '../../src/public/streams.js'
import { decodePartitionTime } from '../../src/streams/partition-time.js'
import { brokerTargets, type RunningTarget } from '../peers/targets.js'
import { until, wafkaRead } from '../kafka/support.js'
import { client, consumedAll, produceStrings, runJavaToEnd } from './support.js'

const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000
const str = Serdes.String()

function streamTimeApp(
  cluster: RunningTarget,
  applicationId: string,
  input: string,
  output: string,
  processingGuarantee: StreamsConfig['processingGuarantee'],
) {
  const builder = new StreamsBuilder()
  builder
    .stream<string, string>(input, { keySerde: str, valueSerde: str })
    .process((): Processor<string, string, string, string> => {
      let ctx: ProcessorContext<string, string>
      return {
        init(context) {
          ctx = context
        },
        process(record) {
          ctx.forward({ ...record, value: String(ctx.currentStreamTimeMs()) })
        },
      }
    })
    .to(output, { keySerde: str, valueSerde: str })
  return new KafkaStreams(builder.build(), {
    applicationId,
    brokers: cluster.bootstrap,
    processingGuarantee,
    commitIntervalMs: 100,
    defaultKeySerde: str,
    defaultValueSerde: str,
  })
}

for (const target of brokerTargets())
  describe.skipIf(!target.available)(`partition time across owners on ${target.name}`, () => {
    let cluster: RunningTarget
    beforeAll(async () => {
      cluster = await target.start()
    }, 120_000)
    afterAll(async () => {
      await cluster?.stop()
    })

    it("wafka/streams and Java Kafka Streams each go on from the other's committed partition time", async () => {
      const kafka = client(cluster)
      const [input, output, applicationId] = ['pt-events', 'pt-stream-times', 'pt-app']
      const admin = kafka.admin()
      await admin.connect()
      await admin.createTopics({
        topics: [input, output].map((topic) => ({ topic, numPartitions: 1, replicationFactor: 1 })),
      })
      const runWafka = async (guarantee: StreamsConfig['processingGuarantee']) => {
        const app = streamTimeApp(cluster, applicationId, input, output, guarantee)
        await app.start()
        try {
          await consumedAll(kafka, applicationId, [input])
        } finally {
          await app.close()
        }
      }
      // Each output value is the stream time its record was processed at (the topic holds transaction markers after the last run: read by count).
      const outputTimes = async (count: number) => (await wafkaRead(kafka, output, count)).map((r) => Number(r.value!.toString()) - T0)
      const record = (key: string, at: number) => ({ key, value: key, timestamp: T0 + at, partition: 0 })
      try {
        await produceStrings(kafka, input, [record('a', 5000), record('b', 9000)])
        await runWafka('at_least_once')
        expect(await outputTimes(2)).toEqual([5000, 9000])

        await produceStrings(kafka, input, [record('c', 1000)])
        // Java's stream thread does not leave the group on close: its member goes at its session timeout (6 s here).
        await runJavaToEnd(cluster, 'stream-time', {
          applicationId,
          inputs: [input],
          output,
          count: 3,
          props: { 'session.timeout.ms': 6000 },
        })
        await until(
          "Java's member gone from the group",
          async () => (await admin.describeGroups([applicationId])).groups[0].state,
          (state) => state === 'Empty',
          30_000,
        )
        expect(await outputTimes(3)).toEqual([5000, 9000, 9000])

        await produceStrings(kafka, input, [record('d', 2000)])
        await runWafka('exactly_once_v2')
        expect(await outputTimes(4)).toEqual([5000, 9000, 9000, 9000])
        const [committed] = await admin.fetchOffsets({ groupId: applicationId, topics: [input] })
        const p = committed.partitions[0]
        expect(p.offset).toBe('4')
        expect(decodePartitionTime(p.metadata, (why) => expect.fail(why)).partitionTime).toBe(T0 + 9000)
      } finally {
        await admin.disconnect()
      }
    })
  })
