import type { ApiSpec, Input } from '../protocol/api.js'
import { isRetriable } from './retry.js'
import type { ClusterClient, Exchange, RouteOptions, TopicPartition } from './client.js'
import { Routes } from './route.js'

export interface ShardedOptions<Res> {
  /** Throws the error an answer carries (per partition): the shard failed, and is retried if the error is retriable. */
  check?: RouteOptions<Res>['check']
  /** How long the call may go on re-sharding failed shards, in ms (default: defaultApiTimeoutMs). */
  retryMs?: number
}

/**
 * A request about partitions, split into one request per leader (franz-go's
 * sharded requests: ListOffsets, DeleteRecords). Each shard goes through the
 * routing seam to the leader of its first partition, once; a shard that fails
 * retriably (its broker unreachable, NOT_LEADER_OR_FOLLOWER, a moved leader...)
 * has its partitions grouped again by fresh metadata and sent again after
 * backoff, until `retryMs` passes, while the shards answered are kept. An
 * error retrying will not fix ends the call at once. Resolves to every
 * shard's answer, for the caller to merge.
 *
 * The first grouping is not retried: a partition the metadata says does not
 * exist is the answer (as it was before the seam had this call).
 */
export async function shardedRequest<Req, Res>(
  cluster: ClusterClient,
  api: ApiSpec<Req, Res>,
  partitions: readonly TopicPartition[],
  body: (shard: readonly TopicPartition[], version: number) => Input<Req>,
  options: ShardedOptions<Res> = {},
): Promise<Array<Exchange<Res>>> {
  const answers: Array<Exchange<Res>> = []
  let pending = await byLeader(cluster, partitions)
  await cluster.retry(async (n) => {
    // After a failure, by fresh metadata: the leaders may have moved.
    if (n > 0) pending = await byLeader(cluster, pending.flat())
    // By shard, so the order of what is retried and which error is thrown does not depend on which answer came first.
    const outcomes = await Promise.all(
      pending.map((shard) =>
        cluster
          .request(api, (v) => body(shard, v), Routes.leader(shard[0].topic, shard[0].partition), {
            // One attempt: this loop retries, grouping the failed shards' partitions again.
            retryMs: 0,
            // Any of them led elsewhere by a refresh while waiting: the shard is sent again to their new leaders.
            leaderOf: shard,
            check: options.check,
          })
          .then(
            (answer) => void answers.push(answer),
            (err: unknown) => {
              if (!isRetriable(err)) throw err
              return { shard, err }
            },
          ),
      ),
    )
    const failed = outcomes.filter((o) => o !== undefined)
    pending = failed.map((f) => f.shard)
    if (failed.length > 0) throw failed[0].err
  }, options.retryMs)
  return answers
}

/** The partitions grouped by their leaders' node ids (each group in the order given). */
async function byLeader(cluster: ClusterClient, partitions: readonly TopicPartition[]): Promise<TopicPartition[][]> {
  const groups = new Map<number, TopicPartition[]>()
  for (const tp of partitions) {
    const leader = await cluster.leaderFor(tp.topic, tp.partition)
    const group = groups.get(leader)
    if (group) group.push(tp)
    else groups.set(leader, [tp])
  }
  return [...groups.values()]
}

/** A shard's partitions by topic, in the order given: the `topics` of a request body. */
export function shardTopics(shard: readonly TopicPartition[]): Array<{ topic: string; partitions: number[] }> {
  const topics = new Map<string, number[]>()
  for (const { topic, partition } of shard) {
    const list = topics.get(topic)
    if (list) list.push(partition)
    else topics.set(topic, [partition])
  }
  return [...topics].map(([topic, partitions]) => ({ topic, partitions }))
}
