// A data directory's meta.properties (Kafka's): the cluster id, read back
// as written or not at all: a file that holds no whole id refuses the start
// by name, rather than a new id silently written over it.
import { existsSync, readFileSync } from 'node:fs'
import { StorageError, writeFileDurably } from './disk-io.js'

/** A Kafka cluster id: 16 bytes, URL-safe base64 without padding. */
const ID = /(?:^|\n)cluster\.id=([\w-]{22})(?:\n|$)/

/**
 * The cluster id in `path`, or `fresh()` written there when there is no
 * file yet. The rest of the file not as written is said; no whole id in it
 * refuses (StorageError naming the file).
 */
export function readOrWriteClusterId(path: string, fresh: () => string, report: (message: string) => void): string {
  if (!existsSync(path)) {
    const id = fresh()
    // As Kafka writes it (temp, flush, rename, directory flush); failing, the start is refused (StorageError).
    writeFileDurably(path, metaProperties(id))
    return id
  }
  const text = readFileSync(path, 'utf8')
  const id = ID.exec(text)?.[1]
  if (!id)
    throw new StorageError(
      path,
      `${path} holds no cluster id (corrupt): the broker does not start. Restore the file (version=1, cluster.id=<the cluster's id>) ` +
        'from a backup or another copy of this data directory',
    )
  if (text !== metaProperties(id)) report(`${path} is not as written (corrupt?): its cluster id ${id} taken, the file left as it is`)
  return id
}

function metaProperties(clusterId: string): string {
  return `version=1\ncluster.id=${clusterId}\n`
}
