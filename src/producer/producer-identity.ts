import type { ClusterClient } from '../cluster/client.js'
import { Routes } from '../cluster/route.js'
import { kafkaError } from '../errors.js'
import { InitProducerId } from '../protocol/messages/index.js'
import type { InitProducerIdRequest } from '../protocol/messages/index.js'

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
    private readonly cluster: ClusterClient,
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
    // Any broker answers for an idempotent producer: the connection the cluster has open (re-resolving it by
    // node id sent a bootstrap connection back to the first bootstrap address, dead or not).
    const route = this.transactionalId === null ? Routes.any() : Routes.transaction(this.transactionalId)
    const { res } = await this.cluster.request(
      InitProducerId,
      (version) => ({
        transactionalId: this.transactionalId,
        transactionTimeoutMs: this.transactionTimeoutMs,
        // v3+ (KIP-360): the current id and epoch ask for a bump; older brokers give a new id.
        ...(bump && version >= 3 && this.producerId >= 0n
          ? ({ producerId: this.producerId, producerEpoch: this.producerEpoch } satisfies Partial<InitProducerIdRequest>)
          : {}),
      }),
      route,
      {
        check: (r, from) => {
          if (r.errorCode !== 0)
            throw kafkaError(r.errorCode, {
              api: 'InitProducerId',
              broker: from.broker,
              detail: this.transactionalId ? `transactionalId ${this.transactionalId}` : undefined,
            })
        },
      },
    )
    this.producerId = res.producerId
    this.producerEpoch = res.producerEpoch
  }
}
