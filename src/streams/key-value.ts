// Java's KeyValue: what map and flatMap return, `KeyValue.pair(key, value)`.
export interface KeyValue<K, V> {
  key: K
  value: V
}

export const KeyValue = {
  pair: <K, V>(key: K, value: V): KeyValue<K, V> => ({ key, value }),
} as const
