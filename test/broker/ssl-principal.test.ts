// The principal of a TLS connection (issue 23): ssl.principal.mapping.rules
// parsed and applied as Kafka's SslPrincipalMapper (its documented examples,
// then the same rules and subjects given to Kafka's own class on the rig's
// JVM), and certificate subjects written as Java's X500Principal writes them
// (RFC 2253), compared with Java's on certificates made by openssl.
import { execFileSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startCluster } from '../../src/broker/index.js'
import { InvalidMappingRule, NoMatchingRule, SslPrincipalMapper } from '../../src/broker/ssl-principal-mapper.js'
import { rfc2253Subject } from '../../src/broker/x500-name.js'
import { requireKafka, runJava } from '../peers/kafka.js'
import { requireSecuredEmbedded } from '../security/secured-embedded.js'

const VALID = [
  'DEFAULT',
  'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/',
  'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, DEFAULT',
  'RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/',
  'RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L',
  'RULE:^cn=(.?),ou=(.?),dc=(.?),dc=(.?)$/$1@$2/U',
  'RULE:^CN=([^,ADEFLTU,]+)(,.*|$)/$1/',
  'RULE:^CN=([^,DEFAULT,]+)(,.*|$)/$1/',
]
const INVALID = [
  'default',
  'DEFAUL',
  'DEFAULT/L',
  'DEFAULT/U',
  'RULE:CN=(.*?),OU=ServiceUsers.*/$1',
  'rule:^CN=(.*?),OU=ServiceUsers.*$/$1/',
  'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U',
  'RULE:^CN=(.*?),OU=ServiceUsers.*$/L',
  'RULE:^CN=(.*?),OU=ServiceUsers.*$/U',
  'RULE:^CN=(.*?),OU=ServiceUsers.*$/LU',
  'RULE:^CN=(unclosed/$1/',
]
/** Kafka's splitting examples: the rules as written → as its mapper prints them. */
const SPLITTING: Array<[string, string[]]> = [
  ['', []],
  ['DEFAULT', ['DEFAULT']],
  ['RULE://', ['RULE:/']],
  ['RULE:/.*/', ['RULE:/.*']],
  ['RULE:/.*/L', ['RULE:/.*/L']],
  ['RULE://,DEFAULT', ['RULE:/', 'DEFAULT']],
  ['  RULE:// ,  DEFAULT  ', ['RULE:/', 'DEFAULT']],
  ['  RULE:   /     / ,  DEFAULT  ', ['RULE:   /     ', 'DEFAULT']],
  ['  RULE:  /     /U   ,DEFAULT  ', ['RULE:  /     /U', 'DEFAULT']],
  ['  RULE:([A-Z]*)/$1/U   ,RULE:([a-z]+)/$1/,   DEFAULT  ', ['RULE:([A-Z]*)/$1/U', 'RULE:([a-z]+)/$1', 'DEFAULT']],
  [',   , , ,      , , ,   ', []],
  [',,RULE://,,,DEFAULT,,', ['RULE:/', 'DEFAULT']],
  [',  , RULE: /   /    ,,,   DEFAULT, ,   ', ['RULE: /   ', 'DEFAULT']],
  ['     ,  , RULE:   /  /U    ,,  ,DEFAULT, ,', ['RULE:   /  /U', 'DEFAULT']],
  [String.raw`RULE:\/\\\(\)\n\t/\/\//`, [String.raw`RULE:\/\\\(\)\n\t/\/\/`]],
  [String.raw`RULE:\**\/+/*/L,RULE:\/*\**/**/`, [String.raw`RULE:\**\/+/*/L`, String.raw`RULE:\/*\**/**`]],
  [
    String.raw`RULE:,RULE:,/,RULE:,\//U,RULE:,/RULE:,/,RULE:,RULE:,/L,RULE:,/L,RULE:, DEFAULT, /DEFAULT/,DEFAULT`,
    [String.raw`RULE:,RULE:,/,RULE:,\//U`, 'RULE:,/RULE:,', 'RULE:,RULE:,/L,RULE:,/L', 'RULE:, DEFAULT, /DEFAULT', 'DEFAULT'],
  ],
]
const MAPPING_RULES = [
  'RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L',
  'RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L',
  'RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U',
  'RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U',
  'DEFAULT',
].join(', ')
const MAPPED: Array<[string, string]> = [
  ['CN=Duke,OU=ServiceUsers,O=Org,C=US', 'duke'],
  ['CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US', 'duke@sme'],
  ['cn=duke,ou=sme,dc=mycp,dc=com', 'DUKE@SME'],
  ['cN=duke,OU=JavaSoft,O=Sun Microsystems', 'DUKE'],
  ['OU=JavaSoft,O=Sun Microsystems,C=US', 'OU=JavaSoft,O=Sun Microsystems,C=US'],
]
/** Replacements past the pattern's groups, $0, escapes, and a pattern that also matches empty (replaced twice). */
const EDGE_RULES: Array<[string, string[]]> = [
  [String.raw`RULE:^CN=([a-z]+),O=(.*)$/$2-$1-$3-$12-$0/`, ['CN=ann,O=acme', 'CN=bob,O=x,y']],
  [String.raw`RULE:^CN=(.*)$/\$1 is $1/U`, ['CN=ann']],
  ['RULE:.*/[$0]/', ['CN=ann']],
  ['RULE:^CN=((\\\\, *|\\w)+)(,.*|$)/$1/,DEFAULT', ['CN=Tkac\\, Adam,OU=ITZ,DC=geodis,DC=cz']],
  ['RULE:^CN=x$/y/', ['CN=z']],
]

