import { randomBytes } from 'node:crypto'
import { ErrorCodes } from '../protocol/error-codes.js'
import { ZERO_UUID } from '../protocol/api.js'
import type {
  AclRecord,
  DelegationTokenRecord,
  MetadataRecord,
  PartitionChangeRecord,
  QuotaEntity,
  ScramCredentialRecord,
} from './metadata-records.js'
import {
  TOPIC_CONFIG_DEFAULTS,
  TOPIC_DEFAULT_SYNONYMS,
  topicConfigProblem,
  topicConfigsConflict,
  uncleanElectionEnabled,
} from './topic-configs.js'
import { topicNameProblem } from './topic-names.js'
import { BrokerError } from './broker-error.js'

export interface BrokerImage {
  id: number
  host: string
  port: number
  rack: string | null
  fenced: boolean
}

export interface PartitionImage {
  partition: number
  replicas: number[]
  isr: number[]
  /** -1 while no ISR member is up (unless the topic allows an unclean election). */
  leader: number
  leaderEpoch: number
  /** A reassignment in progress (KIP-455): replicas being added (catching up) and removed (once they have); both empty: none. */
  adding: number[]
  removing: number[]
}

export interface TopicImage {
  name: string
  id: string
  partitions: PartitionImage[]
  configs: Map<string, string>
  /** The broker's defaults for topic configs (log.segment.bytes as segment.bytes...): the controller's topicDefaults, shared. */
  defaults: ReadonlyMap<string, string>
  /** The same set as dynamic configs for every broker, over `defaults`: the controller's dynamicTopicDefaults, shared. */
  dynamicDefaults: ReadonlyMap<string, string>
}

/** The most partitions a topic may have here: every partition costs memory up front. */
export const MAX_PARTITIONS = 10_000

/** Kafka's NO_REASSIGNMENT_IN_PROGRESS message (its answer leaves it out). */
export const NO_REASSIGNMENT_MESSAGE = 'No partition reassignment is in progress.'

/** How many producer ids one producer-ids record hands out (Kafka's block size). */
const PRODUCER_ID_BLOCK = 1000n

/** How long a deleted topic's name is not auto-created (see Controller.deletedRecently): Kafka's brokers apply a deletion within ms of its commit, seconds under load. */
export const DELETION_PROPAGATION_MS = 1000

/**
 * Owns the cluster metadata: an append-only log of MetadataRecords and the
 * image that replaying it gives. Every change goes through append(), so the
 * log alone can rebuild the image (replay) — the shape a persisted
 * __cluster_metadata needs. Listeners hear each record once it is written.
 */
export class Controller {
  readonly clusterId: string
  readonly log: MetadataRecord[] = []
  readonly brokers = new Map<number, BrokerImage>()
  readonly topics = new Map<string, TopicImage>()
  readonly topicsById = new Map<string, TopicImage>()
  /** Dynamic broker configs (by broker id, '' for the cluster-wide defaults) and group configs, by name: what config records set. */
  readonly dynamicConfigs = { broker: new Map<string, Map<string, string>>(), group: new Map<string, Map<string, string>>() }
  /** SCRAM credentials AlterUserScramCredentials set (null: deleted), by `${mechanism}/${user}`. */
  readonly scramCredentials = new Map<string, ScramCredentialRecord['credential']>()
  /** Client quotas AlterClientQuotas set, by quotaEntityKey(entity): each entity's keys and values (none left: gone). */
  readonly clientQuotas = new Map<string, { entity: QuotaEntity; values: Map<string, number> }>()
  /** ACLs CreateAcls made and DeleteAcls has not removed, by id (src/broker/auth/acl-store.ts). */
  readonly acls = new Map<string, AclRecord['acl']>()
  /** Finalized feature levels (src/broker/features.ts), by name: what feature records set (0: not finalized). */
  readonly features = new Map<string, number>()
  /** The finalized features' epoch: the last feature record's, -1 before any. */
  featuresEpoch = -1
  /** Counts changes to `acls`: the authorizer's index is rebuilt when it moves. */
  aclsVersion = 0
  /** Delegation tokens made and not yet expired away, by token id (src/broker/sasl/delegation-tokens.ts). */
  readonly delegationTokens = new Map<string, DelegationTokenRecord['token']>()
  /** Topic config defaults the broker's options set (filled by the cluster, not a record: options are not metadata). */
  readonly topicDefaults = new Map<string, string>()
  /** Topic defaults set as dynamic configs for every broker (log.retention.ms as retention.ms...), by topic config. */
  readonly dynamicTopicDefaults = new Map<string, string>()
  /** When each topic name was last deleted here (live deletions, not replayed ones): auto-creation waits out DELETION_PROPAGATION_MS. */
  private readonly deletedAt = new Map<string, number>()
  private nextProducerId = 0n
  private producerIdLimit = 0n
  /** The end of the last producer-id block handed out: a snapshot's producer-ids record. */
  get producerIdBlockEnd(): bigint {
    return this.producerIdLimit
  }
  private readonly listeners = new Set<(r: MetadataRecord) => void>()
  /**
   * Counts every change to the image (a record applied or taken back): a fetch session reads all its partitions
   * again when it moved (leaders, epochs, replicas, topics, ACLs, configs), instead of only those whose log changed.
   */
  imageVersion = 0

