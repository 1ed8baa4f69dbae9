import { setTimeout as sleep } from 'node:timers/promises'
import type { ConsumerResult, Tally } from '../../src/cli/bench/tally.js'
import { fmt } from './contest.js'

/** A consuming contender in a bench child: starts delivering to the tally, and closes. */
export interface ConsumeDriver {
  consume(tally: Tally): Promise<void>
  close(): Promise<void>
}

/**
 * A consumer bench child's run (bench/consumer.ts, bench/share.ts): the
 * driver delivers to `tally` until it has all `messages`; the run fails when
 * no new message came for `stallMs` or it takes over `giveUpMs`. Then the
 * driver closes (waited for at most `closeMs`). The tally's result.
 */
export async function watchedConsume(
  driver: ConsumeDriver,
  tally: Tally,
  messages: number,
  limits: { giveUpMs: number; stallMs: number; closeMs: number },
): Promise<ConsumerResult> {
  const since = performance.now()
  let seen = 0
  let seenAt = since
  const watch = setInterval(() => {
    const now = performance.now()
    if (tally.received !== seen) [seen, seenAt] = [tally.received, now]
    const why =
      now - since > limits.giveUpMs
        ? `after ${limits.giveUpMs / 1000} s`
        : now - seenAt > limits.stallMs
          ? `after ${limits.stallMs / 1000} s without a new message`
          : null
    if (why) tally.fail(new Error(`gave up ${why}, with ${fmt.format(tally.received)} of ${fmt.format(messages)} messages received`))
  }, 1000)
  tally.subscribing()
  try {
    await driver.consume(tally)
    await tally.done
  } finally {
    clearInterval(watch)
  }
  const result = tally.result()
  await Promise.race([driver.close(), sleep(limits.closeMs)])
  return result
}
