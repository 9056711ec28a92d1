// The pipeline requests under way (/chat/completions, /responses, /embeddings), per gw instance:
// what shutdown waits for, and abortAll for what is left once the grace period is over (docs/
// availability.md "Upstream calls and streams"). After abortAll no new attempt starts.
import { cancel, type CancelReason, type RequestState } from "./state.ts";

/** The requests in flight as shutdown sees them (http/lifecycle.ts). */
export interface InFlightRequests {
  /** Aborts every request in flight (no new attempt starts after it); returns how many. */
  abortAll(reason: string): number;
  /** Resolves when nothing is in flight. */
  idle(): Promise<void>;
  readonly size: number;
}

export interface InFlight extends InFlightRequests {
  /** Whether abortAll ran: requests registered from then on are cancelled at once. */
  readonly closed: boolean;
  /** Registers a request; the returned function ends it (idempotent). A stream counts until
   * its last byte is out. */
  add(state: RequestState): () => void;
}

export function createInFlight(): InFlight {
  const live = new Set<RequestState>();
  let closedBy: CancelReason | null = null;
  let waiters: Array<() => void> = [];
  const settle = (): void => {
    if (live.size > 0 || waiters.length === 0) return;
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  };
  return {
    get size() {
      return live.size;
    },
    get closed() {
      return closedBy !== null;
    },
    add(state) {
      if (closedBy) cancel(state, closedBy);
      live.add(state);
      return () => {
        if (live.delete(state)) settle();
      };
    },
    /** Cancels every request under way (their upstream attempts are aborted, no retry or
     * fallback starts; a stream ends with its in-stream error) and every later one. */
    abortAll(reason: string) {
      const why: CancelReason = reason === "client" ? "client" : "shutdown";
      closedBy ??= why;
      for (const state of live) cancel(state, why);
      return live.size;
    },
    idle() {
      if (live.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
