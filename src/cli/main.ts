import { brokerCommand } from '../broker/command.js'
import { crc32c } from '../codec/crc.js'
import { UsageError } from './args.js'
import type { Io } from './io.js'
import { demoCommand } from './demo.js'
import { produceCommand } from './produce.js'
import { consumeCommand } from './consume.js'
import { topicsCommand } from './topics.js'
import { groupsCommand } from './groups.js'
import { clusterCommand } from './cluster-info.js'
import { aclsCommand } from './acls.js'
import { benchCommand } from './bench.js'
import { streamsCommand } from './streams.js'

const VERSION = '0.1.0'

type Command = (args: string[], io: Io) => Promise<number>

const COMMANDS: Record<string, { summary: string; run: Command }> = {
  demo: { summary: 'produce and consume back N messages, verified, with a summary (embedded broker by default)', run: demoCommand },
  produce: { summary: 'send lines of stdin or files as messages: wafka produce -b BROKERS -t TOPIC', run: produceCommand },
  consume: { summary: 'print messages, kcat-style format or JSON lines: wafka consume -b BROKERS -t TOPIC', run: consumeCommand },
  topics: { summary: 'list, create, describe, alter (partitions, configs) or delete topics', run: topicsCommand },
  groups: { summary: 'list, describe (with lag), reset-offsets or delete consumer groups', run: groupsCommand },
  cluster: { summary: 'the brokers, the controller and the API versions each broker supports', run: clusterCommand },
  acls: { summary: 'list, create or delete ACLs (resource, principal, host, operation, permission)', run: aclsCommand },
  bench: {
    summary: 'benchmark wafka: bench produce|consume [-b BROKERS] (embedded broker by default), bench codec; --chart FILE.svg',
    run: benchCommand,
  },
  streams: {
    summary:
      "run a wafka/streams application: streams wordcount [-b BROKERS] < text (Kafka Streams' word count; embedded broker by default)",
    run: (args, io) => streamsCommand(args, io),
  },
  broker: {
    summary:
      'serve the embedded broker: wafka broker [--port PORT] [--brokers N] [--partitions N] [--tls-cert F --tls-key F [--tls-ca F]] [--sasl-users F]',
    run: (args, io) => brokerCommand(args, (line) => io.out(line + '\n')),
  },
  selftest: {
    summary: 'check that the wasm core loads and computes on this runtime',
    run: async (_args, io) => {
      const ok = crc32c(new TextEncoder().encode('123456789')) === 0xe3069283
      io.out(ok ? 'wasm core: ok\n' : 'wasm core: WRONG crc32c check value\n')
      return ok ? 0 : 1
    },
  },
}

function usage(): string {
  const names = Object.keys(COMMANDS)
  const width = Math.max(...names.map((n) => n.length), '--version'.length)
  return `wafka ${VERSION}: Apache Kafka client for Node.js, Deno and Bun

usage: wafka COMMAND [options]   (wafka COMMAND --help for its options)

${names.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n].summary}`).join('\n')}
  ${'--version'.padEnd(width)}  print the version

Without -b, demo runs on an embedded broker in this process: npx wafka demo
`
}

/** Runs one command line; resolves with the exit code: 0 ok, 1 failure, 2 usage. Errors become one line on stderr. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...args] = argv
  if (name === '--version' || name === '-v' || name === 'version') {
    io.out(VERSION + '\n')
    return 0
  }
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.out(usage())
    return 0
  }
  const command = COMMANDS[name]
  if (!command) {
    io.err(`wafka: unknown command ${JSON.stringify(name)}; wafka --help lists them\n`)
    return 2
  }
  try {
    return await command.run(args, io)
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    if (err instanceof UsageError) {
      io.err(`wafka ${name}: ${message} (wafka ${name} --help)\n`)
      return 2
    }
    io.err(`wafka ${name}: ${oneLine(message)}\n`)
    return 1
  }
}

function oneLine(message: string): string {
  return message.split('\n')[0]
}
