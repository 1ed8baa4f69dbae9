import type { Acl } from './auth/acl-matching.js'

/**
 * The records of the cluster metadata log, as KRaft's __cluster_metadata
 * holds them: every change to brokers, topics, partitions, configs and
 * producer ids is one record appended to the log, and the metadata image
 * is what replaying the log from the start gives. Plain JSON-able data
 * (bigints as strings), so the log can be written to disk and read back.
 */
export type MetadataRecord =
  | BrokerRecord
  | BrokerFenceRecord
  | TopicRecord
  | PartitionRecord
  | PartitionChangeRecord
  | RemoveTopicRecord
  | ConfigRecord
  | ProducerIdsRecord
  | ScramCredentialRecord
  | ClientQuotaRecord
  | AclRecord
  | RemoveAclRecord
  | DelegationTokenRecord
  | RemoveDelegationTokenRecord
  | FeatureLevelRecord
  | ClusterIdRecord

/**
 * The cluster the log belongs to, first in every snapshot: meta.properties,
 * which has no checksum, is held to it at start (Kafka's brokers are held to
 * their controller's cluster id when they register).
 */
export interface ClusterIdRecord {
  type: 'cluster-id'
  id: string
}

/** A broker registered its listener. */
export interface BrokerRecord {
  type: 'broker'
  id: number
  host: string
  port: number
  rack: string | null
}

/** A broker stopped (fenced) or came back (unfenced). */
export interface BrokerFenceRecord {
  type: 'broker-fence'
  id: number
  fenced: boolean
}

export interface TopicRecord {
  type: 'topic'
  name: string
  /** Kafka's 22-character URL-safe base64 UUID. */
  id: string
}

/** A new partition with its replica set, ISR and first leader (a snapshot's: with its reassignment in progress, if any). */
export interface PartitionRecord {
  type: 'partition'
  topicId: string
  partition: number
  replicas: number[]
  isr: number[]
  leader: number
  leaderEpoch: number
  /** A reassignment in progress (KIP-455): the replicas being added and removed; absent: none. */
  adding?: number[]
  removing?: number[]
}

/** A partition's leader, ISR, replicas or reassignment changed; the leader epoch is the new one. */
export interface PartitionChangeRecord {
  type: 'partition-change'
  topicId: string
  partition: number
  leader: number
  leaderEpoch: number
  isr: number[]
  replicas: number[]
  /** The reassignment in progress after the change (absent: none; records written before reassignments carry neither). */
  adding?: number[]
  removing?: number[]
}

export interface RemoveTopicRecord {
  type: 'remove-topic'
  id: string
  name: string
}

/** A topic, broker (name = its id, '' for every broker) or group config set; a null value removes it. */
export interface ConfigRecord {
  type: 'config'
  resource: 'topic' | 'broker' | 'group'
  name: string
  key: string
  value: string | null
}

/** A block of producer ids was handed out: the next free one is `next` (a decimal string). */
export interface ProducerIdsRecord {
  type: 'producer-ids'
  next: string
}

/**
 * A user's SCRAM credential for one mechanism (1 SCRAM-SHA-256, 2
 * SCRAM-SHA-512) set by AlterUserScramCredentials: what the server keeps
 * (RFC 5802), base64; null when deleted (which also removes one the broker
 * was started with).
 */
export interface ScramCredentialRecord {
  type: 'scram'
  user: string
  mechanism: number
  credential: { salt: string; iterations: number; storedKey: string; serverKey: string } | null
}

/**
 * One client quota set by AlterClientQuotas (Kafka's QuotaRecord): the
 * entity (user, client-id, or both; ip), each name null for the default
 * one, the key (producer_byte_rate, ...) and its value; null removes it.
 */
export interface ClientQuotaRecord {
  type: 'client-quota'
  entity: QuotaEntity
  key: string
  value: number | null
}

/** A quota entity: its parts, each an entity type and a name (null: that type's default), in type order. */
export type QuotaEntity = Array<{ type: string; name: string | null }>

/** An ACL created by CreateAcls (Kafka's AccessControlEntryRecord): its id and binding (codes as Kafka's enums). */
export interface AclRecord {
  type: 'acl'
  id: string
  acl: Acl
}

/** An ACL deleted by DeleteAcls (Kafka's RemoveAccessControlEntryRecord). */
export interface RemoveAclRecord {
  type: 'remove-acl'
  id: string
}

/** A principal as a delegation token names its owner, requester and renewers: a type (User) and a name. */
export interface TokenPrincipal {
  type: string
  name: string
}

/**
 * A delegation token made or renewed (Kafka's DelegationTokenRecord): what
 * KIP-48 keeps of it, never its HMAC, which the secret key gives again.
 * Timestamps are epoch ms.
 */
export interface DelegationTokenRecord {
  type: 'delegation-token'
  token: {
    tokenId: string
    owner: TokenPrincipal
    requester: TokenPrincipal
    renewers: TokenPrincipal[]
    issueTimestamp: number
    maxTimestamp: number
    expiryTimestamp: number
  }
}

/** A delegation token expired at once or swept once expired (Kafka's RemoveDelegationTokenRecord). */
export interface RemoveDelegationTokenRecord {
  type: 'remove-delegation-token'
  tokenId: string
}

/**
 * A finalized feature's level (Kafka's FeatureLevelRecord; level 0: not
 * finalized), written at the first start and by UpdateFeatures. `epoch`
 * is the finalized features' epoch after it (ApiVersions'
 * finalizedFeaturesEpoch: Kafka's metadata offset of the change, here one
 * more than the last), kept in the record so a snapshot keeps it.
 */
export interface FeatureLevelRecord {
  type: 'feature'
  name: string
  level: number
  epoch: number
}
