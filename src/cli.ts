#!/usr/bin/env node
// The `wafka` command: a thin dispatcher to src/cli/<command>.ts.
import { main } from './cli/main.js'
import { processIo } from './cli/io.js'

main(process.argv.slice(2), processIo).then((code) => {
  process.exitCode = code
})
