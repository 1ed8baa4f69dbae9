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