  constructor(clusterId = uuid()) {
    this.clusterId = clusterId
  }

  /** A controller whose image is the replay of `records`. */
  static replay(records: readonly MetadataRecord[], clusterId?: string): Controller {
    const c = new Controller(clusterId)
    for (const r of records) c.append(r)
    // Ids of the last block may have been handed out before: start a new one.
    c.nextProducerId = c.producerIdLimit
    return c
  }

  onRecord(listener: (r: MetadataRecord) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Where new records are written (the metadata log in dataDir; none in
   * memory): each before it applies, or the records of one operation
   * (atomically) together in one write, so a crash keeps all or none.
   */
  persist: ((records: MetadataRecord[]) => void) | null = null
  private pending: MetadataRecord[] | null = null
  /** How to take back what the pending records applied, oldest first: a change whose write fails is undone. */
  private readonly undo: (() => void)[] = []

  /**
   * Runs `change`, whose records are persisted as one write when it ends
   * (KRaft's atomic record batch): a topic is never replayed without its
   * partitions. Nothing answers a client before the write: it is issued
   * before `change` returns. The change reads its own records in the image
   * as it goes; the log and the listeners (the brokers' replicas, the
   * groups) hear them only once written. A write that fails, or a change
   * that throws, takes back everything it applied: the image is as before.
   */
  atomically<T>(change: () => T): T {
    if (this.pending) return change()
    const records: MetadataRecord[] = (this.pending = [])
    let result: T
    try {
      result = change()
      if (records.length) this.write(records)
    } catch (err) {
      for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]()
      throw err
    } finally {
      this.pending = null
      this.undo.length = 0
    }
    this.publish(records)
    return result
  }

  /** Applies `record`: written first (or with its atomic change); a failed write applies nothing (BrokerError, KAFKA_STORAGE_ERROR). */
  append(record: MetadataRecord): void {
    if (this.pending) {
      this.pending.push(record)
      this.apply(record)
      return
    }
    this.write([record])
    this.apply(record)
    this.publish([record])
  }

  /**
   * Kafka's controller halts its process when its metadata log cannot be
   * written (the raft IO thread's fatal fault handler): the client hears
   * nothing. An embedded broker cannot end its host's process, so the
   * change is refused with KAFKA_STORAGE_ERROR (retriable: the client tries
   * again) and the broker goes on with the image it had.
   */
  private write(records: MetadataRecord[]): void {
    try {
      this.persist?.(records)
    } catch (err) {
      throw new BrokerError(ErrorCodes.KAFKA_STORAGE_ERROR, `the metadata log could not be written: ${(err as Error).message}`, {
        cause: err,
      })
    }
  }

  /** Written records join the log, then the listeners hear them (all in the log first: a listener's own change comes after them). */
  private publish(records: readonly MetadataRecord[]): void {
    for (const r of records) this.log.push(r)
    for (const r of records) for (const l of this.listeners) l(r)
  }

  /** Takes back what `apply` just did, should its atomic change fail (only then is there anything to take back). */
  private undoable(undo: () => void): void {
    if (this.pending)
      this.undo.push(() => {
        this.imageVersion++
        undo()
      })
  }

