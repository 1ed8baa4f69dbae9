// Kafka's own kafka-delegation-tokens.sh (DelegationTokenCommand, kafka-tools
// 4.4.0 on the rig's JVM) against `wafka broker --config server.properties`
// on a SASL_PLAINTEXT listener with Kafka's delegation.token.secret.key:
// it creates a token (with a renewer), describes it, renews and expires it,
// each checked against what wafka's own admin reads back; the Java client
// authenticates with the token (ScramLoginModule tokenauth=true) and is
// then the token's owner, refused more tokens.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Kafka, type Admin } from '../../src/index.js'
import { javaPeer, requireKafka, type JavaPeer, type JavaResult } from '../peers/kafka.js'

const TOKENS = 'org.apache.kafka.tools.DelegationTokenCommand'
const TOPICS = 'org.apache.kafka.tools.TopicCommand'
const root = join(import.meta.dirname, '..', '..')
const ALICE = 'alice-Pa55word!'

describe.skipIf(!requireKafka())('kafka-delegation-tokens against wafka broker', () => {
  let dir: string
  let child: ChildProcess
  let bootstrap: string
  let java: JavaPeer
  let admin: Admin
  let aliceConfig: string

  /** A client properties file: SASL_PLAINTEXT with SCRAM-SHA-512 as this user (or token). */
  const clientConfig = (name: string, username: string, password: string, tokenauth = false) => {
    const file = join(dir, `${name}.properties`)
    writeFileSync(
      file,
      [
        'security.protocol=SASL_PLAINTEXT',
        'sasl.mechanism=SCRAM-SHA-512',
        `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${username}" password="${password}"${tokenauth ? ' tokenauth="true"' : ''};`,
        '',
      ].join('\n'),
    )
    return file
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wafka-kafka-tokens-'))
    const properties = join(dir, 'server.properties')
    writeFileSync(
      properties,
      [
        'listeners=SASL_PLAINTEXT://127.0.0.1:0',
        'sasl.enabled.mechanisms=SCRAM-SHA-512',
        `listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="${ALICE}" user_bob="bob-secret";`,
        'delegation.token.secret.key=tool-test-secret',
        '',
      ].join('\n'),
    )
    child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'broker', '--config', properties], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s))
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (out += s))
    const deadline = Date.now() + 20_000
    let served: RegExpExecArray | null
    while (!(served = /bootstrap servers (\S+)/.exec(out))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`wafka broker did not start: ${out}`)
      await new Promise((r) => setTimeout(r, 20))
    }
    bootstrap = served[1]
    java = javaPeer(bootstrap)
    aliceConfig = clientConfig('alice', 'alice', ALICE)
    admin = new Kafka({
      clientId: 'beside-kafka-tokens',
      brokers: bootstrap.split(','),
      sasl: { mechanism: 'scram-sha-512', username: 'alice', password: ALICE },
    }).admin()
    await admin.connect()
  })
  afterAll(async () => {
    await admin?.disconnect()
    child?.kill()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const run = (main: string, config: string, args: string[]): Promise<JavaResult> =>
    java.runJava(main, ['--bootstrap-server', bootstrap, '--command-config', config, ...args], { timeoutMs: 90_000 })
  const tool = async (args: string[], config = aliceConfig): Promise<JavaResult> => {
    const r = await run(TOKENS, config, args)
    expect(r.code, `kafka-delegation-tokens ${args.join(' ')}:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0)
    return r
  }

  it('creates, describes, renews and expires a token as wafka reads them back; the Java client authenticates with it as its owner', async () => {
    const created = await tool(['--create', '--max-life-time-period', '-1', '--renewer-principal', 'User:bob'])
    const id = /Created delegation token with tokenId : (\S+)/.exec(created.stdout)?.[1]
    expect(id, created.stdout).toBeDefined()
    const [token] = await admin.describeDelegationToken({ owners: ['User:alice'] })
    expect(token.tokenInfo).toMatchObject({ tokenId: id, owner: 'User:alice', tokenRequester: 'User:alice', renewers: ['User:bob'] })
    const hmac = token.hmac.toString('base64')
    // The tool's table: the id, the HMAC (base64), owner, requester and renewers as Kafka prints them.
    expect(created.stdout).toMatch(
      new RegExp(`${id}\\s+${hmac.replace(/[+/]/g, (c) => `\\${c}`)}\\s+User:alice\\s+User:alice\\s+\\[User:bob\\]`),
    )

    const described = await tool(['--describe', '--owner-principal', 'User:alice'])
    expect(described.stdout).toContain('Total number of tokens : 1')
    expect(described.stdout).toContain(id)

    // The Java client signs in with the token (tokenauth=true): it is alice, and a token's connection may not ask for tokens.
    const tokenConfig = clientConfig('token', id!, hmac, true)
    const listed = await run(TOPICS, tokenConfig, ['--list'])
    expect(listed.code, listed.stderr.slice(-3000)).toBe(0)
    const refused = await run(TOKENS, tokenConfig, ['--describe', '--owner-principal', 'User:alice'])
    expect(refused.code).not.toBe(0)
    expect(refused.stdout + refused.stderr).toMatch(/UnsupportedByAuthenticationException: Delegation Token requests are not allowed/)

    const before = token.tokenInfo.expiryTimestamp
    const renewed = await tool(['--renew', '--hmac', hmac, '--renew-time-period', '60000'])
    expect(renewed.stdout).toContain('Completed renew operation. New expiry date')
    const [after] = await admin.describeDelegationToken({ owners: ['User:alice'] })
    expect(after.tokenInfo.expiryTimestamp).toBeLessThan(before)
    expect(after.tokenInfo.expiryTimestamp).toBeGreaterThan(Date.now() + 30_000)

    const expired = await tool(['--expire', '--hmac', hmac, '--expiry-time-period', '-1'])
    expect(expired.stdout).toContain('Completed expire operation')
    expect(await admin.describeDelegationToken({ owners: ['User:alice'] })).toEqual([])
    const gone = await run(TOPICS, tokenConfig, ['--list'])
    expect(gone.code).not.toBe(0)
    expect(gone.stdout + gone.stderr).toMatch(/SaslAuthenticationException|Authentication failed/)
  })
})
