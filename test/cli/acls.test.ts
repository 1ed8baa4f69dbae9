// wafka acls against Apache Kafka with StandardAuthorizer: an ACL created by
// the CLI is listed, lets its principal in, and is gone after delete; a bad
// name is one line on stderr.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireSecuredKafka, startSecuredKafka, USERS, type SecuredKafka } from '../security/secured-kafka.js'
import { built, oneCleanLine, wafka } from './support.js'

describe.skipIf(!built || !requireSecuredKafka())('wafka acls on Apache Kafka with an authorizer', () => {
  let kafka: SecuredKafka
  /** The rig's PLAINTEXT listener: its principal, ANONYMOUS, is a super user. */
  let admin: string[]
  let bob: string[]
  beforeAll(async () => {
    kafka = await startSecuredKafka()
    admin = ['-b', kafka.listener('RIG').join(',')]
    bob = [
      '-b',
      kafka.listener('SASL').join(','),
      '--sasl-mechanism',
      'SCRAM-SHA-512',
      '--sasl-username',
      'bob',
      '--sasl-password',
      USERS.bob,
    ]
    expect(await wafka(['topics', 'create', 'guarded', '-P', '1', ...admin])).toMatchObject({ code: 0 })
  }, 120_000)
  afterAll(() => kafka?.stop())

  const list = async (...filter: string[]) => {
    const r = await wafka(['acls', 'list', ...admin, '--json', ...filter])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    return JSON.parse(r.stdout) as Array<Record<string, string>>
  }

  it('create, list, the principal gets in, delete, the principal is out again', async () => {
    const refused = await wafka(['produce', '-t', 'guarded', ...bob, '-X', 'defaultApiTimeoutMs=10000'], { input: 'before\n' })
    expect(refused.code).toBe(1)
    expect(oneCleanLine(refused.stderr), refused.stderr).toBe(true)
    // Without DESCRIBE, Kafka's metadata does not show bob the topic at all.
    expect(refused.stderr).toBe('wafka produce: topic "guarded" does not exist\n')

    const created = await wafka([
      'acls',
      'create',
      ...admin,
      '--topic',
      'guarded',
      '--principal',
      'User:bob',
      '--operation',
      'Write',
      '--operation',
      'describe',
    ])
    expect(created).toMatchObject({ code: 0, stderr: '' })
    expect(created.stdout).toBe(
      'created: allow User:bob write on topic guarded (literal) from *\ncreated: allow User:bob describe on topic guarded (literal) from *\n',
    )
    const prefixed = await wafka([
      'acls',
      'create',
      ...admin,
      '--resource-type',
      'group',
      '--resource-name',
      'bob-',
      '--pattern-type',
      'prefixed',
      '--principal',
      'User:bob',
      '--operation',
      'READ',
      '--permission',
      'deny',
      '--host',
      '10.0.0.1',
    ])
    expect(prefixed).toMatchObject({ code: 0, stderr: '' })

    const mine = await list('--principal', 'User:bob')
    const sorted = (acls: Array<Record<string, string>>) => [...acls].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
    expect(sorted(mine)).toEqual(
      sorted([
        {
          resourceType: 'topic',
          resourceName: 'guarded',
          patternType: 'literal',
          principal: 'User:bob',
          host: '*',
          operation: 'write',
          permission: 'allow',
        },
        {
          resourceType: 'topic',
          resourceName: 'guarded',
          patternType: 'literal',
          principal: 'User:bob',
          host: '*',
          operation: 'describe',
          permission: 'allow',
        },
        {
          resourceType: 'group',
          resourceName: 'bob-',
          patternType: 'prefixed',
          principal: 'User:bob',
          host: '10.0.0.1',
          operation: 'read',
          permission: 'deny',
        },
      ]),
    )
    expect(await list('--topic', 'guarded', '--operation', 'write')).toHaveLength(1)
    expect(await list('--resource-type', 'group')).toHaveLength(1)
    expect(await list('--principal', 'User:carol')).toEqual([])
    const text = await wafka(['acls', 'list', ...admin, '--topic', 'guarded'])
    expect(text.stdout).toMatch(/^resource type +resource name +pattern +principal +host +operation +permission$/m)
    expect(text.stdout).toMatch(/^topic +guarded +literal +User:bob +\* +write +allow$/m)

    // The ACL is real: bob may write now.
    const allowed = await wafka(['produce', '-t', 'guarded', ...bob], { input: 'after\n' })
    expect(allowed).toMatchObject({ code: 0, stderr: '' })

    const deleted = await wafka(['acls', 'delete', ...admin, '--topic', 'guarded', '--principal', 'User:bob', '--json'])
    expect(deleted).toMatchObject({ code: 0, stderr: '' })
    expect(
      JSON.parse(deleted.stdout)
        .deleted.map((a: { operation: string }) => a.operation)
        .sort(),
    ).toEqual(['describe', 'write'])
    // DeleteAcls returns once the controller has applied it; the broker's authorizer follows the metadata log.
    const deadline = Date.now() + 20_000
    while ((await list('--topic', 'guarded')).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
    expect(await list('--topic', 'guarded')).toEqual([])
    expect(await list('--principal', 'User:bob')).toHaveLength(1)
    const none = await wafka(['acls', 'delete', ...admin, '--topic', 'guarded'])
    expect(none).toMatchObject({ code: 0, stdout: 'no ACL matched: none deleted\n' })
    const gone = await wafka(['produce', '-t', 'guarded', ...bob, '-X', 'defaultApiTimeoutMs=10000'], { input: 'again\n' })
    expect(gone.code).toBe(1)
    expect(gone.stderr).toBe('wafka produce: topic "guarded" does not exist\n')
  })

  it('bad names and missing parts: one line on stderr, exit 2, nothing sent', async () => {
    const bad = await wafka(['acls', 'create', ...admin, '--topic', 'guarded', '--principal', 'User:bob', '--operation', 'reed'])
    expect(bad.code).toBe(2)
    expect(oneCleanLine(bad.stderr), bad.stderr).toBe(true)
    expect(bad.stderr).toMatch(/^wafka acls: unknown --operation "reed": one of all, read, write, /)
    expect(bad.stdout).toBe('')
    for (const args of [
      ['create', '--topic', 'guarded', '--principal', 'User:bob', '--operation', 'any'],
      ['create', '--resource-type', 'table', '--resource-name', 'x', '--principal', 'User:bob', '--operation', 'read'],
      ['create', '--topic', 'guarded', '--principal', 'bob', '--operation', 'read'],
      ['create', '--topic', 'guarded', '--operation', 'read'],
      ['list', '--permission', 'maybe'],
      ['delete'],
    ]) {
      const r = await wafka(['acls', ...args, ...admin])
      expect(r.code, args.join(' ')).toBe(2)
      expect(oneCleanLine(r.stderr), r.stderr).toBe(true)
    }
    expect(await list('--topic', 'guarded')).toEqual([])
  })
})
