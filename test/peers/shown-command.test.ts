// A peer's command line in an error message never shows a secret (kcat's
// -X sasl.password, a JAAS config's password, an OAUTHBEARER config).
import { describe, expect, it } from 'vitest'
import { shownCommand } from './child.js'

describe('shownCommand', () => {
  it('masks passwords and OAUTHBEARER configs, keeps the rest', () => {
    const shown = shownCommand([
      '-b',
      '127.0.0.1:9093',
      '-X',
      'sasl.password=hunter2',
      '-X',
      'ssl.key.password=k3y',
      '-X',
      'sasl.oauthbearer.config=principal=alice secret=t0ken',
      '--prop',
      'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="s3cret";',
      '-X',
      'sasl.username=alice',
    ])
    for (const secret of ['hunter2', 'k3y', 't0ken', 's3cret']) expect(shown).not.toContain(secret)
    expect(shown).toContain('sasl.username=alice')
    expect(shown).toContain('username="bob" password="***"')
    expect(shown).toContain('sasl.password=***')
    expect(shown).toContain('-b 127.0.0.1:9093')
  })
})
