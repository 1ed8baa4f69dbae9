// A task's stores and their state manager, made apart from its processors so
// that a standby task (standby-tasks.ts), which processes nothing, keeps the
// same stores an active task has, and hands them over when the task becomes
// active on this instance (Java recycles a StandbyTask into a StreamTask).
// Each store logs its changes to its changelog (partition = the task's) and
// into its file when persistent.
import { InMemoryKeyValueStore } from './key-value-store.js'
import { InMemoryWindowStore } from './window-store.js'
import { InMemorySessionStore } from './session-store.js'
import { TimeOrderedKeyValueBuffer } from './suppress-buffer.js'
import { ProcessorStateManager, type ManagedStore } from './state-manager.js'
import type { TaskEnvironment } from './stream-task.js'
import type { Subtopology, Topology } from './topology.js'

export type TaskStore =
  | InMemoryKeyValueStore<unknown, unknown>
  | InMemoryWindowStore<unknown, unknown>
  | InMemorySessionStore<unknown, unknown>
  | TimeOrderedKeyValueBuffer<unknown, unknown>

export interface TaskStores {
  stores: Map<string, TaskStore>
  /** The stores' files, checkpoint and restore (Java's ProcessorStateManager). */
  state: ProcessorStateManager
}

/** The stores of task `<sub>_<partition>`, not yet opened or restored. */
export function createTaskStores(topology: Topology, sub: Subtopology, partition: number, env: TaskEnvironment): TaskStores {
  const id = `${sub.id}_${partition}`
  const stores = new Map<string, TaskStore>()
  const managed: ManagedStore[] = []
  let state!: ProcessorStateManager
  for (const name of sub.stores) {
    const def = topology.stores.get(name)!
    const topic = env.changelogTopic(name)
    const keySerde = env.serde('key', def.keySerde, `store ${name}`)
    const valueSerde = env.serde('value', def.valueSerde, `store ${name}`)
    const log = (key: Buffer, value: Buffer | null, timestamp: number) => {
      env.collector.send(topic, key, value, timestamp, partition)
      state.changed(name, key, value, timestamp)
    }
    if (def.suppressBuffer) {
      // Java's buffer sends without a timestamp: the producer's clock.
      const logBuffer = (key: Buffer, value: Buffer | null, headers: Array<[string, Buffer]> | undefined) =>
        env.collector.send(topic, key, value, Date.now(), partition, headers)
      stores.set(name, new TimeOrderedKeyValueBuffer(name, keySerde, valueSerde, topic, logBuffer))
      continue
    }
    stores.set(
      name,
      def.window
        ? new InMemoryWindowStore(name, keySerde, valueSerde, def.window.retentionMs, topic, log, def.window.retainDuplicates)
        : def.session
          ? new InMemorySessionStore(name, keySerde, valueSerde, def.session.retentionMs, topic, log)
          : new InMemoryKeyValueStore(name, keySerde, valueSerde, topic, log),
    )
  }
  for (const [name, store] of stores) {
    const def = topology.stores.get(name)!
    // A suppression buffer stays in memory, as Java's (InMemoryTimeOrderedKeyValueBuffer).
    const persistent = !def.suppressBuffer && env.persistent(def)
    managed.push({ name, store, topic: env.changelogTopic(name), partition, persistent })
  }
  state = new ProcessorStateManager(id, managed, env.stateDirectory, env.exactlyOnce, env.log)
  return { stores, state }
}
