import type { Handler } from './handler.js'
import { addOffsetsToTxnHandler } from './handlers/add-offsets-to-txn.js'
import { addPartitionsToTxnHandler } from './handlers/add-partitions-to-txn.js'
import { alterClientQuotasHandler } from './handlers/alter-client-quotas.js'
import { alterConfigsHandler } from './handlers/alter-configs.js'
import { alterUserScramCredentialsHandler } from './handlers/alter-user-scram-credentials.js'
import { apiVersionsHandler, served } from './handlers/api-versions.js'
import { consumerGroupDescribeHandler } from './handlers/consumer-group-describe.js'
import { consumerGroupHeartbeatHandler } from './handlers/consumer-group-heartbeat.js'
import { streamsGroupDescribeHandler } from './handlers/streams-group-describe.js'
import { streamsGroupHeartbeatHandler } from './handlers/streams-group-heartbeat.js'
import { createAclsHandler } from './handlers/create-acls.js'
import { createDelegationTokenHandler } from './handlers/create-delegation-token.js'
import { createPartitionsHandler } from './handlers/create-partitions.js'
import { createTopicsHandler } from './handlers/create-topics.js'
import { deleteAclsHandler } from './handlers/delete-acls.js'
import { deleteGroupsHandler } from './handlers/delete-groups.js'
import { deleteRecordsHandler } from './handlers/delete-records.js'
import { deleteTopicsHandler } from './handlers/delete-topics.js'
import { describeAclsHandler } from './handlers/describe-acls.js'
import { describeClusterHandler } from './handlers/describe-cluster.js'
import { describeClientQuotasHandler } from './handlers/describe-client-quotas.js'
import { describeConfigsHandler } from './handlers/describe-configs.js'
import { describeDelegationTokenHandler } from './handlers/describe-delegation-token.js'
import { describeGroupsHandler } from './handlers/describe-groups.js'
import { describeLogDirsHandler } from './handlers/describe-log-dirs.js'
import { describeProducersHandler } from './handlers/describe-producers.js'
import { describeQuorumHandler } from './handlers/describe-quorum.js'
import { describeTopicPartitionsHandler } from './handlers/describe-topic-partitions.js'
import { describeTransactionsHandler } from './handlers/describe-transactions.js'
import { describeUserScramCredentialsHandler } from './handlers/describe-user-scram-credentials.js'
import { electLeadersHandler } from './handlers/elect-leaders.js'
import { alterPartitionReassignmentsHandler } from './handlers/alter-partition-reassignments.js'
import { listPartitionReassignmentsHandler } from './handlers/list-partition-reassignments.js'
import { endTxnHandler } from './handlers/end-txn.js'
import { expireDelegationTokenHandler } from './handlers/expire-delegation-token.js'
import { fetchHandler } from './handlers/fetch.js'
import { findCoordinatorHandler } from './handlers/find-coordinator.js'
import { heartbeatHandler } from './handlers/heartbeat.js'
import { incrementalAlterConfigsHandler } from './handlers/incremental-alter-configs.js'
import { initProducerIdHandler } from './handlers/init-producer-id.js'
import { joinGroupHandler } from './handlers/join-group.js'
import { leaveGroupHandler } from './handlers/leave-group.js'
import { listGroupsHandler } from './handlers/list-groups.js'
import { listOffsetsHandler } from './handlers/list-offsets.js'
import { listTransactionsHandler } from './handlers/list-transactions.js'
import { metadataHandler } from './handlers/metadata.js'
import { offsetCommitHandler } from './handlers/offset-commit.js'
import { offsetDeleteHandler } from './handlers/offset-delete.js'
import { offsetFetchHandler } from './handlers/offset-fetch.js'
import { offsetForLeaderEpochHandler } from './handlers/offset-for-leader-epoch.js'
import { produceHandler } from './handlers/produce.js'
import { renewDelegationTokenHandler } from './handlers/renew-delegation-token.js'
import { saslAuthenticateHandler } from './handlers/sasl-authenticate.js'
import { saslHandshakeHandler } from './handlers/sasl-handshake.js'
import { shareAcknowledgeHandler } from './handlers/share-acknowledge.js'
import { shareFetchHandler } from './handlers/share-fetch.js'
import { shareGroupDescribeHandler } from './handlers/share-group-describe.js'
import { shareGroupHeartbeatHandler } from './handlers/share-group-heartbeat.js'
import { describeShareGroupOffsetsHandler } from './handlers/describe-share-group-offsets.js'
import { alterShareGroupOffsetsHandler } from './handlers/alter-share-group-offsets.js'
import { deleteShareGroupOffsetsHandler } from './handlers/delete-share-group-offsets.js'
import { syncGroupHandler } from './handlers/sync-group.js'
import { txnOffsetCommitHandler } from './handlers/txn-offset-commit.js'
import { updateFeaturesHandler } from './handlers/update-features.js'
import { listConfigResourcesHandler } from './handlers/list-config-resources.js'

