import { describe, expect, it } from 'vitest'
import { ScramClient, escapeUsername } from '../../../src/net/sasl/scram.js'

// The exchanges published in RFC 5802 section 5 (SCRAM-SHA-1) and RFC 7677
// section 3 (SCRAM-SHA-256): user "user", password "pencil".
const RFC5802 = {
  nonce: 'fyko+d2lbbFgONRv9qkxdawL',
  clientFirst: 'n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL',
  serverFirst: 'r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096',
  clientFinal: 'c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=',
  serverFinal: 'v=rmF9pqV8S7suAoZWja4dJRkFsKQ=',
}
const RFC7677 = {
  nonce: 'rOprNGfwEbeRWgbNEkqO',
  clientFirst: 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO',
  serverFirst: 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
  clientFinal: 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  serverFinal: 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
}

describe('SCRAM client', () => {
  for (const [name, hash, v] of [
    ['RFC 5802 (SHA-1)', 'sha1', RFC5802],
    ['RFC 7677 (SHA-256)', 'sha256', RFC7677],
  ] as const) {
    it(`reproduces the ${name} exchange and accepts its server signature`, async () => {
      const client = new ScramClient(hash, 'user', 'pencil', v.nonce)
      expect(client.firstMessage()).toBe(v.clientFirst)
      expect(await client.finalMessage(v.serverFirst)).toBe(v.clientFinal)
      expect(() => client.verify(v.serverFinal)).not.toThrow()
    })
  }

  it("sends extensions (a delegation token's tokenauth=true) in client-first, and proves over the message with them", async () => {
    const client = new ScramClient('sha256', 'user', 'pencil', RFC7677.nonce, undefined, { tokenauth: 'true' })
    expect(client.firstMessage()).toBe(`${RFC7677.clientFirst},tokenauth=true`)
    // The same server-first as RFC 7677's: the proof covers the client-first with its extension, so it differs from the RFC's.
    const final = await client.finalMessage(RFC7677.serverFirst)
    expect(final.startsWith(RFC7677.clientFinal.slice(0, RFC7677.clientFinal.indexOf(',p=')))).toBe(true)
    expect(final).not.toBe(RFC7677.clientFinal)
  })

  it('refuses a server signature made without the password', async () => {
    const client = new ScramClient('sha256', 'user', 'pencil', RFC7677.nonce)
    await client.finalMessage(RFC7677.serverFirst)
    const forged =
      'v=' + Buffer.from(Buffer.from(RFC7677.serverFinal.slice(2), 'base64').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64')
    expect(() => client.verify(forged)).toThrow(/could not prove it knows the password/)
    expect(() => client.verify('v=')).toThrow(/could not prove/)
    expect(() => client.verify('e=invalid-proof')).toThrow(/refused the SCRAM proof: invalid-proof/)
  })

  it('refuses a verification before any proof was computed', () => {
    const client = new ScramClient('sha256', 'user', 'pencil', RFC7677.nonce)
    expect(() => client.verify(RFC7677.serverFinal)).toThrow(/could not prove/)
  })

  it('refuses a server nonce that does not extend the client nonce, too few iterations, a missing salt, mandatory extensions', async () => {
    const client = () => new ScramClient('sha256', 'user', 'pencil', RFC7677.nonce)
    await expect(client().finalMessage('r=someoneelse,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096')).rejects.toThrow(/nonce/)
    await expect(client().finalMessage(`r=${RFC7677.nonce},s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096`)).rejects.toThrow(/nonce/)
    await expect(client().finalMessage(`r=${RFC7677.nonce}x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1024`)).rejects.toThrow(/1024 SCRAM iterations/)
    await expect(client().finalMessage(`r=${RFC7677.nonce}x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=abc`)).rejects.toThrow(/iterations/)
    await expect(client().finalMessage(`r=${RFC7677.nonce}x,i=4096`)).rejects.toThrow(/salt/)
    await expect(client().finalMessage(`m=ext,r=${RFC7677.nonce}x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096`)).rejects.toThrow(/extension/)
  })

  it('escapes = and , in the user name (RFC 5802 5.1)', () => {
    expect(escapeUsername('a=b,c')).toBe('a=3Db=2Cc')
    expect(new ScramClient('sha512', 'us=er,1', 'pw', 'N').firstMessage()).toBe('n,,n=us=3Der=2C1,r=N')
  })

  it('draws a fresh random nonce each time (24 bytes from the CSPRNG)', () => {
    const nonces = new Set(Array.from({ length: 50 }, () => new ScramClient('sha512', 'u', 'p').firstMessage().split(',r=')[1]))
    expect(nonces.size).toBe(50)
    for (const n of nonces) expect(Buffer.from(n, 'base64')).toHaveLength(24)
  })

  it('computes SCRAM-SHA-512 proofs of 64 bytes', async () => {
    const client = new ScramClient('sha512', 'user', 'pencil', 'abc')
    const final = await client.finalMessage('r=abcdef,s=c2FsdA==,i=4096')
    expect(Buffer.from(final.split(',p=')[1], 'base64')).toHaveLength(64)
  })
})
