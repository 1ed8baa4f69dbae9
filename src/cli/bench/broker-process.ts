import { spawn } from 'node:child_process'

/** The embedded broker in a child process: the benchmark's client figures (CPU, RSS) are then the client's alone. */
export interface BrokerProcess {
  bootstrap: string
  pid: number | undefined
  stop(): Promise<void>
}

const START_TIMEOUT_MS = 30_000
const STOP_TIMEOUT_MS = 10_000

/** Runs `wafka broker --port 0 --brokers N` (this same CLI, unless told another) and resolves once it says where it serves. */
export function startBrokerProcess(brokers: number, cli = process.argv[1]): Promise<BrokerProcess> {
  const child = spawn(process.execPath, [cli, 'broker', '--port', '0', '--brokers', String(brokers), '--no-auto-create-topics'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_TIMEOUT_MS)))
    if ((await Promise.race([exited, late])) === 'late') child.kill('SIGKILL')
    clearTimeout(timer)
  }
  return new Promise((resolve, reject) => {
    let said = ''
    const timer = setTimeout(() => {
      void stop()
      reject(new Error(`the embedded broker did not start within ${START_TIMEOUT_MS / 1000} s`))
    }, START_TIMEOUT_MS)
    const fail = (why: string) => {
      clearTimeout(timer)
      reject(new Error(`the embedded broker ${why}${said.trim() ? `: ${said.trim().split('\n').pop()}` : ''}`))
    }
    child.once('error', (err) => fail(`could not start (${err.message})`))
    const early = (code: number | null) => fail(`exited (code ${code})`)
    child.once('exit', early)
    child.stderr.setEncoding('utf8').on('data', (s: string) => (said = (said + s).slice(-2000)))
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      said = (said + s).slice(-2000)
      const m = /bootstrap servers (\S+)/.exec(said)
      if (!m) return
      clearTimeout(timer)
      child.off('exit', early)
      child.stdout.removeAllListeners('data').resume()
      resolve({ bootstrap: m[1], pid: child.pid, stop })
    })
  })
}