  private apply(r: MetadataRecord): void {
    this.imageVersion++
    switch (r.type) {
      case 'broker': {
        const before = this.brokers.get(r.id)
        this.undoable(() => (before ? this.brokers.set(r.id, before) : this.brokers.delete(r.id)))
        this.brokers.set(r.id, { id: r.id, host: r.host, port: r.port, rack: r.rack, fenced: false })
        this.noteController()
        break
      }
      case 'broker-fence': {
        const b = this.brokers.get(r.id)
        if (!b) break
        const before = b.fenced
        this.undoable(() => (b.fenced = before))
        b.fenced = r.fenced
        this.noteController()
        break
      }
      case 'topic': {
        const [byName, byId] = [this.topics.get(r.name), this.topicsById.get(r.id)]
        this.undoable(() => {
          if (byName) this.topics.set(r.name, byName)
          else this.topics.delete(r.name)
          if (byId) this.topicsById.set(r.id, byId)
          else this.topicsById.delete(r.id)
        })
        const t: TopicImage = {
          name: r.name,
          id: r.id,
          partitions: [],
          configs: new Map(),
          defaults: this.topicDefaults,
          dynamicDefaults: this.dynamicTopicDefaults,
        }
        this.topics.set(r.name, t)
        this.topicsById.set(r.id, t)
        break
      }
      case 'partition':
      case 'partition-change': {
        const t = this.topicsById.get(r.topicId)
        if (!t) break
        const before = t.partitions[r.partition]
        // A new partition is the last one (partitions are added in order): undone, the array is as long as before.
        this.undoable(() => (before ? (t.partitions[r.partition] = before) : (t.partitions.length = r.partition)))
        t.partitions[r.partition] = {
          partition: r.partition,
          replicas: [...r.replicas],
          isr: [...r.isr],
          leader: r.leader,
          leaderEpoch: r.leaderEpoch,
          adding: [...(r.adding ?? [])],
          removing: [...(r.removing ?? [])],
        }
        break
      }
      case 'remove-topic': {
        const t = this.topicsById.get(r.id)
        if (!t) break
        this.undoable(() => {
          this.topicsById.set(t.id, t)
          this.topics.set(t.name, t)
        })
        this.topicsById.delete(r.id)
        this.topics.delete(t.name)
        break
      }
      case 'config': {
        if (r.resource !== 'topic') {
          const all = this.dynamicConfigs[r.resource]
          const configs = all.get(r.name) ?? new Map<string, string>()
          const before = configs.get(r.key)
          this.undoable(() => {
            setOrDelete(configs, r.key, before)
            if (configs.size) all.set(r.name, configs)
            else all.delete(r.name)
          })
          setOrDelete(configs, r.key, r.value ?? undefined)
          if (configs.size) all.set(r.name, configs)
          else all.delete(r.name)
          const topicKey = r.resource === 'broker' && r.name === '' ? TOPIC_DEFAULT_SYNONYMS[r.key] : undefined
          if (topicKey) {
            const was = this.dynamicTopicDefaults.get(topicKey)
            this.undoable(() => setOrDelete(this.dynamicTopicDefaults, topicKey, was))
            setOrDelete(this.dynamicTopicDefaults, topicKey, r.value ?? undefined)
          }
          break
        }
        const t = this.topics.get(r.name)
        if (!t) break
        const before = t.configs.get(r.key)
        this.undoable(() => setOrDelete(t.configs, r.key, before))
        setOrDelete(t.configs, r.key, r.value ?? undefined)
        break
      }
      case 'scram': {
        const key = `${r.mechanism}/${r.user}`
        const [had, before] = [this.scramCredentials.has(key), this.scramCredentials.get(key)]
        this.undoable(() =>
          had ? this.scramCredentials.set(key, before as ScramCredentialRecord['credential']) : this.scramCredentials.delete(key),
        )
        this.scramCredentials.set(key, r.credential)
        break
      }
      case 'client-quota': {
        const id = quotaEntityKey(r.entity)
        const had = this.clientQuotas.get(id)
        const values = new Map(had?.values)
        this.undoable(() => (had ? this.clientQuotas.set(id, had) : this.clientQuotas.delete(id)))
        if (r.value === null) values.delete(r.key)
        else values.set(r.key, r.value)
        // A new image each change: a quota manager's cached lookups see the old one or the new one, never half.
        if (values.size) this.clientQuotas.set(id, { entity: r.entity.map((e) => ({ ...e })), values })
        else this.clientQuotas.delete(id)
        break
      }
      case 'acl':
      case 'remove-acl': {
        const before = this.acls.get(r.id)
        this.undoable(() => {
          if (before) this.acls.set(r.id, before)
          else this.acls.delete(r.id)
          this.aclsVersion++
        })
        if (r.type === 'acl') this.acls.set(r.id, { ...r.acl })
        else this.acls.delete(r.id)
        this.aclsVersion++
        break
      }
      case 'delegation-token':
      case 'remove-delegation-token': {
        const id = r.type === 'delegation-token' ? r.token.tokenId : r.tokenId
        const before = this.delegationTokens.get(id)
        this.undoable(() => (before ? this.delegationTokens.set(id, before) : this.delegationTokens.delete(id)))
        if (r.type === 'delegation-token') this.delegationTokens.set(id, { ...r.token, renewers: r.token.renewers.map((p) => ({ ...p })) })
        else this.delegationTokens.delete(id)
        break
      }
      case 'cluster-id':
        // Held to meta.properties when the log is opened (cluster.ts); the id is the controller's from then on.
        break
      case 'feature': {
        const [had, before, epoch] = [this.features.has(r.name), this.features.get(r.name), this.featuresEpoch]
        this.undoable(() => {
          if (had) this.features.set(r.name, before!)
          else this.features.delete(r.name)
          this.featuresEpoch = epoch
        })
        this.features.set(r.name, r.level)
        this.featuresEpoch = r.epoch
        break
      }
      case 'producer-ids': {
        const [next, limit] = [this.nextProducerId, this.producerIdLimit]
        this.undoable(() => {
          this.nextProducerId = next
          this.producerIdLimit = limit
        })
        this.nextProducerId = this.producerIdLimit
        this.producerIdLimit = BigInt(r.next)
        break
      }
    }
  }

  /** Live (unfenced) brokers, by id. */
  liveBrokers(): BrokerImage[] {
    return [...this.brokers.values()].filter((b) => !b.fenced).sort((a, b) => a.id - b.id)
  }

  /**
   * The node the brokers report as the controller (Metadata, DescribeCluster)
   * and as the metadata quorum's leader (DescribeQuorum): the first live
   * broker, since the controller itself runs in process, beside them all.
   */
  activeController(): BrokerImage | undefined {
    return this.liveBrokers()[0]
  }

