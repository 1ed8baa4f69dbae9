// A data directory's meta.properties (Kafka's): the cluster id, read back
// as written or not at all: a file that holds no whole id refuses the start
// by name, rather than a new id silently written over it.
import { existsSync, readFileSync } from 'node:fs'
import { StorageError, writeFileDurably } from './disk-io.js'

/** A Kafka cluster id: 16 bytes, URL-safe base64 without padding. */
const ID = /(?:^|\n)cluster\.id=([\w-]{22})(?:\n|$)/

/**
 * The cluster id of a data directory: meta.properties' (`path`), held to the
 * one its metadata log names (`logged`, null for a new log or one of an
 * earlier version, which named none). No file: the log's id written back
 * (said), or `fresh()` for a new cluster. The rest of the file not as
 * written is said; no whole id in it, or another cluster's than the log's,
 * refuses the start (StorageError naming the file).
 */
export function settleClusterId(path: string, logged: string | null, fresh: () => string, report: (message: string) => void): string {
  if (!existsSync(path)) {
    const id = logged ?? fresh()
    // As Kafka writes it (temp, flush, rename, directory flush); failing, the start is refused (StorageError).
    writeFileDurably(path, metaProperties(id))
    if (logged) report(`${path} was missing: written again with the cluster id its metadata log names (${id})`)
    return id
  }
  const text = readFileSync(path, 'utf8')
  const id = ID.exec(text)?.[1]
  const restore = `Restore the file (version=1, cluster.id=${logged ?? "<the cluster's id>"}) from a backup or another copy of this data directory`
  if (!id) throw new StorageError(path, `${path} holds no cluster id (corrupt): the broker does not start. ${restore}`)
  if (logged !== null && id !== logged)
    throw new StorageError(
      path,
      `${path} names cluster ${id}, but the metadata log beside it was written by cluster ${logged}: the broker does not start. ` +
        `If the file is wrong (corrupt), ${restore[0].toLowerCase()}${restore.slice(1)}; if the log is another cluster's, point log.dirs at this cluster's own data`,
    )
  if (text !== metaProperties(id)) report(`${path} is not as written (corrupt?): its cluster id ${id} taken, the file left as it is`)
  return id
}

function metaProperties(clusterId: string): string {
  return `version=1\ncluster.id=${clusterId}\n`
}