describe('ssl.principal.mapping.rules (Kafka SslPrincipalMapperTest examples)', () => {
  it('accepts the rules Kafka accepts and refuses the ones it refuses', () => {
    for (const rules of VALID) expect(() => SslPrincipalMapper.fromRules(rules), rules).not.toThrow()
    for (const rules of INVALID) expect(() => SslPrincipalMapper.fromRules(rules), rules).toThrow(InvalidMappingRule)
    expect(() => SslPrincipalMapper.fromRules('DEFAULT/L')).toThrow('Invalid rule: `DEFAULT/L`, unmatched substring: `/L`')
  })

  it('splits a list of rules as Kafka does', () => {
    for (const [rules, expected] of SPLITTING) expect(SslPrincipalMapper.fromRules(rules).describe(), rules).toEqual(expected)
  })

  it('maps subjects: first matching rule, $n, L and U, DEFAULT; none matching refuses', () => {
    const mapper = SslPrincipalMapper.fromRules(MAPPING_RULES)
    for (const [dn, name] of MAPPED) expect(mapper.name(dn), dn).toBe(name)
    expect(SslPrincipalMapper.fromRules(undefined).name('CN=a,O=b')).toBe('CN=a,O=b')
    expect(SslPrincipalMapper.fromRules('RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L,DEFAULT').name('CN=Tkac\\, Adam,OU=ITZ')).toBe(
      'CN=Tkac\\, Adam,OU=ITZ',
    )
    expect(() => SslPrincipalMapper.fromRules('RULE:^CN=x$/y/').name('CN=z')).toThrow(NoMatchingRule)
    expect(SslPrincipalMapper.fromRules(EDGE_RULES[0][0]).name('CN=ann,O=acme')).toBe('acme-ann-$3-ann2-CN=ann,O=acme')
    expect(SslPrincipalMapper.fromRules(EDGE_RULES[1][0]).name('CN=ann')).toBe('$1 IS ANN')
    expect(SslPrincipalMapper.fromRules(EDGE_RULES[2][0]).name('CN=ann')).toBe('[CN=ann][]')
  })
})

