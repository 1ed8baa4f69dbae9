// Certificates for the TLS tests, made at test time with openssl into a
// temp dir (never committed): a CA, the broker's certificate (127.0.0.1 and
// localhost), an expired one, two client certificates (CN=wafka-client, and
// CN=team-client,OU=billing,O=Wafka for ssl.principal.mapping.rules), and
// an unrelated CA.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface TestCerts {
  dir: string
  /** PEM text */
  ca: string
  otherCa: string
  clientCert: string
  clientKey: string
  /** Subject (RFC 2253) CN=team-client,OU=billing,O=Wafka. */
  teamCert: string
  teamKey: string
  /** Files for the broker (PEM keystores: key then chain; PEM truststore). */
  brokerKeystore: string
  expiredKeystore: string
  truststore: string
  remove(): void
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })

function key(dir: string, name: string): void {
  openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}.key`])
}

function selfSignedCa(dir: string, name: string, cn: string): void {
  key(dir, name)
  openssl(dir, [
    'req',
    '-x509',
    '-new',
    '-key',
    `${name}.key`,
    '-sha256',
    '-days',
    '3',
    '-subj',
    `/CN=${cn}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-out',
    `${name}.pem`,
  ])
}

/** A certificate signed by ca, valid from..until (openssl ca's YYYYMMDDHHMMSSZ); `cn` a CN, or a whole subject (`/O=.../CN=...`). */
function signed(dir: string, name: string, cn: string, ext: string, from: string, until: string): void {
  key(dir, name)
  openssl(dir, ['req', '-new', '-key', `${name}.key`, '-subj', cn.startsWith('/') ? cn : `/CN=${cn}`, '-out', `${name}.csr`])
  writeFileSync(join(dir, `${name}.ext`), ext)
  openssl(dir, [
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-cert',
    'ca.pem',
    '-keyfile',
    'ca.key',
    '-in',
    `${name}.csr`,
    '-out',
    `${name}.pem`,
    '-startdate',
    from,
    '-enddate',
    until,
    '-extfile',
    `${name}.ext`,
    '-notext',
  ])
}

const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'

export function makeCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'wafka-certs-'))
  selfSignedCa(dir, 'ca', 'wafka test CA')
  selfSignedCa(dir, 'other-ca', 'some other CA')
  writeFileSync(join(dir, 'index.txt'), '')
  writeFileSync(join(dir, 'serial'), '1000\n')
  writeFileSync(
    join(dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = d',
      '[d]',
      'database = index.txt',
      'new_certs_dir = .',
      'serial = serial',
      'default_md = sha256',
      'policy = p',
      'unique_subject = no',
      'copy_extensions = none',
      '[p]',
      'organizationName = optional',
      'organizationalUnitName = optional',
      'commonName = supplied',
      '',
    ].join('\n'),
  )
  const now = Date.now()
  const day = 86_400_000
  const serverExt = 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n'
  signed(dir, 'broker', 'localhost', serverExt, stamp(new Date(now - day)), stamp(new Date(now + 2 * day)))
  signed(dir, 'expired', 'localhost', serverExt, stamp(new Date(now - 30 * day)), stamp(new Date(now - 2 * day)))
  signed(
    dir,
    'client',
    'wafka-client',
    'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature\n',
    stamp(new Date(now - day)),
    stamp(new Date(now + 2 * day)),
  )
  signed(
    dir,
    'team',
    '/O=Wafka/OU=billing/CN=team-client',
    'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature\n',
    stamp(new Date(now - day)),
    stamp(new Date(now + 2 * day)),
  )
  const read = (f: string) => readFileSync(join(dir, f), 'utf8')
  // Kafka's PEM keystore: a PKCS#8 key, then the certificate chain.
  for (const name of ['broker', 'expired']) {
    const pkcs8 = openssl(dir, ['pkcs8', '-topk8', '-nocrypt', '-in', `${name}.key`]).toString()
    writeFileSync(join(dir, `${name}-keystore.pem`), pkcs8 + read(`${name}.pem`) + read('ca.pem'))
  }
  return {
    dir,
    ca: read('ca.pem'),
    otherCa: read('other-ca.pem'),
    clientCert: read('client.pem'),
    clientKey: read('client.key'),
    teamCert: read('team.pem'),
    teamKey: read('team.key'),
    brokerKeystore: join(dir, 'broker-keystore.pem'),
    expiredKeystore: join(dir, 'expired-keystore.pem'),
    truststore: join(dir, 'ca.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}
