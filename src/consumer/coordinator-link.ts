import type { ClusterClient, Exchange } from '../cluster/client.js'
import { Routes, type Route } from '../cluster/route.js'
import { kafkaError } from '../errors.js'
import type { ApiSpec, Input } from '../protocol/api.js'
import { COORDINATOR_MOVED } from '../error-policy.js'
import { ErrorCodes } from '../protocol/error-codes.js'

/**
 * Requests to a group's coordinator, on their own connection (the 'group'
 * lane): a JoinGroup may wait a whole rebalance, and heartbeats must not
 * queue behind fetches. One attempt each: the group's own loops (join,
 * heartbeat, commit) decide when to try again.
 */
export class CoordinatorLink {
  private readonly route: Route

  constructor(
    readonly cluster: ClusterClient,
    readonly groupId: string,
  ) {
    this.route = Routes.group(groupId)
  }

  send<Req, Res>(
    api: ApiSpec<Req, Res>,
    body: (version: number) => Input<Req>,
    timeoutMs?: number,
    maxVersion?: number,
  ): Promise<Exchange<Res>> {
    return this.cluster.request(api, body, this.route, { lane: 'group', timeoutMs, retryMs: 0, maxVersion })
  }

  /** A response's error code as a KafkaError (forgetting the coordinator when it says so), or nothing. */
  check(code: number, api: string, broker: string, detail?: string): void {
    if (code === ErrorCodes.NONE) return
    if (COORDINATOR_MOVED.has(code)) this.stale()
    throw kafkaError(code, { api, broker, detail: detail ?? `group ${this.groupId}` })
  }

  /** Abandons whatever waits on the group connection (a JoinGroup held for a rebalance, say). */
  async abort(): Promise<void> {
    if (this.cluster.metadata.brokers.size === 0) return
    await this.cluster
      .closeRoute(this.route, 'group')
      .catch(
        (err) =>
          void this.cluster.log('Group').caught('no coordinator to abort the group connection on', 'debug', { groupId: this.groupId })(err),
      )
  }

  stale(): void {
    this.cluster.invalidate(this.route)
  }
}
