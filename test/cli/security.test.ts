// The CLI's SASL and TLS flags against a secured Apache Kafka: the flags,
// the WAFKA_SASL_* variables and a properties file all authenticate; a wrong
// password is one line on stderr that never shows a password.
import { writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireSecuredKafka, startSecuredKafka, USERS, type SecuredKafka } from '../security/secured-kafka.js'
import { built, oneCleanLine, wafka } from './support.js'

describe.skipIf(!built || !requireSecuredKafka())('wafka with SASL and TLS on Apache Kafka', () => {
  let kafka: SecuredKafka
  let caFile: string
  beforeAll(async () => {
    kafka = await startSecuredKafka()
    caFile = `${kafka.certs.dir}/cli-ca.pem`
    writeFileSync(caFile, kafka.certs.ca)
  }, 120_000)
  afterAll(() => kafka?.stop())

  it('SASL PLAIN from the flags: create a topic, produce, consume', async () => {
    const auth = [
      '-b',
      kafka.listener('SASL').join(','),
      '--sasl-mechanism',
      'PLAIN',
      '--sasl-username',
      'alice',
      '--sasl-password',
      USERS.alice,
    ]
    expect(await wafka(['topics', 'create', 'secured', '-P', '1', ...auth])).toMatchObject({ code: 0, stderr: '' })
    expect(await wafka(['produce', '-t', 'secured', ...auth], { input: 'one\ntwo\n' })).toMatchObject({ code: 0, stderr: '' })
    const r = await wafka(['consume', '-t', 'secured', '-o', 'beginning', '-e', ...auth])
    expect(r).toMatchObject({ code: 0, stdout: 'one\ntwo\n', stderr: '' })
  })

  it('SCRAM-SHA-512 from WAFKA_SASL_* over TLS with --ca', async () => {
    const env = { WAFKA_SASL_MECHANISM: 'SCRAM-SHA-512', WAFKA_SASL_USERNAME: 'alice', WAFKA_SASL_PASSWORD: USERS.alice }
    const r = await wafka(['topics', 'list', '-b', kafka.listener('SASL_SSL').join(','), '--ca', caFile], { env })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n')).toContain('secured')
  })

  it('TLS only, from a Java-style properties file', async () => {
    const file = `${kafka.certs.dir}/cli-tls.properties`
    writeFileSync(file, `bootstrap.servers=${kafka.listener('SSL').join(',')}\nsecurity.protocol=SSL\nssl.ca.location=${caFile}\n`)
    const r = await wafka(['cluster', '--config', file, '--json'])
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout).brokers.length).toBe(1)
  })

  it('a wrong password: exit 1, one line, no password in it; the untrusted certificate likewise', async () => {
    const wrong = 'not-' + USERS.alice
    const r = await wafka([
      'topics',
      'list',
      '-b',
      kafka.listener('SASL').join(','),
      '--sasl-mechanism',
      'SCRAM-SHA-256',
      '--sasl-username',
      'alice',
      '--sasl-password',
      wrong,
    ])
    expect(r.code).toBe(1)
    expect(oneCleanLine(r.stderr), r.stderr).toBe(true)
    expect(r.stderr).toMatch(/auth/i)
    expect(r.stderr + r.stdout).not.toContain(wrong)
    expect(r.stderr + r.stdout).not.toContain(USERS.alice)
    const untrusted = await wafka(['topics', 'list', '-b', kafka.listener('SSL').join(','), '--tls', '-X', 'defaultApiTimeoutMs=5000'])
    expect(untrusted.code).toBe(1)
    expect(oneCleanLine(untrusted.stderr), untrusted.stderr).toBe(true)
  })
})
