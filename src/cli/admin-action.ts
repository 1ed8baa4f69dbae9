import { Kafka, type KafkaConfig } from '../kafka.js'
import type { Admin } from '../admin/admin.js'
import type { Values } from './args.js'
import type { Io } from './io.js'

/** What an action of `wafka topics` or `wafka groups` works with: the connected admin, the output, the flags and the names given. */
export interface AdminAction {
  admin: Admin
  io: Io
  json: boolean
  values: Values
  names: string[]
}

/** Runs `action` with an admin connected to `config`, then disconnects it; exit code 0 unless it throws. */
export async function withAdmin(
  config: KafkaConfig,
  io: Io,
  values: Values,
  names: string[],
  action: (run: AdminAction) => Promise<void>,
): Promise<number> {
  const admin = new Kafka(config).admin()
  try {
    await admin.connect()
    await action({ admin, io, json: values.json === true, values, names })
    return 0
  } finally {
    await admin.disconnect().catch(() => {})
  }
}
