/**
 * A record with a value for each of `keys` (zero sums per measure, counts per type). TypeScript types what
 * Object.fromEntries builds by string keys only; that its keys are exactly `keys` is said once, here.
 */
export function recordOf<K extends string, V>(keys: readonly K[], valueOf: (key: K) => V): Record<K, V> {
  return Object.fromEntries(keys.map((key) => [key, valueOf(key)])) as Record<K, V>;
}
