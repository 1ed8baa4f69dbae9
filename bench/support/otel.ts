/**
 * `--otel`: the wafka child runs with the OpenTelemetry SDK registered
 * (tracer provider with a batching span processor, the AsyncLocalStorage
 * context manager, the W3C propagator, a meter provider) and wafka/otel's
 * instrument() on, before it connects: every message gets its send or
 * process span and its traceparent header, as in an instrumented service.
 * The exporter counts the spans and drops them, so the figures are what
 * the instrumentation costs, not a collector's network.
 */
export const otelFlag = (): boolean => process.argv.includes('--otel')

/** Registers the SDK and wafka/otel; returns the spans exported so far (after a flush). */
export async function registerOtel(): Promise<() => Promise<number>> {
  // Imported here so a run without --otel (and a peer's child) loads none of it.
  const [{ context, metrics, propagation, trace }, { AsyncLocalStorageContextManager }, core, sdk, { MeterProvider }, { instrument }] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/sdk-metrics'),
      import('../../src/observe/otel.js'),
    ])
  let exported = 0
  const exporter = {
    export(spans: unknown[], done: (r: { code: number }) => void) {
      exported += spans.length
      done({ code: core.ExportResultCode.SUCCESS })
    },
    async shutdown() {},
  }
  const processor = new sdk.BatchSpanProcessor(exporter, { maxQueueSize: 65_536, maxExportBatchSize: 8_192 })
  trace.setGlobalTracerProvider(new sdk.BasicTracerProvider({ spanProcessors: [processor] }))
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator())
  metrics.setGlobalMeterProvider(new MeterProvider())
  instrument()
  return async () => {
    await processor.forceFlush()
    return exported
  }
}
