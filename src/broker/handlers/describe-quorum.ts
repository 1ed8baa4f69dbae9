import { ZERO_UUID } from '../../protocol/api.js'
import { ErrorCodes } from '../../protocol/error-codes.js'
import {
  DescribeQuorum,
  type DescribeQuorumRequest,
  type DescribeQuorumResponse,
  type DescribeQuorumResponseReplicaState,
} from '../../protocol/messages/DescribeQuorum.js'
import type { Input } from '../../protocol/api.js'
import { defineHandler } from '../handler.js'
import { AclOperationTypes } from '../auth/acl-matching.js'
import { requireCluster } from '../auth/authorizer.js'

/** KRaft's metadata partition: the one DescribeQuorum describes. */
export const METADATA_TOPIC = '__cluster_metadata'
const METADATA_PARTITION = 0
/** The controller listener's name in a quorum node's endpoints (KRaft's usual controller.listener.names). */
const CONTROLLER_LISTENER = 'CONTROLLER'
/** Kafka's message for NOT_LEADER_OR_FOLLOWER (Errors.NOT_LEADER_OR_FOLLOWER.message()). */
const NOT_LEADER_MESSAGE =
  'For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.'
/** Kafka's message for UNKNOWN_TOPIC_OR_PARTITION (Errors.UNKNOWN_TOPIC_OR_PARTITION.message()), which its answer carries. */
const UNKNOWN_PARTITION_MESSAGE = 'This server does not host this topic-partition.'

/**
 * DescribeQuorum (admin describeMetadataQuorum, kafka-metadata-quorum.sh):
 * the embedded controller as KRaft's single voter of __cluster_metadata-0,
 * answered as KafkaRaftClient's leader answers it. The leader is the
 * controller id Metadata and DescribeCluster report, at the controller's
 * quorum epoch (a new one with each new leader); the high watermark is
 * the metadata log's end offset (its record count: every record is
 * committed once written); the other live brokers are observers at the log
 * end, as they read the controller's log in process. The voter's endpoint
 * (v2) is its broker listener under the name CONTROLLER: the embedded
 * controller has no listener of its own. Directory ids are unknown (zero),
 * as with KRaft's static voters.
 */
export const describeQuorumHandler = defineHandler<DescribeQuorumRequest, DescribeQuorumResponse>({
  spec: DescribeQuorum,
  minVersion: DescribeQuorum.minVersion,
  maxVersion: DescribeQuorum.maxVersion,
  handle(req, ctx) {
    requireCluster(ctx, AclOperationTypes.DESCRIBE)
    // KafkaRaftClient answers only a request for exactly its own partition; anything else gets the error on every partition asked.
    const [topic] = req.topics
    const own =
      req.topics.length === 1 &&
      topic.topicName === METADATA_TOPIC &&
      topic.partitions.length === 1 &&
      topic.partitions[0].partitionIndex === METADATA_PARTITION
    if (!own) {
      return {
        errorCode: ErrorCodes.NONE,
        topics: req.topics.map((t) => ({
          topicName: t.topicName,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            errorCode: ErrorCodes.UNKNOWN_TOPIC_OR_PARTITION,
            errorMessage: UNKNOWN_PARTITION_MESSAGE,
          })),
        })),
      }
    }
    const { controller } = ctx.cluster
    const leader = controller.activeController()
    // None live: only while the last broker stops (its requests in flight). KafkaRaftClient's answer when it does not lead.
    if (!leader) {
      return {
        errorCode: ErrorCodes.NONE,
        topics: [
          {
            topicName: METADATA_TOPIC,
            partitions: [
              { partitionIndex: METADATA_PARTITION, errorCode: ErrorCodes.NOT_LEADER_OR_FOLLOWER, errorMessage: NOT_LEADER_MESSAGE },
            ],
          },
        ],
      }
    }
    const end = BigInt(controller.log.length)
    const now = BigInt(Date.now())
    // The leader and every observer are at the log's end as of now (KafkaRaftClient reports the leader's times as now).
    const atEnd = (id: number): Input<DescribeQuorumResponseReplicaState> => ({
      replicaId: id,
      replicaDirectoryId: ZERO_UUID,
      logEndOffset: end,
      lastFetchTimestamp: now,
      lastCaughtUpTimestamp: now,
    })
    return {
      errorCode: ErrorCodes.NONE,
      errorMessage: null,
      topics: [
        {
          topicName: METADATA_TOPIC,
          partitions: [
            {
              partitionIndex: METADATA_PARTITION,
              errorCode: ErrorCodes.NONE,
              errorMessage: null,
              leaderId: leader.id,
              leaderEpoch: controller.quorumEpoch,
              highWatermark: end,
              currentVoters: [atEnd(leader.id)],
              observers: controller
                .liveBrokers()
                .filter((b) => b.id !== leader.id)
                .map((b) => atEnd(b.id)),
            },
          ],
        },
      ],
      // v2 on (the encoder refuses them below, as Kafka's RaftUtil adds them only from v2).
      nodes:
        ctx.version >= 2 ? [{ nodeId: leader.id, listeners: [{ name: CONTROLLER_LISTENER, host: leader.host, port: leader.port }] }] : [],
    }
  },
  // As DescribeQuorumRequest.getErrorResponse: the error at the top level with its message, no topics.
  errorResponse: (_req, code) => ({ errorCode: code, topics: [] }),
})
