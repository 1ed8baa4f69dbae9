// Instrumentation Events: producer, consumer and admin events by their names, with KafkaJS's payload fields.
import { errorShape, quiet, until, type Program } from './program.js'

export const instrumentation: Program = async ({ Kafka, logLevel }, env) => {
  const kafka = new Kafka({ clientId: 'events', brokers: env.brokers, logLevel: logLevel.NOTHING, logCreator: quiet })
  const topic = env.name('topic')
  const seen = new Map<string, string[]>()
  const record = (e: { type: string; payload: unknown; id: number; timestamp: number }) => {
    if (typeof e.id !== 'number' || typeof e.timestamp !== 'number') throw new Error('an event without id or timestamp')
    if (!seen.has(e.type)) seen.set(e.type, e.payload && typeof e.payload === 'object' ? Object.keys(e.payload).sort() : [])
  }
  // Network events: for the requests both clients make, the fields KafkaJS gives, each checked for its meaning.
  const requests: Record<string, Record<string, string[]>> = {}
  const problems: string[] = []
  const watched = ['Produce', 'Metadata', 'Fetch', 'CreateTopics', 'OffsetCommit']
  const request = (client: string) => (e: { payload: Record<string, any> }) => {
    const p = e.payload
    if (!watched.includes(p.apiName)) return
    ;(requests[client] ??= {})[p.apiName] ??= Object.keys(p).sort()
    const bad = (what: string) => problems.push(`${client} ${p.apiName}: ${what} ${JSON.stringify(p)}`)
    if (!env.brokers.includes(p.broker)) bad('broker')
    if (p.clientId !== 'events') bad('clientId')
    if (!Number.isInteger(p.correlationId) || !Number.isInteger(p.apiKey) || !Number.isInteger(p.apiVersion)) bad('ids')
    if (!(p.size > 0)) bad('size')
    if (!(p.sentAt >= p.createdAt && p.pendingDuration === p.sentAt - p.createdAt && p.duration >= 0)) bad('times')
    if (Math.abs(p.createdAt - Date.now()) > 60_000) bad('createdAt')
  }
  const admin = kafka.admin()
  admin.on(admin.events.REQUEST, request('admin'))
  admin.on(admin.events.CONNECT, record)
  admin.on(admin.events.DISCONNECT, record)
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
  await admin.disconnect()

  const producer = kafka.producer()
  const { CONNECT, DISCONNECT } = producer.events
  producer.on(CONNECT, record)
  producer.on(producer.events.REQUEST, request('producer'))
  producer.on(DISCONNECT, record)
  await producer.connect()
  await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }] })
  await producer.disconnect()

  const consumer = kafka.consumer({ groupId: env.name('group'), maxWaitTimeInMs: 100 })
  const e = consumer.events
  for (const name of [e.CONNECT, e.GROUP_JOIN, e.START_BATCH_PROCESS, e.END_BATCH_PROCESS, e.COMMIT_OFFSETS, e.STOP, e.DISCONNECT])
    consumer.on(name, record)
  consumer.on(e.REQUEST, request('consumer'))
  let lag: unknown
  const removeLag = consumer.on(e.END_BATCH_PROCESS, ({ payload }) => {
    lag ??= {
      offsetLag: payload.offsetLag,
      offsetLagLow: payload.offsetLagLow,
      batchSize: payload.batchSize,
      first: payload.firstOffset,
      last: payload.lastOffset,
    }
  })
  const badName = (() => {
    try {
      consumer.on('consumer.not_an_event' as never, record)
      return null
    } catch (err) {
      return errorShape(err)
    }
  })()
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  let n = 0
  await consumer.run({ eachMessage: async () => void n++ })
  await until(() => n === 2 && seen.has(e.COMMIT_OFFSETS), 30_000, 'two messages and a commit')
  removeLag()
  const group = await consumer.describeGroup()
  const described = {
    keys: Object.keys(group).sort(),
    memberKeys: Object.keys(group.members[0]).sort(),
    state: group.state,
    protocol: group.protocol,
    protocolType: group.protocolType,
    errorCode: group.errorCode,
    assignmentBytes: Buffer.isBuffer(group.members[0].memberAssignment),
  }
  await consumer.disconnect()
  return {
    events: Object.fromEntries([...seen].sort(([a], [b]) => a.localeCompare(b))),
    lag,
    badName,
    requests,
    problems,
    described,
    names: { producer: producer.events, admin: Object.keys(admin.events).sort(), consumer: Object.keys(consumer.events).sort() },
  }
}
