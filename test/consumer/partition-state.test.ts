import { describe, expect, it } from 'vitest'
import { WafkaError } from '../../src/errors.js'
import { OwnedPartitions, MAX_QUEUED, PartitionState } from '../../src/consumer/partition-state.js'

const refused = (fn: () => void): string => {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(WafkaError)
    expect((err as WafkaError).retriable).toBe(false)
    return (err as Error).message
  }
  throw new Error('the transition was allowed')
}

describe('PartitionState transitions', () => {
  it('take and release pair up: user code never holds two batches of a partition', () => {
    const s = new PartitionState('t', 0)
    expect(refused(() => s.release())).toMatch(/^t-0: release\(\) refused: user code holds no batch/)
    s.take()
    expect(s.busy).toBe(true)
    expect(refused(() => s.take())).toMatch(/take\(\) refused: user code already holds a batch/)
    s.release()
    expect(s.busy).toBe(false)
  })

  it('one fetch at a time; fetched data moves the position forward only', () => {
    const s = new PartitionState('t', 1)
    s.seek(10n)
    expect(s.fetchable).toBe(true)
    s.startFetch()
    expect(s.fetchable).toBe(false)
    expect(refused(() => s.startFetch())).toMatch(/a fetch is already in flight/)
    expect(refused(() => s.fetched(10n, 3))).toMatch(/would not move forward \(10 to 10\)/)
    s.fetched(20n, 3)
    s.endFetch()
    expect([s.fetchPosition, s.lastFetchedEpoch, s.queued]).toEqual([20n, 3, 1])
    for (let i = 1; i < MAX_QUEUED; i++) s.fetched(20n + BigInt(i), -1)
    expect(s.fetchable).toBe(false) // MAX_QUEUED responses wait for user code
    expect(s.lastFetchedEpoch).toBe(3) // an unknown epoch (-1) keeps the last known one
    for (let i = 0; i < MAX_QUEUED; i++) s.dequeued()
    expect(refused(() => s.dequeued())).toMatch(/nothing is queued/)
    expect(s.fetchable).toBe(true)
  })

  it('seek ends a reset, a halt and whatever was queued, and invalidates fetched data', () => {
    const s = new PartitionState('t', 2)
    expect(s.fetchable).toBe(false) // no position yet
    s.reset('earliest')
    expect(s.resetTo).toBe('earliest')
    s.seek(0n)
    expect(s.resetTo).toBe(null)
    s.fetched(5n, -1)
    s.askFor(4096)
    s.halt()
    expect(s.fetchable).toBe(false)
    const version = s.version
    s.halt(3n)
    expect([s.fetchPosition, s.processed, s.queued, s.fetchBytes, s.halted]).toEqual([3n, 3n, 0, 0, true])
    expect(s.version).toBe(version + 1)
    s.seek(4n)
    expect(s.halted).toBe(false)
    expect(s.fetchable).toBe(true)
  })

  it('backoff and handler failures delay fetching; a success resets the handler backoff', () => {
    const s = new PartitionState('t', 3)
    s.seek(0n)
    s.backoff(60_000)
    expect(s.fetchable).toBe(false)
    expect(s.retryAt).toBeGreaterThan(Date.now() + 59_000)
    const t = new PartitionState('t', 4)
    t.handlerFailed(100, 100_000)
    const first = t.retryAt - Date.now()
    for (let i = 0; i < 6; i++) t.handlerFailed(100, 100_000)
    expect(t.retryAt - Date.now()).toBeGreaterThan(first) // grows with failures in a row
    t.handlerSucceeded()
    t.handlerFailed(100, 100_000)
    expect(t.retryAt - Date.now()).toBeLessThanOrEqual(first + 100)
  })

  it('commits: committedAt moves both marks; markCommit only the mark', () => {
    const s = new PartitionState('t', 5)
    s.startAt(7n)
    expect([s.fetchPosition, s.processed, s.committed]).toEqual([7n, 7n, 7n])
    s.processedTo(9n)
    s.markCommit(9n)
    expect([s.committed, s.commitMark]).toEqual([7n, 9n])
    s.committedAt(12n)
    expect([s.committed, s.commitMark]).toEqual([12n, 12n])
  })

  it('removal from the assignment invalidates what was fetched for the partition', () => {
    const a = new OwnedPartitions()
    const s = a.add('t', 0)
    const version = s.version
    a.remove('t', 0)
    expect(s.version).toBe(version + 1)
    expect(a.has('t', 0)).toBe(false)
  })
})
