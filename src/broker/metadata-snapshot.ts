import type { Controller } from './controller.js'
import type { MetadataRecord } from './metadata-records.js'

/**
 * The controller's image as the fewest records whose replay gives it back
 * (KRaft's snapshot): the cluster id, each broker, topic (its configs and partitions as
 * they stand), dynamic config, SCRAM credential (deletions included: one
 * removes a credential the broker was started with), client quota, ACL, delegation token, finalized feature and the
 * producer-id block. The metadata log is rewritten as this at start and as it grows.
 */
export function snapshotRecords(c: Controller): MetadataRecord[] {
  const out: MetadataRecord[] = [{ type: 'cluster-id', id: c.clusterId }]
  for (const b of c.brokers.values()) {
    out.push({ type: 'broker', id: b.id, host: b.host, port: b.port, rack: b.rack })
    if (b.fenced) out.push({ type: 'broker-fence', id: b.id, fenced: true })
  }
  for (const t of c.topics.values()) {
    out.push({ type: 'topic', name: t.name, id: t.id })
    for (const [key, value] of t.configs) out.push({ type: 'config', resource: 'topic', name: t.name, key, value })
    for (const p of t.partitions)
      if (p)
        out.push({
          type: 'partition',
          topicId: t.id,
          partition: p.partition,
          replicas: [...p.replicas],
          isr: [...p.isr],
          leader: p.leader,
          leaderEpoch: p.leaderEpoch,
          ...(p.adding.length || p.removing.length ? { adding: [...p.adding], removing: [...p.removing] } : {}),
        })
  }
  for (const resource of ['broker', 'group'] as const)
    for (const [name, configs] of c.dynamicConfigs[resource])
      for (const [key, value] of configs) out.push({ type: 'config', resource, name, key, value })
  for (const [key, credential] of c.scramCredentials) {
    const slash = key.indexOf('/')
    out.push({ type: 'scram', user: key.slice(slash + 1), mechanism: Number(key.slice(0, slash)), credential })
  }
  for (const { entity, values } of c.clientQuotas.values())
    for (const [key, value] of values) out.push({ type: 'client-quota', entity: entity.map((e) => ({ ...e })), key, value })
  for (const [id, acl] of c.acls) out.push({ type: 'acl', id, acl: { ...acl } })
  for (const token of c.delegationTokens.values())
    out.push({ type: 'delegation-token', token: { ...token, renewers: [...token.renewers] } })
  for (const [name, level] of c.features) out.push({ type: 'feature', name, level, epoch: c.featuresEpoch })
  if (c.producerIdBlockEnd > 0n) out.push({ type: 'producer-ids', next: String(c.producerIdBlockEnd) })
  return out
}

/**
 * When the metadata log is rewritten as a snapshot while running: after
 * `maxBytes` appended since the last one, or `maxMs` with anything
 * appended (Kafka's metadata.log.max.snapshot.interval.bytes and .ms,
 * their defaults 20 MiB and 1 hour).
 */
export class SnapshotPolicy {
  private bytes = 0
  private since = Date.now()

  constructor(
    /** metadata.log.max.snapshot.interval.bytes */
    public maxBytes = 20 * 1024 * 1024,
    /** metadata.log.max.snapshot.interval.ms */
    public maxMs = 3_600_000,
  ) {}

  /** Counts an append of `bytes`; true when a snapshot is due. */
  appended(bytes: number, now = Date.now()): boolean {
    this.bytes += bytes
    return this.bytes >= this.maxBytes || (this.bytes > 0 && now - this.since >= this.maxMs)
  }

  taken(now = Date.now()): void {
    this.bytes = 0
    this.since = now
  }
}