  private controllerSeen = -1
  private controllerEpoch = 0
  /**
   * The metadata quorum's leader epoch (DescribeQuorum): 1 under the first
   * active controller, one more each time another broker takes the role, as
   * KRaft's epoch moves with each new leader. Counted from this process's
   * replay of the log (a restart from a snapshot counts from 1 again).
   */
  get quorumEpoch(): number {
    return this.controllerEpoch
  }

  /** After a broker record or fence: a new active controller is a new quorum epoch. */
  private noteController(): void {
    const id = this.activeController()?.id
    if (id === undefined || id === this.controllerSeen) return
    const [seen, epoch] = [this.controllerSeen, this.controllerEpoch]
    this.undoable(() => {
      this.controllerSeen = seen
      this.controllerEpoch = epoch
    })
    this.controllerSeen = id
    this.controllerEpoch++
  }

  registerBroker(id: number, host: string, port: number, rack: string | null = null): void {
    this.append({ type: 'broker', id, host, port, rack })
  }

  /**
   * Fences (stops) or unfences a broker, as KRaft's controller does: a
   * fenced broker leaves every ISR it is in (unless it is the last member,
   * which keeps the partition's committed data named), and the partitions
   * it led get a new leader from the remaining ISR, or none (-1) when no
   * member is live — unless the topic sets unclean.leader.election.enable,
   * when a live replica out of sync leads (under a new epoch, the ISR itself
   * alone: what it lacks is lost). An unfenced broker takes back the
   * leaderless partitions whose ISR it is in (or, unclean, any it is a
   * replica of); it rejoins other ISRs by catching up, through its leaders.
   */
  setFenced(id: number, fenced: boolean): void {
    const b = this.brokers.get(id)
    if (!b || b.fenced === fenced) return
    this.atomically(() => this.fence(id, fenced))
  }

  private fence(id: number, fenced: boolean): void {
    this.append({ type: 'broker-fence', id, fenced })
    const live = new Set(this.liveBrokers().map((x) => x.id))
    for (const t of this.topics.values()) {
      for (const p of t.partitions) {
        if (fenced && p.isr.includes(id)) {
          const isr = p.isr.length > 1 ? p.isr.filter((r) => r !== id) : p.isr
          if (p.leader !== id) {
            if (isr !== p.isr) this.changePartition(t, p, { isr })
            continue
          }
          const clean = isr.find((r) => r !== id && live.has(r))
          const unclean = clean === undefined && uncleanElectionEnabled(t) ? p.replicas.find((r) => live.has(r)) : undefined
          if (unclean !== undefined) this.changePartition(t, p, { leader: unclean, isr: [unclean] })
          else this.changePartition(t, p, { leader: clean ?? -1, isr })
        } else if (!fenced && p.leader === -1 && p.isr.includes(id)) {
          this.changePartition(t, p, { leader: id })
        } else if (!fenced && p.leader === -1 && p.replicas.includes(id) && uncleanElectionEnabled(t)) {
          this.changePartition(t, p, { leader: id, isr: [id] })
        }
      }
    }
  }

  /**
   * A partition change. Naming a leader (even the same one) starts a new
   * leader epoch; an ISR or replica change alone keeps the epoch (Kafka
   * bumps only its partition epoch for those).
   */
  changePartition(
    t: TopicImage,
    p: PartitionImage,
    change: Partial<Pick<PartitionChangeRecord, 'leader' | 'isr' | 'replicas'> & Pick<PartitionImage, 'adding' | 'removing'>>,
  ): void {
    const adding = change.adding ?? p.adding
    const removing = change.removing ?? p.removing
    this.append({
      type: 'partition-change',
      topicId: t.id,
      partition: p.partition,
      leader: change.leader ?? p.leader,
      leaderEpoch: change.leader !== undefined ? p.leaderEpoch + 1 : p.leaderEpoch,
      isr: change.isr ?? p.isr,
      replicas: change.replicas ?? p.replicas,
      ...(adding.length || removing.length ? { adding: [...adding], removing: [...removing] } : {}),
    })
  }

