import { describe, expect, it } from 'vitest'
import { cooperativeStickyAssignor, rangeAssignor, roundRobinAssignor, type PartitionAssignor } from '../../src/consumer/assignors/index.js'
import { resolveConsumerConfig, type ConsumerConfig } from '../../src/consumer/config.js'
import { ConfigError } from '../../src/errors.js'

const bad = (config: ConsumerConfig) => () => resolveConsumerConfig(config)

describe('resolveConsumerConfig defaults', () => {
  it('takes the Java consumer defaults', () => {
    const c = resolveConsumerConfig({ groupId: 'g' })
    expect(c).toMatchObject({
      groupId: 'g',
      groupInstanceId: null,
      groupProtocol: 'classic',
      serverAssignor: null,
      sessionTimeoutMs: 45_000,
      heartbeatIntervalMs: 3_000,
      maxPollIntervalMs: 300_000,
      rebalanceTimeoutMs: 300_000,
      autoOffsetReset: 'latest',
      isolationLevel: 0,
      minBytes: 1,
      maxBytes: 52_428_800,
      maxBytesPerPartition: 1_048_576,
      maxWaitTimeInMs: 500,
      autoCommit: true,
      autoCommitIntervalMs: 5_000,
      checkCrcs: true,
      rackId: null,
    })
    expect(c.assignors).toEqual([rangeAssignor, cooperativeStickyAssignor])
  })

  it('defaults the rebalance timeout to maxPollIntervalMs', () => {
    expect(resolveConsumerConfig({ groupId: 'g', maxPollIntervalMs: 60_000 }).rebalanceTimeoutMs).toBe(60_000)
    expect(resolveConsumerConfig({ groupId: 'g', maxPollIntervalMs: 60_000, rebalanceTimeoutMs: 10_000 }).rebalanceTimeoutMs).toBe(10_000)
  })

  it('does not auto-commit without a group', () => {
    const c = resolveConsumerConfig({})
    expect(c.groupId).toBeNull()
    expect(c.autoCommit).toBe(false)
  })

  it('lets a group turn auto-commit off', () => {
    expect(resolveConsumerConfig({ groupId: 'g', autoCommit: false }).autoCommit).toBe(false)
  })

  it('maps read_committed to isolation level 1', () => {
    expect(resolveConsumerConfig({ isolationLevel: 'read_committed' }).isolationLevel).toBe(1)
    expect(resolveConsumerConfig({ isolationLevel: 'read_uncommitted' }).isolationLevel).toBe(0)
  })

  it('keeps explicit values', () => {
    const c = resolveConsumerConfig({
      groupId: 'g',
      groupInstanceId: 'i-1',
      sessionTimeoutMs: 10_000,
      heartbeatIntervalMs: 1_000,
      autoOffsetReset: 'earliest',
      minBytes: 0,
      maxWaitTimeInMs: 0,
      maxBytes: 1024,
      maxBytesPerPartition: 512,
      autoCommitIntervalMs: 100,
      groupProtocol: 'consumer',
      serverAssignor: 'uniform',
      rackId: 'r1',
    })
    expect(c).toMatchObject({
      groupInstanceId: 'i-1',
      sessionTimeoutMs: 10_000,
      heartbeatIntervalMs: 1_000,
      autoOffsetReset: 'earliest',
      minBytes: 0,
      maxWaitTimeInMs: 0,
      maxBytes: 1024,
      maxBytesPerPartition: 512,
      autoCommitIntervalMs: 100,
      groupProtocol: 'consumer',
      serverAssignor: 'uniform',
      rackId: 'r1',
    })
  })
})

