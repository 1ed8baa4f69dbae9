// Kafka's side of the suite's request timings (--timings): each broker's
// request.log (kafka.request.logger at DEBUG, test/peers/kafka/
// log4j2-request-log.properties) read into the summary the embedded broker
// writes (src/broker/request-timings.ts): per API key, count and p50 / p99 /
// p99.9 / max of totalTimeMs (request received -> response sent), rounded to
// whole milliseconds as there.
import { createReadStream, existsSync } from 'node:fs'
import { createInterface } from 'node:readline'

/** Whole-millisecond histograms by key; `summary()` gives what request-timings.ts writes. */
export class Histograms {
  constructor() {
    this.byKey = new Map()
  }
  add(key, ms) {
    let b = this.byKey.get(key)
    if (!b) this.byKey.set(key, (b = new Map()))
    const at = Math.max(0, Math.round(ms))
    b.set(at, (b.get(at) ?? 0) + 1)
  }
  summary() {
    const out = {}
    for (const [key, b] of [...this.byKey].sort((x, y) => x[0] - y[0])) {
      const ms = [...b.keys()].sort((x, y) => x - y)
      const count = ms.reduce((s, m) => s + b.get(m), 0)
      const at = (q) => {
        let seen = 0
        for (const m of ms) if ((seen += b.get(m)) >= q * count) return m
        return ms[ms.length - 1]
      }
      out[key] = { count, p50: at(0.5), p99: at(0.99), p999: at(0.999), max: ms[ms.length - 1] }
    }
    return out
  }
}

/**
 * Reads the brokers' request logs. Client requests are what the embedded
 * broker's counter counts; the brokers' own are summed apart, as `brokers`:
 * every request on the controller listener, the replica fetchers and the
 * transaction marker senders (client ids `broker-N-...`), and the partition
 * leaders' AddPartitionsToTxn to the transaction coordinator.
 */
export async function readRequestLogs(files) {
  const clients = new Histograms()
  const brokers = new Histograms()
  let unparsed = 0
  for (const file of files) {
    if (!existsSync(file)) continue
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity })
    for await (const line of lines) {
      const key = /"requestApiKey":(\d+)/.exec(line)
      const total = /"totalTimeMs":([-\d.eE]+)/.exec(line)
      if (!key || !total) {
        if (line.trim()) unparsed++
        continue
      }
      const clientId = /"clientId":"([^"]*)"/.exec(line)?.[1] ?? ''
      // The connection's listener is near the end (a request body may name listeners too).
      const listener = /"listener":"([^"]*)"/.exec(line.slice(line.lastIndexOf('"listener":')))?.[1] ?? ''
      // A partition leader checks (transaction.version 1: verifyOnly) or adds (2: KIP-890's implicit add) a
      // transaction's partitions with the coordinator through its AddPartitionsToTxnManager, whose client id is
      // `AddPartitionsManager-client-<node id>` on the client listener; the embedded broker's coordinator is in
      // process and sends none, and franz-go itself sends no AddPartitionsToTxn at transaction.version 2.
      const own = listener === 'CONTROLLER' || /^broker-\d+-/.test(clientId) || /^AddPartitionsManager-client-\d+$/.test(clientId)
      ;(own ? brokers : clients).add(Number(key[1]), Number(total[1]))
    }
  }
  return { clients: clients.summary(), brokers: brokers.summary(), unparsed }
}