/** The one table from API key to handler: what is here is served and advertised, nothing else. */
export const handlers: Record<number, Handler> = {}
for (const h of [
  produceHandler,
  fetchHandler,
  listOffsetsHandler,
  metadataHandler,
  offsetCommitHandler,
  offsetFetchHandler,
  findCoordinatorHandler,
  joinGroupHandler,
  heartbeatHandler,
  leaveGroupHandler,
  syncGroupHandler,
  describeGroupsHandler,
  listGroupsHandler,
  saslHandshakeHandler,
  apiVersionsHandler,
  createTopicsHandler,
  deleteTopicsHandler,
  initProducerIdHandler,
  addPartitionsToTxnHandler,
  addOffsetsToTxnHandler,
  endTxnHandler,
  txnOffsetCommitHandler,
  describeConfigsHandler,
  describeAclsHandler,
  createAclsHandler,
  deleteAclsHandler,
  createPartitionsHandler,
  deleteGroupsHandler,
  describeClusterHandler,
  describeQuorumHandler,
  deleteRecordsHandler,
  saslAuthenticateHandler,
  electLeadersHandler,
  offsetForLeaderEpochHandler,
  incrementalAlterConfigsHandler,
  alterConfigsHandler,
  offsetDeleteHandler,
  describeTopicPartitionsHandler,
  consumerGroupHeartbeatHandler,
  consumerGroupDescribeHandler,
  streamsGroupHeartbeatHandler,
  streamsGroupDescribeHandler,
  describeUserScramCredentialsHandler,
  alterUserScramCredentialsHandler,
  describeLogDirsHandler,
  describeProducersHandler,
  describeTransactionsHandler,
  listTransactionsHandler,
  describeClientQuotasHandler,
  alterClientQuotasHandler,
  alterPartitionReassignmentsHandler,
  listPartitionReassignmentsHandler,
  createDelegationTokenHandler,
  renewDelegationTokenHandler,
  expireDelegationTokenHandler,
  describeDelegationTokenHandler,
  updateFeaturesHandler,
  listConfigResourcesHandler,
  shareGroupHeartbeatHandler,
  shareGroupDescribeHandler,
  shareFetchHandler,
  shareAcknowledgeHandler,
  describeShareGroupOffsetsHandler,
  alterShareGroupOffsetsHandler,
  deleteShareGroupOffsetsHandler,
] as Handler[]) {
  if (h.minVersion < h.spec.minVersion || h.maxVersion > h.spec.maxVersion || h.minVersion > h.maxVersion) {
    throw new Error(
      `${h.spec.name}: served versions ${h.minVersion}-${h.maxVersion} are outside its codec's ${h.spec.minVersion}-${h.spec.maxVersion}`,
    )
  }
  handlers[h.spec.apiKey] = h
}
served.table = handlers