  /**
   * A change of replicas, ISR or reassignment as Kafka's
   * PartitionChangeBuilder makes it: a reassignment whose target replicas
   * are all in the (new) ISR completes (the removed replicas leave the
   * replica set and the ISR), and a leader no longer in the replicas or the
   * ISR gives way to the first replica in the ISR that is live (a new
   * leader epoch). No record when nothing changes.
   */
  changeReassigning(
    t: TopicImage,
    p: PartitionImage,
    change: Partial<Pick<PartitionImage, 'isr' | 'replicas' | 'adding' | 'removing'>>,
  ): void {
    const next = reassigned(
      {
        replicas: change.replicas ?? p.replicas,
        isr: change.isr ?? p.isr,
        adding: change.adding ?? p.adding,
        removing: change.removing ?? p.removing,
      },
      p.leader,
      (r) => this.brokers.get(r)?.fenced === false,
    )
    const same = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i])
    if (
      next.leader === p.leader &&
      same(next.replicas, p.replicas) &&
      same(next.isr, p.isr) &&
      same(next.adding, p.adding) &&
      same(next.removing, p.removing)
    )
      return
    this.changePartition(t, p, { ...next, leader: next.leader !== p.leader ? next.leader : undefined })
  }

  /**
   * AlterPartitionReassignments for one partition (Kafka's
   * ReplicationControlManager): `target` starts (or replaces) a
   * reassignment: the replicas become the target then those being removed,
   * the new ones catch up through the replica fetchers and join the ISR,
   * and then it completes (alterIsr). Null cancels the one in progress:
   * the replicas being added go, ISR and leadership included.
   */
  reassignPartition(topic: string, partition: number, target: number[] | null, allowReplicationFactorChange = true): void {
    const t = this.topics.get(topic)
    if (!t) throw new BrokerError(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find a topic named ${topic}.`)
    const p = t.partitions[partition]
    if (!p) throw new BrokerError(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find partition ${topic}:${partition}.`)
    if (target === null) {
      if (!p.adding.length && !p.removing.length) throw new BrokerError(ErrorCodes.NO_REASSIGNMENT_IN_PROGRESS, NO_REASSIGNMENT_MESSAGE)
      const isr = p.isr.filter((r) => !p.adding.includes(r))
      if (!isr.length)
        throw new BrokerError(
          ErrorCodes.INVALID_REPLICA_ASSIGNMENT,
          `Unable to revert partition assignment for ${topic}:${partition} because it would require an unclean leader election.`,
        )
      this.changeReassigning(t, p, { replicas: p.replicas.filter((r) => !p.adding.includes(r)), isr, adding: [], removing: [] })
      return
    }
    this.checkManualAssignment(target, null, partition)
    const original = p.replicas.length - p.adding.length
    if (!allowReplicationFactorChange && target.length !== original)
      throw new BrokerError(ErrorCodes.INVALID_REPLICATION_FACTOR, `The replication factor is changed from ${original} to ${target.length}`)
    const sorted = (a: number[]) => [...a].sort((x, y) => x - y)
    const removing = sorted(p.replicas.filter((r) => !target.includes(r)))
    const adding = sorted(target.filter((r) => !p.replicas.includes(r)))
    this.changeReassigning(t, p, { replicas: [...target, ...removing], adding, removing })
  }

  /**
   * AlterPartition from a leader: the new ISR of a partition it leads at
   * `leaderEpoch`; refused (false) when that is no longer the current
   * leadership, so a deposed leader cannot change it, or when it adds a
   * fenced broker.
   */
  alterIsr(topicId: string, partition: number, leader: number, leaderEpoch: number, isr: number[]): boolean {
    const t = this.topicsById.get(topicId)
    const p = t?.partitions[partition]
    if (!t || !p || p.leader !== leader || p.leaderEpoch !== leaderEpoch) return false
    if (!isr.includes(leader) || isr.some((r) => !p.replicas.includes(r))) return false
    // A fenced broker may not join (KIP-841): a fetch it sent before it stopped can still reach the leader.
    if (isr.some((r) => !p.isr.includes(r) && this.brokers.get(r)?.fenced !== false)) return false
    if (isr.length === p.isr.length && isr.every((r) => p.isr.includes(r))) return true
    // A reassignment completes when its new replicas are all in sync.
    this.changeReassigning(t, p, { isr: p.replicas.filter((r) => isr.includes(r)) })
    return true
  }

  /** Creates a topic; `assignments[p]` (replica lists) overrides the round-robin placement. */
  createTopic(
    name: string,
    opts: {
      partitions: number
      replicationFactor: number
      configs?: Record<string, string>
      assignments?: number[][]
      validateOnly?: boolean
      /** Spends the topic's partitions from the client's controller mutation quota once every other check passed (validateOnly too, as Kafka); throws to refuse. */
      spendMutations?: (partitions: number) => void
      /**
       * Place replicas on every registered broker, stopped (fenced) ones too, as Kafka's replica placer does
       * (a live one first in each list, so it leads); else on live brokers only.
       */
      onRegistered?: boolean
    },
  ): TopicImage | null {
    const problem = topicNameProblem(name)
    if (problem) throw new BrokerError(ErrorCodes.INVALID_TOPIC_EXCEPTION, problem)
    if (this.topics.has(name)) throw new BrokerError(ErrorCodes.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`)
    for (const [key, value] of Object.entries(opts.configs ?? {})) {
      const why = topicConfigProblem(key, value)
      if (why) throw new BrokerError(ErrorCodes.INVALID_CONFIG, why)
    }
    const conflict = topicConfigsConflict((key) => opts.configs?.[key] ?? TOPIC_CONFIG_DEFAULTS[key].value)
    if (conflict) throw new BrokerError(ErrorCodes.INVALID_CONFIG, conflict)
    const live = this.liveBrokers().map((b) => b.id)
    let assignments = opts.assignments
    if (!assignments) {
      if (!(opts.partitions >= 1)) throw new BrokerError(ErrorCodes.INVALID_PARTITIONS, 'Number of partitions must be larger than 0.')
      if (opts.partitions > MAX_PARTITIONS)
        throw new BrokerError(ErrorCodes.INVALID_PARTITIONS, `the embedded broker serves at most ${MAX_PARTITIONS} partitions a topic`)
      if (!(opts.replicationFactor >= 1)) {
        throw new BrokerError(ErrorCodes.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0.')
      }
      const candidates = opts.onRegistered ? [...this.brokers.keys()].sort((a, b) => a - b) : live
      if (opts.replicationFactor > candidates.length) {
        throw new BrokerError(
          ErrorCodes.INVALID_REPLICATION_FACTOR,
          `Unable to replicate the partition ${opts.replicationFactor} time(s): The target replication factor of ${opts.replicationFactor} cannot be reached because only ${candidates.length} broker(s) are registered.`,
        )
      }
      if (live.length === 0) throw new BrokerError(ErrorCodes.INVALID_REPLICATION_FACTOR, 'No brokers are unfenced: no replica could lead.')
      const start = this.topics.size
      assignments = placeReplicas(candidates, start, 0, opts.partitions, opts.replicationFactor)
      if (opts.onRegistered) {
        const up = new Set(live)
        assignments = assignments.map((r) => [...r.filter((b) => up.has(b)), ...r.filter((b) => !up.has(b))])
      }
    } else {
      if (assignments.length > MAX_PARTITIONS)
        throw new BrokerError(ErrorCodes.INVALID_PARTITIONS, `the embedded broker serves at most ${MAX_PARTITIONS} partitions a topic`)
      for (const replicas of assignments) {
        if (!replicas.length || replicas.some((r) => !this.brokers.has(r)) || new Set(replicas).size !== replicas.length) {
          throw new BrokerError(
            ErrorCodes.INVALID_REPLICA_ASSIGNMENT,
            `replica assignment ${JSON.stringify(replicas)} names unknown or repeated brokers`,
          )
        }
      }
    }
    opts.spendMutations?.(assignments.length)
    if (opts.validateOnly) return null
    const id = uuid()
    return this.atomically(() => {
      this.append({ type: 'topic', name, id })
      for (const [key, value] of Object.entries(opts.configs ?? {})) this.append({ type: 'config', resource: 'topic', name, key, value })
      this.addPartitions(id, 0, assignments!)
      return this.topics.get(name)!
    })
  }

  private addPartitions(topicId: string, from: number, assignments: number[][]): void {
    const live = new Set(this.liveBrokers().map((b) => b.id))
    assignments.forEach((replicas, i) => {
      // An empty partition: every live replica is in sync with it.
      const isr = replicas.filter((r) => live.has(r))
      this.append({ type: 'partition', topicId, partition: from + i, replicas, isr, leader: isr[0] ?? -1, leaderEpoch: 0 })
    })
  }

  /** Deletes a topic; `spendMutations` (the controller mutation quota) is spent its partitions first, and may refuse. */
  deleteTopic(name: string, spendMutations?: (partitions: number) => void): TopicImage {
    const t = this.topics.get(name)
    if (!t) throw new BrokerError(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.')
    spendMutations?.(t.partitions.length)
    this.append({ type: 'remove-topic', id: t.id, name: t.name })
    const now = Date.now()
    for (const [gone, at] of this.deletedAt) if (now - at >= DELETION_PROPAGATION_MS) this.deletedAt.delete(gone)
    this.deletedAt.set(t.name, now)
    return t
  }

  /**
   * Whether the topic `name` was deleted less than DELETION_PROPAGATION_MS
   * ago. Kafka's controller answers a DeleteTopics once the deletion is in
   * its log, and each broker applies it when it next reads that log: a
   * client's Metadata request in between mostly sees the topic still there
   * and so does not auto-create it. Here every broker sees a deletion at
   * once, so the window is kept by not auto-creating the name until it has passed
   * (librdkafka's 0033: a closing consumer's refresh, sent on the same
   * connection right after the test's DeleteTopics, recreated the topic).
   */
  deletedRecently(name: string): boolean {
    const at = this.deletedAt.get(name)
    return at !== undefined && Date.now() - at < DELETION_PROPAGATION_MS
  }

  /**
   * CreatePartitions: grows `name` to `count` partitions, placed round-robin
   * or by `assignments` (one replica list per new partition), which Kafka's
   * controller checks as here: one list per new partition, each naming
   * registered brokers once, as many as the topic's replication factor, and
   * at least one of them live.
   */
  createPartitions(
    name: string,
    count: number,
    validateOnly = false,
    assignments: number[][] | null = null,
    spendMutations?: (partitions: number) => void,
  ): void {
    const t = this.topics.get(name)
    if (!t) throw new BrokerError(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${name}' does not exist.`)
    const have = t.partitions.length
    if (count <= have) {
      throw new BrokerError(
        ErrorCodes.INVALID_PARTITIONS,
        count === have
          ? `Topic already has ${have} partitions.`
          : `The topic ${name} currently has ${have} partition(s); ${count} would not be an increase.`,
      )
    }
    if (assignments && assignments.length !== count - have) {
      throw new BrokerError(
        ErrorCodes.INVALID_REPLICA_ASSIGNMENT,
        `Attempted to add ${count - have} additional partition(s), but only ${assignments.length} assignment(s) were specified.`,
      )
    }
    if (count > MAX_PARTITIONS)
      throw new BrokerError(ErrorCodes.INVALID_PARTITIONS, `the embedded broker serves at most ${MAX_PARTITIONS} partitions a topic`)
    // The quota before the placement's checks, as Kafka's controller spends it.
    spendMutations?.(count - have)
    const rf = t.partitions[0]?.replicas.length ?? 1
    const live = this.liveBrokers().map((b) => b.id)
    if (assignments) assignments.forEach((replicas, i) => this.checkManualAssignment(replicas, rf, have + i))
    else if (rf > live.length)
      throw new BrokerError(ErrorCodes.INVALID_REPLICATION_FACTOR, `only ${live.length} live brokers for replication factor ${rf}`)
    if (validateOnly) return
    const placed = assignments ? assignments.map((r) => [...r]) : placeReplicas(live, this.topics.size, have, count - have, rf)
    this.atomically(() => this.addPartitions(t.id, have, placed))
  }

  /** Kafka's checks of one partition's manual replica list (its messages, INVALID_REPLICA_ASSIGNMENT); rf null: any count, fenced brokers too (a reassignment). */
  private checkManualAssignment(replicas: number[], rf: number | null, partition: number): void {
    const bad = (message: string) => new BrokerError(ErrorCodes.INVALID_REPLICA_ASSIGNMENT, message)
    if (!replicas.length) throw bad('The manual partition assignment includes an empty replica list.')
    const sorted = [...replicas].sort((a, b) => a - b)
    sorted.forEach((id, i) => {
      if (!this.brokers.has(id)) throw bad(`The manual partition assignment includes broker ${id}, but no such broker is registered.`)
      if (i > 0 && sorted[i - 1] === id) throw bad(`The manual partition assignment includes the broker ${id} more than once.`)
    })
    if (rf === null) return
    if (replicas.length !== rf) {
      throw bad(
        `The manual partition assignment includes a partition with ${replicas.length} replica(s), but this is not consistent with previous partitions, which have ${rf} replica(s).`,
      )
    }
    if (!replicas.some((id) => this.brokers.get(id)?.fenced === false))
      throw bad(`All brokers specified in the manual partition assignment for partition ${partition} are fenced or in controlled shutdown.`)
  }

  /** Sets (or with null removes) a dynamic broker or group config. */
  setDynamicConfig(resource: 'broker' | 'group', name: string, key: string, value: string | null): void {
    this.append({ type: 'config', resource, name, key, value })
    // unclean.leader.election.enable turned on for every broker: the topics it now allows elect at once, as a topic's own does.
    if (resource === 'broker' && name === '' && key === 'unclean.leader.election.enable')
      for (const t of this.topics.values())
        if (uncleanElectionEnabled(t)) for (const p of t.partitions) if (p && p.leader === -1) this.electUnclean(t, p)
  }

  setTopicConfig(name: string, key: string, value: string | null): void {
    this.append({ type: 'config', resource: 'topic', name, key, value })
    // Allowed now: the partitions waiting for an in-sync replica take any live one (as KRaft's controller does).
    const t = this.topics.get(name)
    if (t && key === 'unclean.leader.election.enable' && uncleanElectionEnabled(t))
      for (const p of t.partitions) if (p && p.leader === -1) this.electUnclean(t, p)
  }

  /** A leaderless partition's first live replica leads, alone in its ISR; false when none is live. */
  private electUnclean(t: TopicImage, p: PartitionImage): boolean {
    const any = p.replicas.find((r) => this.brokers.get(r)?.fenced === false)
    if (any === undefined) return false
    this.changePartition(t, p, { leader: any, isr: [any] })
    return true
  }

  /** A fresh producer id, from the current block or a new one (a producer-ids record). */
  allocateProducerId(): bigint {
    if (this.nextProducerId >= this.producerIdLimit) {
      this.append({ type: 'producer-ids', next: String(this.producerIdLimit + PRODUCER_ID_BLOCK) })
    }
    return this.nextProducerId++
  }

  /**
   * ElectLeaders for one partition. Preferred (0): its first replica, when
   * in sync and live and not leading already. Unclean (1): only for a
   * partition with no leader, the first live ISR member, or else the first
   * live replica, which becomes the whole ISR (what it has is all there is).
   * Returns the Kafka error code and why, or null when elected.
   */
  electLeader(topic: string, partition: number, unclean: boolean): { code: number; message: string } | null {
    const t = this.topics.get(topic)
    const p = t?.partitions[partition]
    if (!t || !p) return { code: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, message: `no partition ${topic}-${partition}` }
    const live = (r: number) => this.brokers.get(r)?.fenced === false
    if (!unclean) {
      const preferred = p.replicas[0]
      if (p.leader === preferred) return { code: ErrorCodes.ELECTION_NOT_NEEDED, message: 'the preferred replica leads already' }
      if (!p.isr.includes(preferred) || !live(preferred))
        return {
          code: ErrorCodes.PREFERRED_LEADER_NOT_AVAILABLE,
          message: `the preferred replica ${preferred} is not a live in-sync replica`,
        }
      this.changePartition(t, p, { leader: preferred })
      return null
    }
    if (p.leader >= 0) return { code: ErrorCodes.ELECTION_NOT_NEEDED, message: `broker ${p.leader} leads already` }
    const inSync = p.isr.find(live)
    if (inSync !== undefined) {
      this.changePartition(t, p, { leader: inSync })
      return null
    }
    if (!this.electUnclean(t, p)) return { code: ErrorCodes.ELIGIBLE_LEADERS_NOT_AVAILABLE, message: 'no replica is live' }
    return null
  }

  /**
   * Makes `broker` the partition's leader under a new leader epoch: an ISR
   * member is elected as it is (ElectLeaders); a broker outside the replica
   * set takes the place of the current leader and the data goes with it (a
   * reassignment, with the ISR the new leader alone). A replica out of sync
   * cannot lead (no unclean election).
   */
  /**
   * A leader whose log lost records at open (a cut, a directory moved
   * aside) hands its leadership to another in-sync replica, which holds
   * every acknowledged record, and leaves the ISR to catch up from it: led
   * by it, its followers would truncate their whole copies to it. Returns
   * the new leader, or null (not the leader, or no other in-sync replica).
   */
  resign(topicId: string, partition: number, broker: number): number | null {
    const t = this.topicsById.get(topicId)
    const p = t?.partitions[partition]
    const next = p?.leader === broker ? p.isr.find((r) => r !== broker) : undefined
    if (!t || !p || next === undefined) return null
    this.atomically(() => this.changePartition(t, p, { leader: next, isr: p.isr.filter((r) => r !== broker) }))
    return next
  }

  moveLeader(topic: string, partition: number, broker: number): 'elected' | 'reassigned' {
    const t = this.topics.get(topic)
    const p = t?.partitions[partition]
    if (!t || !p) throw new BrokerError(ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION, `no partition ${topic}/${partition}`)
    const b = this.brokers.get(broker)
    if (!b || b.fenced) throw new BrokerError(ErrorCodes.BROKER_NOT_AVAILABLE, `broker ${broker} is not running`)
    if (p.isr.includes(broker)) {
      this.changePartition(t, p, { leader: broker })
      return 'elected'
    }
    if (p.replicas.includes(broker))
      throw new BrokerError(ErrorCodes.ELIGIBLE_LEADERS_NOT_AVAILABLE, `broker ${broker} is not in the ISR of ${topic}/${partition}`)
    const replaced = p.leader >= 0 ? p.leader : p.replicas[0]
    this.changePartition(t, p, { leader: broker, isr: [broker], replicas: p.replicas.map((r) => (r === replaced ? broker : r)) })
    return 'reassigned'
  }
}