describe('startCluster({ ssl }) options', () => {
  it('refuses bad principalMappingRules and clientAuth without a CA', async () => {
    const ssl = { cert: 'x', key: 'y' }
    await expect(
      startCluster({ ssl: { ...ssl, ca: 'z', clientAuth: 'requested', principalMappingRules: 'RULE:^CN=(.*)$/$1/Q' } }),
    ).rejects.toThrow('startCluster: ssl.principalMappingRules: Invalid rule: `RULE:^CN=(.*)$/$1/Q`, unmatched substring: `Q`')
    await expect(startCluster({ ssl: { ...ssl, clientAuth: 'requested' } })).rejects.toThrow(
      'startCluster: ssl.clientAuth=requested needs the CA client certificates must chain to (ssl.ca)',
    )
    await expect(startCluster({ ssl: { ...ssl, ca: 'z', clientAuth: 'sometimes' as 'none' } })).rejects.toThrow(
      'startCluster: ssl.clientAuth must be one of required, requested, none (got sometimes)',
    )
  })
})

/** Certificates with subjects that exercise RFC 2253's order, names, OIDs and escapes. */
const SUBJECTS = [
  '/C=NL/ST=Noord-Holland/L=Amsterdam/O=Wafka/OU=Test Team/CN=mapped-client',
  '/DC=org/DC=example/UID=u42/CN=a+OU=multi valued',
  '/O=Acme, Inc./OU=R&D; Labs/CN=#hash <angle> "quoted" back\\\\slash =eq',
  '/CN= lead and trail  /emailAddress=someone@example.org/serialNumber=1234/title=Boss',
  '/CN=Dürst Ünïcode/street=1 Main St/GN=Ann/SN=Lee',
]

describe.skipIf(!requireSecuredEmbedded())('certificate subjects in RFC 2253 form', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wafka-subjects-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const files = SUBJECTS.map((subject, i) => {
    const file = join(dir, `s${i}.pem`)
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        join(dir, `s${i}.key`),
        '-days',
        '1',
        '-utf8',
        '-multivalue-rdn',
        '-subj',
        subject,
        '-out',
        file,
      ],
      { stdio: 'ignore' },
    )
    return file
  })
  const ours = (file: string) => rfc2253Subject(new X509Certificate(readFileSync(file)).raw)

  it('writes the RDNs last to first with their RFC 2253 names', () => {
    expect(ours(files[0])).toBe('CN=mapped-client,OU=Test Team,O=Wafka,L=Amsterdam,ST=Noord-Holland,C=NL')
  })

  describe.skipIf(!requireKafka())("the same as Java's X500Principal and Kafka's SslPrincipalMapper", () => {
    it('subjects', async () => {
      const java = await runJava(
        'RigPrincipal',
        files.flatMap((f) => ['--cert', f]),
      )
      expect(java.code, java.stderr).toBe(0)
      const theirs = java.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[1])
      expect(files.map(ours)).toEqual(theirs)
    })

    it('rules and names', async () => {
      const cases: Array<[string, string[]]> = [
        ...VALID.map((r): [string, string[]] => [r, []]),
        ...INVALID.map((r): [string, string[]] => [r, []]),
        ...SPLITTING.map(([r]): [string, string[]] => [r, []]),
        [MAPPING_RULES, MAPPED.map(([dn]) => dn)],
        ...EDGE_RULES,
      ]
      const java = await runJava(
        'RigPrincipal',
        cases.flatMap(([rules, dns]) => ['--rules', rules, ...dns]),
      )
      expect(java.code, java.stderr).toBe(0)
      const lines = java.stdout.trimEnd().split('\n')
      const mine: string[] = []
      for (const [rules, dns] of cases) {
        let mapper: SslPrincipalMapper | null = null
        try {
          mapper = SslPrincipalMapper.fromRules(rules)
          mine.push(`rules\tSslPrincipalMapper(rules = [${mapper.describe().join(', ')}])`)
        } catch {
          mine.push('invalid')
        }
        for (const dn of dns) {
          try {
            mine.push(`name\t${mapper!.name(dn)}`)
          } catch (err) {
            mine.push(`error\t${(err as Error).name}`)
          }
        }
      }
      // Kafka's messages for invalid rules are its own (a regex's syntax error is Java's): the verdict is compared.
      expect(mine).toEqual(lines.map((l) => (l.startsWith('invalid\t') ? 'invalid' : l)))
    })
  })
})
