// Java's KafkaShareConsumer as a share-group member in tests, through the
// rig's program test/peers/java/RigShareClient.java (JSON lines, values as
// base64): for mixed share groups of wafka and Java members.
import type { ChildProcess } from 'node:child_process'
import { LineSplitter, appendTail } from './child.js'
import type { JavaPeer } from './kafka.js'
import type { JavaProps } from './java-client.js'

export interface JavaShareRecord {
  topic: string
  partition: number
  offset: number
  value: Buffer | null
  deliveryCount: number
}

export interface JavaShareMember {
  process: ChildProcess
  started: Promise<void>
  records: JavaShareRecord[]
  /** SIGTERM: the member closes (its last poll's records acknowledged) and exits. */
  stop(): Promise<void>
  stderr: string[]
}

/** A Java share-group member subscribed to `topics` (comma-separated); props: any KafkaShareConsumer property. */
export function javaShareMember(
  cluster: JavaPeer,
  groupId: string,
  topics: string,
  options: { props?: JavaProps; pollDelayMs?: number } = {},
): JavaShareMember {
  const args = ['share', cluster.bootstrap, groupId, topics, '--poll-delay-ms', String(options.pollDelayMs ?? 0)]
  for (const [k, v] of Object.entries(options.props ?? {})) args.push('--prop', `${k}=${v}`)
  const child = cluster.spawnJava('RigShareClient', args)
  const records: JavaShareRecord[] = []
  const stderr: string[] = []
  let started!: () => void
  const startedP = new Promise<void>((r) => (started = r))
  const lines = new LineSplitter()
  lines.onLine = (line) => {
    if (!line.startsWith('{')) return
    const o = JSON.parse(line)
    if (o.event === 'started') started()
    if (o.event === 'record') records.push({ ...o, value: o.value === null ? null : Buffer.from(o.value, 'base64') })
  }
  child.stdout!.setEncoding('utf8').on('data', (s: string) => lines.push(s))
  child.stderr!.setEncoding('utf8').on('data', (s: string) => appendTail(stderr, s, 40))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    process: child,
    started: Promise.race([
      startedP,
      exited.then(() => {
        throw new Error(`the Java share member exited before it started:\n${stderr.join('\n')}`)
      }),
    ]),
    records,
    stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
