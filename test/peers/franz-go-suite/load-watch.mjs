// What the suite runner samples once a second during a --timings run: the
// machine's load average, the broker processes' RSS, and a probe that opens
// a new TCP connection to each bootstrap address and sends ApiVersions,
// timing the connect and the whole round trip (a connection accepted while
// the broker is busy, issue 22). The same on both targets.
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'

/** RSS bytes of a process (Linux /proc), 0 when it is gone. */
function rssBytes(pid) {
  try {
    const m = /\nVmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : 0
  } catch {
    return 0
  }
}

/** ApiVersions v0, correlation id 1, client id `suite-probe`. */
function apiVersionsFrame() {
  const clientId = Buffer.from('suite-probe')
  const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length)
  body.writeInt16BE(18, 0)
  body.writeInt16BE(0, 2)
  body.writeInt32BE(1, 4)
  body.writeInt16BE(clientId.length, 8)
  clientId.copy(body, 10)
  const size = Buffer.alloc(4)
  size.writeInt32BE(body.length)
  return Buffer.concat([size, body])
}

/** One probe: ms to connect and ms to the whole ApiVersions answer, or an error after `timeoutMs`. */
export function probe(host, port, timeoutMs = 30_000) {
  return new Promise((resolve) => {
    const start = performance.now()
    let connectMs
    let got = Buffer.alloc(0)
    const socket = connect({ host, port })
    const done = (r) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(r)
    }
    const timer = setTimeout(() => done({ error: `no answer in ${timeoutMs} ms` }), timeoutMs)
    socket.once('connect', () => {
      connectMs = performance.now() - start
      socket.write(apiVersionsFrame())
    })
    socket.on('data', (chunk) => {
      got = Buffer.concat([got, chunk])
      if (got.length >= 4 && got.length >= 4 + got.readInt32BE(0)) done({ connectMs, roundTripMs: performance.now() - start })
    })
    socket.once('error', (e) => done({ error: e.message }))
  })
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.floor(s.length / 2)] : 0
}
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] : 0
}
const stats = (xs) => ({
  count: xs.length,
  p50: Math.round(quantile(xs, 0.5) * 10) / 10,
  p99: Math.round(quantile(xs, 0.99) * 10) / 10,
  max: Math.round(Math.max(0, ...xs) * 10) / 10,
})

/**
 * Starts sampling every `everyMs`: `pids()` the broker processes (their RSS
 * summed), `bootstrap` 'host:port,...' (each address probed in turn, one
 * probe at a time). `stop()` resolves with the summary.
 */
export function watchLoad({ pids, bootstrap, everyMs = 1000 }) {
  const addresses = bootstrap.split(',').map((a) => {
    const i = a.lastIndexOf(':')
    return { host: a.slice(0, i), port: Number(a.slice(i + 1)) }
  })
  const load = []
  const rss = []
  const connects = []
  const roundTrips = []
  const failures = []
  let probing = false
  let next = 0
  const tick = () => {
    load.push(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]))
    rss.push(pids().reduce((s, pid) => s + rssBytes(pid), 0))
    if (probing) return
    probing = true
    const a = addresses[next++ % addresses.length]
    probe(a.host, a.port).then((r) => {
      probing = false
      if (r.error) failures.push(r.error)
      else (connects.push(r.connectMs), roundTrips.push(r.roundTripMs))
    })
  }
  const timer = setInterval(tick, everyMs)
  tick()
  return {
    stop: async () => {
      clearInterval(timer)
      while (probing) await new Promise((r) => setTimeout(r, 50))
      return {
        loadAverage: { min: Math.min(...load), median: median(load), max: Math.max(...load) },
        peakRssBytes: Math.max(0, ...rss),
        probe: {
          connectMs: stats(connects),
          roundTripMs: stats(roundTrips),
          failures: failures.length,
          firstFailures: failures.slice(0, 3),
        },
      }
    },
  }
}
