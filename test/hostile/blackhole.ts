// A loopback address where connects time out, as they do to a powered-off
// host: a child process listens with a backlog of 1 and then blocks its
// event loop, so it never accepts; once the accept queue is full (we fill it
// ourselves) the kernel drops further SYNs and a connect hangs until its
// timeout. No packet leaves 127.0.0.1.
import { type ChildProcess, spawn } from 'node:child_process'
import * as net from 'node:net'

const CHILD = `
const net = require('node:net')
const server = net.createServer()
server.listen({ host: '127.0.0.1', port: 0, backlog: 1 }, () => {
  process.stdout.write(server.address().port + '\\n', () => {
    // Never accept: the loop stays blocked until the parent kills us.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
  })
})
`

export interface Blackhole {
  host: string
  port: number
  close(): Promise<void>
}

export async function startBlackhole(): Promise<Blackhole> {
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (c) => {
      out += c
      if (out.includes('\n')) resolve(Number(out.trim()))
    })
    child.once('exit', (code) => reject(new Error(`blackhole child exited (${code})`)))
  })
  // Fill the accept queue: connects complete until it is full, then hang.
  const fillers: net.Socket[] = []
  for (let i = 0; i < 16; i++) {
    const s = net.connect({ host: '127.0.0.1', port })
    s.on('error', () => {})
    fillers.push(s)
    const connected = await new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), 300)
      s.once('connect', () => {
        clearTimeout(t)
        resolve(true)
      })
    })
    if (!connected) break
  }
  return {
    host: '127.0.0.1',
    port,
    async close() {
      for (const s of fillers) s.destroy()
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGKILL')
      await exited
    },
  }
}
