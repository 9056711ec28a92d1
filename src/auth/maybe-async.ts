// A value now (single-node's SQLite) or later (the multi-instance mode's PostgreSQL or Redis): the
// dashboard's session and audit code runs one path for both without adding awaits to single-node.
export type MaybeAsync<T> = T | Promise<T>;

/** `next(value)` at once when `value` is plain, after it settles when it is a promise. */
export function andThen<T, U>(value: MaybeAsync<T>, next: (v: T) => MaybeAsync<U>): MaybeAsync<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
