// A circuit opened by one instance, seen by all (docs/routing.md "Provider health"): each instance
// keeps its own breaker (routing/circuit-breaker.ts), and one that opens a provider+model's circuit
// raises this flag until its cooldown ends. In process a map; on Redis store/redis/circuit-flags.ts.

export interface CircuitFlag {
  /** Epoch ms when the cooldown ends and a probe may go. */
  until: number;
  /** The latest failure, in gw's words, for the refusal message. */
  reason: string;
}

type Maybe<T> = T | Promise<T>;

export interface CircuitFlagStore {
  /** Raises (or extends, never shortens) the key's flag until `flag.until`. */
  open(key: string, flag: CircuitFlag, now: number): Maybe<void>;
  /** The flags still raised at `now` among `keys` (one round trip for a request's candidates). */
  raised(keys: readonly string[], now: number): Maybe<Map<string, CircuitFlag>>;
  /** Lowers the flag: a probe succeeded. */
  close(key: string): Maybe<void>;
}

/** One process: the flags in a map, each dropped when read after its end. */
export class LocalCircuitFlags implements CircuitFlagStore {
  private readonly flags = new Map<string, CircuitFlag>();

  open(key: string, flag: CircuitFlag): void {
    const held = this.flags.get(key);
    if (!held || held.until < flag.until) this.flags.set(key, { ...flag });
  }

  raised(keys: readonly string[], now: number): Map<string, CircuitFlag> {
    const out = new Map<string, CircuitFlag>();
    for (const key of keys) {
      const flag = this.flags.get(key);
      if (!flag) continue;
      if (flag.until <= now) this.flags.delete(key);
      else out.set(key, flag);
    }
    return out;
  }

  close(key: string): void {
    this.flags.delete(key);
  }
}
