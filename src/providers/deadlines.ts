// Deadlines for upstream attempts without a timer per request (docs/availability.md "Deadlines"):
// one sweeper, every 50 ms while something is watched, aborts what passed its deadline. Timers per
// request were a measurable share of the hot path; 50 ms of slack on seconds-long deadlines is fine.
const SWEEP_MS = 50;

/** The abort reason of an attempt whose deadline passed. */
export const DEADLINE_PASSED: unique symbol = Symbol("gw.deadlinePassed");

const watched = new Map<AbortController, number>();
/** A watch's own abort reason (an idle stream's time-out failure), else DEADLINE_PASSED. */
const reasons = new WeakMap<AbortController, unknown>();
let sweeper: ReturnType<typeof setInterval> | null = null;

// Wall clock, not Deps' clock: these deadlines abort real sockets from a real timer, and the call
// stage sets the request's deadline from Date.now() too; a moved test clock would never fire them.
function sweep(): void {
  const now = Date.now();
  for (const [controller, at] of watched) {
    if (at > now) continue;
    watched.delete(controller);
    controller.abort(reasons.get(controller) ?? DEADLINE_PASSED);
  }
  if (watched.size === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = null;
  }
}

/** The request's overall deadline (epoch ms) carried by an attempt's controller: the call stage
 * sets it, the transport never waits past it whatever its own per-attempt time-out. */
const requestDeadlines = new WeakMap<AbortController, number>();

export function setRequestDeadline(controller: AbortController, atMs: number): void {
  requestDeadlines.set(controller, atMs);
}

export function watchDeadline(controller: AbortController, ms: number): void {
  reasons.delete(controller);
  arm(controller, Math.min(Date.now() + ms, requestDeadlines.get(controller) ?? Infinity));
}

/** Re-armed after every upstream read of a stream: aborts with `reason` once the upstream has
 * been silent for `ms`. Not capped by the request's deadline: a stream that keeps talking may
 * outlive it (GW_REQUEST_TIMEOUT_MS bounds reaching an answer, docs/availability.md). */
export function watchIdle(controller: AbortController, ms: number, reason: unknown): void {
  reasons.set(controller, reason);
  arm(controller, Date.now() + ms);
}

function arm(controller: AbortController, at: number): void {
  watched.set(controller, at);
  if (!sweeper) {
    sweeper = setInterval(sweep, SWEEP_MS);
    sweeper.unref();
  }
}

export function clearDeadline(controller: AbortController): void {
  watched.delete(controller);
}

export const deadlinePassed = (controller: AbortController): boolean =>
  controller.signal.aborted && controller.signal.reason === DEADLINE_PASSED;
