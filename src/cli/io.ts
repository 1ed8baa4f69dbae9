/** Where a command writes, so commands can be driven with other streams than the process's. */
export interface Io {
  out(s: string): void
  err(s: string): void
  outIsTTY: boolean
  errIsTTY: boolean
}

export const processIo: Io = {
  out: (s) => void process.stdout.write(s),
  err: (s) => void process.stderr.write(s),
  outIsTTY: process.stdout.isTTY === true,
  errIsTTY: process.stderr.isTTY === true,
}

// A reader that went away (wafka ... | head) ends the command quietly, as other Unix tools end.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0)
  throw err
})
