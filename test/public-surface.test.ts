import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import * as root from '../src/index.js'
import * as codec from '../src/public/codec.js'
import * as protocol from '../src/public/protocol.js'
import { bootstrapIndex, bootstrapNodeId, isBootstrapNodeId } from '../src/cluster/broker-address.js'

describe('the public surface', () => {
  it('the root is the client API: no Cluster, Connection or codec functions', () => {
    for (const internal of [
      'Cluster',
      'Connection',
      'protocol',
      'encodeRecordBatch',
      'decodeRecordSet',
      'crc32c',
      'Writer',
      'Reader',
      'ResourceTypes',
    ]) {
      expect(Object.keys(root), internal).not.toContain(internal)
    }
    for (const api of [
      'Kafka',
      'Admin',
      'Producer',
      'Consumer',
      'KafkaError',
      'ErrorCodes',
      'logLevel',
      'ConfigResourceTypes',
      'AclResourceTypes',
      'KafkaMessage',
      'ShareConsumer',
      'ShareMessage',
      'loadCodecs',
    ]) {
      expect(Object.keys(root), api).toContain(api)
    }
  })

  it('wafka/codec and wafka/protocol carry the low-level pieces, with the same error classes as the root', () => {
    expect(typeof codec.encodeRecordBatch).toBe('function')
    expect(typeof codec.decodeRecordSet).toBe('function')
    expect(codec.CorruptRecordError).toBe(root.CorruptRecordError)
    expect(typeof protocol.Cluster).toBe('function')
    expect(typeof protocol.Connection).toBe('function')
    expect(protocol.Metadata.apiKey).toBe(3)
    expect(protocol.ErrorCodes).toBe(root.ErrorCodes)
    expect(protocol.KafkaError).toBe(root.KafkaError)
  })

  it('package.json maps the subpaths to built files', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
    // Each condition carries its own typings: ESM .d.ts for import, CommonJS .d.cts for require.
    expect(pkg.exports['./codec']).toEqual({
      import: { types: './dist/types/public/codec.d.ts', default: './dist/codec.js' },
      require: { types: './dist/types/public/codec.d.cts', default: './dist/codec.cjs' },
    })
    expect(pkg.exports['./protocol']).toEqual({
      import: { types: './dist/types/public/protocol.d.ts', default: './dist/protocol.js' },
      require: { types: './dist/types/public/protocol.d.cts', default: './dist/protocol.cjs' },
    })
  })

  it('config and ACL resource types are two tables: a group is 32 in one and 3 in the other', () => {
    expect(root.ConfigResourceTypes).toEqual({ UNKNOWN: 0, TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 })
    expect(root.AclResourceTypes.GROUP).toBe(3)
    expect(root.AclResourceTypes.TOPIC).toBe(2)
  })

  it('bootstrap addresses have named pseudo node ids that no broker has', () => {
    expect([0, 1, 2].map(bootstrapNodeId)).toEqual([-1, -2, -3])
    expect([0, 1, 2].map((i) => bootstrapIndex(bootstrapNodeId(i)))).toEqual([0, 1, 2])
    expect(isBootstrapNodeId(bootstrapNodeId(0))).toBe(true)
    expect(isBootstrapNodeId(0)).toBe(false)
  })
})

describe('the built package', () => {
  const root = new URL('..', import.meta.url).pathname
  const built = !!process.env.CI || (existsSync(`${root}/dist/codec.js`) && existsSync(`${root}/dist/protocol.cjs`))
  if (!built && process.env.CI) throw new Error('dist/ is missing: run npm run build first')

  it.skipIf(!built)('wafka/codec and wafka/protocol resolve for import and require; the ESM entries share one copy of the errors', () => {
    const script = `
      const codec = await import('wafka/codec')
      const protocol = await import('wafka/protocol')
      const root = await import('wafka')
      const { createRequire } = await import('node:module')
      const require = createRequire(process.cwd() + '/package.json')
      const cjsCodec = require('wafka/codec'), cjsProtocol = require('wafka/protocol')
      let sameClass = false
      const b = codec.encodeRecordBatch([{ value: 'x' }]); b[b.length - 1] ^= 1
      try { codec.decodeRecordSet(b) } catch (e) { sameClass = e instanceof root.CorruptRecordError && e instanceof codec.CorruptRecordError }
      console.log(JSON.stringify({
        encode: typeof codec.encodeRecordBatch, cjsEncode: typeof cjsCodec.encodeRecordBatch,
        cluster: typeof protocol.Cluster, cjsCluster: typeof cjsProtocol.Cluster, metadataKey: protocol.Metadata.apiKey,
        rootHasCodec: 'encodeRecordBatch' in root, rootHasCluster: 'Cluster' in root, sameClass,
      }))`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 30_000 })
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({
      encode: 'function',
      cjsEncode: 'function',
      cluster: 'function',
      cjsCluster: 'function',
      metadataKey: 3,
      rootHasCodec: false,
      rootHasCluster: false,
      sameClass: true,
    })
  })
})
