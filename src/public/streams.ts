// wafka/streams: Kafka Streams' model (see src/streams/): StreamsBuilder,
// Topology, KStream, KGroupedStream, KTable, KafkaStreams and the serdes.
export { StreamsBuilder, type Consumed } from '../streams/streams-builder.js'
export { Topology, TopologyError, type TopicNameExtractor, type RecordContext, type StreamRecord } from '../streams/topology.js'
export type { TopologyDescription, SubtopologyDescription, NodeDescription } from '../streams/topology-description.js'
export { KStream, type Produced, type Grouped, type Repartitioned } from '../streams/kstream.js'
export { KGroupedStream, type Materialized } from '../streams/kgrouped-stream.js'
export { KTable } from '../streams/ktable.js'
export type { ForeignKeyExtractor, ForeignKeyJoinOptions } from '../streams/fk-join.js'
export { GlobalKTable } from '../streams/global-table.js'
export type { KeyValueMapper } from '../streams/stream-global-table-join.js'
export type { ValueJoiner } from '../streams/stream-table-join.js'
export { BranchedKStream, type Branched } from '../streams/branched-kstream.js'
export { KeyValue } from '../streams/key-value.js'
export type { KeyValueStore } from '../streams/key-value-store.js'
export {
  KafkaStreams,
  type StreamsState,
  type StateListener,
  type StoreQueryParameters,
  type StreamThreadExceptionResponse,
  type UncaughtExceptionHandler,
} from '../streams/kafka-streams.js'
export type { StreamsConfig, ProcessingGuarantee, StreamsGroupProtocol, CloseOptions } from '../streams/options.js'
export {
  ApplicationShutdownError,
  IllegalStateError,
  StreamsError,
  StreamsNotStartedError,
  UnsupportedOperationError,
} from '../streams/streams-error.js'
export {
  NOT_AVAILABLE,
  UNAVAILABLE_HOST,
  type HostInfo,
  type KeyQueryMetadata,
  type KeySerializer,
  type StreamPartitioner,
  type StreamsMetadata,
} from '../streams/streams-metadata.js'
export { StoreCorruptedError } from '../streams/store-file.js'
export type { DslStoreType } from '../streams/nodes.js'
export {
  Stores,
  type Processor,
  type ProcessorContext,
  type ProcessorSupplier,
  type PunctuationType,
  type Punctuator,
  type Cancellable,
  type RecordMetadata,
  type StoreBuilder,
  type KeyValueBytesStoreSupplier,
} from '../streams/processor.js'
export {
  InvalidStateStoreError,
  type QueryableStoreType,
  type ReadOnlyKeyValueStore,
  type ReadOnlyWindowStore,
  type ReadOnlySessionStore,
} from '../streams/interactive-queries.js'
export type {
  DeserializationExceptionHandler,
  DeserializationFailure,
  DeserializationResponse,
} from '../streams/deserialization-handler.js'
export { Serdes, SerializationError, type Serde } from '../streams/serdes.js'
export { WindowedSerdes, type Windowed, type Window } from '../streams/windowed-serdes.js'
export { TimeWindows } from '../streams/time-windows.js'
export { JoinWindows } from '../streams/join-windows.js'
export type { StreamJoined, StreamValueJoiner } from '../streams/stream-stream-join.js'
export { TimeWindowedKStream } from '../streams/time-windowed-kstream.js'
export { SlidingWindows } from '../streams/sliding-windows.js'
export { SlidingWindowedKStream } from '../streams/sliding-windowed-kstream.js'
export { SessionWindows } from '../streams/session-windows.js'
export { SessionWindowedKStream, type Merger } from '../streams/session-windowed-kstream.js'
export type { SessionStore } from '../streams/session-store.js'
export type { WindowStore } from '../streams/window-store.js'
export { Suppressed, BufferConfig, type BufferFullStrategy } from '../streams/suppressed.js'