/**
 * A partition's replicas, ISR and reassignment after a change (Kafka's
 * PartitionReassignmentReplicas and PartitionChangeBuilder): completed when
 * every replica kept is in the ISR (the ISR less those removed non-empty),
 * and the leader kept while it is a replica in the ISR, else the first
 * live replica in the ISR (-1: none).
 */
export function reassigned(
  a: Pick<PartitionImage, 'replicas' | 'isr' | 'adding' | 'removing'>,
  leader: number,
  live: (broker: number) => boolean,
): Pick<PartitionImage, 'replicas' | 'isr' | 'adding' | 'removing' | 'leader'> {
  let { replicas, isr, adding, removing } = a
  if (adding.length || removing.length) {
    const keptIsr = isr.filter((r) => !removing.includes(r))
    const kept = replicas.filter((r) => !removing.includes(r))
    if (keptIsr.length && kept.length && kept.every((r) => keptIsr.includes(r))) {
      replicas = kept
      isr = keptIsr
      adding = []
      removing = []
    }
  }
  isr = isr.filter((r) => replicas.includes(r))
  if (leader < 0 || !replicas.includes(leader) || !isr.includes(leader)) leader = replicas.find((r) => isr.includes(r) && live(r)) ?? -1
  return { replicas, isr, adding, removing, leader }
}

/** One string per quota entity, whatever the order its parts came in (null names, the defaults, kept apart from any name). */
export function quotaEntityKey(entity: QuotaEntity): string {
  return JSON.stringify([...entity].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0)).map((e) => [e.type, e.name]))
}

function setOrDelete(m: Map<string, string>, key: string, value: string | undefined): void {
  if (value === undefined) m.delete(key)
  else m.set(key, value)
}

/** Kafka's round-robin placement: partition p's replicas start at broker (start + p) and go on in order. */
function placeReplicas(brokers: number[], start: number, first: number, count: number, rf: number): number[][] {
  const out: number[][] = []
  for (let p = first; p < first + count; p++) {
    const replicas: number[] = []
    for (let i = 0; i < rf; i++) replicas.push(brokers[(start + p + i) % brokers.length])
    out.push(replicas)
  }
  return out
}

/** A random Kafka UUID (URL-safe base64, 22 characters), never the all-zero one. */
export function uuid(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url')
    if (id !== ZERO_UUID) return id
  }
}
