#!/usr/bin/env node
// The `wafka` command: a thin dispatcher to src/cli/<command>.ts.
import { setMaxListeners } from 'node:events'
import { main } from './cli/main.js'
import { processIo } from './cli/io.js'

// A client's calls each listen on its one shutdown signal while they run (and stop
// listening when they settle): an admin command with a dozen calls in flight is not
// a leak, so Node's warning at 11 listeners would only be noise on stderr.
setMaxListeners(1000)

main(process.argv.slice(2), processIo).then((code) => {
  process.exitCode = code
})
