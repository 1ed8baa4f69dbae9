// Kafka's own kafka-acls.sh (AclCommand, kafka-tools 4.4.0 on the rig's JVM)
// against `wafka broker --config server.properties` with Kafka's
// authorizer.class.name and super.users: it adds ACLs (LITERAL and
// PREFIXED, ALLOW and DENY), lists them, and removes them; each result is
// checked against what wafka's own admin reads back (DescribeAcls), and the
// ACLs bind a user at once.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from '../../src/admin/acls.js'
import { Kafka, type Admin } from '../../src/index.js'
import { javaPeer, requireKafka, type JavaPeer, type JavaResult } from '../peers/kafka.js'

const ACLS = 'org.apache.kafka.tools.AclCommand'
const root = join(import.meta.dirname, '..', '..')

describe.skipIf(!requireKafka())('kafka-acls against wafka broker', () => {
  let dir: string
  let child: ChildProcess
  let bootstrap: string
  let java: JavaPeer
  let admin: Admin

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wafka-kafka-acls-'))
    const properties = join(dir, 'server.properties')
    writeFileSync(
      properties,
      [
        'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
        // The PLAINTEXT listener's clients (the tool, the admin below) manage the ACLs.
        'super.users=User:ANONYMOUS',
        'allow.everyone.if.no.acl.found=false',
        '',
      ].join('\n'),
    )
    child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'broker', '--port', '0', '--config', properties], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
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
    admin = new Kafka({ clientId: 'beside-kafka-acls', brokers: bootstrap.split(',') }).admin()
    await admin.connect()
  })
  afterAll(async () => {
    await admin?.disconnect()
    child?.kill()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const tool = async (args: string[]): Promise<JavaResult> => {
    const r = await java.runJava(ACLS, ['--bootstrap-server', bootstrap, ...args], { timeoutMs: 90_000 })
    expect(r.code, `kafka-acls ${args.join(' ')}:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0)
    return r
  }

  it('adds, lists and removes ACLs as wafka reads them back', async () => {
    await tool(['--add', '--allow-principal', 'User:bob', '--operation', 'Read', '--operation', 'Write', '--topic', 'orders'])
    await tool(['--add', '--allow-principal', 'User:bob', '--operation', 'Read', '--group', 'bob-', '--resource-pattern-type', 'prefixed'])
    await tool(['--add', '--deny-principal', 'User:eve', '--deny-host', '10.0.0.9', '--operation', 'All', '--topic', '*'])

    const described = await admin.describeAcls({})
    const flat = described.resources
      .flatMap((r) =>
        r.acls.map((a) => [r.resourceType, r.resourceName, r.resourcePatternType, a.principal, a.host, a.operation, a.permissionType]),
      )
      .sort()
    expect(flat).toEqual(
      [
        [AclResourceTypes.TOPIC, 'orders', ResourcePatternTypes.LITERAL, 'User:bob', '*', AclOperationTypes.READ, AclPermissionTypes.ALLOW],
        [
          AclResourceTypes.TOPIC,
          'orders',
          ResourcePatternTypes.LITERAL,
          'User:bob',
          '*',
          AclOperationTypes.WRITE,
          AclPermissionTypes.ALLOW,
        ],
        [AclResourceTypes.GROUP, 'bob-', ResourcePatternTypes.PREFIXED, 'User:bob', '*', AclOperationTypes.READ, AclPermissionTypes.ALLOW],
        [AclResourceTypes.TOPIC, '*', ResourcePatternTypes.LITERAL, 'User:eve', '10.0.0.9', AclOperationTypes.ALL, AclPermissionTypes.DENY],
      ].sort(),
    )

    // --list --topic orders: Kafka's MATCH-free listing of that resource's own ACLs.
    const listed = (await tool(['--list', '--topic', 'orders'])).stdout
    expect(listed).toMatch(/ResourcePattern\(resourceType=TOPIC, name=orders, patternType=LITERAL\)/)
    expect(listed).toMatch(/\(principal=User:bob, host=\*, operation=READ, permissionType=ALLOW\)/)
    expect(listed).toMatch(/\(principal=User:bob, host=\*, operation=WRITE, permissionType=ALLOW\)/)
    expect(listed).not.toMatch(/User:eve/)
    // --list --principal: every resource the principal has ACLs on.
    const bobs = (await tool(['--list', '--principal', 'User:bob'])).stdout
    expect(bobs).toMatch(/name=bob-, patternType=PREFIXED/)

    await tool(['--remove', '--force', '--allow-principal', 'User:bob', '--operation', 'Write', '--topic', 'orders'])
    const left = (await admin.describeAcls({ resourceType: AclResourceTypes.TOPIC, resourceName: 'orders' })).resources
    expect(left.flatMap((r) => r.acls.map((a) => a.operation))).toEqual([AclOperationTypes.READ])
    await tool(['--remove', '--force', '--topic', '*'])
    await tool(['--remove', '--force', '--group', 'bob-', '--resource-pattern-type', 'prefixed'])
    const rest = (await admin.describeAcls({})).resources
    expect(rest.map((r) => r.resourceName)).toEqual(['orders'])
  })
})
