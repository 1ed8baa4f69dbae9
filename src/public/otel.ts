// wafka/otel: OpenTelemetry spans from wafka's tracing channels (see src/observe/otel.ts).
// @opentelemetry/api is an optional peer dependency: only this entry loads it.
export { instrument, type WafkaInstrumentation, type WafkaInstrumentationOptions } from '../observe/otel.js'
