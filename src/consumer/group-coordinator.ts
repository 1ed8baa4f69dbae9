import type { Cluster } from '../cluster/cluster.js'
import { ConnectionError, KafkaError, kafkaError } from '../errors.js'
import type { ApiSpec, Input } from '../protocol/api.js'
import { COORDINATOR_MOVED } from '../error-policy.js'
import { ErrorCodes } from '../protocol/error-codes.js'

/** Errors that say the coordinator moved or is not ready: look it up again. */

/**
 * Requests to a group's coordinator, on their own connection (the 'group'
 * lane): a JoinGroup may wait a whole rebalance, and heartbeats must not
 * queue behind fetches.
 */
export class GroupCoordinator {
  constructor(
    readonly cluster: Cluster,
    readonly groupId: string,
  ) {}

  async send<Req, Res>(
    api: ApiSpec<Req, Res>,
    body: (version: number) => Input<Req>,
    timeoutMs?: number,
  ): Promise<{ res: Res; version: number; broker: string }> {
    const node = await this.cluster.coordinator('group', this.groupId)
    try {
      const conn = await this.cluster.connection(node, 'group')
      const version = conn.versionFor(api)
      const res = await conn.request(api, body(version), { version, timeoutMs })
      return { res, version, broker: conn.name }
    } catch (err) {
      if (err instanceof ConnectionError || KafkaError.is(err, COORDINATOR_MOVED)) this.stale()
      throw err
    }
  }

  /** A response's error code as a KafkaError (forgetting the coordinator when it says so), or nothing. */
  check(code: number, api: string, broker: string, detail?: string): void {
    if (code === ErrorCodes.NONE) return
    if (COORDINATOR_MOVED.has(code)) this.stale()
    throw kafkaError(code, { api, broker, detail: detail ?? `group ${this.groupId}` })
  }

  /** Abandons whatever waits on the group connection (a JoinGroup held for a rebalance, say). */
  async abort(): Promise<void> {
    const node =
      this.cluster.metadata.brokers.size > 0
        ? await this.cluster
            .coordinator('group', this.groupId)
            .catch(
              (err) =>
                void this.cluster
                  .log('Group')
                  .caught('no coordinator to abort the group connection on', 'debug', { groupId: this.groupId })(err),
            )
        : undefined
    if (node !== undefined) await this.cluster.closeConnection(node, 'group')
  }

  stale(): void {
    this.cluster.invalidateCoordinator('group', this.groupId)
  }
}
