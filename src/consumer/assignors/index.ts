import type { PartitionAssignor } from './assignor.js'
import { cooperativeStickyAssignor } from './cooperative-sticky.js'
import { rangeAssignor } from './range.js'
import { kafkaJSRoundRobinAssignor, roundRobinAssignor } from './round-robin.js'

export type { AssignContext, MemberAssignment, MemberSubscription, PartitionAssignor, TopicPartitions } from './assignor.js'
export { cooperativeStickyAssignor } from './cooperative-sticky.js'
export { rangeAssignor } from './range.js'
export { kafkaJSRoundRobinAssignor, roundRobinAssignor } from './round-robin.js'
export {
  ASSIGNMENT_VERSION,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  SUBSCRIPTION_VERSION,
  type OwnSubscription,
} from './subscription.js'

const builtIn: ReadonlyMap<string, PartitionAssignor> = new Map(
  [rangeAssignor, roundRobinAssignor, cooperativeStickyAssignor, kafkaJSRoundRobinAssignor].map((a) => [a.name, a]),
)

/** The built-in assignor offered under `name` ('range', 'roundrobin', 'cooperative-sticky' — Java's names; KafkaJS's 'RoundRobinAssigner'), or undefined. */
export function assignorByName(name: string): PartitionAssignor | undefined {
  return builtIn.get(name)
}