describe('resolveConsumerConfig assignors', () => {
  it('resolves built-in assignors by Java name, in order', () => {
    const c = resolveConsumerConfig({ groupId: 'g', partitionAssigners: ['roundrobin', 'range'] })
    expect(c.assignors).toEqual([roundRobinAssignor, rangeAssignor])
  })

  it('accepts custom assignor objects next to names', () => {
    const custom: PartitionAssignor = { ...rangeAssignor, name: 'mine', assign: () => new Map() } as PartitionAssignor
    const c = resolveConsumerConfig({ groupId: 'g', partitionAssigners: [custom, 'cooperative-sticky'] })
    expect(c.assignors).toEqual([custom, cooperativeStickyAssignor])
    expect(c.assignors[0]).toBe(custom)
  })

  it('rejects an unknown assignor name', () => {
    expect(bad({ groupId: 'g', partitionAssigners: ['sticky-ish'] })).toThrow(ConfigError)
    expect(bad({ groupId: 'g', partitionAssigners: ['sticky-ish'] })).toThrow(/sticky-ish/)
  })

  it('rejects an assignor object without a name or assign()', () => {
    expect(bad({ groupId: 'g', partitionAssigners: [{ name: 'x' } as unknown as PartitionAssignor] })).toThrow(ConfigError)
    expect(bad({ groupId: 'g', partitionAssigners: [{ assign: () => new Map() } as unknown as PartitionAssignor] })).toThrow(ConfigError)
  })

  it('rejects an empty assignor list', () => {
    expect(bad({ groupId: 'g', partitionAssigners: [] })).toThrow(ConfigError)
  })
})

describe('resolveConsumerConfig errors', () => {
  it('rejects a heartbeat interval at or above the session timeout', () => {
    expect(bad({ groupId: 'g', sessionTimeoutMs: 10_000, heartbeatIntervalMs: 10_000 })).toThrow(ConfigError)
    expect(bad({ groupId: 'g', sessionTimeoutMs: 10_000, heartbeatIntervalMs: 20_000 })).toThrow(ConfigError)
    expect(bad({ groupId: 'g', sessionTimeoutMs: 2_000 })).toThrow(/heartbeatIntervalMs/)
    expect(resolveConsumerConfig({ groupId: 'g', sessionTimeoutMs: 10_000, heartbeatIntervalMs: 9_999 }).heartbeatIntervalMs).toBe(9_999)
  })

  it('rejects groupInstanceId without groupId', () => {
    expect(bad({ groupInstanceId: 'i-1' })).toThrow(ConfigError)
  })

  it('rejects autoCommit: true without groupId', () => {
    expect(bad({ autoCommit: true })).toThrow(ConfigError)
  })

  it('rejects empty or non-string ids', () => {
    expect(bad({ groupId: '' })).toThrow(ConfigError)
    expect(bad({ groupId: 'g', groupInstanceId: '' })).toThrow(ConfigError)
    expect(bad({ groupId: 42 as unknown as string })).toThrow(ConfigError)
    expect(bad({ rackId: '' })).toThrow(ConfigError)
  })

  it.each([
    ['autoOffsetReset', { autoOffsetReset: 'smallest' }],
    ['isolationLevel', { isolationLevel: 'READ_COMMITTED' }],
    ['groupProtocol', { groupProtocol: 'eager' }],
  ])('rejects a bad %s', (name, config) => {
    expect(bad({ groupId: 'g', ...(config as ConsumerConfig) })).toThrow(ConfigError)
    expect(bad({ groupId: 'g', ...(config as ConsumerConfig) })).toThrow(name)
  })

  it.each([
    'sessionTimeoutMs',
    'heartbeatIntervalMs',
    'maxPollIntervalMs',
    'rebalanceTimeoutMs',
    'minBytes',
    'maxBytes',
    'maxBytesPerPartition',
    'maxWaitTimeInMs',
    'autoCommitIntervalMs',
    'requestTimeoutMs',
    'retryBackoffMs',
    'retryBackoffMaxMs',
    'metadataMaxAgeMs',
  ] as const)('rejects a negative, NaN or non-number %s', (name) => {
    for (const value of [-1, Number.NaN, Number.POSITIVE_INFINITY, '100' as unknown as number]) {
      expect(bad({ groupId: 'g', [name]: value }), `${name} = ${String(value)}`).toThrow(ConfigError)
    }
  })

  it.each(['sessionTimeoutMs', 'maxPollIntervalMs', 'maxBytes', 'maxBytesPerPartition', 'autoCommitIntervalMs'] as const)(
    'rejects a zero %s',
    (name) => {
      expect(bad({ groupId: 'g', heartbeatIntervalMs: 1, [name]: 0 })).toThrow(ConfigError)
    },
  )
})
