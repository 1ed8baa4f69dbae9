// The topology node a `KStream.process()` call adds: per task, a processor
// from the user's supplier, initialised with its context and closed with the
// task.
import type { Processor, ProcessorContext, ProcessorSupplier } from './processor.js'
import { TopologyError, type ProcessorNode, type Topology } from './topology.js'

export type { ProcessorSupplier } from './processor.js'

/** What process() refuses before it names a node: a supplier that is not a function, a store not added. */
export function checkProcess(topology: Topology, supplier: unknown, storeNames: string[]): void {
  if (typeof supplier !== 'function') throw new TypeError('process() takes a function that makes a new processor for each task')
  for (const store of storeNames)
    if (!topology.stores.has(store)) throw new TopologyError(`store ${store} is not added yet: builder.addStateStore() it before process()`)
}

export function processorNode(name: string, parent: string, supplier: ProcessorSupplier, storeNames: string[]): ProcessorNode {
  return {
    kind: 'processor',
    name,
    parents: [parent],
    stores: [...storeNames],
    make: (rt) => {
      const processor: Processor = supplier()
      if (!processor || typeof processor.process !== 'function')
        throw new TypeError(`the supplier of ${name} must return a processor (an object with process(record))`)
      const context: ProcessorContext = {
        applicationId: rt.applicationId,
        taskId: rt.taskId,
        forward: (record, childName) => rt.forward(record, childName),
        getStateStore: (store) => rt.store(store),
        schedule: (intervalMs, type, punctuator) => rt.schedule(intervalMs, type, punctuator),
        recordMetadata: () => {
          if (rt.punctuating()) return null
          const { topic, partition, offset } = rt.context()
          return { topic, partition, offset }
        },
        currentStreamTimeMs: () => rt.streamTime(),
        currentSystemTimeMs: () => Date.now(),
      }
      processor.init?.(context)
      rt.onClose(() => processor.close?.())
      return (record) => processor.process(record)
    },
  }
}
