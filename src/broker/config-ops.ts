/**
 * IncrementalAlterConfigs' operations, shared by topic, broker and group
 * resources: the codes on the wire and what APPEND and SUBTRACT do to a
 * LIST config, as Kafka's controller does.
 */
export const OP_SET = 0
export const OP_DELETE = 1
export const OP_APPEND = 2
export const OP_SUBTRACT = 3
const OP_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT']

/** Kafka's refusal of APPEND or SUBTRACT on a config that is not a LIST. */
export function notListProblem(op: number, key: string): string {
  return `Can't ${OP_NAMES[op]} to key ${key} because its type is not LIST.`
}

/**
 * A LIST config's value after APPEND or SUBTRACT: the items of `current`
 * (the value set, or the default's when unset), split on commas, with each
 * of `given`'s items added when missing or removed, joined again.
 */
export function listAfter(current: string, op: number, given: string): string {
  const items = current.split(',').filter((s) => s !== '')
  for (const item of given.split(',')) {
    if (item === '') continue
    const at = items.indexOf(item)
    if (op === OP_APPEND && at < 0) items.push(item)
    if (op === OP_SUBTRACT && at >= 0) items.splice(at, 1)
  }
  return items.join(',')
}

/** Kafka's refusal of a config key named twice in one resource, or null. */
export function duplicateKeysProblem(names: string[]): string | null {
  const repeated = names.filter((n, i) => names.indexOf(n) !== i)
  return repeated.length ? `Error due to duplicate config keys: ${[...new Set(repeated)].join(', ')}` : null
}
