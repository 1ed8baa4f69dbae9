// The classic streams assignor's user data against Java Kafka Streams 4.4's
// own SubscriptionInfo and AssignmentInfo (test/peers/java/RigAssignorInfo.java),
// both ways: what Java writes we read, field by field, and write back byte
// for byte; what we write Java reads to the same fields and writes back byte
// for byte (where Java's HashMap order leaves the bytes one way to be).
import { Buffer } from 'node:buffer'
import { beforeAll, describe, expect, it } from 'vitest'
import { decodeAssignmentInfo, encodeAssignmentInfo, type AssignmentInfo } from '../../src/streams/assignment-info.js'
import { decodeSubscriptionInfo, encodeSubscriptionInfo, type SubscriptionInfo } from '../../src/streams/subscription-info.js'
import { requireKafka, runJava } from '../peers/kafka.js'

async function java(requests: string[]): Promise<Array<Record<string, unknown>>> {
  const r = await runJava('RigAssignorInfo', [], { input: `${requests.join('\n')}\n` })
  if (r.code !== 0) throw new Error(`RigAssignorInfo failed (${r.code}):\n${r.stderr.slice(-3000)}`)
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
}

const PROCESS = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'

const oursSubscription: SubscriptionInfo = {
  version: 11,
  latestSupportedVersion: 11,
  processId: PROCESS,
  userEndpoint: 'host-a:8080',
  taskOffsetSums: [{ subtopology: 1, partition: 2, offsetSum: 42n }],
  uniqueField: 3,
  errorCode: 0,
  clientTags: { zone: 'eu-1' },
}

const oursAssignment: AssignmentInfo = {
  version: 11,
  commonlySupportedVersion: 11,
  activeTasks: [
    { subtopology: 0, partition: 1 },
    { subtopology: 1, partition: 1 },
  ],
  standbyTasks: [{ task: { subtopology: 0, partition: 2 }, partitions: [{ topic: 'words', partitions: [2] }] }],
  partitionsByHost: [{ host: 'host-a', port: 8080, partitions: [{ topic: 'words', partitions: [1] }] }],
  standbyPartitionsByHost: [{ host: 'host-b', port: 9090, partitions: [{ topic: 'words', partitions: [2] }] }],
  errorCode: 0,
  nextRebalanceMs: 1234n,
}

describe.skipIf(!requireKafka())("the classic streams assignor's user data is Java's", () => {
  let answers: Array<Record<string, unknown>>
  const many: SubscriptionInfo = {
    ...oursSubscription,
    userEndpoint: null,
    taskOffsetSums: [
      { subtopology: 0, partition: 0, offsetSum: -2n },
      { subtopology: 0, partition: 3, offsetSum: -2n },
      { subtopology: 1, partition: 1, offsetSum: 7n },
    ],
    uniqueField: -1,
    errorCode: 4,
    clientTags: {},
  }
  beforeAll(async () => {
    answers = await java([
      'encode-subscription',
      'encode-subscription-many',
      `decode-subscription ${encodeSubscriptionInfo(oursSubscription).toString('base64')}`,
      `decode-subscription ${encodeSubscriptionInfo(many).toString('base64')}`,
      'encode-assignment',
      `decode-assignment ${encodeAssignmentInfo(oursAssignment).toString('base64')}`,
    ])
  }, 60_000)

  it("SubscriptionInfo: Java's bytes are ours, and we read them", () => {
    const javaBytes = Buffer.from(answers[0].bytes as string, 'base64')
    expect(encodeSubscriptionInfo(oursSubscription).toString('hex')).toBe(javaBytes.toString('hex'))
    expect(decodeSubscriptionInfo(javaBytes)).toEqual(oursSubscription)
    const javaMany = decodeSubscriptionInfo(Buffer.from(answers[1].bytes as string, 'base64'))
    expect({
      ...javaMany,
      taskOffsetSums: [...javaMany.taskOffsetSums].sort((a, b) => a.subtopology - b.subtopology || a.partition - b.partition),
    }).toEqual(many)
  })

  it('SubscriptionInfo: Java reads ours', () => {
    expect(answers[2]).toEqual({
      version: 11,
      latestSupportedVersion: 11,
      processId: PROCESS,
      userEndpoint: 'host-a:8080',
      taskOffsetSums: { '1_2': '42' },
      errorCode: 0,
      clientTags: { zone: 'eu-1' },
      reencoded: encodeSubscriptionInfo(oursSubscription).toString('base64'),
    })
    expect(answers[3]).toMatchObject({
      userEndpoint: null,
      taskOffsetSums: { '0_0': '-2', '0_3': '-2', '1_1': '7' },
      errorCode: 4,
      clientTags: {},
    })
  })

  it("AssignmentInfo: Java's bytes are ours, and we read them", () => {
    const javaBytes = Buffer.from(answers[4].bytes as string, 'base64')
    expect(encodeAssignmentInfo(oursAssignment).toString('hex')).toBe(javaBytes.toString('hex'))
    expect(decodeAssignmentInfo(javaBytes)).toEqual(oursAssignment)
  })

  it('AssignmentInfo: Java reads ours', () => {
    expect(answers[5]).toEqual({
      version: 11,
      commonlySupportedVersion: 11,
      activeTasks: ['0_1', '1_1'],
      standbyTasks: { '0_2': ['words-2'] },
      partitionsByHost: { 'host-a:8080': ['words-1'] },
      standbyPartitionsByHost: { 'host-b:9090': ['words-2'] },
      errorCode: 0,
      nextRebalanceMs: '1234',
      reencoded: encodeAssignmentInfo(oursAssignment).toString('base64'),
    })
  })
})
