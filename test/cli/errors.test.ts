// How the CLI fails: one line on stderr naming the command, no stack trace,
// exit 2 for a usage mistake and 1 for anything else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:net'
import { startCluster, type RunningCluster } from '../../src/broker/index.js'
import { built, oneCleanLine, wafka } from './support.js'

describe.skipIf(!built)('wafka errors', () => {
  let cluster: RunningCluster
  beforeAll(async () => {
    cluster = await startCluster({ brokers: 1, autoCreateTopics: false, topics: [{ name: 'there', partitions: 1 }] })
  })
  afterAll(() => cluster?.stop())

  it('--help on every command, and the top-level list names them all', async () => {
    const top = await wafka(['--help'])
    expect(top.code).toBe(0)
    for (const c of ['demo', 'produce', 'consume', 'topics', 'groups', 'cluster', 'acls', 'bench', 'broker']) {
      expect(top.stdout).toMatch(new RegExp(`^  ${c} `, 'm'))
      const r = await wafka([c, '--help'])
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(new RegExp(`^usage: wafka ${c}`))
    }
  })

  it('usage mistakes exit 2 with one line', async () => {
    const b = cluster.bootstrapServers
    for (const args of [
      ['frobnicate'],
      ['produce', '-b', b],
      ['produce', '-b', b, '-t', 'there', '--acks', '2'],
      ['produce', '-b', b, '-t', 'there', '--acks', '1', '--idempotent'],
      ['consume', '-t', 'there'],
      ['consume', '-b', b, '-t', 'there', '-o', 'yesterday'],
      ['consume', '-b', b, '-t', 'there', '-f', '%q'],
      ['consume', '-b', b, '-t', 'there', '-g', 'g', '-p', '0'],
      ['topics', 'rename', '-b', b],
      ['groups', 'reset-offsets', 'g', '-b', b, '-t', 'there'],
      ['topics', 'list', '-b', b, '--sasl-mechanism', 'GSSAPI', '--sasl-username', 'u', '--sasl-password', 'p'],
      ['topics', 'list', '-b', b, '-X', 'novalue'],
      ['topics', 'list', '-b', b, '-X', 'lingerMz=5'],
      ['topics', 'list', '-b', b, '-X', 'no.such.property=1'],
      ['topics', 'list', '-b', b, '--config', '/nonexistent/client.properties'],
    ]) {
      const r = await wafka(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(oneCleanLine(r.stderr), r.stderr).toBe(true)
      expect(r.stdout).toBe('')
    }
  })

  it('a missing topic: exit 1, one line, at once', async () => {
    const b = cluster.bootstrapServers
    for (const args of [
      ['produce', '-b', b, '-t', 'absent'],
      ['consume', '-b', b, '-t', 'absent'],
      ['topics', 'describe', 'absent', '-b', b],
      ['topics', 'delete', 'absent', '-b', b],
    ]) {
      const started = Date.now()
      const r = await wafka(args, { input: 'x\n' })
      expect(r.code, args.join(' ')).toBe(1)
      expect(r.stderr).toBe(`wafka ${args[0]}: topic "absent" does not exist\n`)
      expect(Date.now() - started).toBeLessThan(10_000)
    }
  })

  it('an unreachable broker: exit 1, one line naming it', async () => {
    // A port that was free a moment ago: connections are refused.
    const server: Server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    await new Promise((resolve) => server.close(resolve))
    const r = await wafka(['topics', 'list', '-b', `127.0.0.1:${port}`, '-X', 'defaultApiTimeoutMs=3000'])
    expect(r.code).toBe(1)
    expect(oneCleanLine(r.stderr), r.stderr).toBe(true)
    expect(r.stderr).toContain(`127.0.0.1:${port}`)
  })

  it('--config: a properties file supplies the brokers and client options; unknown properties are refused', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const dir = mkdtempSync(`${tmpdir()}/wafka-cli-`)
    writeFileSync(
      `${dir}/ok.properties`,
      `# a comment\nbootstrap.servers=${cluster.bootstrapServers}\nclient.id=from-file\nrequest.timeout.ms: 5000\n`,
    )
    const ok = await wafka(['topics', 'list', '--config', `${dir}/ok.properties`])
    expect(ok).toMatchObject({ code: 0, stdout: 'there\n' })
    writeFileSync(`${dir}/bad.properties`, `bootstrap.servers=${cluster.bootstrapServers}\nfetch.frobnication=1\n`)
    const bad = await wafka(['topics', 'list', '--config', `${dir}/bad.properties`])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^wafka topics: unknown property fetch\.frobnication/)
    // librdkafka's names (metadata.broker.list) in the file, property and wafka names with -X.
    writeFileSync(`${dir}/rdkafka.conf`, `metadata.broker.list=${cluster.bootstrapServers}\nlinger.ms=0\n`)
    const sent = await wafka(
      ['produce', '-t', 'there', '--config', `${dir}/rdkafka.conf`, '-X', 'batch.size=1024', '-X', 'requestTimeoutMs=5000', '--verbose'],
      { input: 'via-config\n' },
    )
    expect(sent).toMatchObject({ code: 0, stderr: '' })
    expect(sent.stdout).toBe('there [0] @ 0\n')
    // One file for both kinds of client, as Java users keep it: the consumer leaves linger.ms out, with a note.
    const back = await wafka(['consume', '-t', 'there', '--config', `${dir}/rdkafka.conf`, '-o', '-1', '-e'])
    expect(back).toEqual({
      code: 0,
      stdout: 'via-config\n',
      stderr: 'wafka consume: linger.ms in --config is a producer option: ignored\n',
    })
    // -X names the command's own client: one of the other kind is a mistake.
    const wrongKind = await wafka(['consume', '-t', 'there', '-b', cluster.bootstrapServers, '-X', 'lingerMs=5', '-e'])
    expect(wrongKind.code).toBe(2)
    expect(wrongKind.stderr).toMatch(/^wafka consume: -X lingerMs is a producer option; this command's client is a consumer/)
    const wrongProperty = await wafka(['produce', '-t', 'there', '-b', cluster.bootstrapServers, '-X', 'session.timeout.ms=10000'])
    expect(wrongProperty.code).toBe(2)
    expect(wrongProperty.stderr).toMatch(/^wafka produce: -X sessionTimeoutMs is a consumer option/)
    // With topics alter, --config k=v is a topic config and --config FILE still the connection's file.
    const altered = await wafka(['topics', 'alter', 'there', '--config', `${dir}/rdkafka.conf`, '--config', 'retention.ms=60000'])
    expect(altered).toMatchObject({ code: 0, stdout: 'there: set retention.ms=60000\n' })
  })
})
