// The built package: `wafka/broker` resolves (import and require) to the
// bundled broker, and `wafka broker` serves until a signal, then stops cleanly.
// Needs the build (dist/); `npm test` builds first.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ApiVersions, Metadata } from '../../src/protocol/messages/index.js'
import { RawClient } from './raw-client.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const built = !!process.env.CI || (existsSync(`${root}/dist/broker.js`) && existsSync(`${root}/dist/cli.js`))
if (!built && process.env.CI) throw new Error('dist/ is missing: run npm run build first')

describe.skipIf(!built)('the built broker', () => {
  it('wafka/broker is a subpath export, for import and require; the root export is unchanged', () => {
    const script = `
      const esm = await import('wafka/broker')
      const { createRequire } = await import('node:module')
      const cjs = createRequire(process.cwd() + '/package.json')('wafka/broker')
      const root = await import('wafka')
      const c = await esm.startCluster({ brokers: 1 })
      console.log(JSON.stringify({ esm: typeof esm.startCluster, cjs: typeof cjs.startCluster, rootHasBroker: 'startCluster' in root, brokers: c.brokers.length }))
      await c.stop()`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 30_000 })
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({ esm: 'function', cjs: 'function', rootHasBroker: false, brokers: 1 })
  })

  it('wafka broker serves on the ports it prints and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [`${root}/dist/cli.js`, 'broker', '--port', '0', '--brokers', '2', '--partitions', '3'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c))
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)))
    try {
      const deadline = Date.now() + 20_000
      while (!/bootstrap servers (\S+)/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      const bootstrap = /bootstrap servers (\S+)/.exec(out)![1].split(',')
      expect(bootstrap.length).toBe(2)
      const c = await RawClient.open(bootstrap[1])
      expect((await c.request(ApiVersions, 3, { clientSoftwareName: 'cli-test', clientSoftwareVersion: '1' })).errorCode).toBe(0)
      const md = await c.request(Metadata, 12, { topics: [{ name: 'auto' }], allowAutoTopicCreation: true })
      expect(md.topics[0].partitions.length).toBe(3)
      c.close()
    } finally {
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
    expect(out).toMatch(/SIGTERM, stopping/)
  })
})
