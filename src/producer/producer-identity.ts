import type { Cluster } from '../cluster/cluster.js'
import { kafkaError } from '../errors.js'
import { InitProducerId } from '../protocol/messages/index.js'
import { COORDINATOR_MOVED } from '../error-policy.js'

/**
 * The producer id and epoch that make retries idempotent (and, with a
 * transactionalId, fence older instances). Re-initialising with the current
 * id and epoch (InitProducerId v3+) bumps the epoch, so sequences can start
 * over without the broker mistaking new batches for old ones (KIP-360).
 */
export class ProducerIdentity {
  producerId = -1n
  producerEpoch = -1
  private initializing: Promise<void> | undefined

  constructor(
    private readonly cluster: Cluster,
    readonly transactionalId: string | null,
    private readonly transactionTimeoutMs: number,
  ) {}

  get ready(): boolean {
    return this.producerId >= 0n
  }

  /** Gets an id (or a bumped epoch); concurrent callers share one request. */
  init(bump = false): Promise<void> {
    this.initializing ??= this.request(bump).finally(() => {
      this.initializing = undefined
    })
    return this.initializing
  }

  private async request(bump: boolean): Promise<void> {
    await this.cluster.retry(async () => {
      // Any broker answers for an idempotent producer: the connection anyConnection() found (re-resolving it by
      // node id sent a bootstrap connection back to the first bootstrap address, dead or not).
      const conn =
        this.transactionalId === null
          ? await this.cluster.anyConnection()
          : await this.cluster.connection(await this.cluster.coordinator('transaction', this.transactionalId))
      const version = conn.versionFor(InitProducerId)
      const current =
        bump && version >= 3 && this.producerId >= 0n ? { producerId: this.producerId, producerEpoch: this.producerEpoch } : {}
      const res = await conn.request(
        InitProducerId,
        { transactionalId: this.transactionalId, transactionTimeoutMs: this.transactionTimeoutMs, ...current },
        { version },
      )
      if (res.errorCode !== 0) {
        if (COORDINATOR_MOVED.has(res.errorCode) && this.transactionalId !== null)
          this.cluster.invalidateCoordinator('transaction', this.transactionalId)
        throw kafkaError(res.errorCode, {
          api: 'InitProducerId',
          broker: conn.name,
          detail: this.transactionalId ? `transactionalId ${this.transactionalId}` : undefined,
        })
      }
      this.producerId = res.producerId
      this.producerEpoch = res.producerEpoch
    })
  }
}
