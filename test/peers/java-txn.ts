// The Java client's transactional producer, driven step by step through the
// rig's own program test/peers/java/RigTxnProducer.java (initTransactions
// first, then begin/send/commit/abort as listed, each answered in order).
import type { JavaPeer } from './kafka.js'
import type { JavaProps } from './java-client.js'

type Bytes = string | Uint8Array | null | undefined

/** `p`: which producer of the transactional id (default 0; another is made, fencing the others, at its first step). */
export type JavaTxnStep = { p?: number } & (
  | { op: 'begin' }
  | { op: 'commit' }
  | { op: 'abort' }
  | { op: 'send'; key?: Bytes; value?: Bytes; partition?: number }
  | { op: 'offsets'; group: string; partition: number; offset: number }
  | { op: 'describe' }
  | { op: 'producers'; partition: number }
)

export type JavaTxnAnswer =
  | Record<string, never>
  | { partition: number; offset: number }
  | { state: string; producerId: number; producerEpoch: number }
  | { producers: Array<[number, number]> }
  | { error: string; message: string }

const b64 = (b: Bytes): string | null => (b === null || b === undefined ? null : Buffer.from(b).toString('base64'))

export async function javaTransactions(
  cluster: JavaPeer,
  topic: string,
  transactionalId: string,
  steps: JavaTxnStep[],
  props: JavaProps = {},
): Promise<JavaTxnAnswer[]> {
  const input = steps.map((s) => JSON.stringify(s.op === 'send' ? { ...s, key: b64(s.key), value: b64(s.value) } : s)).join('\n') + '\n'
  const args = [cluster.bootstrap, topic, transactionalId, ...Object.entries(props).flatMap(([k, v]) => ['--prop', `${k}=${v}`])]
  const r = await cluster.runJava('RigTxnProducer', args, { input })
  if (r.code !== 0) throw new Error(`Java transactional producer failed (${r.code}):\n${r.stderr.slice(-3000)}`)
  return r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}
