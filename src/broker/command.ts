import { startCluster } from './index.js'

const USAGE = `usage: wafka broker [--port PORT] [--brokers N] [--partitions N] [--no-auto-create-topics] [--data-dir DIR]

Serves an embedded Kafka-compatible cluster on 127.0.0.1 until SIGINT or SIGTERM:
N brokers (default 1) on PORT, PORT+1, ... (default 9092; 0 for ephemeral ports).
Data lives in memory and is gone when it stops, unless --data-dir names a
directory: then topics, records and committed offsets are kept there, in
Kafka's segment layout, and recovered at the next start.`

/** `wafka broker`: parses its arguments, starts the cluster, stops it cleanly on a signal. Resolves with the exit code. */
export async function brokerCommand(args: string[], log: (line: string) => void = console.log): Promise<number> {
  const options: { port: number; brokers: number; defaultPartitions: number; autoCreateTopics: boolean; dataDir?: string } = {
    port: 9092,
    brokers: 1,
    defaultPartitions: 1,
    autoCreateTopics: true,
  }
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    const value = () => {
      const v = Number(args[++i])
      if (!Number.isInteger(v) || v < 0) throw new Error(`${a} needs a non-negative integer, not ${args[i] ?? 'nothing'}`)
      return v
    }
    if (a === '--port') options.port = value()
    else if (a === '--brokers') options.brokers = value()
    else if (a === '--partitions') options.defaultPartitions = value()
    else if (a === '--no-auto-create-topics') options.autoCreateTopics = false
    else if (a === '--data-dir') {
      const dir = args[++i]
      if (!dir || dir.startsWith('--')) throw new Error(`--data-dir needs a directory, not ${dir ?? 'nothing'}`)
      options.dataDir = dir
    } else if (a === '--help' || a === '-h') {
      log(USAGE)
      return 0
    } else {
      log(`wafka broker: unknown argument ${a}\n${USAGE}`)
      return 2
    }
  }
  const cluster = await startCluster({ ...options, onProblem: (m) => log(`wafka broker: ${m}`) })
  if (options.dataDir) log(`wafka broker: data kept in ${options.dataDir}`)
  log(`wafka broker: ${cluster.brokers.length} broker(s) serving; bootstrap servers ${cluster.bootstrapServers}`)
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log(`wafka broker: ${signal}, stopping`)
      process.off('SIGINT', onInt)
      process.off('SIGTERM', onTerm)
      resolve()
    }
    const onInt = () => stop('SIGINT')
    const onTerm = () => stop('SIGTERM')
    process.once('SIGINT', onInt)
    process.once('SIGTERM', onTerm)
  })
  await cluster.stop()
  return 0
}
