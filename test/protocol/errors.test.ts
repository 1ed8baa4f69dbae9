import { describe, expect, it } from 'vitest'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { COMMIT_FENCED, COORDINATOR_MOVED, REJOIN, STALE_METADATA } from '../../src/error-policy.js'
import {
  AuthenticationError,
  AuthorizationError,
  ConnectionError,
  KafkaError,
  TimeoutError,
  UnsupportedApiError,
  WafkaError,
  kafkaError,
} from '../../src/errors.js'
import { ErrorCodes, errorCodeInfo } from '../../src/protocol/error-codes.js'

describe('error codes', () => {
  it("cover the whole table, with Java's retriable flags", () => {
    expect(errorCodeInfo(0)?.name).toBe('NONE')
    expect(errorCodeInfo(-1)?.name).toBe('UNKNOWN_SERVER_ERROR')
    expect(errorCodeInfo(6)).toMatchObject({ name: 'NOT_LEADER_OR_FOLLOWER', retriable: true })
    expect(errorCodeInfo(10)).toMatchObject({ name: 'MESSAGE_TOO_LARGE', retriable: false })
    expect(ErrorCodes.UNSUPPORTED_VERSION).toBe(35)
    expect(Object.keys(ErrorCodes).length).toBe(138) // -1 to 136
    expect(Object.keys(ErrorCodes).filter((name) => errorCodeInfo(ErrorCodes[name as keyof typeof ErrorCodes])!.retriable).length).toBe(32) // as kafka-clients 4.4.0: SHARE_SESSION_LIMIT_REACHED joined
  })
})

describe('kafkaError', () => {
  it('names the error, its description, the API and the broker, and is retriable as the table says', () => {
    const err = kafkaError(6, { api: 'Produce', broker: 'broker 1 (localhost:9092)', detail: 'orders-3' })
    expect(err).toBeInstanceOf(KafkaError)
    expect(err).toBeInstanceOf(WafkaError)
    expect(err).toMatchObject({
      code: 6,
      type: 'NOT_LEADER_OR_FOLLOWER',
      api: 'Produce',
      broker: 'broker 1 (localhost:9092)',
      retriable: true,
      name: 'KafkaError',
    })
    expect(err.message).toBe(
      'NOT_LEADER_OR_FOLLOWER (6) in Produce from broker 1 (localhost:9092): Broker is not the leader (or not a replica) for the partition the request targets. (orders-3)',
    )
    expect(kafkaError(29).retriable).toBe(false)
    expect(kafkaError(29).message).toMatch(/^TOPIC_AUTHORIZATION_FAILED \(29\): /)
  })

  it('keeps a code the table does not know', () => {
    const err = kafkaError(4242, { api: 'Fetch' })
    expect(err).toMatchObject({ code: 4242, type: 'UNKNOWN_ERROR_CODE', retriable: false })
    expect(err.message).toMatch(/^UNKNOWN_ERROR_CODE \(4242\) in Fetch: /)
  })
})

describe('client-side errors', () => {
  it('connection and timeout errors are retriable; an unsupported API is not', () => {
    expect(new ConnectionError('x').retriable).toBe(true)
    expect(new TimeoutError('x').retriable).toBe(true)
    expect(new UnsupportedApiError('x').retriable).toBe(false)
    expect(new ConnectionError('x', { cause: 1 }).cause).toBe(1)
  })
})

describe('KafkaError.is and the policy sets', () => {
  it('matches one code or a set, and nothing that is not a KafkaError', () => {
    const moved = kafkaError(ErrorCodes.NOT_COORDINATOR)
    expect(KafkaError.is(moved, ErrorCodes.NOT_COORDINATOR)).toBe(true)
    expect(KafkaError.is(moved, ErrorCodes.COORDINATOR_NOT_AVAILABLE)).toBe(false)
    expect(KafkaError.is(moved, COORDINATOR_MOVED)).toBe(true)
    expect(moved.is(STALE_METADATA)).toBe(false)
    expect(KafkaError.is(new ConnectionError('x'), COORDINATOR_MOVED)).toBe(false)
    expect(KafkaError.is(undefined, 0)).toBe(false)
  })

  it('hold the codes the client acts on', () => {
    expect([...COORDINATOR_MOVED].sort((a, b) => a - b)).toEqual([14, 15, 16])
    // The one "refresh metadata and retry" list (cluster afterError and fetch partition errors).
    expect([...STALE_METADATA].sort((a, b) => a - b)).toEqual([3, 5, 6, 9, 41, 56, 74, 75, 78, 100])
    expect([...COMMIT_FENCED].sort((a, b) => a - b)).toEqual([22, 25, 82, 110, 113])
    expect([...REJOIN].sort((a, b) => a - b)).toEqual([22, 25, 27, 79])
    expect(kafkaError(ErrorCodes.GROUP_AUTHORIZATION_FAILED)).toBeInstanceOf(AuthorizationError)
    expect(kafkaError(ErrorCodes.SASL_AUTHENTICATION_FAILED)).toBeInstanceOf(AuthenticationError)
  })

  it('are the only place numeric error codes appear in src/ (names everywhere else)', () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '../../src')
    const offenders: string[] = []
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) {
          if (name !== 'messages' && name !== 'generate' && name !== 'spec') walk(path)
          continue
        }
        if (!name.endsWith('.ts') || name === 'error-codes.ts') continue
        readFileSync(path, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (/(rrorCode|\bcode)\s*[!=]==\s*-?[1-9]|kafkaError\(-?\d|new Set\(\[\d|\[1[456], 1[456]/.test(line))
              offenders.push(`${path}:${i + 1}: ${line.trim()}`)
          })
      }
    }
    walk(root)
    expect(offenders).toEqual([])
  })
})
