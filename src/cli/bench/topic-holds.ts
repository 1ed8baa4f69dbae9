import type { Admin } from '../../admin/admin.js'
import { backoffMs, sleep } from '../../net/backoff.js'

/** How long the high watermarks may trail the acknowledgements before the check fails. */
export const REPLICATION_WAIT_MS = 30_000

/** Messages a partition holds below its high watermark, by partition number. */
export type HeldByPartition = number[]

/**
 * Waits until the topic holds `expected` messages below its high watermarks
 * and returns how many each partition holds. With acks=0 or 1 a send is
 * acknowledged before the followers have it, and the high watermark (what
 * ListOffsets reports, and all a consumer may read) moves only once they
 * fetch, so one read straight after the last ack can come up short on a
 * healthy replicated cluster. More than `expected` (duplicates) fails at
 * once; still short after `waitMs` fails with the figures.
 */
export async function awaitTopicHolds(
  admin: Admin,
  topic: string,
  expected: number,
  waitMs = REPLICATION_WAIT_MS,
): Promise<HeldByPartition> {
  const deadline = Date.now() + waitMs
  for (let attempt = 0; ; attempt++) {
    const held: HeldByPartition = []
    for (const p of await admin.fetchTopicOffsets(topic)) held[p.partition] = Number(p.high) - Number(p.low)
    const sum = held.reduce((a, b) => a + b, 0)
    if (sum === expected) return held
    const left = deadline - Date.now()
    if (sum > expected || left <= 0) {
      const waited = sum > expected ? '' : `, after waiting ${Math.round(waitMs / 1000)} s for the followers`
      throw new Error(`the topic holds ${sum} messages below its high watermarks, not the ${expected} sent${waited}`)
    }
    await sleep(Math.min(left, backoffMs(attempt, 50, 1000)))
  }
}
