// Everything the generator writes, as { path relative to the repository: text }.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { apiFile, apiKeysFile, dataFile, errorCodesFile, indexFile } from './emit-files.mjs'
import { loadMessage } from './spec.mjs'

/** The APIs wafka has codecs for. */
export const API_NAMES = [
  'ApiVersions',
  'Metadata',
  'Produce',
  'Fetch',
  'ListOffsets',
  'FindCoordinator',
  'JoinGroup',
  'SyncGroup',
  'Heartbeat',
  'LeaveGroup',
  'OffsetCommit',
  'OffsetFetch',
  'InitProducerId',
  'AddPartitionsToTxn',
  'AddOffsetsToTxn',
  'EndTxn',
  'TxnOffsetCommit',
  'ConsumerGroupHeartbeat',
  'CreateTopics',
  'DeleteTopics',
  'CreatePartitions',
  'DeleteRecords',
  'DescribeConfigs',
  'IncrementalAlterConfigs',
  'AlterConfigs',
  'DescribeClientQuotas',
  'AlterClientQuotas',
  'DescribeGroups',
  'ListGroups',
  'DeleteGroups',
  'OffsetDelete',
  'DescribeCluster',
  'OffsetForLeaderEpoch',
  'SaslHandshake',
  'SaslAuthenticate',
  'ElectLeaders',
  'AlterPartitionReassignments',
  'ListPartitionReassignments',
  'ConsumerGroupDescribe',
  'CreateAcls',
  'DescribeAcls',
  'DeleteAcls',
  'DescribeUserScramCredentials',
  'AlterUserScramCredentials',
  'DescribeTopicPartitions',
  'DescribeLogDirs',
  'DescribeProducers',
  'DescribeTransactions',
  'ListTransactions',
  'DescribeQuorum',
  'ShareGroupHeartbeat',
  'ShareGroupDescribe',
  'ShareFetch',
  'ShareAcknowledge',
  'DescribeShareGroupOffsets',
  'AlterShareGroupOffsets',
  'DeleteShareGroupOffsets',
  'CreateDelegationToken',
  'RenewDelegationToken',
  'ExpireDelegationToken',
  'DescribeDelegationToken',
  'UpdateFeatures',
  'ListConfigResources',
  'StreamsGroupHeartbeat',
  'StreamsGroupDescribe',
]
/** Versioned payloads that are not RPCs, emitted together in ConsumerProtocol.ts. */
export const DATA_NAMES = ['ConsumerProtocolSubscription', 'ConsumerProtocolAssignment']
/** The group coordinator's records in __consumer_offsets (keys and values), emitted together in GroupCoordinatorRecords.ts. */
export const GROUP_RECORD_NAMES = [
  'OffsetCommitKey',
  'OffsetCommitValue',
  'GroupMetadataKey',
  'GroupMetadataValue',
  'ConsumerGroupMetadataKey',
  'ConsumerGroupMetadataValue',
  'ConsumerGroupPartitionMetadataKey',
  'ConsumerGroupPartitionMetadataValue',
  'ConsumerGroupMemberMetadataKey',
  'ConsumerGroupMemberMetadataValue',
  'ConsumerGroupTargetAssignmentMetadataKey',
  'ConsumerGroupTargetAssignmentMetadataValue',
  'ConsumerGroupTargetAssignmentMemberKey',
  'ConsumerGroupTargetAssignmentMemberValue',
  'ConsumerGroupCurrentMemberAssignmentKey',
  'ConsumerGroupCurrentMemberAssignmentValue',
  'ShareGroupMemberMetadataKey',
  'ShareGroupMemberMetadataValue',
  'ShareGroupMetadataKey',
  'ShareGroupMetadataValue',
  'ShareGroupTargetAssignmentMetadataKey',
  'ShareGroupTargetAssignmentMetadataValue',
  'ShareGroupTargetAssignmentMemberKey',
  'ShareGroupTargetAssignmentMemberValue',
  'ShareGroupCurrentMemberAssignmentKey',
  'ShareGroupCurrentMemberAssignmentValue',
  'ShareGroupStatePartitionMetadataKey',
  'ShareGroupStatePartitionMetadataValue',
  'StreamsGroupMetadataKey',
  'StreamsGroupMetadataValue',
  'StreamsGroupTopologyKey',
  'StreamsGroupTopologyValue',
  'StreamsGroupMemberMetadataKey',
  'StreamsGroupMemberMetadataValue',
  'StreamsGroupTargetAssignmentMetadataKey',
  'StreamsGroupTargetAssignmentMetadataValue',
  'StreamsGroupTargetAssignmentMemberKey',
  'StreamsGroupTargetAssignmentMemberValue',
  'StreamsGroupCurrentMemberAssignmentKey',
  'StreamsGroupCurrentMemberAssignmentValue',
]

/** The transaction coordinator's records in __transaction_state, emitted together in TransactionLogRecords.ts. */
export const TRANSACTION_RECORD_NAMES = ['TransactionLogKey', 'TransactionLogValue']

export const MESSAGES_OUT = 'src/protocol/messages'
export const ERROR_CODES_OUT = 'src/protocol/error-codes.ts'

export function generate(specDir) {
  const messagesDir = join(specDir, 'messages')
  const files = new Map()
  const apis = []
  for (const name of API_NAMES) {
    const request = loadMessage(messagesDir, `${name}Request`)
    const response = loadMessage(messagesDir, `${name}Response`)
    files.set(`${MESSAGES_OUT}/${name}.ts`, apiFile(name, request, response))
    apis.push({ name, apiKey: request.apiKey })
  }
  files.set(`${MESSAGES_OUT}/ConsumerProtocol.ts`, dataFile(DATA_NAMES.map((n) => loadMessage(messagesDir, n))))
  files.set(`${MESSAGES_OUT}/GroupCoordinatorRecords.ts`, dataFile(GROUP_RECORD_NAMES.map((n) => loadMessage(messagesDir, n))))
  files.set(`${MESSAGES_OUT}/TransactionLogRecords.ts`, dataFile(TRANSACTION_RECORD_NAMES.map((n) => loadMessage(messagesDir, n))))
  const requests = readdirSync(messagesDir)
    .filter((f) => f.endsWith('Request.json'))
    .sort()
    .map((f) => loadMessage(messagesDir, f.slice(0, -'.json'.length)))
  files.set(`${MESSAGES_OUT}/api-keys.ts`, apiKeysFile(requests))
  files.set(`${MESSAGES_OUT}/index.ts`, indexFile(apis, ['ConsumerProtocol', 'GroupCoordinatorRecords', 'TransactionLogRecords']))
  files.set(ERROR_CODES_OUT, errorCodesFile(readErrorCodes(join(specDir, 'error-codes.tsv'))))
  return files
}

function readErrorCodes(path) {
  const [head, ...lines] = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
  if (head.split('\t').join(',') !== 'code,name,retriable,description') throw new Error(`${path}: unexpected columns ${head}`)
  return lines.map((line) => {
    const [code, name, retriable, description] = line.split('\t')
    if (!/^-?\d+$/.test(code) || !/^[A-Z0-9_]+$/.test(name) || !['true', 'false'].includes(retriable)) {
      throw new Error(`${path}: cannot read ${JSON.stringify(line)}`)
    }
    return { code: Number(code), name, retriable: retriable === 'true', description: description ?? '' }
  })
}
