// Written the way KafkaJS's TypeScript docs show it; compiled with --strict
// against `kafkajs` and against `wafka/kafkajs` (the test swaps the import).
import {
  Kafka,
  logLevel,
  CompressionTypes,
  Partitioners,
  type KafkaConfig,
  type SASLOptions,
  type Producer,
  type ProducerBatch,
  type ProducerRecord,
  type TopicMessages,
  type Message,
  type RecordMetadata,
  type Consumer,
  type ConsumerConfig,
  type ConsumerSubscribeTopics,
  type EachMessagePayload,
  type EachBatchPayload,
  type KafkaMessage,
  type Admin,
  type ITopicConfig,
  type logCreator,
  type LogEntry,
  type Transaction,
  type InstrumentationEvent,
  type RetryOptions,
  type SeekEntry,
  type ConsumerCrashEvent,
  AssignerProtocol,
  KafkaJSError,
  KafkaJSProtocolError,
  KafkaJSNumberOfRetriesExceeded,
} from 'kafkajs'

interface CustomMessageFormat {
  a: string
}

const sasl: SASLOptions = { mechanism: 'scram-sha-512', username: 'alice', password: 'secret' }
const retry: RetryOptions = { initialRetryTime: 100, retries: 8 }

const customLogCreator: logCreator =
  (level: logLevel) =>
  ({ namespace, label, log }: LogEntry) => {
    const { message, ...extra } = log
    if (level >= logLevel.INFO) console.log(`${label} [${namespace}] ${message}`, extra)
  }

const config: KafkaConfig = {
  clientId: 'my-app',
  brokers: ['localhost:9092'],
  ssl: true,
  sasl,
  retry,
  connectionTimeout: 3000,
  requestTimeout: 25000,
  logLevel: logLevel.WARN,
  logCreator: customLogCreator,
}

export class ProducerFactory {
  private producer: Producer

  constructor() {
    this.producer = this.createProducer()
  }

  public async start(): Promise<void> {
    try {
      await this.producer.connect()
    } catch (error) {
      console.log('Error connecting the producer: ', error)
    }
  }

  public async shutdown(): Promise<void> {
    await this.producer.disconnect()
  }

  public async sendBatch(messages: Array<CustomMessageFormat>): Promise<RecordMetadata[]> {
    const kafkaMessages: Array<Message> = messages.map((message) => ({ value: JSON.stringify(message) }))
    const topicMessages: TopicMessages = { topic: 'producer-topic', messages: kafkaMessages }
    const batch: ProducerBatch = { topicMessages: [topicMessages], compression: CompressionTypes.GZIP }
    return this.producer.sendBatch(batch)
  }

  public async send(record: ProducerRecord): Promise<number[]> {
    const result: RecordMetadata[] = await this.producer.send(record)
    return result.map((r) => r.partition)
  }

  public async inTransaction(): Promise<void> {
    const transaction: Transaction = await this.producer.transaction()
    await transaction.send({ topic: 'producer-topic', messages: [{ key: 'k', value: 'v' }] })
    await transaction.commit()
  }

  private createProducer(): Producer {
    const kafka = new Kafka(config)
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: false })
    producer.on(producer.events.CONNECT, (event: InstrumentationEvent<unknown>) => console.log(event.timestamp))
    return producer
  }
}

export class ExampleConsumer {
  private kafkaConsumer: Consumer

  constructor() {
    this.kafkaConsumer = this.createKafkaConsumer()
  }

  public async startConsumer(): Promise<void> {
    const topic: ConsumerSubscribeTopics = { topics: ['example-topic'], fromBeginning: false }
    try {
      await this.kafkaConsumer.connect()
      await this.kafkaConsumer.subscribe(topic)
      await this.kafkaConsumer.run({
        eachMessage: async (messagePayload: EachMessagePayload) => {
          const { topic, partition, message } = messagePayload
          const prefix = `${topic}[${partition} | ${message.offset}] / ${message.timestamp}`
          console.log(`- ${prefix} ${message.key}#${message.value}`)
        },
      })
    } catch (error) {
      if (error instanceof KafkaJSProtocolError) console.log(error.type, error.code)
      else if (error instanceof KafkaJSNumberOfRetriesExceeded) console.log(error.retryCount, error.retryTime)
      else if (error instanceof KafkaJSError) console.log(error.retriable)
    }
  }

  public async startBatchConsumer(): Promise<void> {
    await this.kafkaConsumer.run({
      eachBatchAutoResolve: false,
      eachBatch: async (eachBatchPayload: EachBatchPayload) => {
        const { batch, resolveOffset, heartbeat, isRunning, isStale } = eachBatchPayload
        for (const message of batch.messages) {
          if (!isRunning() || isStale()) break
          const m: KafkaMessage = message
          console.log(`${batch.topic}[${batch.partition}] ${m.offset} lag ${batch.offsetLag()}`)
          resolveOffset(message.offset)
          await heartbeat()
        }
      },
    })
  }

  public async shutdown(): Promise<void> {
    await this.kafkaConsumer.disconnect()
  }

  private createKafkaConsumer(): Consumer {
    const kafka = new Kafka({ clientId: 'client-id', brokers: ['example.com:9092'] })
    const consumerConfig: ConsumerConfig = { groupId: 'consumer-group', sessionTimeout: 30000, readUncommitted: false }
    const consumer = kafka.consumer(consumerConfig)
    consumer.on(consumer.events.CRASH, (event: ConsumerCrashEvent) => console.log(event.payload.error, event.payload.restart))
    return consumer
  }
}

export async function createTopic(): Promise<boolean> {
  const admin: Admin = new Kafka(config).admin()
  await admin.connect()
  const topics: ITopicConfig[] = [{ topic: 'example-topic', numPartitions: 3, replicationFactor: 1 }]
  const created = await admin.createTopics({ topics, waitForLeaders: true })
  const offsets = await admin.fetchTopicOffsets('example-topic')
  console.log(offsets.map(({ partition, high, low }) => `${partition}: ${low}-${high}`))
  const earliest: SeekEntry[] = offsets.map(({ partition, low }) => ({ partition, offset: low }))
  await admin.setOffsets({ groupId: 'consumer-group', topic: 'example-topic', partitions: earliest })
  const { groups } = await admin.describeGroups(['consumer-group'])
  for (const member of groups[0].members) {
    const assigned = AssignerProtocol.MemberAssignment.decode(member.memberAssignment)
    console.log(member.memberId, assigned?.assignment)
  }
  await admin.disconnect()
  return created
}
