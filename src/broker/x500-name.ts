import { Buffer } from 'node:buffer'

/**
 * A certificate's subject as Java's X500Principal.getName() writes it
 * (RFC 2253), the form Kafka's ssl.principal.mapping.rules match: the RDNs
 * last to first, joined by `,`, the values of a multi-valued RDN by `+`;
 * CN, C, L, ST, O, OU, STREET, DC and UID by name, any other attribute as
 * its dotted OID with `#` and its DER value in hex; `,=+<>#;"\` escaped with
 * `\`, as are leading and trailing spaces. Node's own subject strings
 * (OpenSSL's) differ in order, names and escapes, so the DER is read here.
 */

/** The attribute names Java writes in RFC 2253 form (others: their OID). */
const KEYWORDS: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.9': 'STREET',
  '0.9.2342.19200300.100.1.25': 'DC',
  '0.9.2342.19200300.100.1.1': 'UID',
}

/** DER string types Java writes as text; BMPString (UTF-16) apart. */
const PRINTABLE_STRING = 0x13
const T61_STRING = 0x14
const IA5_STRING = 0x16
const GENERAL_STRING = 0x1b
const UTF8_STRING = 0x0c
const TEXT_TAGS = new Set([PRINTABLE_STRING, T61_STRING, IA5_STRING, GENERAL_STRING, UTF8_STRING])
const BMP_STRING = 0x1e
const ESCAPED = ',=+<>#;"\\'

interface Tlv {
  tag: number
  /** Where the whole element starts and its content starts and ends. */
  start: number
  body: number
  end: number
}

function tlv(der: Buffer, at: number, limit = der.length): Tlv {
  if (at + 2 > limit) throw new Error('certificate: truncated DER')
  const tag = der[at]
  let length = der[at + 1]
  let body = at + 2
  if (length & 0x80) {
    const bytes = length & 0x7f
    if (bytes === 0 || bytes > 4 || body + bytes > limit) throw new Error('certificate: bad DER length')
    length = 0
    for (let i = 0; i < bytes; i++) length = length * 256 + der[body + i]
    body += bytes
  }
  if (body + length > limit) throw new Error('certificate: truncated DER')
  return { tag, start: at, body, end: body + length }
}

/** The elements inside a constructed one. */
function children(der: Buffer, parent: Tlv): Tlv[] {
  const out: Tlv[] = []
  for (let at = parent.body; at < parent.end;) {
    const child = tlv(der, at, parent.end)
    out.push(child)
    at = child.end
  }
  return out
}

function oid(bytes: Buffer): string {
  const parts: number[] = []
  let value = 0
  for (const b of bytes) {
    value = value * 128 + (b & 0x7f)
    if (!(b & 0x80)) {
      if (parts.length === 0) parts.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80)
      else parts.push(value)
      value = 0
    }
  }
  return parts.join('.')
}

function text(der: Buffer, value: Tlv): string | null {
  const bytes = der.subarray(value.body, value.end)
  if (TEXT_TAGS.has(value.tag)) return bytes.toString('utf8')
  if (value.tag === BMP_STRING) return Buffer.from(bytes).swap16().toString('utf16le')
  return null
}

function escape(value: string): string {
  let out = ''
  for (const c of value) out += c === '\u0000' ? '\\00' : ESCAPED.includes(c) ? `\\${c}` : c
  // Leading and trailing spaces (and CRs) escaped one by one.
  const lead = out.length - out.replace(/^[ \r]+/, '').length
  const trail = out.length - out.replace(/[ \r]+$/, '').length
  if (lead === out.length) return out.replace(/[ \r]/g, '\\$&')
  return (
    out.slice(0, lead).replace(/./g, '\\$&') + out.slice(lead, out.length - trail) + out.slice(out.length - trail).replace(/./g, '\\$&')
  )
}

/** One attribute, `TYPE=value`. */
function attribute(der: Buffer, ava: Tlv): string {
  const [type, value] = children(der, ava)
  if (!type || !value || type.tag !== 0x06) throw new Error('certificate: bad subject attribute')
  const id = oid(der.subarray(type.body, type.end))
  const keyword = KEYWORDS[id]
  const asText = keyword ? text(der, value) : null
  if (asText === null) return `${keyword ?? id}=#${der.subarray(value.start, value.end).toString('hex')}`
  return `${keyword}=${escape(asText)}`
}

/** The subject (RFC 2253) of a DER X.509 certificate. */
export function rfc2253Subject(certificate: Buffer): string {
  const cert = tlv(certificate, 0)
  const [tbs] = children(certificate, cert)
  const fields = children(certificate, tbs)
  // tbsCertificate: [0] version (optional), serial, signature algorithm, issuer, validity, subject, ...
  const first = fields[0]?.tag === 0xa0 ? 1 : 0
  const subject = fields[first + 4]
  if (!subject || subject.tag !== 0x30) throw new Error('certificate: no subject')
  return children(certificate, subject)
    .reverse()
    .map((rdn) =>
      children(certificate, rdn)
        .map((ava) => attribute(certificate, ava))
        .join('+'),
    )
    .join(',')
}
