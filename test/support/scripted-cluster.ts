import type { Body, ClusterClient, Exchange, RouteOptions } from '../../src/cluster/client.js'
import { MetadataCache, type TopicInfo } from '../../src/cluster/metadata.js'
import { defaultRoute, type Route } from '../../src/cluster/route.js'
import { withRetry } from '../../src/cluster/retry.js'
import { kafkaError } from '../../src/errors.js'
import { silentLogger } from '../../src/logger.js'
import type { ApiSpec } from '../../src/protocol/api.js'
import { ErrorCodes } from '../../src/protocol/error-codes.js'
import { Reader } from '../../src/protocol/reader.js'
import { Writer } from '../../src/protocol/writer.js'

export interface Sent {
  api: ApiSpec
  route: Route
  /** The request as each version encodes and decodes it (versions whose encoder refuses it left out). */
  requests: Map<number, any>
}

/**
 * The ClusterClient seam, answered by a script instead of brokers: each
 * request's body is encoded and decoded at every version of its API (fields
 * outside a version must stay at their defaults, as the Java writer insists),
 * and the script's answer goes through the response codec of the newest
 * version. Brokers 1 and 2; broker 1 controls.
 */
export class ScriptedCluster implements ClusterClient {
  readonly metadata = new MetadataCache()
  readonly sent: Sent[] = []
  private readonly stopper = new AbortController()

  constructor(
    private readonly answer: (api: ApiSpec, request: any, route: Route) => any,
    private readonly leaders: (topic: string, partition: number) => number = (_t, p) => 1 + (p % 2),
  ) {
    this.metadata.controllerId = 1
    this.metadata.brokers.set(1, { nodeId: 1, host: 'h', port: 1, rack: null })
    this.metadata.brokers.set(2, { nodeId: 2, host: 'h', port: 2, rack: null })
  }

  get signal(): AbortSignal {
    return this.stopper.signal
  }
  log(namespace: string) {
    return silentLogger.namespace(namespace)
  }
  async connect(): Promise<void> {}
  async disconnect(): Promise<void> {
    this.stopper.abort(new Error('disconnected'))
  }

  async request<Req, Res>(api: ApiSpec<Req, Res>, body: Body<Req>, route = defaultRoute(api), options: RouteOptions<Res> = {}) {
    const requests = new Map<number, any>()
    const newest = Math.min(api.maxVersion, options.maxVersion ?? Infinity)
    for (let v = api.minVersion; v <= newest; v++) {
      const input = typeof body === 'function' ? (body as (v: number) => any)(v) : body
      const w = new Writer()
      try {
        api.encodeRequest(w, v, input)
      } catch (err) {
        if ((err as Error).name === 'UnsupportedApiError') continue // a feature older versions lack, said clearly
        throw err
      }
      requests.set(v, api.decodeRequest(new Reader(Buffer.from(w.finish())), v))
    }
    this.sent.push({ api, route, requests })
    const w = new Writer()
    api.encodeResponse(w, newest, this.answer(api, requests.get(newest), route))
    const res = api.decodeResponse(new Reader(Buffer.from(w.finish())), newest)
    const from = { version: newest, nodeId: route.kind === 'node' ? route.nodeId : 1, broker: 'scripted' }
    options.check?.(res, from)
    return { res, ...from } as Exchange<Res>
  }

  async supports(): Promise<boolean> {
    return true
  }
  invalidate(): void {}
  async closeRoute(): Promise<void> {}

  retry<T>(attempt: (n: number) => Promise<T>, timeoutMs = 1000): Promise<T> {
    return withRetry({ backoffMs: 1, backoffMaxMs: 1, deadline: Date.now() + timeoutMs, signal: this.signal }, attempt)
  }

  async refreshMetadata(): Promise<void> {}

  async topicMetadata(topics: string[]): Promise<TopicInfo[]> {
    return topics.map((t) => {
      const info = this.metadata.topics.get(t)
      if (!info) throw kafkaError(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, { api: 'Metadata', detail: `topic ${t}` })
      return info
    })
  }

  async leaderFor(topic: string, partition: number): Promise<number> {
    return this.leaders(topic, partition)
  }
}
