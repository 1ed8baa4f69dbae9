#!/usr/bin/env node
// The `wafka` command. Produce/consume commands arrive with the client;
// `wafka broker` serves the embedded broker.
import { brokerCommand } from './broker/command.js'
import { crc32c } from './codec/crc.js'

const VERSION = '0.1.0'
const [command] = process.argv.slice(2)

if (command === '--version' || command === '-v') {
  console.log(VERSION)
} else if (command === 'selftest') {
  // Proves the inlined wasm core loads and computes on this runtime.
  const check = crc32c(new TextEncoder().encode('123456789')) === 0xe3069283
  console.log(check ? 'wasm core: ok' : 'wasm core: WRONG crc32c check value')
  process.exitCode = check ? 0 : 1
} else if (command === 'broker') {
  brokerCommand(process.argv.slice(3)).then(
    (code) => (process.exitCode = code),
    (err: Error) => {
      console.error(`wafka broker: ${err.message}`)
      process.exitCode = 1
    },
  )
} else {
  console.log(`wafka ${VERSION}: Apache Kafka client for Node.js, Deno and Bun

usage: wafka --version | selftest | broker [--port PORT] [--brokers N] [--partitions N] [--no-auto-create-topics]`)
  if (command !== undefined && command !== 'help' && command !== '--help') process.exitCode = 2
}
