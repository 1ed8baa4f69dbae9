/**
 * Keeps up to `inflight` calls of `send` over `chunk` messages outstanding,
 * starting the next as one completes, until [from, to) is sent: what a
 * high-throughput caller of a promise-based producer does.
 */
export async function windowed(
  from: number,
  to: number,
  inflight: number,
  chunk: number,
  send: (from: number, to: number) => Promise<unknown>,
): Promise<void> {
  let next = from
  let failure: unknown
  const lane = async () => {
    while (next < to && failure === undefined) {
      const start = next
      next = Math.min(to, next + chunk)
      try {
        await send(start, next)
      } catch (err) {
        failure ??= err
      }
    }
  }
  await Promise.all(Array.from({ length: inflight }, lane))
  if (failure !== undefined) throw failure
}
