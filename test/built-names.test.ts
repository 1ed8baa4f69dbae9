// Every class and function an entry point exports is named as it is
// exported, in the package as built: esbuild renames a class whose body
// refers to itself, or whose name another module also uses, unless told to
// keep names (a KafkaError said `_KafkaError` in err.name and every log line).
// Under the built-esm and built-cjs projects these imports are dist/'s.
import { describe, expect, it } from 'vitest'
import * as root from '../src/index.js'
import * as codec from '../src/public/codec.js'
import * as protocol from '../src/public/protocol.js'
import * as kafkajs from '../src/public/kafkajs.js'
import * as broker from '../src/broker/index.js'
import * as streams from '../src/public/streams.js'

const entries: Record<string, Record<string, unknown>> = { root, codec, protocol, kafkajs, broker, streams }

describe('the names of exported classes and functions', () => {
  for (const [entry, exports] of Object.entries(entries))
    it(`${entry}: each one's name is its export name`, () => {
      const named = Object.entries(exports).filter(([, v]) => typeof v === 'function') as [string, Function][]
      expect(named.length).toBeGreaterThan(0)
      for (const [name, fn] of named) expect(fn.name, `${entry}.${name}`).toBe(name)
    })

  it('an error says its class in err.name', () => {
    const err = new root.KafkaError('refused', { code: 3, type: 'UNKNOWN_TOPIC_OR_PARTITION', retriable: true })
    expect(err.name).toBe('KafkaError')
    expect(new kafkajs.KafkaJSProtocolError('x').name).toBe('KafkaJSProtocolError')
    expect(new streams.StreamsError('x').name).toBe('StreamsError')
    expect(new streams.TopologyError('x').name).toBe('TopologyError')
  })
})
