// Kafka's kafka-metadata-quorum.sh (MetadataQuorumCommand, kafka-tools 4.4.0
// on the rig's JVM) `describe --status` and `describe --replication`, against
// `wafka broker --brokers 3` (the built CLI, as a user runs it) and against
// real Kafka 4.4, with the same assertions: the cluster id, a leader that is
// the one voter listed, a high watermark past 0, the leader at it. And the
// raw answer to another partition on both: Kafka's error, in Kafka's place.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import * as M from '../../src/protocol/messages/index.js'
import { javaPeer, requireKafka, startKafka, type JavaPeer, type JavaResult } from '../peers/kafka.js'
import { RawClient } from './raw-client.js'

const QUORUM = 'org.apache.kafka.tools.MetadataQuorumCommand'
const root = join(import.meta.dirname, '..', '..')
const cli = join(root, 'dist', 'cli.js')
if (!existsSync(cli) && process.env.CI) throw new Error('dist/cli.js is missing: run npm run build first')

interface Target {
  bootstrap: string
  clusterId: string
  stop(): Promise<void>
}

/** `wafka broker --brokers 3` from the built package; resolves once it prints where it serves. */
async function wafkaBroker(): Promise<Target> {
  const child: ChildProcess = spawn(process.execPath, [cli, 'broker', '--port', '0', '--brokers', '3'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s))
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (out += s))
  const deadline = Date.now() + 20_000
  let served: RegExpExecArray | null
  while (!(served = /bootstrap servers (\S+)/.exec(out))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill()
      throw new Error(`wafka broker did not start: ${out}`)
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  const bootstrap = served[1]
  // The cluster id as its brokers report it (DescribeCluster), to hold the tool's ClusterId line to.
  const c = await RawClient.open(bootstrap.split(',')[0])
  const described = await c.request(M.DescribeCluster, 1, { includeClusterAuthorizedOperations: false, endpointType: 1 })
  c.close()
  return {
    bootstrap,
    clusterId: described.clusterId,
    stop: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill()
      await exited
    },
  }
}

const targets: Array<[string, boolean, () => Promise<Target>]> = [
  ['wafka broker', existsSync(cli), async () => wafkaBroker()],
  [
    'real Kafka 4.4',
    true,
    async () => {
      const k = await startKafka()
      return { bootstrap: k.bootstrap, clusterId: k.clusterId, stop: () => k.stop() }
    },
  ],
]

describe.skipIf(!requireKafka()).each(targets)('kafka-metadata-quorum against %s', (_name, available, start) => {
  if (!available) return void it.skip('needs dist/cli.js (npm run build)')
  let target: Target
  let java: JavaPeer
  beforeAll(async () => {
    target = await start()
    java = javaPeer(target.bootstrap)
  }, 120_000)
  afterAll(async () => {
    await target?.stop()
  })

  const tool = async (args: string[]): Promise<JavaResult> => {
    const r = await java.runJava(QUORUM, ['--bootstrap-server', target.bootstrap, ...args], { timeoutMs: 90_000 })
    expect(r.code, `kafka-metadata-quorum ${args.join(' ')}:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0)
    return r
  }

  it('describe --status: the cluster id, the leader the one voter, a high watermark past 0', async () => {
    const { stdout } = await tool(['describe', '--status'])
    // "ClusterId:              <id>" ... one "Name: value" per line.
    const field = (name: string) => new RegExp(`^${name}:\\s+(.*)$`, 'm').exec(stdout)?.[1]
    expect(field('ClusterId')).toBe(target.clusterId)
    const leaderId = Number(field('LeaderId'))
    expect(Number.isInteger(leaderId) && leaderId >= 0, stdout).toBe(true)
    expect(Number(field('LeaderEpoch'))).toBeGreaterThan(0)
    expect(Number(field('HighWatermark'))).toBeGreaterThan(0)
    expect(field('MaxFollowerLag')).toBe('0')
    // CurrentVoters: [{"id": 1, "directoryId": ..., "endpoints": ["CONTROLLER://127.0.0.1:port"]}]
    const voters = JSON.parse(field('CurrentVoters')!) as { id: number; endpoints: string[] }[]
    expect(voters.map((v) => v.id)).toEqual([leaderId])
    expect(voters[0].endpoints).toEqual([expect.stringMatching(/^CONTROLLER:\/\/[^:]+:\d+$/)])
    expect(Array.isArray(JSON.parse(field('CurrentObservers')!))).toBe(true)
  })

  it('describe --replication: the leader at the high watermark, every observer with no lag', async () => {
    const status = (await tool(['describe', '--status'])).stdout
    const leaderId = Number(/^LeaderId:\s+(\d+)/m.exec(status)![1])
    const { stdout } = await tool(['describe', '--replication'])
    const lines = stdout.split('\n').filter((l) => l.trim() !== '')
    expect(lines[0].trim().split(/\s+/)).toEqual([
      'NodeId',
      'DirectoryId',
      'LogEndOffset',
      'Lag',
      'LastFetchTimestamp',
      'LastCaughtUpTimestamp',
      'Status',
    ])
    const rows = lines.slice(1).map((l) => l.trim().split(/\s+/))
    const leaders = rows.filter((r) => r[6] === 'Leader')
    expect(leaders.map((r) => Number(r[0]))).toEqual([leaderId])
    expect(Number(leaders[0][2])).toBeGreaterThan(0)
    expect(leaders[0][3]).toBe('0')
    // One voter, so no followers; observers (wafka's other brokers; none on the rig's single node) caught up.
    for (const r of rows) {
      expect(['Leader', 'Observer'], stdout).toContain(r[6])
      expect(r[3], stdout).toBe('0')
    }
  })

  it('another partition, raw: UNKNOWN_TOPIC_OR_PARTITION on the partition, none at the top', async () => {
    const c = await RawClient.open(target.bootstrap.split(',')[0])
    try {
      const r = await c.request(M.DescribeQuorum, 2, { topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 1 }] }] })
      expect(r.errorCode).toBe(ErrorCodes.NONE)
      expect(r.topics).toEqual([
        expect.objectContaining({
          topicName: '__cluster_metadata',
          partitions: [
            expect.objectContaining({
              partitionIndex: 1,
              errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
              errorMessage: 'This server does not host this topic-partition.',
            }),
          ],
        }),
      ])
      const own = await c.request(M.DescribeQuorum, 2, {
        topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }],
      })
      const [p] = own.topics[0].partitions
      expect(p.errorCode).toBe(ErrorCodes.NONE)
      expect(p.currentVoters.map((v) => v.replicaId)).toEqual([p.leaderId])
      expect(own.nodes.map((n) => n.nodeId)).toEqual([p.leaderId])
      expect(own.nodes[0].listeners.map((l) => l.name)).toEqual(['CONTROLLER'])
    } finally {
      c.close()
    }
  })
})
