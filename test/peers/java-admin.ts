// The Java AdminClient as a reference admin in tests, through the rig's own
// program test/peers/java/RigAdmin.java: a list of requests, run in order on
// one AdminClient, answered one by one (a failed call is an answer too).
import type { JavaPeer } from './kafka.js'
import type { JavaProps } from './java-client.js'

export type JavaAdminRequest =
  | {
      op: 'createTopics'
      topics: Array<{ name: string; partitions: number; replicationFactor?: number; configs?: Record<string, string> }>
    }
  | { op: 'listTopics' }
  | { op: 'describeTopics'; topics: string[] }
  | { op: 'deleteTopics'; topics: string[] }
  | { op: 'describeCluster' }
  | { op: 'listConsumerGroups' }
  | { op: 'describeConsumerGroups'; groups: string[] }
  | { op: 'listConsumerGroupOffsets'; group: string }
  | { op: 'deleteRecords'; topic: string; partition: number; offset: number }
  | { op: 'listOffsets'; topic: string; partition: number; spec: 'earliest' | 'latest' }
  | { op: 'createPartitions'; topic: string; count: number; assignments?: number[][] }
  | { op: 'describeConfigs'; type: 'TOPIC' | 'BROKER' | 'GROUP'; name: string }
  | { op: 'upsertScram'; user: string; mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512'; password: string; iterations: number }
  | { op: 'deleteScram'; user: string; mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512' }
  | { op: 'describeScram' }

/** Each request's answer as RigAdmin prints it (see its class comment); `{ error, message }` when the call failed. */
export async function javaAdmin(cluster: JavaPeer, requests: JavaAdminRequest[], props: JavaProps = {}): Promise<any[]> {
  const input = requests.map((r) => JSON.stringify(r)).join('\n') + '\n'
  const args = [cluster.bootstrap, ...Object.entries(props).flatMap(([k, v]) => ['--prop', `${k}=${v}`])]
  const r = await cluster.runJava('RigAdmin', args, { input })
  if (r.code !== 0) throw new Error(`Java admin failed (${r.code}):\n${r.stderr.slice(-3000)}`)
  const answers = r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
  if (answers.length !== requests.length)
    throw new Error(`Java admin answered ${answers.length} of ${requests.length}:\n${r.stderr.slice(-3000)}`)
  return answers
}
