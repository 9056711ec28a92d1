// Gives memory back after a burst (docs/availability.md "Memory"): a few seconds after requests
// stop, one full garbage collection runs; never while requests come in, at most once a minute.
import type { Lifecycle } from "./lifecycle.ts";

const CHECK_MS = 5_000;
const MIN_GAP_MS = 60_000;

/** One check: collects when the last check saw requests and this one sees none. */
export function idleCollector(lifecycle: Lifecycle, collect: () => void, now: () => number = Date.now): () => boolean {
  let seen = lifecycle.requests;
  let dirty = false;
  let lastRun = -Infinity;
  return () => {
    if (lifecycle.requests !== seen || lifecycle.inFlight.size > 0) {
      seen = lifecycle.requests;
      dirty = true;
      return false;
    }
    if (!dirty || now() - lastRun < MIN_GAP_MS) return false;
    dirty = false;
    lastRun = now();
    collect();
    return true;
  };
}

/** `alsoCollect`: the worker threads, whose heaps this thread's collection does not reach. */
export function startIdleGc(lifecycle: Lifecycle, alsoCollect: () => void = () => {}): { stop(): void } {
  const check = idleCollector(lifecycle, () => {
    alsoCollect();
    Bun.gc(true);
    // Hands freed pages back to the system (the allocators keep them otherwise).
    Bun.shrink();
  });
  const timer = setInterval(check, CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
