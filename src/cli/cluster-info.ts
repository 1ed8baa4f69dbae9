import { Cluster } from '../cluster/cluster.js'
import { Admin } from '../admin/admin.js'
import * as messages from '../protocol/messages/index.js'
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parse, resolveConnection } from './args.js'
import { show } from './table-output.js'
import type { Io } from './io.js'

export const USAGE = `usage: wafka cluster -b BROKERS [--json]

The cluster id, the controller, the brokers, and the API versions each broker
supports (and the version wafka uses with it).
${CONNECTION_USAGE}`

/** API names by key, from the generated message specs. */
const API_NAMES = new Map<number, { name: string; min: number; max: number }>()
for (const spec of Object.values(messages) as Array<{ apiKey?: unknown; name?: unknown; minVersion?: number; maxVersion?: number }>) {
  if (typeof spec === 'object' && spec !== null && typeof spec.apiKey === 'number' && typeof spec.name === 'string') {
    API_NAMES.set(spec.apiKey, { name: spec.name, min: spec.minVersion!, max: spec.maxVersion! })
  }
}

export async function clusterCommand(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, CONNECTION_OPTIONS)
  if (values.help) {
    io.out(USAGE + '\n')
    return 0
  }
  const { kafka: config } = resolveConnection(values)
  const cluster = new Cluster(config)
  const admin = new Admin(cluster)
  try {
    await admin.connect()
    const d = await admin.describeCluster()
    const brokers = []
    for (const b of [...d.brokers].sort((x, y) => x.nodeId - y.nodeId)) {
      const conn = await cluster.connection(b.nodeId)
      const apis = [...conn.apiVersions]
        .sort(([a], [b]) => a - b)
        .map(([key, [min, max]]) => {
          const ours = API_NAMES.get(key)
          const used = ours && ours.min <= max && min <= ours.max ? Math.min(max, ours.max) : null
          return { apiKey: key, name: ours?.name ?? `api-${key}`, minVersion: min, maxVersion: max, used }
        })
      brokers.push({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null, controller: b.nodeId === d.controller, apis })
    }
    const data = { clusterId: d.clusterId, controller: d.controller, brokers }
    if (values.json === true) {
      io.out(JSON.stringify(data) + '\n')
      return 0
    }
    io.out(`cluster ${d.clusterId ?? '(no id)'}, controller ${d.controller}\n`)
    show(
      io,
      false,
      data,
      ['broker', 'host', 'port', 'rack', 'controller'],
      brokers.map((b) => [b.nodeId, b.host, b.port, b.rack, b.controller ? 'yes' : '']),
    )
    for (const b of brokers) {
      io.out(`\nbroker ${b.nodeId} API versions (${b.apis.length}):\n`)
      show(
        io,
        false,
        b,
        ['api', 'key', 'versions', 'wafka uses'],
        b.apis.map((a) => [a.name, a.apiKey, `${a.minVersion}-${a.maxVersion}`, a.used ?? 'none']),
      )
    }
    return 0
  } finally {
    await admin.disconnect().catch(() => {})
  }
}
