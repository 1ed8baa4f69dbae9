/**
 * Where each API's requests go by default, beside the generated specs (as
 * franz-go's kmsg marks admin, group and transaction requests). The cluster's
 * Route (src/cluster/route.ts) names a destination of one of these kinds;
 * 'leader', 'group' and 'transaction' need a key the caller gives.
 */
export type RouteKind = 'any' | 'node' | 'leader' | 'controller' | 'group' | 'transaction'

export const API_ROUTES: Readonly<Record<string, RouteKind>> = {
  // Data: a partition's leader.
  Produce: 'leader',
  Fetch: 'leader',
  ListOffsets: 'leader',
  OffsetForLeaderEpoch: 'leader',
  DeleteRecords: 'leader',
  // A share group's records: each partition's leader holds its share-partition (KIP-932).
  ShareFetch: 'leader',
  ShareAcknowledge: 'leader',
  // Topic and cluster changes: the controller (any broker forwards since KIP-590, but the controller answers first).
  CreateTopics: 'controller',
  DeleteTopics: 'controller',
  CreatePartitions: 'controller',
  ElectLeaders: 'controller',
  AlterPartitionReassignments: 'controller',
  ListPartitionReassignments: 'controller',
  // A group's coordinator.
  JoinGroup: 'group',
  SyncGroup: 'group',
  Heartbeat: 'group',
  LeaveGroup: 'group',
  OffsetCommit: 'group',
  OffsetFetch: 'group',
  OffsetDelete: 'group',
  DescribeGroups: 'group',
  DeleteGroups: 'group',
  ConsumerGroupHeartbeat: 'group',
  ConsumerGroupDescribe: 'group',
  ShareGroupHeartbeat: 'group',
  ShareGroupDescribe: 'group',
  StreamsGroupHeartbeat: 'group',
  StreamsGroupDescribe: 'group',
  DescribeShareGroupOffsets: 'group',
  AlterShareGroupOffsets: 'group',
  DeleteShareGroupOffsets: 'group',
  TxnOffsetCommit: 'group',
  // A transactional id's coordinator.
  AddPartitionsToTxn: 'transaction',
  AddOffsetsToTxn: 'transaction',
  EndTxn: 'transaction',
  InitProducerId: 'transaction',
  // Each broker answers for itself.
  ListGroups: 'node',
  DescribeLogDirs: 'node',
  ListTransactions: 'node',
  DescribeProducers: 'leader',
  DescribeTransactions: 'transaction',
  // Any broker.
  ApiVersions: 'any',
  Metadata: 'any',
  DescribeTopicPartitions: 'any',
  FindCoordinator: 'any',
  DescribeCluster: 'any',
  DescribeQuorum: 'any',
  DescribeConfigs: 'any',
  IncrementalAlterConfigs: 'any',
  AlterConfigs: 'any',
  CreateAcls: 'any',
  DescribeAcls: 'any',
  DeleteAcls: 'any',
  DescribeUserScramCredentials: 'any',
  AlterUserScramCredentials: 'any',
  CreateDelegationToken: 'any',
  RenewDelegationToken: 'any',
  ExpireDelegationToken: 'any',
  DescribeDelegationToken: 'any',
  DescribeClientQuotas: 'any',
  AlterClientQuotas: 'any',
  UpdateFeatures: 'any',
  ListConfigResources: 'any',
  SaslHandshake: 'any',
  SaslAuthenticate: 'any',
}
